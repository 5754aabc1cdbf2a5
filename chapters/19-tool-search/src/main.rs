//! Chapter 19: tool search. Chapter 15's harness, whose model, past a
//! threshold, is sent the MCP tools' names instead of their definitions,
//! and a `ToolSearch` tool that loads the ones it needs for the next
//! request (`tool_search.rs`: `ToolSearch`, an extension of the harness:
//! what each request carries, a deferred tool refused until it is found,
//! the search run). The rest is chapters 7 to 15's, from `wire_host`.

mod cli;
mod stack;
mod tool_search;

use std::process::ExitCode;

use wire_host::ask;
use wire_host::program::{Parts, nothing_more};
use wire_host::show;

/// The name this program goes by in its messages.
const PROGRAM: &str = "ch19-tool-search";

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
