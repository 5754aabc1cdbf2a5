//! Chapter 2: JSON-RPC 2.0 and the MCP handshake over stdio.
//!
//! `jsonrpc.rs` turns lines into messages and errors into frames; `server.rs`
//! knows MCP: the `initialize` handshake, version negotiation and `ping`.

mod jsonrpc;
mod server;

use std::io::{self, BufReader, BufWriter, Write};
use std::process::ExitCode;

use jsonrpc::Frame;
use server::Server;

/// Our name: in `serverInfo`, and at the start of every log line.
const SERVER_NAME: &str = "ch02-handshake";

const HELP: &str = "\
ch02-handshake: an MCP server that speaks the handshake and nothing else.

Usage: ch02-handshake [--help]

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
    if let Some(arg) = args.first() {
        eprintln!("{SERVER_NAME}: unknown argument {arg:?}; try --help");
        return ExitCode::from(2);
    }

    // Buffers of our own at both ends: `input.buffer()` shows the bytes that
    // have arrived but are not read yet, and `output` holds replies until
    // we flush.
    let mut input = BufReader::new(io::stdin().lock());
    let mut output = BufWriter::new(io::stdout().lock());
    let mut server = Server::new();
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
