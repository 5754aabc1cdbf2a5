//! Chapter 25: trace context. Chapter 24's harness starts one W3C trace
//! for the run, continued from `TRACEPARENT` or new, and every MCP request
//! carries it in its `_meta` with a span of its own (`trace.rs`), so that a
//! server's log line names the trace of the tool call that caused it.
//! Chapter 24's sandbox comes from `wire_host`.

mod cli;
mod trace;

use std::process::ExitCode;
use std::sync::Arc;

use serde_json::Value;

use wire_host::program::Parts;
use wire_host::served_skills;
use wire_host::{compaction, show, stack24};

/// The name this program goes by in its messages.
const PROGRAM: &str = "ch25-trace-context";

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let mut cli = match cli::parse() {
        Ok(cli) => cli,
        Err(status) => return status,
    };
    // The run's trace, continued from TRACEPARENT or new: in every request
    // the links send, the handshakes too.
    let caller = std::env::var(trace::ENVIRONMENT).ok();
    let (trace, line) = trace::start(caller.as_deref(), &cli.base.hooks.session_id);
    println!("{line}");
    let trace = Arc::new(trace);
    cli.base.stamp = Some(Arc::new(move |params: &mut Value| trace.stamp(params)));
    // The servers' skills join the local ones (chapter 21).
    let list = served_skills::list;
    let started = Parts::start(PROGRAM, cli.base, list, compaction::EVENTS, &[]).await;
    match started {
        Ok(parts) => parts.run(cli.options, stack24::stack).await,
        Err(err) => show::ended(PROGRAM, Err(err)),
    }
}
