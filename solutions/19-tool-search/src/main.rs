//! Chapter 19: tool search. Chapter 15's harness, whose model, past a
//! threshold, is sent the MCP tools' names instead of their definitions,
//! and a `ToolSearch` tool that loads the ones it needs for the next
//! request (`tool_search.rs`: `ToolSearch`, an extension of the harness:
//! what each request carries, a deferred tool refused until it is found,
//! the search run). The rest is chapters 7 to 15's, from `wire_host`.

mod cli;
mod tool_search;

use std::process::ExitCode;

use tool_search::ToolSearch;
use wire_host::program::{BaseExtensions, Parts};
use wire_host::seams::{Extension, Harness};
use wire_host::show::{self, Log};
use wire_host::{agent, ask};

/// The name this program goes by in its messages.
const PROGRAM: &str = "ch19-tool-search";

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let cli = match cli::parse() {
        Ok(cli) => cli,
        Err(status) => return status,
    };
    let nothing = async |_: &_, _: &_| Vec::new();
    let started = Parts::start(PROGRAM, cli.base, nothing, ask::EVENTS, &[]).await;
    let parts = match started {
        Ok(parts) => parts,
        Err(err) => return show::ended(PROGRAM, Err(err)),
    };
    let base = parts.base();
    let tool_search = ToolSearch {
        mode: cli.tool_search,
    };
    let BaseExtensions {
        answering,
        skills,
        bash,
        subagents,
        fence,
        lifecycle,
    } = &base;
    let extensions: Vec<&dyn Extension> = vec![
        answering,
        &tool_search,
        skills,
        bash,
        subagents,
        fence,
        lifecycle,
    ];
    let harness = parts.harness(extensions);
    let outcome = converse(&harness, &base, &tool_search, &parts.prompt).await;
    drop(harness);
    drop(base);
    parts.end(outcome).await
}

/// SessionStart, then the main conversation: the tool search line, the
/// prompt, the loop.
async fn converse(
    harness: &Harness<'_>,
    base: &BaseExtensions<'_>,
    tool_search: &ToolSearch,
    prompt: &str,
) -> agent::Answer {
    let mut log = Log::printed();
    base.lifecycle
        .session_start(harness.model.name(), &mut log)
        .await?;
    let context = harness.main_context();
    tool_search.show(&context.tools);
    agent::run(harness, context, prompt, &mut log).await
}
