//! Chapter 12: stateless MCP. The notes server of chapter 5 also speaks
//! revision 2026-07-28, where every request carries its own version and
//! capabilities, decided request by request on one connection. Drafts show
//! state that travels as a handle, kept in a folder any instance can share.
//!
//! `modern.rs` and `drafts.rs` are new; `server.rs` decides each message's
//! era. What chapters 4 and 5 settled comes from the `wire_server` crate.

mod drafts;
mod modern;
mod server;
mod tools;

// The settled modules, under the names the files above use (`crate::resources`).
use wire_server::{draft_tools, jsonrpc, prompts, resources, state, stdio};

use std::path::PathBuf;
use std::process::ExitCode;

use jsonrpc::Frame;
use resources::Notes;
use server::{Handshake, Server};
use state::State;

/// Our name: in `serverInfo`, and at the start of every log line.
const SERVER_NAME: &str = "ch12-stateless";

const HELP: &str = "\
ch12-stateless: the notes server of chapter 5 (resources, prompts,
search_notes, add) plus note drafts (start_draft, append_to_draft,
read_draft), speaking both eras of MCP on one connection.

Usage: ch12-stateless [--notes-dir DIR] [--state DIR] [--help]

  --notes-dir DIR  also serve the files under DIR, read-only, as folder:///PATH.
                   Nothing outside DIR is ever read, whatever the client asks.
  --state DIR      keep the drafts in DIR (made if missing). Instances that
                   share DIR share the drafts. Without it, the drafts live in
                   a private folder that is removed when the server exits.

Reads newline-delimited JSON-RPC 2.0 messages on stdin and answers on stdout.
Speaks MCP revision 2026-07-28 to a request that names it in params._meta,
and 2025-11-25 and 2025-06-18 after an initialize. Logs go to stderr.
The server exits with status 0 when stdin is closed.
";

// ANCHOR: main
fn main() -> ExitCode {
    wire_server::SERVER_NAME.set(SERVER_NAME); // Its log lines name us too.
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|arg| arg == "--help" || arg == "-h") {
        print!("{HELP}");
        return ExitCode::SUCCESS;
    }
    let opened = folders(args)
        .and_then(|folders| Ok((Notes::new(folders.notes)?, State::open(folders.state)?)));
    let (notes, state) = match opened {
        Ok(opened) => opened,
        Err(problem) => {
            eprintln!("{SERVER_NAME}: {problem}; try --help");
            return ExitCode::from(2);
        }
    };
    let server = Server::new(notes, state);
    let mut handshake = Handshake::default(); // One connection: one handshake.
    stdio::serve(|frame| match frame {
        Frame::Line(line) => server.handle_line(&line, &mut handshake),
        _ => Some(handshake.for_revision(jsonrpc::frame_too_large())),
    })
}
// ANCHOR_END: main

// ANCHOR: folders
/// The folders named on the command line.
struct Folders {
    /// `--notes-dir DIR`: notes to serve, read-only.
    notes: Option<PathBuf>,
    /// `--state DIR`: where the drafts live.
    state: Option<PathBuf>,
}

fn folders(args: Vec<String>) -> Result<Folders, String> {
    let mut folders = Folders {
        notes: None,
        state: None,
    };
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let slot = match arg.as_str() {
            "--notes-dir" => &mut folders.notes,
            "--state" => &mut folders.state,
            _ => return Err(format!("unknown argument {arg:?}")),
        };
        if slot.is_some() {
            return Err(format!("{arg} may be given only once"));
        }
        let path = args.next().ok_or(format!("{arg} needs a folder"))?;
        *slot = Some(PathBuf::from(path));
    }
    Ok(folders)
}
// ANCHOR_END: folders
