//! ch14-conformance: chapter 14's Streamable HTTP transport and its asking
//! machinery, serving the official conformance suite's fixtures instead of
//! the notes, so that `tests/peers/conformance.sh` (`run.sh 14`) can run the
//! suite against the course's code. The learner never needs to read this.
//!
//! Chapter 14's files are compiled here as they are: the suite judges the
//! very transport (`http.rs`) and the very asking machinery the chapter
//! teaches (`ask.rs`'s `Ask`; `legacy.rs`, whose requests travel on the
//! POST's event stream in 2025-11-25; `rounds.rs`'s sealed input-required
//! rounds in 2026-07-28), and the teaching crate carries no fixture code. The fixtures are chapter 13's
//! (`tests/conformance/src/fixtures.rs`, compiled here too) and those
//! chapter 14 adds (`fixtures_14.rs`: the ones that ask). Around them,
//! chapter 12's server keeps the lifecycle: `initialize`, `ping`,
//! `server/discover`, only with the fixtures' capabilities.

#[path = "../../conformance/src/cli.rs"]
mod cli;
#[path = "../../../solutions/14-asking/src/http.rs"]
mod http;

// What the fixtures ask through: the chapter's `Ask` (which http.rs names
// too), `legacy.rs` (2025-11-25: any `Transport`, the POST's event stream
// here, is an `Ask`) and `rounds.rs` (2026-07-28).
#[path = "../../../solutions/14-asking/src/ask.rs"]
mod ask;
#[path = "../../../solutions/14-asking/src/legacy.rs"]
mod legacy;
#[path = "../../../solutions/14-asking/src/rounds.rs"]
// `rounds::round` runs the chapter's own tools; the fixtures' round, below,
// answers prompts/get too, so it opens `Rounds` itself.
#[allow(dead_code)]
mod rounds;

#[path = "../../conformance/src/fixtures.rs"]
mod fixtures;

mod fixtures_14;

// The modules chapter 14's files use, by the names they use them.
use wire_server::{asking, asking_http, draft_tools, http_util, jsonrpc, modern, request_state};
use wire_server::{options, server};

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value, json};

use ask::{Ask, Stop};
use asking::Unable;
use http::{Answer, Asker, Handler, Shared};
use jsonrpc::RpcError;
use options::Guard;
use request_state::Seal;
use rounds::Rounds;
use server::{Era, Server};
use wire_server::resources::Notes;
use wire_server::state::State;

/// Our name: in `serverInfo`, and at the start of every log line.
const SERVER_NAME: &str = "ch14-conformance";

/// How long a requestState stays good: chapter 14's default.
const INPUT_TTL: Duration = Duration::from_secs(600);

/// How long a 2025-11-25 call waits for each answer: chapter 14's default.
const ANSWER_WAIT: Duration = Duration::from_secs(20);

const HELP: &str = "\
ch14-conformance: chapter 14's HTTP transport serving the MCP conformance
suite's fixtures (test tools, resources and prompts, and the tools that ask
the client) at http://ADDR/mcp.

Usage: ch14-conformance [--listen ADDR] [--state DIR] [--help]

  --listen ADDR  where to listen (default 127.0.0.1:3000; port 0 picks a
                 free port). The bound address is printed on stderr:
                 listening on http://ADDR/mcp
  --state DIR    the state folder, where the key that seals a requestState
                 is kept (without it, a key of this process's own).

Ctrl-C or SIGTERM stops it.
";

/// The fixtures, with chapter 12's server for what they do not answer, and
/// chapter 14's seal for the rounds of the fixtures that ask.
struct Fixtures {
    server: Server,
    seal: Seal,
}

impl Handler for Fixtures {
    fn request(&self, method: &str, params: Option<Value>, era: Era, asker: Asker) -> Answer {
        if let Some(name) = fixtures_14::ours(method, params.as_ref()) {
            let outcome = match era {
                Era::Modern => self.round(method, &name, params.unwrap_or_default()),
                Era::Legacy(_) => legacy(method, &name, params.unwrap_or_default(), asker),
            };
            return (Vec::new(), outcome);
        }
        let (notifications, mut outcome) = self.chapter_13(method, params, era);
        if let Ok(result) = &mut outcome {
            let added = match method {
                "tools/list" => Some(("tools", fixtures_14::tools())),
                "prompts/list" => Some(("prompts", vec![fixtures_14::prompt_definition()])),
                _ => None,
            };
            if let Some((list, added)) = added
                && let Some(Value::Array(items)) = result.get_mut(list)
            {
                items.extend(added);
            }
        }
        (notifications, outcome)
    }

    /// A 2025-11-25 call of a fixture that asks gets an event stream that
    /// stays open, and an asker that writes the server's requests on it.
    fn may_ask(&self, method: &str, params: Option<&Value>) -> bool {
        fixtures_14::ours(method, params).is_some()
    }

    fn notification(&self, method: &str) {
        self.server.handle_notification(method);
    }
}

impl Fixtures {
    /// As ch13-conformance: chapter 12's lifecycle, chapter 13's fixtures.
    fn chapter_13(&self, method: &str, params: Option<Value>, era: Era) -> Answer {
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

    /// 2026-07-28: one round of a fixture that asks, through chapter 14's
    /// `Rounds`, as its `Asking::call_modern` runs `publish_draft`.
    fn round(&self, method: &str, name: &str, params: Value) -> Result<Value, RpcError> {
        modern::check_meta(Some(&params))?;
        let arguments = arguments(&params)?;
        let params = params.as_object().cloned().unwrap_or_default();
        let call = format!("{method} {name}");
        let mut rounds = Rounds::open(&self.seal, call, &arguments, &params)?;
        let outcome = run(method, name, &arguments, &mut rounds);
        match outcome {
            Ok(result) => Ok(modern::complete(method, result)),
            Err(Stop::Refused(advice)) => Ok(modern::complete(method, refused(method, &advice)?)),
            Err(Stop::Error(error)) => Err(error),
            Err(Stop::Input) => {
                let mut asking = rounds.input_required(&self.seal);
                asking["_meta"] = modern::complete(method, json!({}))["_meta"].take();
                Ok(asking)
            }
        }
    }
}

/// A request's `arguments` (a prompt's too): an object, or none.
fn arguments(params: &Value) -> Result<Map<String, Value>, RpcError> {
    match params.get("arguments") {
        None => Ok(Map::new()),
        Some(Value::Object(arguments)) => Ok(arguments.clone()),
        Some(_) => Err(RpcError::invalid_params("arguments must be an object")),
    }
}

/// The fixture a request names, asking through `asker`.
fn run(
    method: &str,
    name: &str,
    arguments: &Map<String, Value>,
    asker: &mut dyn Ask,
) -> Result<Value, Stop> {
    match method {
        "prompts/get" => fixtures_14::prompt(asker),
        _ => fixtures_14::call(name, arguments, asker),
    }
}

/// A fixture that cannot go on: a tool says so in its result (`isError`),
/// for the model to read; a prompt has no such result, so it is an error.
fn refused(method: &str, advice: &str) -> Result<Value, RpcError> {
    match method {
        "tools/call" => Ok(draft_tools::tool_error(advice)),
        _ => Err(RpcError::invalid_params(advice.to_string())),
    }
}

/// 2025-11-25: the fixture asks through the transport's asker (the call's
/// own event stream; `may_ask` made sure there is one), as chapter 14's
/// `Asking` runs its own tools.
fn legacy(method: &str, name: &str, params: Value, asker: Asker) -> Result<Value, RpcError> {
    let arguments = arguments(&params)?;
    let mut unable = Unable;
    let asker = asker.unwrap_or(&mut unable);
    match run(method, name, &arguments, asker) {
        Ok(result) => Ok(result),
        Err(Stop::Refused(advice)) => refused(method, &advice),
        Err(Stop::Error(error)) => Err(error),
        Err(Stop::Input) => Err(RpcError::internal("no answer")),
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
        let state = State::open(state)?;
        let seal = Seal::open(&state, INPUT_TTL)?;
        let server = Server::new(Notes::new(None)?, state);
        Ok((listen, Fixtures { server, seal }))
    });
    let (listen, fixtures) = match opened {
        Ok(opened) => opened,
        Err(problem) => {
            eprintln!("{SERVER_NAME}: {problem}; try --help");
            return ExitCode::from(2);
        }
    };
    let shared = Arc::new(Shared {
        server: Box::new(fixtures),
        guard: Guard {
            token: None,
            allowed_origins: Vec::new(),
        },
        pending: Arc::default(),
        answer_wait: ANSWER_WAIT,
    });
    wire_server::http_util::run(http::serve(listen, shared))
}
