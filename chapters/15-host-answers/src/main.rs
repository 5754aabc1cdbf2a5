//! Chapter 15: the host answers. Chapter 11's harness, whose servers may
//! be of either era, on stdio or over Streamable HTTP, and may ask back:
//! `discover.rs` finds each server's era (server/discover, else
//! initialize), `route.rs` answers a server's question (a form for the
//! user, the model for sampling, the roots), `retry.rs` runs a tool call
//! through the questions: on the connection in 2025-11-25, round after
//! round of input-required results in 2026-07-28. The connections
//! (`wire_host::transport`), the terminal and the answers file
//! (`wire_host::ask`) are given; the rest is chapter 11's.

mod agent;
mod cli;
mod delegate;
mod discover;
mod fence;
#[cfg(feature = "stretch")]
mod fits; // The stretch ch15/fits-form.
mod harness;
mod retry;
mod route;

use std::process::ExitCode;

use agent::{Harness, Log};
// What chapters 6 to 9 taught, from the `wire-host` crate (`support/host`).
// Imported here, at the crate's root, so `crate::host` and the like name them
// in every module.
use wire_host::model;
use wire_host::remote::Servers;
use wire_host::{agents, join, skill_tools, skills, tokens};
// The hook chapters' given parts: the Bash tool, the hook events' wire
// shape, the session (support-own modules of `wire-host`, no lesson).
use wire_host::session::Session;
use wire_host::{ask, bash, events};
// What chapters 10 and 11 taught and this chapter uses unchanged.
use wire_host::hooks;
use wire_host::matcher::Matcher;
use wire_host::session::Fire as _;

/// The name this program goes by in its messages.
const PROGRAM: &str = "ch15-host-answers";

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let cli = match cli::parse() {
        Ok(cli) => cli,
        Err(status) => return status,
    };
    let (skills, agents) = agents::load_usable(PROGRAM, &cli.skill_folders, &cli.agent_folders);
    // Building the tokenizer is a moment of pure CPU work. On the runtime's
    // only thread it would stall the tasks that read the servers' pipes;
    // on the blocking pool it overlaps the servers' start instead.
    let tokenizer = tokio::task::spawn_blocking(tokens::load);
    let capabilities = discover::capabilities(cli.answers.sampling);
    let open = async |name: &str, link| discover::open(name, link, &capabilities, cli.legacy).await;
    let host = match Servers::start(cli.servers, cli.options, open).await {
        Ok(host) => host,
        Err(err) => {
            eprintln!("{PROGRAM}: {err}");
            return ExitCode::FAILURE;
        }
    };
    let names: Vec<&str> = skills.iter().map(|skill| skill.name.as_str()).collect();
    let agent_names: Vec<&str> = agents.iter().map(|agent| agent.name.as_str()).collect();
    let catalogue = skills::catalogue(&skills);
    host.show();
    wire_host::show::introduce_rest(&names, &agent_names, &catalogue, &cli.prompt);
    let _ = tokenizer.await; // Ready before the first turn counts tokens.
    let opened = Session::with_hooks(PROGRAM, &cli.hooks, &[], ask::EVENTS, Matcher::parse);
    let (session, settings) = match opened {
        Ok(opened) => opened,
        Err(err) => {
            host.shutdown().await;
            eprintln!("{PROGRAM}: {err}");
            return ExitCode::FAILURE;
        }
    };
    let mut harness = Harness {
        host,
        answers: cli.answers.or_root(&session.workdir),
        skills,
        agents,
        model: cli.model,
        max_turns: cli.max_turns,
        max_depth: cli.max_depth,
        max_concurrent: cli.max_concurrent,
        hooks: hooks::Hooks { settings, session },
        session_context: Vec::new(),
        delegate: delegate::start,
        started: agents::Started::default(),
    };
    let outcome = converse(&mut harness, &cli.prompt).await;
    harness.host.shutdown().await;
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("{PROGRAM}: {err}");
            ExitCode::FAILURE
        }
    }
}

/// SessionStart, then the main conversation: the prompt, the loop, the
/// answer.
async fn converse(harness: &mut Harness, prompt: &str) -> Result<(), String> {
    let mut log = Log { lines: None };
    session_start(harness, &mut log).await?;
    let main_context = harness.main_context();
    let answer = agent::run(harness, &main_context, prompt, &mut log).await;
    println!("answer: {}", answer?);
    Ok(())
}

// ANCHOR: session_start
/// Fires SessionStart (source `startup`) once, before the first prompt:
/// what its hooks add goes into the first user message.
async fn session_start(harness: &mut Harness, log: &mut Log) -> Result<(), String> {
    let model = harness.model.name();
    let event = events::Event::SessionStart { model };
    let (outcome, said) = harness.hooks.fire(&event, None).await;
    said.into_iter().for_each(|line| log.say(line));
    if let Some(reason) = outcome.stop {
        return Err(format!("a SessionStart hook stopped the session: {reason}"));
    }
    harness.session_context = outcome.context;
    Ok(())
}
// ANCHOR_END: session_start
