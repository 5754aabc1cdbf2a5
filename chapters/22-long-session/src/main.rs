//! Chapter 22: the long session. Chapter 21's harness keeps going where a
//! long session stops: past `--context-budget` it has the model summarize
//! the older turns and goes on with the summary (`compaction.rs`), and an
//! overloaded or rate-limited model API is tried again after the wait it
//! asks for, or a backoff (`retries.rs`). Chapter 21's memory and served
//! skills come from `wire_host`.

mod cli;
mod compaction;
mod retries;
#[cfg(feature = "stretch")]
mod threshold; // The stretch ch22/threshold.

use std::process::ExitCode;

use std::cell::{Cell, RefCell};
use std::collections::BTreeSet;

use compaction::Compaction;
use retries::Retries;
use wire_host::lifecycle::Lifecycle;
use wire_host::model::Provider;
use wire_host::program::{BaseExtensions, Parts};
use wire_host::prompt_cache::PromptCache;
use wire_host::remote::Servers;
use wire_host::seams::{Extension, Harness};
use wire_host::served_skills::{self, ServedSkills};
use wire_host::show::{self, Log};
use wire_host::skills::Skill;
use wire_host::stub_cache::StubCache;
use wire_host::tool_search::ToolSearch;
use wire_host::{agent, events, memory, tool_search};

/// The name this program goes by in its messages.
const PROGRAM: &str = "ch22-long-session";

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let cli = match cli::parse() {
        Ok(cli) => cli,
        Err(status) => return status,
    };
    let served = RefCell::new(Vec::new());
    let list = async |servers: &Servers, local: &[Skill]| {
        let (skills, listed) = served_skills::list(PROGRAM, servers, local).await;
        *served.borrow_mut() = listed;
        skills
    };
    let started = Parts::start(PROGRAM, cli.base, list, compaction::EVENTS, &[]).await;
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
    let served = ServedSkills {
        servers: &parts.servers,
        served: served.into_inner(),
        loaded: RefCell::new(BTreeSet::new()),
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
        &tool_search,
        &cache,
        &served,
        skills,
        bash,
        subagents,
        fence,
        lifecycle,
        &memory,
        &compaction,
        &retries,
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
