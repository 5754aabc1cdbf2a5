//! Chapter 9: subagents. Chapter 8's agent loop, plus the `Agent` tool:
//! the model hands a self-contained task to a subagent, which runs the
//! same loop in a fresh context with its own system prompt and tools, and
//! returns only its final text.
//!
//! `delegate.rs` is the `Agent` tool and the subagent's context (agent
//! files are read by `wire_host::agents`, and `wire_host::resource_tool`
//! lets the model read an MCP resource); `cli.rs` is the command line. The
//! rest is chapter 8's, with small hooks: a context per conversation, and
//! tool calls run at once. What a delegation saves is measured by the
//! book's tool, which drives this binary (`cargo xtask measure agents`).

mod agent;
mod cli;
mod delegate;
mod harness;
mod join;

use std::process::ExitCode;

use agent::{Harness, Log};
use skills::Skill;
// What chapters 6 to 8 taught, from the `wire-host` crate (`support/host`).
// Imported here, at the crate's root, so `crate::host` and the like name them
// in every module.
use wire_host::host::{self, Host};
use wire_host::model;
use wire_host::{agents, resource_tool, skill_tools, skills, tokens};

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
    // Building the tokenizer is a moment of pure CPU work. On the runtime's
    // only thread it would stall the tasks that read the servers' pipes;
    // on the blocking pool it overlaps the servers' start instead.
    let tokenizer = tokio::task::spawn_blocking(tokens::load);
    let main_agent: Option<String> = None;
    // STRETCH(ch09/spawn-allowlist): the agent `--agent` names.
    // END(ch09/spawn-allowlist)
    let host = match Host::start(cli.servers, cli.options).await {
        Ok(host) => host,
        Err(err) => {
            eprintln!("{PROGRAM}: {err}");
            return ExitCode::FAILURE;
        }
    };
    let names: Vec<&str> = skills.iter().map(|skill| skill.name.as_str()).collect();
    let agent_names: Vec<&str> = agents.iter().map(|agent| agent.name.as_str()).collect();
    let catalogue = skills::catalogue(&skills);
    wire_host::show::introduce(&host, &names, &agent_names, &catalogue, &cli.prompt);
    let _ = tokenizer.await; // Ready before the first turn counts tokens.
    let harness = Harness {
        host,
        skills,
        agents,
        model: cli.model,
        max_turns: cli.max_turns,
        max_depth: cli.max_depth,
        max_concurrent: cli.max_concurrent,
        delegate: delegate::start,
        started: agents::Started::default(),
    };
    let outcome = converse(&harness, &cli.prompt, main_agent.as_deref()).await;
    harness.host.shutdown().await;
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("{PROGRAM}: {err}");
            ExitCode::FAILURE
        }
    }
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
    // END(ch09/spawn-allowlist)
    Ok((skills, agents))
}

/// The main conversation: the prompt, the loop, the answer.
async fn converse(harness: &Harness, prompt: &str, agent: Option<&str>) -> Result<(), String> {
    let main_context = harness.main_context();
    let _ = agent;
    // STRETCH(ch09/spawn-allowlist): with `--agent`, the main conversation
    // runs as that agent (delegate::main_thread_context).
    // END(ch09/spawn-allowlist)
    let mut log = Log { lines: None };
    let answer = agent::run(harness, &main_context, prompt, &mut log).await?;
    println!("answer: {answer}");
    Ok(())
}
