//! ch13-conformance: chapter 13's Streamable HTTP transport, serving the
//! official conformance suite's fixtures (fixtures.rs) instead of the notes,
//! so that `tests/peers/conformance.sh`, or any script, can run the suite
//! against the course's code. The learner never needs to read this crate.
//!
//! `http.rs` is chapter 13's own file, compiled here as it is: the suite
//! judges the very transport the chapter teaches, and the teaching crate
//! carries no fixture code. Around the fixtures, chapter 12's server (from
//! `wire_server`) keeps the lifecycle: `initialize`, `ping`,
//! `server/discover`, only with the fixtures' capabilities.

mod cli;
#[path = "../../../solutions/13-http/src/http.rs"]
mod http;

mod fixtures;

// The modules chapter 13's http.rs uses, by the names it uses them.
use wire_server::{http_util, jsonrpc, modern, options, server};

use std::process::ExitCode;
use std::sync::Arc;

use serde_json::Value;

use http::{Answer, Handler, Shared};
use jsonrpc::RpcError;
use options::Guard;
use server::{Era, Server};
use wire_server::resources::Notes;
use wire_server::state::State;

/// Our name: in `serverInfo`, and at the start of every log line.
const SERVER_NAME: &str = "ch13-conformance";

const HELP: &str = "\
ch13-conformance: chapter 13's HTTP transport serving the MCP conformance
suite's fixtures (test tools, resources and prompts) at http://ADDR/mcp.

Usage: ch13-conformance [--listen ADDR] [--state DIR] [--help]

  --listen ADDR  where to listen (default 127.0.0.1:3000; port 0 picks a
                 free port). The bound address is printed on stderr:
                 listening on http://ADDR/mcp
  --state DIR    the state folder of chapter 12's server (unused by the
                 fixtures; accepted so scripts can pass it).

Ctrl-C or SIGTERM stops it.
";

/// The fixtures, with chapter 12's server for what they do not answer.
struct Fixtures {
    server: Server,
}

impl Handler for Fixtures {
    fn request(&self, method: &str, params: Option<Value>, era: Era) -> Answer {
        let modern = matches!(era, Era::Modern);
        if matches!(method, "initialize" | "ping" | "server/discover") {
            let mut outcome = self.server.handle_request(method, params, era);
            if let Ok(result) = &mut outcome
                && result.get("capabilities").is_some()
            {
                result["capabilities"] = fixtures::capabilities(modern);
            }
            return (Vec::new(), outcome);
        }
        if !modern {
            // Over HTTP a legacy request names its agreed revision (http.rs
            // refuses it otherwise), so there is no handshake to check here.
            let answer = fixtures::serve(method, params, false);
            return (answer.notifications, answer.outcome);
        }
        // As chapter 12's `handle_modern`, with the fixtures to serve.
        if let Err(error) = modern::check_meta(params.as_ref()) {
            return (Vec::new(), Err(error));
        }
        if let Some(error) = modern::removed(method) {
            return (Vec::new(), Err(error));
        }
        let answer = fixtures::serve(method, params, true);
        let outcome: Result<Value, RpcError> = answer
            .outcome
            .map(|result| modern::complete(method, result))
            .map_err(modern::renumbered);
        (answer.notifications, outcome)
    }

    fn notification(&self, method: &str) {
        self.server.handle_notification(method);
    }
}

fn main() -> ExitCode {
    wire_server::SERVER_NAME.set(SERVER_NAME);
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|arg| arg == "--help" || arg == "-h") {
        print!("{HELP}");
        return ExitCode::SUCCESS;
    }
    let opened = cli::options(args).and_then(|(listen, state)| {
        let server = Server::new(Notes::new(None)?, State::open(state)?);
        Ok((listen, server))
    });
    let (listen, server) = match opened {
        Ok(opened) => opened,
        Err(problem) => {
            eprintln!("{SERVER_NAME}: {problem}; try --help");
            return ExitCode::from(2);
        }
    };
    let shared = Arc::new(Shared {
        server: Box::new(Fixtures { server }),
        guard: Guard {
            token: None,
            allowed_origins: Vec::new(),
        },
    });
    wire_server::http_util::run(http::serve(listen, shared))
}
