//! Drives a server binary through a transcript over real pipes and compares
//! what it writes with the transcript's server frames.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::course::Chapter;
use crate::generate::gaps;
use crate::run::jsondiff;
use crate::run::target::Target;
use crate::run::transcript::{Direction, Frame, Runner, Transcript};
use crate::{book, markers};

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

/// How long the runner waits for each reply the transcript expects before it
/// gives up and closes stdin. A guard, not a speed test: a real client waits
/// for its reply, and one that never comes while stdin is open is a hang.
/// `MCP_REPLY_TIMEOUT_MS` changes it.
pub fn reply_timeout() -> Duration {
    let millis = std::env::var("MCP_REPLY_TIMEOUT_MS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10_000);
    Duration::from_millis(millis)
}

/// The environment every program under test gets: a panic prints its
/// message, never a backtrace, whatever the caller's environment says.
pub const QUIET_PANICS: [(&str, &str); 2] = [("RUST_BACKTRACE", "0"), ("RUST_LIB_BACKTRACE", "0")];

/// The section that teaches flushing, named when a reply waits in a buffer.
pub const FLUSH_SECTION: &str = "01-echo-tour.md#one-line-in-one-line-out";

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
        .envs(QUIET_PANICS)
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

/// A run's copy of a `# workdir:` fixture, removed when the run is over.
pub struct Workdir {
    path: Option<PathBuf>,
}

impl Workdir {
    /// A fresh copy of the transcript's `# workdir:` folder (none without
    /// one), under the system's temporary folder.
    pub fn create(transcript: &Transcript) -> Result<Workdir, String> {
        static RUNS: AtomicUsize = AtomicUsize::new(0);
        let Some(fixture) = &transcript.workdir else {
            return Ok(Workdir { path: None });
        };
        let run = RUNS.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!("wire-workdir-{}-{run}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        copy_folder(&crate::course::root().join(fixture), &path)
            .map_err(|err| format!("{}: cannot copy {fixture}: {err}", transcript.name))?;
        Ok(Workdir { path: Some(path) })
    }

    /// The transcript's arguments, `{workdir}` replaced by this copy.
    pub fn args(&self, args: &[String]) -> Vec<String> {
        let Some(path) = &self.path else {
            return args.to_vec();
        };
        let path = path.display().to_string();
        args.iter()
            .map(|arg| arg.replace("{workdir}", &path))
            .collect()
    }
}

impl Drop for Workdir {
    fn drop(&mut self) {
        if let Some(path) = &self.path {
            let _ = std::fs::remove_dir_all(path);
        }
    }
}

/// Copies folders and plain files; a fixture holds nothing else.
pub fn copy_folder(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_folder(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

/// One client frame to send, and how many lines the transcript expects
/// from the server after it (before the next client frame).
struct Step<'a> {
    send: Option<&'a Frame>,
    replies: usize,
}

fn steps(transcript: &Transcript) -> Vec<Step<'_>> {
    let mut steps = vec![Step {
        send: None,
        replies: 0,
    }];
    for frame in &transcript.frames {
        match frame.direction {
            Direction::ClientToServer => steps.push(Step {
                send: Some(frame),
                replies: 0,
            }),
            Direction::ServerToClient => {
                steps.last_mut().expect("never empty").replies += split_lines(&frame.bytes).len()
            }
            _ => {}
        }
    }
    steps
}

/// A run in lockstep, and where it stalled.
struct Lockstep {
    run: Run,
    /// The reply the runner waited for in vain while stdin was open: its
    /// index among the expected lines, and the client frame it followed.
    stalled: Option<(usize, Option<usize>)>,
}

/// Plays the transcript like a real client: sends one client frame, waits
/// (up to `timeout`) for each reply the transcript expects, then
/// sends the next; stdin is closed only at the end, or when a reply does not
/// come. Replies to a line the client has not finished (a frame without its
/// `\n`) are not awaited until the line is finished, or stdin closes.
/// With `# pipelined: yes`, every frame is sent at once instead.
fn run_lockstep(
    transcript: &Transcript,
    bin: &Path,
    timeout: Duration,
) -> Result<Lockstep, String> {
    let workdir = Workdir::create(transcript)?;
    let mut child = Command::new(bin)
        .current_dir(crate::course::root())
        .args(workdir.args(&transcript.args))
        .envs(QUIET_PANICS)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|err| format!("cannot run {}: {err}", bin.display()))?;
    let deadline = Instant::now() + hang_guard();
    let mut stdin = child.stdin.take().expect("stdin is piped");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout is piped"));
    let mut stderr = child.stderr.take().expect("stderr is piped");
    let (line_sender, lines) = mpsc::channel::<Vec<u8>>();
    thread::spawn(move || {
        loop {
            let mut line = Vec::new();
            match stdout.read_until(b'\n', &mut line) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    if line_sender.send(line).is_err() {
                        break;
                    }
                }
            }
        }
    });
    let errors = thread::spawn(move || {
        let mut bytes = Vec::new();
        stderr.read_to_end(&mut bytes).ok();
        bytes
    });
    // A writer thread, so a server that stops reading cannot block the runner.
    let (frame_sender, frames) = mpsc::channel::<Vec<u8>>();
    let writer = thread::spawn(move || {
        for bytes in frames {
            if stdin
                .write_all(&bytes)
                .and_then(|()| stdin.flush())
                .is_err()
            {
                break;
            }
        }
        // Dropping stdin here closes it: end of input for the server.
    });

    let mut got: Vec<Vec<u8>> = Vec::new();
    let mut due = 0;
    let mut line_open = false;
    let mut stalled = None;
    // `{state}`, `{task}` (capture.rs): bound from the server's lines, sent back in ours.
    let capture = crate::run::capture::uses_state(transcript);
    let mut state = crate::run::capture::Bound::default();
    let take = |line: Vec<u8>, state: &mut crate::run::capture::Bound| match capture {
        true => crate::run::capture::bind(&line, state),
        false => line,
    };
    'steps: for step in steps(transcript) {
        if let Some(frame) = step.send {
            frame_sender
                .send(crate::run::capture::fill(&frame.bytes, &state))
                .ok();
            line_open = !frame.bytes.ends_with(b"\n");
        }
        due += step.replies;
        if transcript.pipelined || line_open {
            continue;
        }
        while got.len() < due {
            let wait = timeout.min(deadline.saturating_duration_since(Instant::now()));
            match lines.recv_timeout(wait) {
                Ok(line) => got.push(take(line, &mut state)),
                Err(RecvTimeoutError::Timeout) => {
                    stalled = Some((got.len(), step.send.map(|frame| frame.line)));
                    break 'steps;
                }
                Err(RecvTimeoutError::Disconnected) => break 'steps, // stdout closed
            }
        }
    }
    drop(frame_sender);
    // Stdin is closed now: read the rest until stdout closes, then wait for
    // the exit, killing a server that outlives the hang guard.
    let mut hung = false;
    loop {
        match lines.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(line) => got.push(take(line, &mut state)),
            Err(RecvTimeoutError::Disconnected) => break,
            Err(RecvTimeoutError::Timeout) => {
                hung = true;
                break;
            }
        }
    }
    let status = loop {
        match child.try_wait().map_err(|err| err.to_string())? {
            Some(status) => break Some(status),
            None if hung || Instant::now() >= deadline => {
                child.kill().ok();
                child.wait().ok();
                break None;
            }
            None => thread::sleep(Duration::from_millis(5)),
        }
    };
    writer.join().ok();
    let stderr = errors.join().unwrap_or_default();
    Ok(Lockstep {
        run: Run {
            stdout: got.concat(),
            stderr,
            status: status.and_then(|status| status.code()),
        },
        stalled,
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
    check_waiting(transcript, target, reply_timeout())
}

/// [`check`], waiting up to `timeout` for each reply of a server.
pub fn check_waiting(
    transcript: &Transcript,
    target: &Target,
    timeout: Duration,
) -> Result<(), String> {
    match transcript.runner {
        Runner::Http => return crate::run::http_runner::check(transcript, target),
        // Hosts (`client`, `agent`) are driven the other way round.
        Runner::Client | Runner::Agent => {
            return crate::run::client_runner::check(transcript, target);
        }
        Runner::Server => {}
    }
    let Lockstep { run, stalled } = run_lockstep(transcript, &target.path, timeout)
        .map_err(|err| report(transcript, target, None, &err))?;
    let expected = expected_lines(transcript);
    let actual = split_lines(&run.stdout);
    let also = exit_also(&run, transcript.exit);
    let fail = |problem: String, why: Option<&str>| {
        Err(report_why(transcript, target, Some(&run), &problem, why))
    };

    for (index, want) in expected.iter().enumerate() {
        let position = format!("server frame {} of {}", index + 1, expected.len());
        let Some(got) = actual.get(index) else {
            let how = match run.status {
                Some(code) => format!("exited with status {code}"),
                None => "was killed (a crash, or it hung past the time limit)".to_string(),
            };
            let waited = match stalled {
                Some((at, _)) if at <= index => format!(
                    " The runner waited {} ms for it with stdin open, then closed stdin.",
                    timeout.as_millis()
                ),
                _ => String::new(),
            };
            let problem = format!(
                "{position} never came: the server {how} after writing {} frames.{waited}\n{}",
                actual.len(),
                describe_expected(want)
            );
            return fail(problem, want.frame.book.as_deref());
        };
        if let Some(difference) = compare_line(want.bytes, got, target.exact()) {
            let problem = format!(
                "{position} (transcript line {}) differs.\n{}  actual:   {}\n  {difference}{also}",
                want.frame.line,
                describe_expected(want),
                shorten(got)
            );
            return fail(problem, want.frame.book.as_deref());
        }
        if let Some((_, after)) = stalled.filter(|(at, _)| *at == index) {
            let after = after.map_or("started the server".to_string(), |line| {
                format!("sent the client frame on transcript line {line}")
            });
            let problem = format!(
                "{position} never came while stdin was open: it was buffered.\n\
                 The runner {after} and waited {} ms for this reply with stdin still open, as a\n\
                 real client does. The reply came only when stdin closed and the server exited,\n\
                 flushing its buffer: a client that waits for each reply would hang here.\n\
                 Flush stdout after every reply.\n{}",
                timeout.as_millis(),
                describe_expected(want)
            );
            return fail(problem, Some(FLUSH_SECTION));
        }
    }
    if let Some(extra) = actual.get(expected.len()) {
        let problem = format!(
            "the server wrote {} frames, {} more than expected. The first extra one:\n  {}\n  \
             (Notifications get no reply, and stdout carries protocol frames only: log to stderr.){also}",
            actual.len(),
            actual.len() - expected.len(),
            shorten(extra)
        );
        return fail(problem, None);
    }
    let stderr = String::from_utf8_lossy(&run.stderr);
    if let Some(text) = transcript
        .stderr
        .iter()
        .find(|text| !stderr.contains(text.as_str()))
    {
        let problem = format!(
            "every frame matched, but the server's stderr does not contain {text:?}.{also}"
        );
        return fail(problem, None);
    }
    if run.status != Some(transcript.exit) {
        let problem = format!(
            "every frame matched, but the server ended with {} instead of exit status {} once stdin closed.",
            run.status
                .map_or("a signal".to_string(), |code| format!("exit status {code}")),
            transcript.exit
        );
        return fail(problem, None);
    }
    Ok(())
}

/// The first of a transcript's `# stderr:` texts that the program's stderr
/// does not contain, if any.
pub fn missing_stderr<'a>(transcript: &'a Transcript, stderr: &[u8]) -> Option<&'a str> {
    let stderr = String::from_utf8_lossy(stderr);
    transcript
        .stderr
        .iter()
        .map(String::as_str)
        .find(|text| !stderr.contains(text))
}

/// After a difference in the output, the exit status too when it is not
/// the one expected: a report names both, the output first (it is what
/// went wrong; the status often only follows from it).
pub fn exit_also(run: &Run, expected: i32) -> String {
    match run.status {
        Some(code) if code == expected => String::new(),
        Some(code) => format!("\nThe program also ended with exit status {code}, not {expected}."),
        None => format!(
            "\nThe program also ended by a signal (a crash, or the hang guard), not exit status {expected}."
        ),
    }
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
    let window = crate::textdiff::first_difference(
        &String::from_utf8_lossy(expected),
        &String::from_utf8_lossy(actual),
    )
    .unwrap_or_default();
    format!(
        "first difference at byte {at} (expected {} bytes, got {}); the reference solution must match the transcript byte for byte (if the change is intended: `cargo xtask bless NN` rewrites the transcript from it).\n  {window}",
        expected.len(),
        actual.len()
    )
}

/// How many characters of a frame a report shows.
const SHOWN: usize = 2000;

/// A frame for a report, odd bytes escaped. A frame longer than [`SHOWN`]
/// characters is cut, and the cut says so and how much is left out.
pub fn shorten(bytes: &[u8]) -> String {
    let line = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    let text = match std::str::from_utf8(line) {
        // A raw line break, a control byte or bytes that are not UTF-8 would
        // garble the report: show them in the transcript's exact form.
        Ok(text) if !text.chars().any(char::is_control) => text.to_string(),
        _ => format!("! {}", exact_tokens(bytes)),
    };
    let count = text.chars().count();
    if count > SHOWN {
        format!(
            "{}… [cut here: {SHOWN} of {count} characters shown, {} bytes in all]",
            text.chars().take(SHOWN).collect::<String>(),
            bytes.len()
        )
    } else {
        text
    }
}

/// The failure report shared by the server and host runners; its `why:`
/// line names the transcript's section.
pub fn report(
    transcript: &Transcript,
    target: &Target,
    run: Option<&Run>,
    problem: &str,
) -> String {
    report_why(transcript, target, run, problem, None)
}

/// The failure report, with `why` (`page.md#section`) naming the section
/// that explains the problem (default: the transcript's `# book:`). When a
/// gap's placeholder ran, the report leads with that gap and its section.
pub fn report_why(
    transcript: &Transcript,
    target: &Target,
    run: Option<&Run>,
    problem: &str,
    why: Option<&str>,
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
    let mut text = String::new();
    if let Some((gap, section)) = run.and_then(unwritten_gap) {
        text += &format!(
            "gap {gap} is not written yet: its placeholder ran in this scenario.\n{}\n\n",
            book::why_line(&section)
        );
    }
    text += &format!(
        "scenario {} ({})\ntarget   {} (frames compared {compared})\n\n{problem}\n",
        transcript.name,
        relative.display(),
        target.label
    );
    if let Some(section) = why.or(transcript.book.as_deref()) {
        text += &format!("\n{}\n", book::why_line(section));
    }
    if let Some(run) = run.filter(|run| !run.stderr.is_empty()) {
        let stderr = String::from_utf8_lossy(&run.stderr);
        // The panic hint about backtraces is noise here: children never print one.
        let lines: Vec<&str> = stderr
            .lines()
            .filter(|line| !line.starts_with("note: run with `RUST_BACKTRACE=1`"))
            .collect();
        let tail = &lines[lines.len().saturating_sub(20)..];
        text += &format!(
            "\nthe program's stderr (last {} lines):\n  {}\n",
            tail.len(),
            tail.join("\n  ")
        );
    }
    text
}

/// The gap whose starter placeholder shows in `run`: `todo!("ch03/add: …")`
/// panics with "not yet implemented: ch03/add", and a `// starter:` line
/// answers with a `TODO(ch03/add)` text. Returns the gap and its section.
pub fn unwritten_gap(run: &Run) -> Option<(String, String)> {
    let stderr = String::from_utf8_lossy(&run.stderr);
    let stdout = String::from_utf8_lossy(&run.stdout);
    let id = markers::placeholder_id(&stderr, &stdout)?;
    let chapter = Chapter::find(id.split('/').next()?).ok()?;
    let gaps = gaps::gaps(&chapter).ok()?;
    let section = match gaps.iter().find(|gap| gap.id == id) {
        Some(gap) => book::gap_section(&chapter, gap),
        None => format!("{}-exercise.md", chapter.dir),
    };
    Some((id, section))
}

/// Regenerates the server frames of a transcript from `bin`: the output that
/// follows each client frame is found by replaying every prefix of the client
/// frames, so it needs no timing; with `# bless: lockstep`, from one run in
/// lockstep instead. Comments and client frames are kept.
pub fn bless(transcript: &Transcript, text: &str, bin: &Path) -> Result<String, String> {
    if transcript.bless_lockstep {
        return bless_lockstep(transcript, text, bin);
    }
    // Each prefix runs in a new process: a `{state}` one run sealed means
    // nothing to the next, and a server that asks and waits (chapter 14)
    // answers its own call with an error when a prefix ends before the answer.
    let asks = transcript
        .frames_in(Direction::ServerToClient)
        .any(|frame| is_request(&frame.bytes));
    if crate::run::capture::uses_state(transcript) || asks {
        eprintln!(
            "{}: not blessed: its frames send a captured {{state}} or {{task}} back, or answer the \
             server's own requests; edit them by hand",
            transcript.name
        );
        return Ok(text.to_string());
    }
    let client: Vec<&Frame> = transcript.frames_in(Direction::ClientToServer).collect();
    let mut replies: Vec<Vec<u8>> = Vec::new(); // replies[k]: output after client frame k (0 = before any)
    let mut seen = 0;
    for k in 0..=client.len() {
        let input: Vec<u8> = client[..k]
            .iter()
            .flat_map(|frame| frame.bytes.clone())
            .collect();
        let workdir = Workdir::create(transcript)?; // each prefix from the fixture
        let run = run(bin, &workdir.args(&transcript.args), &[], input)?;
        if run.stdout.len() < seen {
            return Err(format!(
                "{}: output shrank when more input was sent; is the server deterministic?",
                transcript.name
            ));
        }
        replies.push(run.stdout[seen..].to_vec());
        seen = run.stdout.len();
    }
    Ok(rewrite(transcript, text, &replies))
}

/// Blesses from one run in lockstep (`# bless: lockstep`): the runner sends
/// each client frame once the server wrote the lines the transcript holds
/// before it, as `check` does, so a cancel arrives while the work runs. The
/// transcript's line counts say which lines follow which frame; they are
/// kept, so a solution that writes more or fewer is reported, not guessed.
fn bless_lockstep(transcript: &Transcript, text: &str, bin: &Path) -> Result<String, String> {
    if crate::run::capture::uses_state(transcript) {
        return Err(format!(
            "{}: `# bless: lockstep` cannot bless a captured {{state}}; edit it by hand",
            transcript.name
        ));
    }
    let Lockstep { run, stalled } = run_lockstep(transcript, bin, reply_timeout())?;
    let counts: Vec<usize> = steps(transcript).iter().map(|step| step.replies).collect();
    let due: usize = counts.iter().sum();
    let lines = split_lines(&run.stdout);
    if let Some((got, after)) = stalled {
        let after = after.map_or("before any client frame".to_string(), |line| {
            format!("after the client frame on line {line}")
        });
        return Err(format!(
            "{}: the solution wrote {got} of the {due} server lines the transcript holds, \
             and then nothing {after}; `# bless: lockstep` keeps the transcript's line \
             counts, so remove `<-` lines there by hand",
            transcript.name
        ));
    }
    if lines.len() != due {
        return Err(format!(
            "{}: the solution wrote {} server lines, the transcript holds {due}; \
             `# bless: lockstep` keeps the transcript's line counts, so add or remove \
             `<-` lines by hand (placeholders such as `<- x` will do)",
            transcript.name,
            lines.len()
        ));
    }
    let mut rest = lines.as_slice();
    let replies: Vec<Vec<u8>> = counts
        .iter()
        .map(|&count| {
            let (step, after) = rest.split_at(count);
            rest = after;
            step.concat()
        })
        .collect();
    Ok(rewrite(transcript, text, &replies))
}

/// The transcript with each step's server lines replaced by `replies[k]`
/// (the output after client frame k; 0: before any). A step whose bytes did
/// not change keeps its lines exactly as written.
fn rewrite(transcript: &Transcript, text: &str, replies: &[Vec<u8>]) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut old: Vec<Vec<&Frame>> = vec![Vec::new()];
    for frame in &transcript.frames {
        match frame.direction {
            Direction::ClientToServer => old.push(Vec::new()),
            Direction::ServerToClient => old.last_mut().expect("never empty").push(frame),
            _ => {}
        }
    }
    // A step whose output did not change keeps its lines where they are,
    // with the comments between them (a `# book:` line for one frame).
    let same: Vec<bool> = old
        .iter()
        .zip(replies)
        .map(|(frames, reply)| {
            frames
                .iter()
                .flat_map(|f| f.bytes.clone())
                .eq(reply.iter().copied())
        })
        .collect();
    let mut out = String::new();
    let mut step = 0; // the output after client frame `step` (0: before any)
    for (index, line) in lines.iter().enumerate() {
        let direction = transcript
            .frames
            .iter()
            .find(|frame| frame.line == index + 1)
            .map(|frame| frame.direction);
        match direction {
            Some(Direction::ServerToClient) if !same[step] => continue,
            Some(Direction::ClientToServer) => {
                if step == 0 && !same[0] {
                    out += &render_server_frames(&replies[0]);
                }
                out += line;
                out.push('\n');
                step += 1;
                if !same[step] {
                    out += &render_server_frames(&replies[step]);
                }
            }
            _ => {
                out += line;
                out.push('\n');
            }
        }
    }
    if step == 0 && !same[0] {
        out += &render_server_frames(&replies[0]);
    }
    out
}

/// A JSON-RPC request in a server's frame: the server asks the client.
fn is_request(bytes: &[u8]) -> bool {
    let message: Value = serde_json::from_slice(bytes).unwrap_or_default();
    message.get("method").is_some() && message.get("id").is_some()
}

fn render_server_frames(bytes: &[u8]) -> String {
    split_lines(bytes)
        .into_iter()
        .map(render_server_line)
        .collect()
}

fn render_server_line(line: &[u8]) -> String {
    render_line("<-", line) + "\n"
}

/// One transcript line (without its `\n`) for `bytes` going `arrow`'s way:
/// the text after one space, a bare arrow for an empty line, or the exact
/// `!` form for bytes a plain line cannot hold.
pub fn render_line(arrow: &str, bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok("\n") => arrow.to_string(),
        Ok(text)
            if text.ends_with('\n')
                && !text[..text.len() - 1].contains(['\r', '\n'])
                && text.len() < 4096 =>
        {
            format!("{arrow} {}", &text[..text.len() - 1])
        }
        _ => format!("{arrow}! {}", exact_tokens(bytes)),
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
