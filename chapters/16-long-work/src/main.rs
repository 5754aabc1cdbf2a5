//! Chapter 16: the server of chapter 14, with work that takes long.
//! `reindex_notes` reads the notes one step at a time and says how far it
//! is (`notifications/progress`), stops between steps when the client
//! cancels and leaves nothing half-done (`reindex.rs`); when it finishes,
//! a new tool appears, and the clients that subscribed hear of it
//! (`subscriptions.rs`). The transports carry the call: stdio, and over
//! HTTP an event stream written while the work runs (`http.rs`).

mod dispatch;
mod http;
mod reindex;
mod subscriptions;
#[cfg(feature = "stretch")]
mod throttle; // The stretch ch16/throttle.

// What chapters 4, 5, 12 and 14 settled, under the names they used, and
// the given code (the seal, the roots, the tools' schemas, the watched
// stdio connection).
use wire_server::{ask, asking, asking_http, asking_tools, draft_tools, http_util, jsonrpc};
use wire_server::{asking_calls, long_work, rounds, watched};
use wire_server::{flags, modern, options, request_state, resources, server, state};

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use asking::{seconds, timing};
use dispatch::Asking;
use http::Shared;
use options::options;
use request_state::Seal;
use resources::Notes;
use server::Server;
use state::State;

/// Our name: in `serverInfo`, and at the start of every log line.
const SERVER_NAME: &str = "ch16-long-work";

const HELP: &str = "\
ch16-long-work: the server of chapter 14, with a slow tool, reindex_notes,
that reports progress, stops when cancelled, and adds the tool search_index
when it is done, telling the clients that subscribed; on stdio or over
Streamable HTTP.

Usage: ch16-long-work [--listen ADDR [--token TOKEN] [--allow-origin ORIGIN]...]
                      [--notes-dir DIR] [--state DIR] [--input-ttl SECS]
                      [--answer-wait SECS] [--step SECS] [--help]

  --listen ADDR          serve HTTP there instead of stdio (port 0 picks a
                         free port). The bound address is printed on stderr.
  --token TOKEN          require \"Authorization: Bearer TOKEN\" on every request
                         (or set WIRE_TOKEN). Without either, no token is asked.
  --allow-origin ORIGIN  also trust requests from this browser origin, such as
                         https://app.example (loopback origins always pass).
  --notes-dir DIR        also serve the files under DIR, read-only.
  --state DIR            keep the drafts, and the key that seals a
                         requestState, in DIR. Instances sharing DIR can
                         answer one client in turns, rounds included.
  --input-ttl SECS       how long a requestState stays good (default 600).
  --answer-wait SECS     how long a 2025-11-25 call over HTTP waits for each
                         answer of the client's (default 20, at most 20).
  --step SECS            the pause between two steps of reindex_notes, one
                         step a note (default 0.2, at most 10).

Without --listen, reads newline-delimited JSON-RPC 2.0 on stdin and answers
on stdout, as chapter 12 does, until stdin closes. Speaks MCP 2026-07-28 to a
request that names it, and 2025-11-25 and 2025-06-18 after an initialize,
without sessions. Ctrl-C or SIGTERM stops the HTTP server.
";

// ANCHOR: main
fn main() -> ExitCode {
    wire_server::SERVER_NAME.set(SERVER_NAME); // Its log lines name us too.
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|arg| arg == "--help" || arg == "-h") {
        print!("{HELP}");
        return ExitCode::SUCCESS;
    }
    let step = flags::take_flag(&mut args, "--step").map(|step| seconds(step, "--step", 0.2, 10.0));
    let options = timing(&mut args).and_then(|timing| Ok((timing, step??, options(args)?)));
    let options = options.and_then(|((input_ttl, answer_wait), pause, options)| {
        let server = open(options.notes, options.state, (input_ttl, pause))?;
        Ok((options.listen, options.guard, server, answer_wait))
    });
    let (listen, guard, server, answer_wait) = match options {
        Ok(opened) => opened,
        Err(problem) => {
            eprintln!("{SERVER_NAME}: {problem}; try --help");
            return ExitCode::from(2);
        }
    };
    let Some(listen) = listen else {
        // Chapter 14's stdio, watched while a call works; its subscriptions.
        let mut subscriptions = Vec::new();
        return watched::serve(&server.server, |incoming, era, connection| {
            server.stdio(incoming, era, connection, &mut subscriptions)
        });
    };
    // No lock around the server: it keeps no state of any connection, and
    // its drafts live in the state folder.
    let shared = Arc::new(Shared {
        server: Box::new(server),
        guard,
        pending: Arc::default(),
        answer_wait,
        running: Arc::default(),
        listeners: Arc::default(),
    });
    http_util::run(http::serve(listen, shared))
}
// ANCHOR_END: main

/// Chapter 14's server, with its notes and state folder again for reindexing.
fn open(
    notes: Option<PathBuf>,
    state: Option<PathBuf>,
    (input_ttl, pause): (Duration, Duration),
) -> Result<Asking, String> {
    let (notes_again, state) = (Notes::new(notes.clone())?, State::open(state)?);
    // The key of every requestState, shared by the instances of one --state.
    let seal = Seal::open(&state, input_ttl)?;
    let index_state = state.another();
    let server = Server::new(Notes::new(notes)?, state);
    Ok(Asking {
        server,
        seal,
        notes: notes_again,
        state: index_state,
        pause,
    })
}
