//! Chapter 17: the server of chapter 16, with tasks. A 2026-07-28 call of
//! `reindex_notes` that declares the extension `io.modelcontextprotocol/tasks`
//! gets a handle at once (`resultType: "task"`), and the work goes on
//! without the client: it asks how far it is with `tasks/get`, stops it
//! with `tasks/cancel` (`tasks.rs`). Every other call, and every call
//! that does not declare the extension, is chapter 16's.

mod dispatch;
mod tasks;

// What chapters 4, 5, 12, 14 and 16 settled (chapter 16's server and its
// transport among them), under the names they used, and the given code (the
// seal, the tools' schemas, the watched stdio connection, a waiting task).
use wire_server::{asking, asking_calls as tools, asking_tools, dispatch16, draft_tools, flags};
use wire_server::{http_util, http16 as http, jsonrpc, long_work, modern, options, reindex};
use wire_server::{request_state, resources, server, state, task_waiting, watched};

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use asking::{seconds, timing};
use dispatch::Tasks;
use dispatch16::Asking;
use http::Shared;
use options::options;
use request_state::Seal;
use resources::Notes;
use server::Server;
use state::State;

/// Our name: in `serverInfo`, and at the start of every log line.
const SERVER_NAME: &str = "ch17-tasks";

const HELP: &str = "\
ch17-tasks: the server of chapter 16, whose slow tool, reindex_notes, runs
as a task when a 2026-07-28 call declares the extension
io.modelcontextprotocol/tasks: the call gets a handle at once, and tasks/get,
tasks/update and tasks/cancel follow the work, from any instance that shares
--state; on stdio or over Streamable HTTP.

Usage: ch17-tasks [--listen ADDR [--token TOKEN] [--allow-origin ORIGIN]...]
                  [--notes-dir DIR] [--state DIR] [--input-ttl SECS]
                  [--answer-wait SECS] [--step SECS] [--help]

  --listen ADDR          serve HTTP there instead of stdio (port 0 picks a
                         free port). The bound address is printed on stderr.
  --token TOKEN          require \"Authorization: Bearer TOKEN\" on every request
                         (or set WIRE_TOKEN). Without either, no token is asked.
  --allow-origin ORIGIN  also trust requests from this browser origin, such as
                         https://app.example (loopback origins always pass).
  --notes-dir DIR        also serve the files under DIR, read-only.
  --state DIR            keep the drafts, the tasks, and the key that seals a
                         requestState, in DIR. Instances sharing DIR can
                         answer one client in turns, rounds and tasks included.
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
        return watched::serve(&server.long_work.server, |incoming, era, connection| {
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

/// Chapter 16's server, and the notes and the state folder once more for the tasks.
fn open(
    notes: Option<PathBuf>,
    state: Option<PathBuf>,
    (input_ttl, pause): (Duration, Duration),
) -> Result<Tasks, String> {
    let (notes_again, state) = (Notes::new(notes.clone())?, State::open(state)?);
    // The key of every requestState, shared by the instances of one --state.
    let seal = Seal::open(&state, input_ttl)?;
    let index_state = state.another();
    // Once more, for the tasks' work, which outlives the call that started it.
    let background = Arc::new((Notes::new(notes.clone())?, state.another()));
    let server = Server::new(Notes::new(notes)?, state);
    let long_work = Asking {
        server,
        seal,
        notes: notes_again,
        state: index_state,
        pause,
    };
    Ok(Tasks {
        long_work,
        background,
    })
}
