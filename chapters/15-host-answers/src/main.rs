//! Chapter 15: the host answers. Chapter 11's harness, whose servers may
//! be of either era, on stdio or over Streamable HTTP, and may ask back:
//! `discover.rs` finds each server's era (server/discover, else
//! initialize), `route.rs` answers a server's question (a form for the
//! user, the model for sampling, the roots), `retry.rs` runs a tool call
//! through the questions, on the connection in 2025-11-25, round after
//! round of input-required results in 2026-07-28: `Answering`, the
//! extension that takes the place of chapter 7's servers. The connections
//! (`wire_host::transport`), the terminal and the answers file
//! (`wire_host::ask`) are given; the rest is chapters 7 to 11's.

mod cli;
mod discover;
#[cfg(feature = "stretch")]
mod fits; // The stretch ch15/fits-form.
mod retry;
mod route;

use std::process::ExitCode;

use retry::Answering;
use route::Respondent;
use wire_host::program::{Parts, Stack, nothing_more};
use wire_host::show;
// What chapters 6 to 11 taught, from the `wire-host` crate (`support/host`).
// Imported here, at the crate's root, so `crate::events` and the like name
// them in every module.
use wire_host::{ask, events};

/// The name this program goes by in its messages.
const PROGRAM: &str = "ch15-host-answers";

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let base = match cli::parse() {
        Ok(base) => base,
        Err(status) => return status,
    };
    // Each server opened by this chapter's discover.rs, in its era.
    let (capabilities, open) = (discover::capabilities, discover::open);
    let more = nothing_more;
    let started = Parts::start_with(PROGRAM, base, capabilities, open, more, ask::EVENTS, &[]);
    match started.await {
        Ok(parts) => parts.run((), stack).await,
        Err(err) => show::ended(PROGRAM, Err(err)),
    }
}

/// Chapter 11's harness, with this chapter's `Answering` in the place of
/// chapter 7's servers: their tools, and a call run through their
/// questions.
fn stack(parts: &Parts, _: ()) -> Result<Stack<'_>, String> {
    let respondent = Respondent {
        answers: &parts.answers,
        hooks: &parts.hooks,
        model: &parts.model,
    };
    let answering = Answering {
        program: PROGRAM,
        servers: &parts.servers,
        respondent,
    };
    Ok(parts.base_with(answering))
}
