//! Chapter 9: subagents. Chapter 8's harness, plus the `Agent` tool: the
//! model hands a self-contained task to a subagent, which runs the same
//! loop in a fresh context with its own system prompt and tools, and
//! returns only its final text.
//!
//! `delegate.rs` is `Subagents`, the extension that offers the `Agent` tool
//! and runs a call of it in a subagent's context (agent files are read by
//! `wire_host::agents`, and `wire_host::resource_tool` lets the model read
//! an MCP resource); `join.rs` runs a reply's calls at the same time;
//! `cli.rs` is the command line. The loop and the rest are chapters 7's and
//! 8's. What a delegation saves is measured by the book's tool, which
//! drives this binary (`cargo xtask measure agents`).

mod cli;
mod delegate;
mod join;

use std::process::ExitCode;

use delegate::Subagents;
use skills::Skill;
// What chapters 6 to 8 taught, from the `wire-host` crate (`support/host`).
// Imported here, at the crate's root, so `crate::skills` and the like name
// them in every module.
use wire_host::host::Host;
use wire_host::mcp::Mcp;
use wire_host::resource_tool::ResourceTool;
use wire_host::seams::{Context, Extension, Harness};
use wire_host::show::{self, Log};
use wire_host::skill_tools::{self, Skills};
use wire_host::{agent, agents, skills, tokens};

/// The name this program goes by in its messages.
const PROGRAM: &str = "ch09-subagents";

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let cli = match cli::parse() {
        Ok(cli) => cli,
        Err(status) => return status,
    };
    let (skills, agents) = match load(&cli) {
        Ok(loaded) => loaded,
        Err(status) => return status,
    };
    // Building the tokenizer is pure CPU work: on the blocking pool it
    // overlaps the servers' start instead of stalling their pipes' tasks.
    let tokenizer = tokio::task::spawn_blocking(tokens::load);
    let main_agent: Option<String> = None;
    // STRETCH(ch09/spawn-allowlist): the agent `--agent` names.
    #[cfg(feature = "stretch")]
    let main_agent = cli.main_agent.clone().or(main_agent);
    // END(ch09/spawn-allowlist)
    let host = match Host::start(cli.servers, cli.options).await {
        Ok(host) => host,
        Err(err) => return show::ended(PROGRAM, Err(err)),
    };
    let names: Vec<&str> = skills.iter().map(|skill| skill.name.as_str()).collect();
    let agent_names: Vec<&str> = agents.iter().map(|agent| agent.name.as_str()).collect();
    let catalogue = skills::catalogue(&skills);
    show::introduce(&host, &names, &agent_names, &catalogue, &cli.prompt);
    let _ = tokenizer.await; // Ready before the first turn counts tokens.
    let mcp = Mcp {
        program: PROGRAM,
        host: &host,
    };
    let resources = ResourceTool { host: &host };
    let subagents = Subagents::new(agents, skills.clone(), cli.max_depth, cli.max_concurrent);
    let skills = Skills { skills };
    // ANCHOR: harness
    let extensions: Vec<&dyn Extension> = vec![&mcp, &resources, &skills, &subagents];
    let mut harness = Harness::new(PROGRAM, &cli.model, cli.max_turns, extensions);
    // The calls of one reply run at the same time (join.rs).
    harness.join = |runs| Box::pin(join::join_all(runs));
    // ANCHOR_END: harness
    let context = main_context(&harness, &subagents, main_agent.as_deref());
    let outcome = agent::run(&harness, context, &cli.prompt, &mut Log::printed()).await;
    drop(harness);
    host.shutdown().await;
    show::ended(PROGRAM, outcome)
}

/// The skills and agents the run uses, or, for `--check-agents`, the
/// status to end with once they are reported. (Chapter 8's `--check-skills`
/// stays there: `cargo run -p ch08-skills-solution -- --check-skills`.)
fn load(cli: &cli::Cli) -> Result<(Vec<Skill>, Vec<agents::Agent>), ExitCode> {
    let skills = wire_host::entries::usable(PROGRAM, &skills::load(&cli.skill_folders));
    let names: Vec<&str> = skills.iter().map(|skill| skill.name.as_str()).collect();
    let agent_entries = agents::load(&cli.agent_folders, &names);
    if cli.check_agents {
        return Err(agents::check(&agent_entries, &cli.servers));
    }
    let agents = agents::usable(PROGRAM, &agent_entries);
    // STRETCH(ch09/spawn-allowlist): find the agent `--agent` names among
    // the usable ones; a name that is none of them is a usage error.
    #[cfg(feature = "stretch")]
    if let Some(name) = &cli.main_agent
        && !agents.iter().any(|agent| agent.name == *name)
    {
        eprintln!("{PROGRAM}: --agent {name}: there is no usable agent by that name");
        return Err(ExitCode::from(2));
    }
    // END(ch09/spawn-allowlist)
    Ok((skills, agents))
}

/// The main conversation's context: the harness's, or with `--agent`
/// (the stretch) that agent's.
fn main_context(harness: &Harness<'_>, subagents: &Subagents, agent: Option<&str>) -> Context {
    let main_context = harness.main_context();
    let _ = (subagents, agent);
    // STRETCH(ch09/spawn-allowlist): with `--agent`, the main conversation
    // runs as that agent (delegate::main_thread_context).
    #[cfg(feature = "stretch")]
    let main_context = match (subagents.agents.iter()).find(|found| Some(&*found.name) == agent) {
        Some(found) => delegate::main_thread_context(subagents, harness, &main_context, found),
        None => main_context,
    };
    // END(ch09/spawn-allowlist)
    main_context
}
