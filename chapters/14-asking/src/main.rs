//! Chapter 14: the server of chapter 13, with tools that ask the client's
//! side for what only it has: the user's decision (elicitation), a
//! completion from its model (sampling), the folders it may write to
//! (roots). A tool asks once, through `ask.rs`; the era decides how: a
//! request of the server's own in 2025-11-25 (`legacy.rs`), an
//! input-required result and a sealed retry in 2026-07-28 (`rounds.rs`).

mod ask;
mod dispatch;
mod http;
mod legacy;
#[cfg(feature = "stretch")]
mod once; // The stretch ch14/spent-once.
mod rounds;
mod tools;

// What chapters 4, 5 and 12 settled, under the names chapter 12 used, and
// the given code of this chapter (the seal, the roots, the tools' schemas).
use wire_server::{asking, asking_http, asking_tools, draft_tools, http_util, jsonrpc, modern};
use wire_server::{options, request_state, resources, roots, server, state};

use std::process::ExitCode;
use std::sync::Arc;

use asking::timing;
use dispatch::Asking;
use http::Shared;
use options::options;
use request_state::Seal;
use resources::Notes;
use server::Server;
use state::State;

/// Our name: in `serverInfo`, and at the start of every log line.
const SERVER_NAME: &str = "ch14-asking";

const HELP: &str = "\
ch14-asking: the server of chapter 13, whose tools publish_draft,
summarize_note and export_draft ask the client (a form for the user, a
completion from its model, its roots), on stdio or over Streamable HTTP.

Usage: ch14-asking [--listen ADDR [--token TOKEN] [--allow-origin ORIGIN]...]
                   [--notes-dir DIR] [--state DIR] [--input-ttl SECS]
                   [--answer-wait SECS] [--help]

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
    let options = timing(&mut args).and_then(|timing| Ok((timing, options(args)?)));
    let options = options.and_then(|((input_ttl, answer_wait), options)| {
        let notes = Notes::new(options.notes)?;
        let state = State::open(options.state)?;
        // The key of every requestState, shared by the instances of one --state.
        let seal = Seal::open(&state, input_ttl)?;
        let server = Asking {
            server: Server::new(notes, state),
            seal,
        };
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
        // Chapter 12's stdio, on a connection that also carries our requests.
        return asking::serve_stdio(&server.server, |method, params, era, connection| {
            server.request(method, params, era, Some(connection))
        });
    };
    // No lock around the server: it keeps no state of any connection, and
    // its drafts live in the state folder.
    let shared = Arc::new(Shared {
        server: Box::new(server),
        guard,
        pending: Arc::default(),
        answer_wait,
    });
    http_util::run(http::serve(listen, shared))
}
// ANCHOR_END: main
