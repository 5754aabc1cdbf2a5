//! Chapter 10: the fence. Chapter 9's agent loop, plus a `Bash` tool and
//! the PreToolUse hooks that fence it: commands from a `settings.json`, in
//! Claude Code's format, that the harness runs before every tool call,
//! whatever the model says.
//!
//! `matcher.rs` picks the hooks of a call; `hooks.rs` runs them and reads
//! what their exit codes say; `fence.rs` is the extension that fires them
//! at the harness's gate, before every tool call, and says what they allow.
//! The `Bash` tool, the events' input and answers, the reading of
//! `settings.json` and the session's folders are given, in `wire-host`.
//! `cli.rs` is the command line. The loop, the skills and the subagents
//! are chapters 7 to 9's.

mod cli;
mod fence;
mod hooks;
mod matcher;

use std::path::Path;
use std::process::ExitCode;

use matcher::Matcher;
// What chapters 6 to 9 taught, from the `wire-host` crate (`support/host`).
// Imported here, at the crate's root, so `crate::events` and the like name
// them in every module.
use wire_host::bash::Bash;
use wire_host::host::Host;
use wire_host::mcp::Mcp;
use wire_host::resource_tool::ResourceTool;
use wire_host::seams::{Extension, Harness};
use wire_host::show::{self, Log};
use wire_host::skill_tools::Skills;
use wire_host::subagents::Subagents;
use wire_host::{agent, agents, join, skills, tokens};
// Chapter 10's given parts: the hook events' wire shape, the session
// (support-own modules of `wire-host`, no lesson).
use wire_host::events;
use wire_host::session::{DemoFile, Session};

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
    // Building the tokenizer is pure CPU work: on the blocking pool it
    // overlaps the servers' start instead of stalling their pipes' tasks.
    let tokenizer = tokio::task::spawn_blocking(tokens::load);
    let host = match Host::start(cli.servers, cli.options).await {
        Ok(host) => host,
        Err(err) => return show::ended(PROGRAM, Err(err)),
    };
    let names: Vec<&str> = skills.iter().map(|skill| skill.name.as_str()).collect();
    let agent_names: Vec<&str> = agents.iter().map(|agent| agent.name.as_str()).collect();
    let catalogue = skills::catalogue(&skills);
    show::introduce(&host, &names, &agent_names, &catalogue, &cli.prompt);
    let _ = tokenizer.await; // Ready before the first turn counts tokens.
    let demo = if cli.demo { DEMO_FILES } else { &[] };
    let opened = Session::with_hooks(PROGRAM, &cli.hooks, demo, hooks::EVENTS, Matcher::parse);
    let (session, settings) = match opened {
        Ok(opened) => opened,
        Err(err) => {
            host.shutdown().await;
            return show::ended(PROGRAM, Err(err));
        }
    };
    let hooks = hooks::Hooks { settings, session };
    let workdir = &hooks.session.workdir;
    let mcp = Mcp {
        program: PROGRAM,
        host: &host,
    };
    let resources = ResourceTool { host: &host };
    let subagents = Subagents::new(agents, skills.clone(), cli.max_depth, cli.max_concurrent);
    let skills = Skills { skills };
    let bash = Bash { workdir };
    let fence = fence::Fence {
        program: PROGRAM,
        hooks: &hooks,
    };
    let extensions: Vec<&dyn Extension> =
        vec![&mcp, &resources, &skills, &bash, &subagents, &fence];
    let mut harness = Harness::new(PROGRAM, &cli.model, cli.max_turns, extensions);
    harness.join = |runs| Box::pin(join::join_all(runs));
    let context = harness.main_context();
    let outcome = agent::run(&harness, context, &cli.prompt, &mut Log::printed()).await;
    if cli.demo {
        demo_outcome(workdir);
    }
    drop(harness);
    host.shutdown().await;
    show::ended(PROGRAM, outcome)
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
