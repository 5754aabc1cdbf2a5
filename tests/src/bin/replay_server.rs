//! `replay-server TRANSCRIPT [CHANNEL]`: plays the server side of one
//! channel of a transcript, for testing clients.
//!
//! It expects exactly the client frames (`->`) of its channel, in order,
//! and answers each with the server frames (`<-`) written after it. A
//! server frame is sent only once the client frame before it has arrived,
//! so a reply placed after a later client frame is withheld until then.
//!
//! On the first difference it says which frame differs on stderr (the
//! client passes that through) and exits with status 1. The runner learns
//! the verdict from a file: with `WIRE_REPLAY_REPORT=DIR`, it writes
//! `DIR/CHANNEL.txt`, `ok` or the report. `WIRE_REPLAY_EXACT=1` compares
//! frames byte for byte (for reference solutions); otherwise as JSON values.
//!
//! `WIRE_REPLAY_BLESS=1` (for `cargo xtask bless`) compares nothing: every
//! client frame is answered as the transcript answers the one in its place,
//! and what came is written to `DIR/CHANNEL.frames`, for the transcript to be
//! rewritten from it.

use std::io::{self, BufRead, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use wire_tests::run::client_runner::replay_frames;
use wire_tests::run::runner::compare_line;
use wire_tests::run::runner::shorten;
use wire_tests::run::transcript::{Direction, Frame, Transcript};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: replay-server TRANSCRIPT [CHANNEL]");
        return ExitCode::from(2);
    };
    let channel = args.get(1).cloned();
    let label = channel.clone().unwrap_or_else(|| "-".to_string());
    let verdict = match Transcript::load(&PathBuf::from(path)) {
        Ok(transcript) => replay(&transcript, channel.as_deref()),
        Err(err) => Err(err.to_string()),
    };
    if let Some(dir) = std::env::var_os("WIRE_REPLAY_REPORT") {
        let text = match &verdict {
            Ok(()) => "ok".to_string(),
            Err(report) => report.clone(),
        };
        let _ = std::fs::write(PathBuf::from(dir).join(format!("{label}.txt")), text);
    }
    match verdict {
        Ok(()) => ExitCode::SUCCESS,
        Err(report) => {
            eprintln!("replay-server [{label}]: {report}");
            ExitCode::FAILURE
        }
    }
}

fn replay(transcript: &Transcript, channel: Option<&str>) -> Result<(), String> {
    if std::env::var("WIRE_REPLAY_BLESS").is_ok_and(|value| value == "1") {
        return record(transcript, channel);
    }
    let exact = std::env::var("WIRE_REPLAY_EXACT").is_ok_and(|value| value == "1");
    let frames = replay_frames(transcript, channel);
    let mut stdout = io::stdout().lock();
    let mut stdin = io::stdin().lock();
    let mut next = 0;
    let client_total = frames
        .iter()
        .filter(|frame| frame.direction == Direction::ClientToServer)
        .count();
    let mut client_seen = 0;
    loop {
        send_due(&frames, &mut next, &mut stdout)?;
        let mut line = Vec::new();
        let read = stdin
            .read_until(b'\n', &mut line)
            .map_err(|err| format!("cannot read from the client: {err}"))?;
        if read == 0 {
            // The client closed stdin: fine if it sent everything expected.
            return match frames.get(next) {
                None => Ok(()),
                Some(frame) => Err(format!(
                    "client frame {} of {client_total} (transcript line {}) never came: \
                     the client closed stdin after {client_seen} frames.\n  expected: {}",
                    client_seen + 1,
                    frame.line,
                    shorten(&frame.bytes)
                )),
            };
        }
        let Some(frame) = frames.get(next) else {
            return Err(format!(
                "the client sent {} frames, more than the {client_total} expected. The first extra one:\n  {}",
                client_seen + 1,
                shorten(&line)
            ));
        };
        client_seen += 1;
        if let Some(difference) = compare_line(&frame.bytes, &line, exact) {
            return Err(format!(
                "client frame {client_seen} of {client_total} (transcript line {}) differs.\n  \
                 expected: {}\n  actual:   {}\n  {difference}",
                frame.line,
                shorten(&frame.bytes),
                shorten(&line)
            ));
        }
        next += 1;
    }
}

/// Sends every server frame due before the next client frame, from
/// `frames[*next]` on.
fn send_due(frames: &[&Frame], next: &mut usize, stdout: &mut impl Write) -> Result<(), String> {
    while let Some(frame) = frames.get(*next) {
        if frame.direction != Direction::ServerToClient {
            break;
        }
        stdout
            .write_all(&frame.bytes)
            .and_then(|()| stdout.flush())
            .map_err(|err| format!("cannot write to the client: {err}"))?;
        *next += 1;
    }
    Ok(())
}

/// Blessing: answers in the transcript's order whatever comes, and keeps
/// every client frame, to be written to `DIR/CHANNEL.frames` at the end.
fn record(transcript: &Transcript, channel: Option<&str>) -> Result<(), String> {
    let frames = replay_frames(transcript, channel);
    let mut stdout = io::stdout().lock();
    let mut stdin = io::stdin().lock();
    let mut got: Vec<u8> = Vec::new();
    let mut next = 0;
    loop {
        send_due(&frames, &mut next, &mut stdout)?;
        let mut line = Vec::new();
        let read = stdin
            .read_until(b'\n', &mut line)
            .map_err(|err| format!("cannot read from the client: {err}"))?;
        if read == 0 {
            break;
        }
        got.extend(&line);
        if next < frames.len() {
            next += 1;
        }
    }
    let label = channel.unwrap_or("-");
    if let Some(dir) = std::env::var_os("WIRE_REPLAY_REPORT") {
        std::fs::write(PathBuf::from(dir).join(format!("{label}.frames")), got)
            .map_err(|err| format!("cannot write what came: {err}"))?;
    }
    Ok(())
}
