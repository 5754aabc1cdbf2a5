//! Chapter 20: the cached prefix. Chapter 19's harness, whose requests mark
//! `cache_control` breakpoints (the last tool, the system prompt, the last
//! message), keep everything before the last one the same from turn to
//! turn (a catalogue in one order), and read back the cache figures the
//! model reports, per turn and for the session (`prompt_cache.rs`). Tool
//! search is chapter 19's, from `wire_host`.

mod cli;
mod prompt_cache;

use std::process::ExitCode;

use std::cell::Cell;

use prompt_cache::PromptCache;
use tool_search::ToolSearch;
use wire_host::lifecycle::Lifecycle;
use wire_host::model::Provider;
use wire_host::program::{BaseExtensions, Parts};
use wire_host::seams::{Extension, Harness};
use wire_host::show::{self, Log};
use wire_host::stub_cache::StubCache;
use wire_host::{agent, ask, tool_search};

/// The name this program goes by in its messages.
const PROGRAM: &str = "ch20-prompt-cache";

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
    let BaseExtensions {
        answering,
        skills,
        bash,
        subagents,
        fence,
        lifecycle,
    } = &base;
    let tool_search = ToolSearch {
        mode: cli.tool_search,
    };
    let scripted = matches!(parts.model.provider, Provider::Scripted { .. });
    let cache = PromptCache {
        stub: scripted.then(StubCache::default),
        session: Cell::new((0.0, 0)),
    };
    let extensions: Vec<&dyn Extension> = vec![
        answering,
        &tool_search,
        &cache,
        skills,
        bash,
        subagents,
        fence,
        lifecycle,
    ];
    let harness = parts.harness(extensions);
    let outcome = converse(&harness, lifecycle, &tool_search, &cache, &parts.prompt).await;
    drop(harness);
    drop(base);
    parts.end(outcome).await
}

/// SessionStart, then the main conversation: the tool search line, the
/// prompt, the loop, the session's cost.
async fn converse(
    harness: &Harness<'_>,
    lifecycle: &Lifecycle<'_>,
    tool_search: &ToolSearch,
    cache: &PromptCache,
    prompt: &str,
) -> agent::Answer {
    let mut log = Log::printed();
    lifecycle
        .session_start(harness.model.name(), &mut log)
        .await?;
    let context = harness.main_context();
    tool_search.show(&context.tools);
    let answer = agent::run(harness, context, prompt, &mut log).await;
    cache.show_session();
    answer
}
