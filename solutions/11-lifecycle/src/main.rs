//! Chapter 11: hooks around the loop. Chapter 10's fence, plus the hooks
//! Claude Code fires at the loop's other fixed points: SessionStart before
//! the first prompt, UserPromptSubmit on the prompt, PostToolUse after a
//! call that succeeded, Stop (SubagentStop in a subagent) at a final
//! answer, which may send the model back to work.
//!
//! `lifecycle.rs` is the extension that fires them: SessionStart (which
//! `main.rs` asks for first), the prompt's, the stop's and the ones after
//! a call; `hooks.rs` learns what an answer means after the fact. The
//! fence and the matcher are chapter 10's (`wire_host`), and so is the
//! rest.

mod cli;
mod hooks;
mod lifecycle;

use std::path::Path;
use std::process::ExitCode;

use lifecycle::Lifecycle;
// What chapters 6 to 10 taught, from the `wire-host` crate (`support/host`).
// Imported here, at the crate's root, so `crate::events` and the like name
// them in every module.
use wire_host::fence::Fence;
use wire_host::host::Host;
use wire_host::matcher::{self, Matcher};
use wire_host::mcp::Mcp;
use wire_host::resource_tool::ResourceTool;
use wire_host::seams::{Extension, Harness};
use wire_host::show::{self, Log};
use wire_host::skill_tools::Skills;
use wire_host::subagents::Subagents;
use wire_host::{agent, agents, join, skills, tokens};
// The hook chapters' given parts: the Bash tool, the hook events' wire
// shape, the session (support-own modules of `wire-host`, no lesson).
use wire_host::session::{DemoFile, Session};
use wire_host::{bash, events};

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
    let bash = bash::Bash { workdir };
    // STRETCH(ch11/post_tool_failure): a command that exits non-zero fails.
    #[cfg(feature = "stretch")]
    let bash = lifecycle::failure::Bash(bash);
    // END(ch11/post_tool_failure)
    let fence = Fence {
        program: PROGRAM,
        hooks: &hooks,
    };
    let lifecycle = Lifecycle::new(&hooks);
    let extensions: Vec<&dyn Extension> = vec![
        &mcp, &resources, &skills, &bash, &subagents, &fence, &lifecycle,
    ];
    let mut harness = Harness::new(PROGRAM, &cli.model, cli.max_turns, extensions);
    harness.join = |runs| Box::pin(join::join_all(runs));
    let outcome = converse(&harness, &cli.prompt).await;
    if cli.demo {
        demo_outcome(workdir);
    }
    drop(harness);
    host.shutdown().await;
    show::ended(PROGRAM, outcome)
}

/// The harness's beginning (SessionStart), then the main conversation:
/// the prompt, the loop.
async fn converse(harness: &Harness<'_>, prompt: &str) -> agent::Answer {
    let mut log = Log::printed();
    harness.begin(&mut log).await?;
    agent::run(harness, harness.main_context(), prompt, &mut log).await
}

/// After the demo: what the PostToolUse hook wrote, outside the
/// conversation.
fn demo_outcome(workdir: &Path) {
    let audit = std::fs::read_to_string(workdir.join(".claude/audit.jsonl")).unwrap_or_default();
    let calls = audit.lines().filter(|line| !line.is_empty()).count();
    println!("audit log: {calls} Bash call(s) recorded by the PostToolUse hook");
}
