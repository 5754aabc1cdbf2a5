//! Chapter 4: resources. The server from chapter 3 offers engineering notes
//! to list and read (`resources/*`), and a tool, `search_notes`, that
//! searches the same notes.
//!
//! New files, one job each: `notes.rs` (what a note is), `resources.rs` (the
//! `resources/*` methods), `folder.rs` (the only way into `--notes-dir`),
//! `paging.rs` (pages and cursors) and `base64.rs` (bytes in JSON). The other
//! files change in a few lines.

mod base64;
mod folder;
mod jsonrpc;
mod notes;
mod paging;
mod resources;
mod server;
mod tools;

use std::io::{self, BufReader, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use jsonrpc::Frame;
use resources::Notes;
use server::Server;

/// Our name: in `serverInfo`, and at the start of every log line.
const SERVER_NAME: &str = "ch04-resources";

const HELP: &str = "\
ch04-resources: an MCP server with engineering notes to read (resources),
a tool that searches them (search_notes), and the add tool.

Usage: ch04-resources [--notes-dir DIR] [--help]

  --notes-dir DIR  also serve the files under DIR, read-only, as folder:///PATH.
                   Nothing outside DIR is ever read, whatever the client asks.

Reads newline-delimited JSON-RPC 2.0 messages on stdin and answers on stdout.
Speaks MCP revisions 2025-11-25 and 2025-06-18. Logs go to stderr.
The server exits with status 0 when stdin is closed.
";

// ANCHOR: main
fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|arg| arg == "--help" || arg == "-h") {
        print!("{HELP}");
        return ExitCode::SUCCESS;
    }
    let notes = match notes_dir(args).and_then(Notes::new) {
        Ok(notes) => notes,
        Err(problem) => {
            eprintln!("{SERVER_NAME}: {problem}; try --help");
            return ExitCode::from(2);
        }
    };

    // Buffers of our own at both ends: `input.buffer()` shows the bytes that
    // have arrived but are not read yet, and `output` holds replies until
    // we flush.
    let mut input = BufReader::new(io::stdin().lock());
    let mut output = BufWriter::new(io::stdout().lock());
    let mut server = Server::new(notes);
    loop {
        let reply = match jsonrpc::read_frame(&mut input) {
            Ok(Frame::Line(line)) => server.handle_line(&line),
            Ok(Frame::TooLarge) => Some(server.for_revision(jsonrpc::frame_too_large())),
            Ok(Frame::Eof) => break,
            Err(err) => {
                eprintln!("{SERVER_NAME}: cannot read stdin: {err}");
                return ExitCode::FAILURE;
            }
        };
        if let Some(reply) = reply
            && let Err(err) = jsonrpc::write_frame(&mut output, &reply)
        {
            eprintln!("{SERVER_NAME}: cannot write stdout: {err}");
            return ExitCode::FAILURE;
        }
        // ANCHOR: flush
        // Flush unless the next frame is already here in full: the next read
        // could then block, and no reply may wait while we do. Replies to
        // frames that are already here go out together, in one write.
        if !input.buffer().contains(&b'\n')
            && let Err(err) = output.flush()
        {
            eprintln!("{SERVER_NAME}: cannot flush stdout: {err}");
            return ExitCode::FAILURE;
        }
        // ANCHOR_END: flush
    }
    eprintln!("{SERVER_NAME}: stdin closed, bye");
    ExitCode::SUCCESS
}
// ANCHOR_END: main

// ANCHOR: notes_dir
/// The folder named by `--notes-dir DIR`, if any.
fn notes_dir(args: Vec<String>) -> Result<Option<PathBuf>, String> {
    let mut dir = None;
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--notes-dir" if dir.is_none() => {
                let path = args.next().ok_or("--notes-dir needs a folder")?;
                dir = Some(PathBuf::from(path));
            }
            "--notes-dir" => return Err("--notes-dir may be given only once".to_string()),
            _ => return Err(format!("unknown argument {arg:?}")),
        }
    }
    Ok(dir)
}
// ANCHOR_END: notes_dir
