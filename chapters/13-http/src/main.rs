//! Chapter 13: the server of chapter 12, also over Streamable HTTP: one
//! endpoint, /mcp, where every POST carries one message and names its
//! revision in its headers. No session is kept, so instances sharing
//! `--state` can take turns answering one client. New: `http.rs`, and
//! `options.rs`, the command line later servers keep. Without `--listen`
//! it speaks stdio exactly as chapter 12 does.

mod http;
mod options;

// What chapters 4, 5 and 12 settled, under the names chapter 12 used.
use wire_server::{http_util, jsonrpc, modern, resources, server, state, stdio};

use std::process::ExitCode;
use std::sync::Arc;

use http::Shared;
use jsonrpc::Frame;
use options::options;
use resources::Notes;
use server::{Handshake, Server};
use state::State;

/// Our name: in `serverInfo`, and at the start of every log line.
const SERVER_NAME: &str = "ch13-http";

const HELP: &str = "\
ch13-http: the server of chapter 12 (notes, prompts, drafts; both eras of
MCP) on stdio, or over Streamable HTTP at one endpoint: http://ADDR/mcp.

Usage: ch13-http [--listen ADDR [--token TOKEN] [--allow-origin ORIGIN]...]
                 [--notes-dir DIR] [--state DIR] [--help]

  --listen ADDR          serve HTTP there instead of stdio (port 0 picks a
                         free port). The bound address is printed on stderr.
  --token TOKEN          require \"Authorization: Bearer TOKEN\" on every request
                         (or set WIRE_TOKEN). Without either, no token is asked.
  --allow-origin ORIGIN  also trust requests from this browser origin, such as
                         https://app.example (loopback origins always pass).
  --notes-dir DIR        also serve the files under DIR, read-only.
  --state DIR            keep the drafts in DIR. Instances sharing DIR can
                         answer one client in turns.

Without --listen, reads newline-delimited JSON-RPC 2.0 on stdin and answers
on stdout, exactly as chapter 12 does, until stdin closes. Speaks MCP
2026-07-28 to a request that names it, and 2025-11-25 and 2025-06-18 after
an initialize, without sessions. Ctrl-C or SIGTERM stops the HTTP server.
";

// ANCHOR: main
fn main() -> ExitCode {
    wire_server::SERVER_NAME.set(SERVER_NAME); // Its log lines name us too.
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|arg| arg == "--help" || arg == "-h") {
        print!("{HELP}");
        return ExitCode::SUCCESS;
    }
    let options = options(args).and_then(|options| {
        let notes = Notes::new(options.notes)?;
        let state = State::open(options.state)?;
        Ok((options.listen, options.guard, Server::new(notes, state)))
    });
    let (listen, guard, server) = match options {
        Ok(opened) => opened,
        Err(problem) => {
            eprintln!("{SERVER_NAME}: {problem}; try --help");
            return ExitCode::from(2);
        }
    };
    let Some(listen) = listen else {
        // No --listen: chapter 12's stdio, one connection, one handshake.
        let mut handshake = Handshake::default();
        return stdio::serve(|frame| match frame {
            Frame::Line(line) => server.handle_line(&line, &mut handshake),
            _ => Some(handshake.for_revision(jsonrpc::frame_too_large())),
        });
    };
    // No lock around the server: it keeps no state of any connection, and
    // its drafts live in the state folder.
    let shared = Arc::new(Shared {
        server: Box::new(server),
        guard,
    });
    http_util::run(http::serve(listen, shared))
}
// ANCHOR_END: main
