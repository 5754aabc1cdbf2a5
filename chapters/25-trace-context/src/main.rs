//! Chapter 25: trace context. Chapter 24's harness starts one W3C trace
//! for the run, continued from `TRACEPARENT` or new, and every MCP request
//! carries it in its `_meta` with a span of its own (`trace.rs`), so that a
//! server's log line names the trace of the tool call that caused it.
//! Chapter 24's sandbox comes from `wire_host`.

mod cli;
mod trace;

use std::process::ExitCode;

use std::cell::{Cell, RefCell};
use std::collections::BTreeSet;
use std::sync::Arc;

use serde_json::Value;

use wire_host::compaction::{self, Compaction};
use wire_host::lifecycle::Lifecycle;
use wire_host::model::Provider;
use wire_host::permissions::Permissions;
use wire_host::pins::Pinned;
use wire_host::program::{BaseExtensions, Parts};
use wire_host::prompt_cache::PromptCache;
use wire_host::remote::Servers;
use wire_host::retries::{self, Retries};
use wire_host::seams::{Extension, Harness};
use wire_host::served_skills::{self, ServedSkills};
use wire_host::show::{self, Log};
use wire_host::skills::Skill;
use wire_host::stub_cache::StubCache;
use wire_host::tool_search::{self, ToolSearch};
use wire_host::{agent, memory, sandbox};

/// The name this program goes by in its messages.
const PROGRAM: &str = "ch25-trace-context";

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let cli = match cli::parse() {
        Ok(cli) => cli,
        Err(status) => return status,
    };
    let served = RefCell::new(Vec::new());
    let local = RefCell::new(Vec::new());
    let list = async |servers: &Servers, skills: &[Skill]| {
        *local.borrow_mut() = skills.to_vec();
        let (skills, listed) = served_skills::list(PROGRAM, servers, skills).await;
        *served.borrow_mut() = listed;
        skills
    };
    let settings = cli.base.hooks.settings.clone();
    // The run's trace (chapter 25), continued from TRACEPARENT or new: in
    // every request the links send, the handshakes too.
    let caller = std::env::var(trace::ENVIRONMENT).ok();
    let (trace, line) = trace::start(caller.as_deref(), &cli.base.hooks.session_id);
    println!("{line}");
    let trace = Arc::new(trace);
    let mut cli = cli;
    cli.base.stamp = Some(Arc::new(move |params: &mut Value| trace.stamp(params)));
    let started = Parts::start(PROGRAM, cli.base, list, compaction::EVENTS, &[]).await;
    let parts = match started {
        Ok(parts) => parts,
        Err(err) => return show::ended(PROGRAM, Err(err)),
    };
    // The sandbox (chapter 24), for every Bash call.
    let sandbox = match sandbox::start(PROGRAM, settings.as_deref(), &parts.hooks.session) {
        Ok(sandbox) => sandbox,
        Err(err) => return parts.end(Err(err)).await,
    };
    let base = parts.base();
    let BaseExtensions {
        answering,
        skills,
        subagents,
        fence,
        lifecycle,
        ..
    } = &base;
    let tool_search = ToolSearch {
        mode: cli.tool_search,
    };
    let scripted = matches!(parts.model.provider, Provider::Scripted { .. });
    let cache = PromptCache {
        stub: scripted.then(StubCache::default),
        session: Cell::new((0.0, 0)),
    };
    let served = ServedSkills {
        servers: &parts.servers,
        served: served.into_inner(),
        loaded: RefCell::new(BTreeSet::new()),
    };
    let pinned = Pinned {
        servers: &parts.servers,
        pins: RefCell::new(cli.pins),
    };
    let permissions = Permissions {
        rules: RefCell::new(cli.rules),
        servers: &parts.servers,
        skills: local.into_inner(),
    };
    let memory = memory::load(&parts.hooks.session.workdir);
    let compaction = Compaction {
        budget: cli.budget,
        hooks: &parts.hooks,
    };
    let retries = Retries {
        model: &parts.model,
    };
    let extensions: Vec<&dyn Extension> = vec![
        answering,
        &pinned,
        &tool_search,
        &cache,
        &served,
        skills,
        &sandbox,
        subagents,
        fence,
        &permissions,
        lifecycle,
        &memory,
        &compaction,
        &retries,
    ];
    let harness = parts.harness(extensions);
    let outcome = converse(&harness, lifecycle, &tool_search, &cache, &parts.prompt).await;
    drop(harness);
    drop(base);
    drop(sandbox);
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
