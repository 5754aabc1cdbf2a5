//! Chapter 1: a stdio echo server.
//!
//! Every MCP server that runs as a child process talks through three pipes:
//! it reads messages on stdin, writes messages on stdout, and logs on stderr.
//! Before any JSON, this chapter gets the pipes right: one message per line,
//! every line flushed, nothing but messages on stdout, and end of input means
//! "shut down".

use std::io::{self, BufRead, Write};
use std::process::ExitCode;

// ANCHOR: help
const HELP: &str = "\
ch01-echo: writes every line it reads on stdin back to stdout.

Usage: ch01-echo [--help]

One line in, the same line out, flushed at once. Logs go to stderr.
The server exits with status 0 when stdin is closed.
";
// ANCHOR_END: help

// ANCHOR: main
fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|arg| arg == "--help" || arg == "-h") {
        print!("{HELP}");
        return ExitCode::SUCCESS;
    }
    if let Some(arg) = args.first() {
        eprintln!("ch01-echo: unknown argument {arg:?}; try --help");
        return ExitCode::from(2);
    }

    // Locking once up front avoids taking the lock again for every line.
    let input = io::stdin().lock();
    let mut output = io::stdout().lock();
    // STRETCH(ch01/lf-only): a line that ends in "\r\n" (a Windows client)
    // goes back ending in "\n" alone: wrap `output` here in a writer of
    // your own (below), under #[cfg(feature = "stretch")].
    // END(ch01/lf-only)
    eprintln!("ch01-echo: ready, echoing stdin to stdout");
    match echo(input, &mut output) {
        Ok(lines) => {
            eprintln!("ch01-echo: stdin closed after {lines} lines, bye");
            ExitCode::SUCCESS
        }
        Err(err) => {
            // The reader went away (a broken pipe, say): nothing left to do.
            eprintln!("ch01-echo: {err}");
            ExitCode::FAILURE
        }
    }
}
// ANCHOR_END: main

// ANCHOR: echo
/// Copies `input` to `output` line by line and returns how many lines it saw.
///
/// Lines are raw bytes, not `String`s: a line that is not valid UTF-8 is still
/// a line, and an echo server has no business rejecting it.
fn echo(mut input: impl BufRead, output: &mut impl Write) -> io::Result<u64> {
    let mut line: Vec<u8> = Vec::new();
    let mut count = 0;
    loop {
        line.clear();
        // TODO(ch01/echo-line): read one line; on end of input return the count;
        // otherwise write the line back, newline-terminated, and flush.
        todo!(
            "ch01/echo-line: read one line; on end of input return the count; otherwise write the line back, newline-terminated, and flush."
        )
        // END(ch01/echo-line)
    }
}
// ANCHOR_END: echo

// STRETCH(ch01/lf-only): `LfOnly`, a `Write` that passes every write on, but
// writes a line that ends in "\r\n" with "\n" only; `echo` works unchanged.
// END(ch01/lf-only)
