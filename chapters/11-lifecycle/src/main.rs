//! Chapter 11: hooks around the loop. Chapter 10's fence, plus the hooks
//! Claude Code fires at the loop's other fixed points: SessionStart before
//! the first prompt, UserPromptSubmit on the prompt, PostToolUse after a
//! call that succeeded, Stop (SubagentStop in a subagent) at a final
//! answer, which may send the model back to work.
//!
//! `agent.rs` fires the prompt's and the stop's hooks, `fence.rs` the ones
//! after a call, `main.rs` SessionStart; `hooks.rs` learns what an answer
//! means after the fact. The matcher is chapter 10's (`wire_host`). The
//! rest is chapter 10's.

mod agent;
mod cli;
mod delegate;
mod fence;
mod harness;
mod hooks;

use std::path::Path;
use std::process::ExitCode;

use agent::{Harness, Log};
// What chapters 6 to 9 taught, from the `wire-host` crate (`support/host`).
// Imported here, at the crate's root, so `crate::host` and the like name them
// in every module.
use wire_host::host::{self, Host};
use wire_host::model;
use wire_host::{agents, join, resource_tool, skill_tools, skills, tokens};
// The hook chapters' given parts: the Bash tool, the hook events' wire
// shape, the session (support-own modules of `wire-host`, no lesson).
use wire_host::session::{DemoFile, Session};
use wire_host::{bash, events};
// What chapter 10 taught and this chapter uses unchanged.
use wire_host::matcher::{self, Matcher};

/// The name this program goes by in its messages.
const PROGRAM: &str = "ch11-lifecycle";

/// The demo's working folder: a release checklist, a test suite, and the
/// hooks where settings.json looks for them.
const DEMO_FILES: &[DemoFile] = &[
    DemoFile::text("notes.md", include_str!("../scripts/notes.md")),
    DemoFile::script("run-tests.sh", include_str!("../scripts/run-tests.sh")),
    DemoFile::script(
        ".claude/hooks/session-start.sh",
        include_str!("../scripts/session-start.sh"),
    ),
    DemoFile::script(
        ".claude/hooks/audit.sh",
        include_str!("../scripts/audit.sh"),
    ),
    DemoFile::script(
        ".claude/hooks/stop-check.sh",
        include_str!("../scripts/stop-check.sh"),
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
    let mut harness = Harness {
        host,
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
    let outcome = converse(&mut harness, &cli.prompt, cli.demo).await;
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
/// answer (after the demo, first what its audit log holds).
async fn converse(harness: &mut Harness, prompt: &str, demo: bool) -> Result<(), String> {
    let mut log = Log { lines: None };
    session_start(harness, &mut log).await?;
    let main_context = harness.main_context();
    let answer = agent::run(harness, &main_context, prompt, &mut log).await;
    if demo {
        demo_outcome(&harness.hooks.session.workdir);
    }
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

/// After the demo: what the PostToolUse hook wrote, outside the
/// conversation.
fn demo_outcome(workdir: &Path) {
    let audit = std::fs::read_to_string(workdir.join(".claude/audit.jsonl")).unwrap_or_default();
    let calls = audit.lines().filter(|line| !line.is_empty()).count();
    println!("audit log: {calls} Bash call(s) recorded by the PostToolUse hook");
}
