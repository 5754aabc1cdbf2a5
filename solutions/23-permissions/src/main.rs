//! Chapter 23: permission rules. Chapter 22's harness decides what a tool
//! call may do from the user's settings, never from the model: Claude
//! Code's `permissions` (deny, then ask, then allow rules, such as
//! `Bash(git diff *)` or `mcp__notes__*`) and its permission modes
//! (`permissions.rs`), after the PreToolUse hooks (`fence.rs`). Chapter
//! 22's compaction and retries come from `wire_host`.

mod cli;
mod permissions;
mod pins;
mod stack;

use std::process::ExitCode;

use wire_host::compaction;
use wire_host::program::Parts;
use wire_host::served_skills;
use wire_host::show;

/// The name this program goes by in its messages.
const PROGRAM: &str = "ch23-permissions";

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let cli = match cli::parse() {
        Ok(cli) => cli,
        Err(status) => return status,
    };
    // The servers' skills join the local ones (chapter 21).
    let list = served_skills::list;
    let started = Parts::start(PROGRAM, cli.base, list, compaction::EVENTS, &[]).await;
    match started {
        Ok(parts) => parts.run(cli.options, stack::stack).await,
        Err(err) => show::ended(PROGRAM, Err(err)),
    }
}
