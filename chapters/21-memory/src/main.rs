//! Chapter 21: the layered prompt. Chapter 20's harness, told about the
//! project before the first question: the memory files Claude Code reads,
//! with their imports (`memory.rs`), open every conversation; a server's
//! skills join the catalogue, each file checked when it is read
//! (`served_skills.rs`). Chapters 19's and 20's code comes from `wire_host`.

mod cli;
mod memory;
mod served_skills;
mod stack;

use std::process::ExitCode;

use wire_host::ask;
use wire_host::program::Parts;
use wire_host::show;

/// The name this program goes by in its messages.
const PROGRAM: &str = "ch21-memory";

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let cli = match cli::parse() {
        Ok(cli) => cli,
        Err(status) => return status,
    };
    // The servers' skills join the local ones (chapter 21).
    let list = served_skills::list;
    let started = Parts::start(PROGRAM, cli.base, list, ask::EVENTS, cli.demo).await;
    match started {
        Ok(parts) => parts.run(cli.options, stack::stack).await,
        Err(err) => show::ended(PROGRAM, Err(err)),
    }
}
