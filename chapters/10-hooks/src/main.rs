//! Chapter 10: the fence. Chapter 9's agent loop, plus a `Bash` tool and
//! the PreToolUse hooks that fence it: commands from a `settings.json`, in
//! Claude Code's format, that the harness runs before every tool call,
//! whatever the model says.
//!
//! `matcher.rs` picks the hooks of a call; `hooks.rs` runs them and reads
//! what their exit codes say; the loop's `run_tool` (`agent.rs`) puts them
//! in every tool call's path, and `fence.rs` says what they allow. The
//! `Bash` tool, the events' input and answers, the reading of
//! `settings.json` and the session's folders are given, in `wire-host`.
//! `cli.rs` is the command line. The rest is chapter 9's.

mod agent;
mod cli;
mod delegate;
mod fence;
mod harness;
mod hooks;
mod matcher;

use std::path::Path;
use std::process::ExitCode;

use agent::{Harness, Log};
use matcher::Matcher;
// What chapters 6 to 9 taught, from the `wire-host` crate (`support/host`).
// Imported here, at the crate's root, so `crate::host` and the like name them
// in every module.
use wire_host::host::{self, Host};
use wire_host::model;
use wire_host::{agents, join, resource_tool, skill_tools, skills, tokens};
// Chapter 10's given parts: the Bash tool it fences, the hook events' wire
// shape, the session (support-own modules of `wire-host`, no lesson).
use wire_host::session::{DemoFile, Session};
use wire_host::{bash, events};

/// The name this program goes by in its messages.
const PROGRAM: &str = "ch10-hooks";

/// The note the demo puts in its working folder: a task, and an injected
/// instruction that the scripted model obeys.
const DEMO_NOTE: &str = include_str!("../scripts/notes.md");
/// The demo's working folder: the note, and the hook where settings.json
/// looks for it (Claude Code's canonical rm blocker, failing closed).
const DEMO_FILES: &[DemoFile] = &[
    DemoFile::text("notes.md", DEMO_NOTE),
    DemoFile::script(
        ".claude/hooks/block-rm.sh",
        include_str!("../scripts/block-rm.sh"),
    ),
];

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
    let demo = if cli.demo { DEMO_FILES } else { &[] };
    let opened = Session::with_hooks(PROGRAM, &cli.hooks, demo, hooks::EVENTS, Matcher::parse);
    let (session, settings) = match opened {
        Ok(opened) => opened,
        Err(err) => {
            host.shutdown().await;
            eprintln!("{PROGRAM}: {err}");
            return ExitCode::FAILURE;
        }
    };
    let harness = Harness {
        host,
        skills,
        agents,
        model: cli.model,
        max_turns: cli.max_turns,
        max_depth: cli.max_depth,
        max_concurrent: cli.max_concurrent,
        hooks: hooks::Hooks { settings, session },
        delegate: delegate::start,
        started: agents::Started::default(),
    };
    let outcome = converse(&harness, &cli.prompt, cli.demo).await;
    harness.host.shutdown().await;
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("{PROGRAM}: {err}");
            ExitCode::FAILURE
        }
    }
}

/// The main conversation: the prompt, the loop, the answer (after the
/// demo, first whether the note survived).
async fn converse(harness: &Harness, prompt: &str, demo: bool) -> Result<(), String> {
    let main_context = harness.main_context();
    let mut log = Log { lines: None };
    let answer = agent::run(harness, &main_context, prompt, &mut log).await;
    if demo {
        demo_outcome(&harness.hooks.session.workdir);
    }
    println!("answer: {}", answer?);
    Ok(())
}

/// After the demo: did the note survive the injected `rm -rf`?
fn demo_outcome(workdir: &Path) {
    let note = std::fs::read_to_string(workdir.join("notes.md"));
    let state = match note.is_ok_and(|text| text == DEMO_NOTE) {
        true => "still there, notes.md intact",
        false => "GONE",
    };
    println!("working folder: {state}");
}
