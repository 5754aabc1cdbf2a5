//! Chapter 22: the long session. Chapter 21's harness keeps going where a
//! long session stops: past `--context-budget` it has the model summarize
//! the older turns and goes on with the summary (`compaction.rs`), and an
//! overloaded or rate-limited model API is tried again after the wait it
//! asks for, or a backoff (`retries.rs`). Chapter 21's memory and served
//! skills come from `wire_host`.

mod cli;
mod compaction;
mod retries;
mod stack;
#[cfg(feature = "stretch")]
mod threshold; // The stretch ch22/threshold.

use std::process::ExitCode;

use wire_host::program::Parts;
use wire_host::served_skills;
use wire_host::show;

/// The name this program goes by in its messages.
const PROGRAM: &str = "ch22-long-session";

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
