//! Chapter 24: the sandbox. Chapter 23's harness runs each `Bash` command
//! inside an operating system's fence when Claude Code's `sandbox`
//! settings turn it on: bubblewrap, with the filesystem read-only but the
//! working folder, the `denyRead` paths hidden, no network, and a proxy
//! outside for the `allowedDomains` (`sandbox.rs`). Chapter 23's
//! permission rules and pins come from `wire_host`.

mod cli;
mod sandbox;
mod stack;

use std::process::ExitCode;

use wire_host::compaction;
use wire_host::program::Parts;
use wire_host::served_skills;
use wire_host::show;

/// The name this program goes by in its messages.
const PROGRAM: &str = "ch24-sandbox";

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
