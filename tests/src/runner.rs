//! Drives a server binary through a transcript over real pipes and compares
//! what it writes with the transcript's server frames.

use std::path::Path;
use std::time::Duration;

use serde_json::Value;

use crate::jsondiff;
use crate::target::Target;
use crate::transcript::{Direction, Frame, Transcript};

/// What one run of a binary produced.
pub struct Run {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    /// `None` when the process was killed (by a signal or the hang guard).
    pub status: Option<i32>,
}

/// A guard against a server that never exits, not a speed requirement:
/// `MCP_TIMEOUT_SECS` raises it for slow machines.
fn hang_guard() -> Duration {
    let seconds = std::env::var("MCP_TIMEOUT_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60);
    Duration::from_secs(seconds)
}

/// Starts `bin` with `env` added to its environment, writes `input` to its
/// stdin, closes stdin and collects everything it writes until it exits. It
/// runs in the workspace root, so a relative path in `# args:` means the same
/// thing from every caller.
pub fn run(
    bin: &Path,
    args: &[String],
    env: &[(String, String)],
    input: Vec<u8>,
) -> Result<Run, String> {
    let output = assert_cmd::Command::new(bin)
        .current_dir(crate::course::root())
        .args(args)
        .envs(env.iter().map(|(name, value)| (name, value)))
        .write_stdin(input)
        .timeout(hang_guard())
        .output()
        .map_err(|err| format!("cannot run {}: {err}", bin.display()))?;
    Ok(Run {
        stdout: output.stdout,
        stderr: output.stderr,
        status: output.status.code(),
    })
}

/// One line the binary is expected to write, and where it comes from.
struct Expected<'a> {
    bytes: &'a [u8],
    frame: &'a Frame,
    /// The client frame just before it in the transcript, if any.
    after: Option<&'a Frame>,
}

fn expected_lines(transcript: &Transcript) -> Vec<Expected<'_>> {
    let mut lines = Vec::new();
    let mut after = None;
    for frame in &transcript.frames {
        match frame.direction {
            Direction::ClientToServer => after = Some(frame),
            Direction::ServerToClient => {
                lines.extend(split_lines(&frame.bytes).into_iter().map(|bytes| Expected {
                    bytes,
                    frame,
                    after,
                }))
            }
            _ => {}
        }
    }
    lines
}

/// Splits into lines, each keeping its `\n`; a last piece without one is kept.
pub fn split_lines(bytes: &[u8]) -> Vec<&[u8]> {
    bytes.split_inclusive(|byte| *byte == b'\n').collect()
}

/// Checks `transcript` against `target`; `Err` holds the report to print.
pub fn check(transcript: &Transcript, target: &Target) -> Result<(), String> {
    if transcript.runner != "server" {
        // Hosts (`client`, `agent`) are driven the other way round.
        return crate::client_runner::check(transcript, target);
    }
    let run = run(
        &target.path,
        &transcript.args,
        &[],
        transcript.bytes_in(Direction::ClientToServer),
    )
    .map_err(|err| report(transcript, target, None, &err))?;
    let expected = expected_lines(transcript);
    let actual = split_lines(&run.stdout);

    for (index, want) in expected.iter().enumerate() {
        let position = format!("server frame {} of {}", index + 1, expected.len());
        let Some(got) = actual.get(index) else {
            let how = match run.status {
                Some(code) => format!("exited with status {code}"),
                None => "was killed (a crash, or it hung past the time limit)".to_string(),
            };
            let problem = format!(
                "{position} never came: the server {how} after writing {} frames.\n{}",
                actual.len(),
                describe_expected(want)
            );
            return Err(report(transcript, target, Some(&run), &problem));
        };
        if let Some(difference) = compare_line(want.bytes, got, target.exact()) {
            let problem = format!(
                "{position} (transcript line {}) differs.\n{}  actual:   {}\n  {difference}",
                want.frame.line,
                describe_expected(want),
                shorten(got)
            );
            return Err(report(transcript, target, Some(&run), &problem));
        }
    }
    if let Some(extra) = actual.get(expected.len()) {
        let problem = format!(
            "the server wrote {} frames, {} more than expected. The first extra one:\n  {}\n  \
             (Notifications get no reply, and stdout carries protocol frames only: log to stderr.)",
            actual.len(),
            actual.len() - expected.len(),
            shorten(extra)
        );
        return Err(report(transcript, target, Some(&run), &problem));
    }
    if run.status != Some(transcript.exit) {
        let problem = format!(
            "every frame matched, but the server ended with {} instead of exit status {} once stdin closed.",
            run.status
                .map_or("a signal".to_string(), |code| format!("exit status {code}")),
            transcript.exit
        );
        return Err(report(transcript, target, Some(&run), &problem));
    }
    Ok(())
}

fn describe_expected(want: &Expected<'_>) -> String {
    let mut text = String::new();
    if let Some(after) = want.after {
        text += &format!(
            "  after client frame (line {}): {}\n",
            after.line,
            shorten(&after.bytes)
        );
    }
    text + &format!("  expected: {}\n", shorten(want.bytes))
}

/// `None` if `actual` is an acceptable rendering of `expected`.
pub fn compare_line(expected: &[u8], actual: &[u8], exact: bool) -> Option<String> {
    if !actual.ends_with(b"\n") {
        return Some(
            "the frame is not terminated by a newline: every frame ends with \\n.".to_string(),
        );
    }
    if exact || expected == actual {
        return (expected != actual).then(|| first_byte_difference(expected, actual));
    }
    // Frames that are JSON compare as values: key order and spacing are free,
    // but every key, type and value must match.
    let Ok(want) = serde_json::from_slice::<Value>(expected) else {
        return Some(first_byte_difference(expected, actual));
    };
    let line = &actual[..actual.len() - 1];
    if line.contains(&b'\n') || line.contains(&b'\r') {
        return Some("the frame contains a raw line break".to_string());
    }
    match serde_json::from_slice::<Value>(line) {
        Err(err) => Some(format!(
            "the frame is not JSON ({err}). Only protocol frames may go to stdout; logs belong on stderr."
        )),
        Ok(got) => jsondiff::first_difference(&want, &got)
            .map(|found| format!("first difference: {found}")),
    }
}

fn first_byte_difference(expected: &[u8], actual: &[u8]) -> String {
    let at = expected
        .iter()
        .zip(actual)
        .position(|(a, b)| a != b)
        .unwrap_or(expected.len().min(actual.len()));
    format!(
        "first difference at byte {at} (expected {} bytes, got {}); the reference solution must match the transcript byte for byte (if the change is intended: `just bless` rewrites server transcripts; client ones are edited by hand).",
        expected.len(),
        actual.len()
    )
}

/// A frame for a report: long frames are cut, odd bytes escaped.
pub fn shorten(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let text = text
        .strip_suffix('\n')
        .unwrap_or(&text)
        .replace('\r', "\\r");
    if text.chars().count() > 400 {
        format!(
            "{}… ({} bytes in all)",
            text.chars().take(400).collect::<String>(),
            bytes.len()
        )
    } else {
        text
    }
}

/// The failure report shared by the server and host runners.
pub fn report(
    transcript: &Transcript,
    target: &Target,
    run: Option<&Run>,
    problem: &str,
) -> String {
    let relative = transcript
        .path
        .strip_prefix(crate::course::root())
        .unwrap_or(&transcript.path);
    let compared = if target.exact() {
        "byte for byte"
    } else {
        "as JSON values"
    };
    let mut text = format!(
        "scenario {} ({})\ntarget   {} (frames compared {compared})\n\n{problem}\n",
        transcript.name,
        relative.display(),
        target.label
    );
    if let Some(book) = &transcript.book {
        let (page, section) = book.split_once('#').unwrap_or((book, ""));
        text +=
            &format!("\nwhy: read book/src/{page}, section #{section} (`just book` to open it)\n");
    }
    if let Some(run) = run.filter(|run| !run.stderr.is_empty()) {
        let stderr = String::from_utf8_lossy(&run.stderr);
        let lines: Vec<&str> = stderr.lines().collect();
        let tail = &lines[lines.len().saturating_sub(20)..];
        text += &format!(
            "\nthe program's stderr (last {} lines):\n  {}\n",
            tail.len(),
            tail.join("\n  ")
        );
    }
    text
}

/// Regenerates the server frames of a transcript from `bin`: the output that
/// follows each client frame is found by replaying every prefix of the client
/// frames, so it needs no timing. Comments and client frames are kept.
pub fn bless(transcript: &Transcript, text: &str, bin: &Path) -> Result<String, String> {
    let client: Vec<&Frame> = transcript.frames_in(Direction::ClientToServer).collect();
    let mut replies: Vec<Vec<u8>> = Vec::new(); // replies[k]: output after client frame k (0 = before any)
    let mut seen = 0;
    for k in 0..=client.len() {
        let input: Vec<u8> = client[..k]
            .iter()
            .flat_map(|frame| frame.bytes.clone())
            .collect();
        let run = run(bin, &transcript.args, &[], input)?;
        if run.stdout.len() < seen {
            return Err(format!(
                "{}: output shrank when more input was sent; is the server deterministic?",
                transcript.name
            ));
        }
        replies.push(run.stdout[seen..].to_vec());
        seen = run.stdout.len();
    }
    let mut out = String::new();
    let mut pending = Some(&replies[0]); // output that needs no input goes before the first client frame
    let mut next_client = 0;
    for (index, line) in text.lines().enumerate() {
        let frame = transcript
            .frames
            .iter()
            .find(|frame| frame.line == index + 1);
        match frame.map(|frame| frame.direction) {
            Some(Direction::ServerToClient) => continue,
            Some(Direction::ClientToServer) => {
                if let Some(before) = pending.take() {
                    out += &render_server_frames(before);
                }
                out += line;
                out.push('\n');
                next_client += 1;
                out += &render_server_frames(&replies[next_client]);
            }
            _ => {
                out += line;
                out.push('\n');
            }
        }
    }
    if let Some(before) = pending {
        out += &render_server_frames(before);
    }
    Ok(out)
}

fn render_server_frames(bytes: &[u8]) -> String {
    split_lines(bytes)
        .into_iter()
        .map(render_server_line)
        .collect()
}

fn render_server_line(line: &[u8]) -> String {
    match std::str::from_utf8(line) {
        Ok("\n") => "<-\n".to_string(),
        Ok(text)
            if text.ends_with('\n')
                && !text[..text.len() - 1].contains(['\r', '\n'])
                && text.len() < 4096 =>
        {
            format!("<- {text}")
        }
        _ => format!("<-! {}\n", exact_tokens(line)),
    }
}

/// The `!` form of a line: ASCII text as JSON strings, other bytes as
/// `0xHH`, and long runs of one byte folded with `*N`.
fn exact_tokens(bytes: &[u8]) -> String {
    let mut tokens = Vec::new();
    let mut text = String::new();
    let mut rest = bytes;
    while let Some(&first) = rest.first() {
        let run = rest.iter().take_while(|byte| **byte == first).count();
        let token = if first.is_ascii() {
            Value::from((first as char).to_string()).to_string()
        } else {
            format!("0x{first:02x}")
        };
        if run >= 8 || !first.is_ascii() {
            if !text.is_empty() {
                tokens.push(Value::from(std::mem::take(&mut text)).to_string());
            }
            tokens.push(if run > 1 {
                format!("{token} *{run}")
            } else {
                token
            });
            rest = &rest[run..];
        } else {
            text.push(first as char);
            rest = &rest[1..];
        }
    }
    if !text.is_empty() {
        tokens.push(Value::from(text).to_string());
    }
    tokens.join(" ")
}
