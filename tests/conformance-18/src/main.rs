//! ch18-conformance: chapter 18's skills (its `skills.rs`, compiled here as
//! it is) beside chapter 13's conformance fixtures, on chapter 13's
//! transport (`wire_server::http13`, as chapter 18 serves on it), so that `tests/peers/run.sh 18` can
//! run the suite's required scenarios and its sep-2640 (skills) scenarios
//! against the course's code. The skills are tests/fixtures/skills-server/acme,
//! whose skills are all valid (an HTTP server's first stderr line must say
//! where it listens). The learner never needs to read this crate.

#[path = "../../conformance/src/cli.rs"]
mod cli;
#[path = "../../../solutions/18-skills-server/src/skills.rs"]
mod skills;

#[path = "../../conformance/src/fixtures.rs"]
mod fixtures;

// The modules chapter 18's skills.rs uses, by the names it uses them.
use wire_server::{base64, folder, http13 as http, jsonrpc, modern, paging, server};

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use serde_json::{Value, json};

use http::{Answer, Handler, Shared};
use jsonrpc::RpcError;
use server::{Era, Server};
use skills::{SCHEME, SKILLS, Skills};
use wire_server::options::Guard;
use wire_server::resources::Notes;
use wire_server::state::State;

/// Our name: in `serverInfo`, and at the start of every log line.
const SERVER_NAME: &str = "ch18-conformance";

/// The skills served beside the fixtures.
const SKILLS_DIR: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../fixtures/skills-server/acme"
);

const HELP: &str = "\
ch18-conformance: chapter 18's HTTP transport serving the MCP conformance
suite's fixtures (test tools, resources and prompts) and chapter 18's
fixture skills (tests/fixtures/skills-server/acme) at http://ADDR/mcp.

Usage: ch18-conformance [--listen ADDR] [--state DIR] [--help]

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
    skills: Skills,
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
                if method == "server/discover" {
                    result["capabilities"]["extensions"] =
                        json!({ SKILLS: { "directoryRead": true } });
                }
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
        let uri = params.as_ref().and_then(|params| params["uri"].as_str());
        let read = method == "resources/read" && uri.is_some_and(|uri| uri.starts_with(SCHEME));
        let skill = match method {
            "skills/list" => Some(self.skills.list(params.clone())),
            "skills/get" => Some(self.skills.get(params.clone())),
            "resources/directory/read" => Some(self.skills.directory(uri.unwrap_or_default())),
            _ if read => Some(self.skills.read(uri.unwrap_or_default())),
            _ => None,
        };
        if let Some(outcome) = skill {
            let outcome = outcome
                .map(|result| modern::complete(method, result))
                .map_err(modern::renumbered);
            return (Vec::new(), outcome);
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
        let skills = Skills::open(Some(PathBuf::from(SKILLS_DIR)))?;
        Ok((listen, Fixtures { server, skills }))
    });
    let (listen, server) = match opened {
        Ok(opened) => opened,
        Err(problem) => {
            eprintln!("{SERVER_NAME}: {problem}; try --help");
            return ExitCode::from(2);
        }
    };
    let shared = Arc::new(Shared {
        server: Box::new(server),
        guard: Guard {
            token: None,
            allowed_origins: Vec::new(),
        },
    });
    wire_server::http_util::run(http::serve(listen, shared))
}
