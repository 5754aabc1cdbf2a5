//! Chapter 18: the server of chapter 13, also serving skills. A folder of
//! skill folders (`--skills-dir`) becomes `skill://` resources, one per
//! file, and the extension io.modelcontextprotocol/skills adds
//! `skills/list` and `skills/get`, whose entries carry each skill's
//! frontmatter and the digests of its files. `skills.rs` is new, and
//! `dispatch.rs`, which sends a request to it or to chapter 12's `Server`;
//! `http.rs` is chapter 13's, unchanged.

mod dispatch;
mod http;
mod skills;

// What chapters 4, 5 and 12 settled, under the names chapter 12 used.
use wire_server::{base64, folder, paging};
use wire_server::{http_util, jsonrpc, modern, resources, server, state, stdio};

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use dispatch::SkillServer;
use http::{Guard, Shared};
use jsonrpc::Frame;
use resources::Notes;
use server::{Handshake, Server};
use skills::Skills;
use state::State;

/// Our name: in `serverInfo`, and at the start of every log line.
const SERVER_NAME: &str = "ch18-skills-server";

const HELP: &str = "\
ch18-skills-server: the server of chapter 13 (notes, prompts, drafts; both
eras of MCP), also serving a folder of Agent Skills under the extension
io.modelcontextprotocol/skills: each file a skill:// resource, and skills/list
and skills/get for 2026-07-28; on stdio or over Streamable HTTP.

Usage: ch18-skills-server [--listen ADDR [--token TOKEN] [--allow-origin ORIGIN]...]
                          [--skills-dir DIR] [--notes-dir DIR] [--state DIR] [--help]

  --listen ADDR          serve HTTP there instead of stdio (port 0 picks a
                         free port). The bound address is printed on stderr.
  --token TOKEN          require \"Authorization: Bearer TOKEN\" on every request
                         (or set WIRE_TOKEN). Without either, no token is asked.
  --allow-origin ORIGIN  also trust requests from this browser origin, such as
                         https://app.example (loopback origins always pass).
  --skills-dir DIR       serve the skills under DIR: each folder holding a
                         SKILL.md that follows chapter 8's rules, at any depth
                         (acme/billing/refunds). stderr says why one is not.
  --notes-dir DIR        also serve the files under DIR, read-only.
  --state DIR            keep the drafts in DIR. Instances sharing DIR can
                         answer one client in turns.

Without --listen, reads newline-delimited JSON-RPC 2.0 on stdin and answers
on stdout, as chapter 12 does, until stdin closes. Speaks MCP 2026-07-28 to a
request that names it, and 2025-11-25 and 2025-06-18 after an initialize,
without sessions; the skills are 2026-07-28's. Ctrl-C or SIGTERM stops the
HTTP server.
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
        let skills = Skills::open(options.skills)?;
        let server = Server::new(notes, state);
        Ok((
            options.listen,
            options.guard,
            SkillServer { server, skills },
        ))
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
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("{SERVER_NAME}: cannot start the runtime: {err}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(http::serve(listen, shared)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(problem) => {
            eprintln!("{SERVER_NAME}: {problem}");
            ExitCode::FAILURE
        }
    }
}
// ANCHOR_END: main

// ANCHOR: options
/// What the command line asks for.
struct Options {
    /// `--listen ADDR`: HTTP there; `None`: stdio.
    listen: Option<SocketAddr>,
    guard: Guard,
    /// `--notes-dir DIR`: notes to serve, read-only.
    notes: Option<PathBuf>,
    /// `--state DIR`: where the drafts live.
    state: Option<PathBuf>,
    /// `--skills-dir DIR`: the skills to serve.
    skills: Option<PathBuf>,
}

fn options(args: Vec<String>) -> Result<Options, String> {
    let mut listen = None;
    let mut token = None;
    let mut origins = Vec::new();
    let mut notes = None;
    let mut state = None;
    let mut skills = None;
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let slot = match arg.as_str() {
            "--allow-origin" => {
                origins.push(args.next().ok_or("--allow-origin needs an origin")?);
                continue;
            }
            "--listen" => &mut listen,
            "--token" => &mut token,
            "--notes-dir" => &mut notes,
            "--state" => &mut state,
            "--skills-dir" => &mut skills,
            _ => return Err(format!("unknown argument {arg:?}")),
        };
        let value = args.next().ok_or(format!("{arg} needs a value"))?;
        if slot.replace(value).is_some() {
            return Err(format!("{arg} may be given only once"));
        }
    }
    let listen = match listen {
        None if token.is_some() || !origins.is_empty() => {
            return Err("--token and --allow-origin guard HTTP: give --listen ADDR too".into());
        }
        None => None,
        Some(listen) => Some(listen.parse().map_err(|_| {
            format!("--listen needs an address such as 127.0.0.1:3000, not {listen:?}")
        })?),
    };
    // The environment keeps the token out of `ps` and shell history.
    let token = token
        .or_else(|| std::env::var("WIRE_TOKEN").ok())
        .filter(|token| !token.is_empty());
    Ok(Options {
        listen,
        guard: Guard {
            token,
            allowed_origins: origins,
        },
        notes: notes.map(PathBuf::from),
        state: state.map(PathBuf::from),
        skills: skills.map(PathBuf::from),
    })
}
// ANCHOR_END: options
