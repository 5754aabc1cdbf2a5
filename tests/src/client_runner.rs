//! Drives a host (a client, chapter 6, or an agent, chapter 7) through a
//! transcript. The binary under test is the one that starts servers, so
//! the transcript has to play the servers, and the model:
//!
//! - each channel's server is a `replay-server` process (tests/src/bin),
//!   started by the host itself: `{replay:NAME}` in `# args:` becomes its
//!   command line. It checks every client frame and writes a verdict file;
//! - the model is a stub HTTP server on 127.0.0.1 in this process, when the
//!   transcript has `=>` frames: it checks method, path, headers and body
//!   of each request, and answers with the `<=` frame that follows.
//!
//! Frames are checked per channel, in order; how the channels interleave
//! is free (a host may talk to its servers in parallel).

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread;
use std::time::Duration;

use crate::runner::{self, Run};
use crate::target::{self, Target};
use crate::transcript::{Direction, Frame, Transcript};

/// The API key the stub model expects, unless the transcript sets another.
pub const TEST_API_KEY: &str = "wire-test-key";

/// The frames one replay server plays: its channel's `->` and `<-`.
pub fn replay_frames<'a>(transcript: &'a Transcript, channel: Option<&str>) -> Vec<&'a Frame> {
    transcript
        .frames
        .iter()
        .filter(|frame| {
            matches!(
                frame.direction,
                Direction::ClientToServer | Direction::ServerToClient
            ) && frame.channel.as_deref() == channel
        })
        .collect()
}

/// Checks `transcript` against the host binary `target`.
pub fn check(transcript: &Transcript, target: &Target) -> Result<(), String> {
    let fail =
        |run: Option<&Run>, problem: String| runner::report(transcript, target, run, &problem);
    if !matches!(transcript.runner.as_str(), "client" | "agent") {
        let problem = format!("unknown runner {:?}", transcript.runner);
        return Err(fail(None, problem));
    }
    let replay = target::build_bin("wire-tests", "replay-server").map_err(|e| fail(None, e))?;
    // Removed when `check` returns, whatever it returns.
    let dir = ReportDir::create(transcript).map_err(|e| fail(None, e))?;
    let args: Vec<String> = transcript
        .args
        .iter()
        .map(|arg| expand_replay(arg, &replay, &transcript.path))
        .collect();
    let mut env = vec![
        (
            "WIRE_REPLAY_REPORT".to_string(),
            dir.0.display().to_string(),
        ),
        (
            "WIRE_REPLAY_EXACT".to_string(),
            if target.exact() { "1" } else { "0" }.to_string(),
        ),
    ];
    let model = model_exchanges(transcript);
    // The key the host should send: ours, unless the transcript sets one.
    let key = transcript
        .env
        .iter()
        .rev()
        .find(|(name, _)| name == "ANTHROPIC_API_KEY")
        .map_or(TEST_API_KEY.to_string(), |(_, value)| value.clone());
    let stub = if model.is_empty() {
        None
    } else {
        let listener = TcpListener::bind("127.0.0.1:0").map_err(|e| fail(None, e.to_string()))?;
        let address = listener
            .local_addr()
            .map_err(|e| fail(None, e.to_string()))?;
        env.push(("ANTHROPIC_BASE_URL".into(), format!("http://{address}")));
        env.push(("ANTHROPIC_API_KEY".into(), TEST_API_KEY.into()));
        let script = Script {
            exchanges: model,
            exact: target.exact(),
            key,
        };
        Some(StubModel::start(listener, script))
    };
    env.extend(transcript.env.iter().cloned());

    let run = runner::run(&target.path, &args, &env, Vec::new());
    let model_verdict = stub.map(StubModel::finish);
    let run = run.map_err(|e| fail(None, e))?;
    let ran = Some(&run);

    // The replay servers' verdicts first: they name the exact frame.
    let channels: BTreeSet<Option<String>> = transcript
        .frames
        .iter()
        .filter(|f| {
            matches!(
                f.direction,
                Direction::ClientToServer | Direction::ServerToClient
            )
        })
        .map(|frame| frame.channel.clone())
        .collect();
    for channel in channels {
        let label = channel.unwrap_or_else(|| "-".to_string());
        match std::fs::read_to_string(dir.0.join(format!("{label}.txt"))) {
            Ok(text) if text == "ok" => {}
            Ok(text) => return Err(fail(ran, format!("server [{label}]: {text}"))),
            Err(_) => {
                let problem = format!(
                    "server [{label}] never finished: the client did not start it, \
                     or did not close its stdin before exiting."
                );
                return Err(fail(ran, problem));
            }
        }
    }
    if let Some(Err(problem)) = model_verdict {
        return Err(fail(ran, format!("the model: {problem}")));
    }
    if run.status != Some(transcript.exit) {
        let got = run
            .status
            .map_or("a signal (or the hang guard)".into(), |c| {
                format!("exit status {c}")
            });
        let problem = format!(
            "every frame matched, but the program ended with {got} instead of exit status {}.",
            transcript.exit
        );
        return Err(fail(ran, problem));
    }
    if let Some(problem) = compare_stdout(transcript, &run.stdout) {
        return Err(fail(ran, problem));
    }
    let stderr = String::from_utf8_lossy(&run.stderr);
    for text in &transcript.stderr {
        if !stderr.contains(text.as_str()) {
            let problem = format!("its stderr does not contain {text:?}");
            return Err(fail(ran, problem));
        }
    }
    Ok(())
}

/// `--server add={replay:add}` → `--server add=/path/replay-server /path/t.wire add`.
fn expand_replay(arg: &str, replay: &Path, transcript: &Path) -> String {
    let quote = |path: &Path| {
        let text = path.display().to_string();
        if text.contains(char::is_whitespace) {
            format!("\"{text}\"")
        } else {
            text
        }
    };
    let command = format!("{} {}", quote(replay), quote(transcript));
    let mut out = arg.replace("{replay}", &command);
    while let Some(start) = out.find("{replay:") {
        let Some(end) = out[start..].find('}') else {
            break;
        };
        let channel = out[start + 8..start + end].to_string();
        out.replace_range(start..start + end + 1, &format!("{command} {channel}"));
    }
    out
}

/// The folder where the replay servers write their verdicts, one file per
/// channel. It is removed when dropped, so a failed check leaves none behind.
struct ReportDir(PathBuf);

impl ReportDir {
    fn create(transcript: &Transcript) -> Result<ReportDir, String> {
        static COUNT: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "wire-replay-{}-{}-{}",
            std::process::id(),
            transcript.name,
            COUNT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir)
            .map_err(|err| format!("cannot create {}: {err}", dir.display()))?;
        Ok(ReportDir(dir))
    }
}

impl Drop for ReportDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn compare_stdout(transcript: &Transcript, stdout: &[u8]) -> Option<String> {
    let expected: Vec<&Frame> = transcript.frames_in(Direction::Stdout).collect();
    if expected.is_empty() {
        return None;
    }
    let actual = runner::split_lines(stdout);
    for (index, want) in expected.iter().enumerate() {
        match actual.get(index) {
            Some(got) if *got == want.bytes.as_slice() => {}
            Some(got) => {
                return Some(format!(
                    "stdout line {} (transcript line {}) differs.\n  expected: {}\n  actual:   {}",
                    index + 1,
                    want.line,
                    runner::shorten(&want.bytes),
                    runner::shorten(got)
                ));
            }
            None => {
                return Some(format!(
                    "stdout has {} lines; line {} (transcript line {}) never came:\n  expected: {}",
                    actual.len(),
                    index + 1,
                    want.line,
                    runner::shorten(&want.bytes)
                ));
            }
        }
    }
    actual.get(expected.len()).map(|extra| {
        format!(
            "stdout has {} lines, more than the {} expected. The first extra one:\n  {}",
            actual.len(),
            expected.len(),
            runner::shorten(extra)
        )
    })
}

/// One model turn: the request body expected (`=>`) and the reply (`<=`).
struct Exchange {
    request: Frame,
    reply: Option<Frame>,
}

fn model_exchanges(transcript: &Transcript) -> Vec<Exchange> {
    let mut exchanges: Vec<Exchange> = Vec::new();
    for frame in &transcript.frames {
        match frame.direction {
            Direction::HostToModel => exchanges.push(Exchange {
                request: frame.clone(),
                reply: None,
            }),
            Direction::ModelToHost => {
                if let Some(last) = exchanges.last_mut() {
                    last.reply = Some(frame.clone());
                }
            }
            _ => {}
        }
    }
    exchanges
}

// ANCHOR: stub_model
/// What the stub model expects: the transcript's model turns, in order.
struct Script {
    exchanges: Vec<Exchange>,
    /// Compare bodies byte for byte (solutions) or as JSON values.
    exact: bool,
    /// The `x-api-key` every request must carry.
    key: String,
}

/// A stub of the Messages API: plain HTTP/1.1 on 127.0.0.1, one request
/// per connection, checked against the transcript.
struct StubModel {
    done: Arc<AtomicBool>,
    thread: thread::JoinHandle<Result<(), String>>,
}

impl StubModel {
    fn start(listener: TcpListener, script: Script) -> StubModel {
        let done = Arc::new(AtomicBool::new(false));
        let stop = Arc::clone(&done);
        let thread = thread::spawn(move || serve(listener, &script, &stop));
        StubModel { done, thread }
    }

    /// Stops the stub once the host has exited, with its verdict.
    fn finish(self) -> Result<(), String> {
        self.done.store(true, Ordering::SeqCst);
        self.thread
            .join()
            .unwrap_or_else(|_| Err("the stub model panicked".to_string()))
    }
}

fn serve(listener: TcpListener, script: &Script, done: &AtomicBool) -> Result<(), String> {
    listener.set_nonblocking(true).map_err(|e| e.to_string())?;
    let mut next = 0;
    loop {
        let stream = match listener.accept() {
            Ok((stream, _)) => stream,
            Err(err) if err.kind() == std::io::ErrorKind::WouldBlock => {
                if done.load(Ordering::SeqCst) {
                    return match script.exchanges.get(next) {
                        None => Ok(()),
                        Some(missing) => Err(format!(
                            "request {} of {} (transcript line {}) never came.\n  expected: {}",
                            next + 1,
                            script.exchanges.len(),
                            missing.request.line,
                            runner::shorten(&missing.request.bytes)
                        )),
                    };
                }
                thread::sleep(Duration::from_millis(5));
                continue;
            }
            Err(err) => return Err(format!("accept failed: {err}")),
        };
        answer(stream, script, next)?;
        next += 1;
    }
}

/// One HTTP request, as the stub read it.
struct Request {
    /// `POST /v1/messages HTTP/1.1`.
    line: String,
    /// Names in lower case.
    headers: Vec<(String, String)>,
    /// The body and a `\n`, to compare like a transcript frame.
    body: Vec<u8>,
}

impl Request {
    fn read(stream: &TcpStream) -> Result<Request, String> {
        let mut reader = BufReader::new(stream.try_clone().map_err(|e| e.to_string())?);
        let mut line = String::new();
        reader.read_line(&mut line).map_err(|e| e.to_string())?;
        let mut headers = Vec::new();
        loop {
            let mut header = String::new();
            reader.read_line(&mut header).map_err(|e| e.to_string())?;
            let header = header.trim_end();
            if header.is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':') {
                headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
            }
        }
        let mut request = Request {
            line,
            headers,
            body: Vec::new(),
        };
        let length: usize = request
            .header("content-length")
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        request.body = vec![0; length];
        reader
            .read_exact(&mut request.body)
            .map_err(|e| e.to_string())?;
        request.body.push(b'\n');
        Ok(request)
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Reads request number `index` (from 0), checks it, and answers it (with a
/// 400 on a mismatch).
fn answer(mut stream: TcpStream, script: &Script, index: usize) -> Result<(), String> {
    stream.set_nonblocking(false).map_err(|e| e.to_string())?;
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .map_err(|e| e.to_string())?;
    let request = Request::read(&stream)?;
    let problem = script.check(index, &request);
    let expected_reply = script
        .exchanges
        .get(index)
        .and_then(|exchange| exchange.reply.as_ref());
    let (status, reply) = match (&problem, expected_reply) {
        (None, Some(reply)) => ("200 OK", reply.bytes.clone()),
        (None, None) => (
            "500 Internal Server Error",
            b"{\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"the transcript has no <= reply here\"}}".to_vec(),
        ),
        (Some(problem), _) => {
            let error = serde_json::json!({"type": "error", "error": {"type": "invalid_request_error", "message": format!("wire-tests stub: {problem}")}});
            ("400 Bad Request", error.to_string().into_bytes())
        }
    };
    let reply = reply.strip_suffix(b"\n").unwrap_or(&reply);
    let head = format!(
        "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        reply.len()
    );
    let _ = stream
        .write_all(head.as_bytes())
        .and_then(|()| stream.write_all(reply))
        .and_then(|()| stream.flush());
    match problem {
        Some(problem) => Err(problem),
        None => Ok(()),
    }
}

impl Script {
    /// What is wrong with request number `index` (from 0), if anything.
    fn check(&self, index: usize, request: &Request) -> Option<String> {
        let total = self.exchanges.len();
        let position = format!("request {} of {total}", index + 1);
        let Some(exchange) = self.exchanges.get(index) else {
            return Some(format!(
                "the host sent {} requests, more than the {total} expected. The extra one:\n  {}",
                index + 1,
                runner::shorten(&request.body)
            ));
        };
        let mut words = request.line.split_whitespace();
        let (method, path) = (words.next().unwrap_or(""), words.next().unwrap_or(""));
        if method != "POST" || path != "/v1/messages" {
            return Some(format!(
                "{position}: expected POST /v1/messages, got {method} {path}"
            ));
        }
        for (name, want) in [
            ("x-api-key", self.key.as_str()),
            ("anthropic-version", "2023-06-01"),
            ("content-type", "application/json"),
        ] {
            let got = request.header(name);
            if got != Some(want) {
                return Some(format!(
                    "{position}: header {name} should be {want:?}, got {got:?}"
                ));
            }
        }
        runner::compare_line(&exchange.request.bytes, &request.body, self.exact).map(|difference| {
            format!(
                "{position} (transcript line {}) differs.\n  expected: {}\n  actual:   {}\n  {difference}",
                exchange.request.line,
                runner::shorten(&exchange.request.bytes),
                runner::shorten(&request.body)
            )
        })
    }
}
// ANCHOR_END: stub_model

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expands_replay_placeholders() {
        let arg = expand_replay(
            "add={replay:add}",
            Path::new("/r s/replay"),
            Path::new("/t.wire"),
        );
        assert_eq!(arg, "add=\"/r s/replay\" /t.wire add");
        let arg = expand_replay("x={replay}", Path::new("/r"), Path::new("/t"));
        assert_eq!(arg, "x=/r /t");
    }
}
