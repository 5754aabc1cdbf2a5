//! The stdio transport of chapters 2 to 5: newline-delimited frames on
//! stdin, replies on stdout, flushed when no further frame is at hand. From
//! chapter 12 on it is a function of its own, so that chapter 13 can offer it
//! beside HTTP; what to answer is the caller's (`answer`), which keeps the
//! connection's handshake.

use std::io::{self, BufReader, BufWriter, Write};
use std::process::ExitCode;

use crate::SERVER_NAME;
use crate::jsonrpc::{self, Frame, Reply};

// ANCHOR: serve
/// Serves stdin and stdout until stdin closes. `answer` gets every frame
/// but the end (a line, or word that one was too large) and returns the
/// reply to write, if any.
pub fn serve(mut answer: impl FnMut(Frame) -> Option<Reply>) -> ExitCode {
    // Buffers of our own at both ends: `input.buffer()` shows the bytes that
    // have arrived but are not read yet, and `output` holds replies until
    // we flush.
    let mut input = BufReader::new(io::stdin().lock());
    let mut output = BufWriter::new(io::stdout().lock());
    loop {
        let reply = match jsonrpc::read_frame(&mut input) {
            Ok(Frame::Eof) => break,
            Ok(frame) => {
                if let Frame::Line(line) = &frame {
                    crate::trace::log(line);
                }
                answer(frame)
            }
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
        // Flush unless the next frame is already here in full: the next read
        // could then block, and no reply may wait while we do. Replies to
        // frames that are already here go out together, in one write.
        if !input.buffer().contains(&b'\n')
            && let Err(err) = output.flush()
        {
            eprintln!("{SERVER_NAME}: cannot flush stdout: {err}");
            return ExitCode::FAILURE;
        }
    }
    eprintln!("{SERVER_NAME}: stdin closed, bye");
    ExitCode::SUCCESS
}
// ANCHOR_END: serve
