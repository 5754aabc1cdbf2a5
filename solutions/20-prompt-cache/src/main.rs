//! Chapter 20: the cached prefix. Chapter 19's harness, whose requests mark
//! `cache_control` breakpoints (the last tool, the system prompt, the last
//! message), keep everything before the last one the same from turn to
//! turn (a catalogue in one order), and read back the cache figures the
//! model reports, per turn and for the session (`prompt_cache.rs`). Tool
//! search is chapter 19's, from `wire_host`.

mod cli;
mod prompt_cache;
mod stack;

use std::process::ExitCode;

use wire_host::ask;
use wire_host::program::{Parts, nothing_more};
use wire_host::show;

/// The name this program goes by in its messages.
const PROGRAM: &str = "ch20-prompt-cache";

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let cli = match cli::parse() {
        Ok(cli) => cli,
        Err(status) => return status,
    };
    let started = Parts::start(PROGRAM, cli.base, nothing_more, ask::EVENTS, &[]).await;
    match started {
        Ok(parts) => parts.run(cli.options, stack::stack).await,
        Err(err) => show::ended(PROGRAM, Err(err)),
    }
}
