//! Chapter 12: the server of chapter 11 over Streamable HTTP. The handler
//! is the same; what is new is the road to it: one endpoint, /mcp, where
//! every POST carries one message and names its revision in its headers.
//! The server keeps no session, so instances sharing `--state` can take
//! turns answering one client.
//!
//! `http.rs` is new; `main.rs` listens instead of reading stdin; `server.rs`
//! takes the revision from the transport.

mod base64;
mod drafts;
mod fixtures;
mod folder;
mod http;
mod jsonrpc;
mod modern;
mod notes;
mod paging;
mod prompts;
mod resources;
mod server;
mod state;
mod tools;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;

use http::{Guard, Shared};
use resources::Notes;
use server::Server;
use state::State;

/// Our name: in `serverInfo`, and at the start of every log line.
const SERVER_NAME: &str = "ch12-http";

const HELP: &str = "\
ch12-http: the server of chapter 11 (notes, prompts, drafts; both eras of
MCP) over Streamable HTTP, at one endpoint: http://ADDR/mcp.

Usage: ch12-http [--listen ADDR] [--token TOKEN] [--allow-origin ORIGIN]...
                 [--notes-dir DIR] [--state DIR] [--help]

  --listen ADDR          where to listen (default 127.0.0.1:3000; port 0 picks
                         a free port). The bound address is printed on stderr.
  --token TOKEN          require \"Authorization: Bearer TOKEN\" on every request
                         (or set WIRE_TOKEN). Without either, no token is asked.
  --allow-origin ORIGIN  also trust requests from this browser origin, such as
                         https://app.example (loopback origins always pass).
  --notes-dir DIR        also serve the files under DIR, read-only.
  --state DIR            keep the drafts in DIR. Instances sharing DIR can
                         answer one client in turns.
  --conformance-fixtures serve the official conformance suite's test tools,
                         resources and prompts instead of the notes.

Speaks MCP 2026-07-28 to a request that names it, and 2025-11-25 and
2025-06-18 after an initialize, without sessions. Ctrl-C or SIGTERM stops it.
";

// ANCHOR: main
fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|arg| arg == "--help" || arg == "-h") {
        print!("{HELP}");
        return ExitCode::SUCCESS;
    }
    let options = options(args).and_then(|options| {
        let notes = Notes::new(options.notes)?;
        let state = State::open(options.state)?;
        let server = Server::new(notes, state, options.fixtures);
        Ok((options.listen, options.guard, server))
    });
    let (listen, guard, server) = match options {
        Ok(opened) => opened,
        Err(problem) => {
            eprintln!("{SERVER_NAME}: {problem}; try --help");
            return ExitCode::from(2);
        }
    };
    let shared = Arc::new(Shared {
        server: Mutex::new(server),
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
    match runtime.block_on(serve(listen, shared)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(problem) => {
            eprintln!("{SERVER_NAME}: {problem}");
            ExitCode::FAILURE
        }
    }
}
// ANCHOR_END: main

// ANCHOR: serve
/// Accepts connections until Ctrl-C or SIGTERM; each connection is served
/// by hyper on its own task, one HTTP request after another.
async fn serve(listen: SocketAddr, shared: Arc<Shared>) -> Result<(), String> {
    let listener = TcpListener::bind(listen)
        .await
        .map_err(|err| format!("cannot listen on {listen}: {err}"))?;
    // The signals are ours from here on, before anyone is told we listen.
    let stop = stop_signal().map_err(|err| format!("cannot watch for signals: {err}"))?;
    tokio::pin!(stop);
    let bound = listener.local_addr().map_err(|err| err.to_string())?;
    eprintln!("listening on http://{bound}{}", http::ENDPOINT);
    loop {
        let (stream, _peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(err) => {
                    // Out of file descriptors, say: refuse this one, keep serving.
                    eprintln!("{SERVER_NAME}: accept failed: {err}");
                    continue;
                }
            },
            signal = &mut stop => {
                eprintln!("{SERVER_NAME}: {signal}, bye");
                return Ok(());
            }
        };
        let shared = Arc::clone(&shared);
        tokio::spawn(async move {
            let service = service_fn(move |request| http::handle(request, Arc::clone(&shared)));
            let connection = http1::Builder::new().serve_connection(TokioIo::new(stream), service);
            if let Err(err) = connection.await {
                eprintln!("{SERVER_NAME}: connection ended: {err}");
            }
        });
    }
}

/// Resolves on the first Ctrl-C (SIGINT) or SIGTERM, naming it. The
/// handlers are installed when this is called, not when it is first awaited.
#[cfg(unix)]
fn stop_signal() -> std::io::Result<impl Future<Output = &'static str>> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut interrupt = signal(SignalKind::interrupt())?;
    let mut terminate = signal(SignalKind::terminate())?;
    Ok(async move {
        tokio::select! {
            _ = interrupt.recv() => "interrupted",
            _ = terminate.recv() => "terminated",
        }
    })
}

/// Elsewhere (Windows) there is no SIGTERM: Ctrl-C only.
#[cfg(not(unix))]
fn stop_signal() -> std::io::Result<impl Future<Output = &'static str>> {
    let interrupt = tokio::signal::ctrl_c();
    Ok(async move {
        let _ = interrupt.await;
        "interrupted"
    })
}
// ANCHOR_END: serve

// ANCHOR: options
/// What the command line asks for.
struct Options {
    listen: SocketAddr,
    guard: Guard,
    /// `--notes-dir DIR`: notes to serve, read-only.
    notes: Option<PathBuf>,
    /// `--state DIR`: where the drafts live.
    state: Option<PathBuf>,
    /// `--conformance-fixtures`: the official suite's test tools (fixtures.rs).
    fixtures: bool,
}

fn options(args: Vec<String>) -> Result<Options, String> {
    let mut listen = None;
    let mut token = None;
    let mut origins = Vec::new();
    let mut notes = None;
    let mut state = None;
    let mut fixtures = false;
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let slot = match arg.as_str() {
            "--conformance-fixtures" => {
                fixtures = true;
                continue;
            }
            "--allow-origin" => {
                origins.push(args.next().ok_or("--allow-origin needs an origin")?);
                continue;
            }
            "--listen" => &mut listen,
            "--token" => &mut token,
            "--notes-dir" => &mut notes,
            "--state" => &mut state,
            _ => return Err(format!("unknown argument {arg:?}")),
        };
        let value = args.next().ok_or(format!("{arg} needs a value"))?;
        if slot.replace(value).is_some() {
            return Err(format!("{arg} may be given only once"));
        }
    }
    let listen = listen.as_deref().unwrap_or("127.0.0.1:3000");
    let listen = listen
        .parse()
        .map_err(|_| format!("--listen needs an address such as 127.0.0.1:3000, not {listen:?}"))?;
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
        fixtures,
    })
}
// ANCHOR_END: options
