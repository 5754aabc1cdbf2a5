//! Chapter 15: the host answers. Chapter 11's harness, whose servers may
//! be of either era, on stdio or over Streamable HTTP, and may ask back:
//! `discover.rs` finds each server's era (server/discover, else
//! initialize), `route.rs` answers a server's question (a form for the
//! user, the model for sampling, the roots), `retry.rs` runs a tool call
//! through the questions, on the connection in 2025-11-25, round after
//! round of input-required results in 2026-07-28: `Answering`, the
//! extension that takes the place of chapter 7's servers. The connections
//! (`wire_host::transport`), the terminal and the answers file
//! (`wire_host::ask`) are given; the rest is chapters 7 to 11's.

mod cli;
mod discover;
#[cfg(feature = "stretch")]
mod fits; // The stretch ch15/fits-form.
mod retry;
mod route;

use std::process::ExitCode;

use retry::Answering;
use route::Respondent;
// What chapters 6 to 11 taught, from the `wire-host` crate (`support/host`).
// Imported here, at the crate's root, so `crate::events` and the like name
// them in every module.
use wire_host::bash::Bash;
use wire_host::fence::Fence;
use wire_host::lifecycle::Lifecycle;
use wire_host::matcher::Matcher;
use wire_host::remote::Servers;
use wire_host::seams::{Extension, Harness};
use wire_host::session::Session;
use wire_host::show::{self, Log};
use wire_host::skill_tools::Skills;
use wire_host::subagents::Subagents;
use wire_host::{agent, agents, ask, events, hooks, join, skills, tokens};

/// The name this program goes by in its messages.
const PROGRAM: &str = "ch15-host-answers";

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let cli = match cli::parse() {
        Ok(cli) => cli,
        Err(status) => return status,
    };
    let (skills, agents) = agents::load_usable(PROGRAM, &cli.skill_folders, &cli.agent_folders);
    // Building the tokenizer is pure CPU work: on the blocking pool it
    // overlaps the servers' start instead of stalling their pipes' tasks.
    let tokenizer = tokio::task::spawn_blocking(tokens::load);
    let capabilities = discover::capabilities(cli.answers.sampling);
    let open = async |name: &str, link| discover::open(name, link, &capabilities, cli.legacy).await;
    let servers = match Servers::start(cli.servers, cli.options, open).await {
        Ok(servers) => servers,
        Err(err) => return show::ended(PROGRAM, Err(err)),
    };
    let names: Vec<&str> = skills.iter().map(|skill| skill.name.as_str()).collect();
    let agent_names: Vec<&str> = agents.iter().map(|agent| agent.name.as_str()).collect();
    let catalogue = skills::catalogue(&skills);
    servers.show();
    show::introduce_rest(&names, &agent_names, &catalogue, &cli.prompt);
    let _ = tokenizer.await; // Ready before the first turn counts tokens.
    let opened = Session::with_hooks(PROGRAM, &cli.hooks, &[], ask::EVENTS, Matcher::parse);
    let (session, settings) = match opened {
        Ok(opened) => opened,
        Err(err) => {
            servers.shutdown().await;
            return show::ended(PROGRAM, Err(err));
        }
    };
    let hooks = hooks::Hooks { settings, session };
    let answers = cli.answers.or_root(&hooks.session.workdir);
    let answering = Answering {
        program: PROGRAM,
        servers: &servers,
        respondent: Respondent {
            answers: &answers,
            hooks: &hooks,
            model: &cli.model,
        },
    };
    let subagents = Subagents::new(agents, skills.clone(), cli.max_depth, cli.max_concurrent);
    let skills = Skills { skills };
    let bash = Bash {
        workdir: &hooks.session.workdir,
    };
    let fence = Fence {
        program: PROGRAM,
        hooks: &hooks,
    };
    let lifecycle = Lifecycle::new(&hooks);
    let extensions: Vec<&dyn Extension> =
        vec![&answering, &skills, &bash, &subagents, &fence, &lifecycle];
    let mut harness = Harness::new(PROGRAM, &cli.model, cli.max_turns, extensions);
    harness.join = |runs| Box::pin(join::join_all(runs));
    let outcome = converse(&harness, &cli.prompt).await;
    drop(harness);
    servers.shutdown().await;
    show::ended(PROGRAM, outcome)
}

/// The harness's beginning (SessionStart), then the main conversation:
/// the prompt, the loop.
async fn converse(harness: &Harness<'_>, prompt: &str) -> agent::Answer {
    let mut log = Log::printed();
    harness.begin(&mut log).await?;
    agent::run(harness, harness.main_context(), prompt, &mut log).await
}
