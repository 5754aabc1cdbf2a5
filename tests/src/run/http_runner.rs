//! Transcripts of HTTP exchanges (`# runner: http`, chapter 13 on): the
//! binary under test is a server listening on a loopback port, and every
//! group of `->` lines is one HTTP request, every group of `<-` lines the
//! whole response expected to it.
//!
//! ```text
//! # runner: http
//! # args: --token s3cret               more arguments; the runner adds
//! #                                    --listen 127.0.0.1:0 and reads the
//! #                                    bound address from `listening on …`
//! -> POST /mcp                         the request line, without HTTP/1.1
//! -> Content-Type: application/json    header lines, as sent
//! ->                                   an empty line, then the body's lines
//! -> {"jsonrpc":"2.0","id":1,…}        (joined with \n; none: no body)
//! <- 200 OK                            the status, without HTTP/1.1
//! <- content-type: application/json    the response's headers in order,
//! <-                                   except date, connection and
//! <- {"jsonrpc":"2.0","id":1,…}        content-length; then its body
//! ```
//!
//! A request starts at its request line (`METHOD /path`), so two requests
//! may follow each other without a response between them (a 202 may be
//! written out, or not). The runner adds `Host`, `Content-Length` and `Connection: close` to each
//! request and opens a new connection for it. A response without a body
//! ends after its headers (no empty line). The solution must match byte for
//! byte; another implementation (a starter) must send the same status and
//! headers, and a body with the same JSON value.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use crate::run::runner::{self, Run};
use crate::run::target::Target;
use crate::run::transcript::{Direction, Frame, Transcript};

/// How long to wait for the server to listen, and for each response.
const WAIT: Duration = Duration::from_secs(10);

/// Response headers that change from run to run, or that hyper adds itself.
const UNCHECKED: [&str; 3] = ["date", "connection", "content-length"];

/// One request and the response the transcript expects to it.
struct Exchange<'a> {
    request: Vec<&'a Frame>,
    response: Vec<&'a Frame>,
}

pub fn check(transcript: &Transcript, target: &Target) -> Result<(), String> {
    let fail =
        |run: Option<&Run>, problem: String| runner::report(transcript, target, run, &problem);
    let mut server = Listening::start(transcript, target).map_err(|err| fail(None, err))?;
    // `{state}` (capture.rs): bound from a response, sent back in a request.
    let capture = crate::run::capture::uses_state(transcript);
    let mut state = crate::run::capture::Bound::default();
    for (index, exchange) in exchanges(transcript).iter().enumerate() {
        let position = format!("exchange {}", index + 1);
        let request = request_bytes(&exchange.request, &server.address, &state);
        let actual = send(&server.address, &request)
            .map_err(|err| format!("{position}: {err}"))
            .map(|response| normalize(&response))
            .map(|text| match capture {
                true => {
                    String::from_utf8_lossy(&crate::run::capture::bind(text.as_bytes(), &mut state))
                        .into_owned()
                }
                false => text,
            });
        let expected = expected_text(&exchange.response);
        // The request as it went out, so the report shows what got the
        // answer (an Origin, a missing header) without opening the transcript.
        let sent = shown_request(&request);
        let problem = match actual {
            Err(problem) => Some(format!("{problem}\nthe request:\n{sent}")),
            Ok(actual) if same(&expected, &actual, target.exact()) => None,
            Ok(actual) => Some(format!(
                "{position} (line {}): the response differs\nthe request:\n{sent}\n--- expected\n{expected}--- actual\n{actual}{}",
                exchange.request[0].line,
                crate::textdiff::first_difference(&expected, &actual)
                    .map_or(String::new(), |window| format!("  {window}\n"))
            )),
        };
        if let Some(problem) = problem {
            let run = server.stop();
            return Err(fail(Some(&run), problem));
        }
    }
    let run = server.stop();
    if let Some(text) = runner::missing_stderr(transcript, &run.stderr) {
        let problem =
            format!("every response matched, but the server's log does not contain {text:?}");
        return Err(fail(Some(&run), problem));
    }
    Ok(())
}

/// `cargo xtask bless`: the transcript `text` with each response (its `<-`
/// lines) rewritten from what `target` (the reference solution) answered.
/// Requests and comments stay; a response that did not change keeps its
/// lines as written.
pub fn bless(transcript: &Transcript, text: &str, target: &Target) -> Result<String, String> {
    let mut server = Listening::start(transcript, target)?;
    let mut answers = Vec::new();
    // One server for the whole run, so a `{state}` it sealed opens again.
    let capture = crate::run::capture::uses_state(transcript);
    let mut state = crate::run::capture::Bound::default();
    for (index, exchange) in exchanges(transcript).iter().enumerate() {
        let request = request_bytes(&exchange.request, &server.address, &state);
        match send(&server.address, &request) {
            Ok(response) => {
                let mut text = normalize(&response);
                if capture {
                    let bound = crate::run::capture::bind(text.as_bytes(), &mut state);
                    text = String::from_utf8_lossy(&bound).into_owned();
                }
                answers.push((exchange.response.clone(), text))
            }
            Err(err) => {
                server.stop();
                return Err(format!(
                    "{}: exchange {}: {err}",
                    transcript.name,
                    index + 1
                ));
            }
        }
    }
    server.stop();
    Ok(rewrite_responses(text, &answers))
}

/// `text` with each group of response lines replaced by its new response
/// (`answers`: the old frames and the new text), written where the old
/// group began. A response that is the same keeps its lines.
fn rewrite_responses(text: &str, answers: &[(Vec<&Frame>, String)]) -> String {
    let mut out = String::new();
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        let group = answers
            .iter()
            .find(|(old, _)| old.iter().any(|frame| frame.line == number));
        match group {
            Some((old, new)) if expected_text(old) != *new => {
                if old.first().is_some_and(|frame| frame.line == number) {
                    for response_line in new.split_inclusive('\n') {
                        out += &runner::render_line("<-", response_line.as_bytes());
                        out.push('\n');
                    }
                }
            }
            _ => {
                out += line;
                out.push('\n');
            }
        }
    }
    out
}

/// `cargo xtask run NN` for an HTTP chapter: sends each request of the
/// transcript and prints it with the response that came back.
pub fn play(transcript: &Transcript, target: &Target) -> Result<(), String> {
    let mut server = Listening::start(transcript, target)?;
    println!("the server listens on http://{}/mcp\n", server.address);
    let exchanges = exchanges(transcript);
    for exchange in &exchanges {
        let request = request_bytes(&exchange.request, &server.address, &Default::default());
        let shown = String::from_utf8_lossy(&request).replace("\r\n", "\n");
        println!("→ {}\n", shown.trim_end().replace('\n', "\n  "));
        match send(&server.address, &request) {
            Ok(response) => {
                let text = String::from_utf8_lossy(&response).replace("\r\n", "\n");
                println!("← {}\n", text.trim_end().replace('\n', "\n  "));
            }
            Err(err) => println!("← (no response: {err})\n"),
        }
    }
    // An HTTP server serves until it is stopped: there is no stdin to close.
    server.stop();
    println!("{} requests sent; the server was stopped.", exchanges.len());
    Ok(())
}

/// A request for a report: its method, path, headers and body, as sent
/// (line ends shown as the transcript writes them), indented.
fn shown_request(request: &[u8]) -> String {
    let text = String::from_utf8_lossy(request).replace("\r\n", "\n");
    let text = text.trim_end_matches('\n');
    format!("  {}", text.replace('\n', "\n  "))
}

/// Splits the frames into requests and the responses after them.
fn exchanges(transcript: &Transcript) -> Vec<Exchange<'_>> {
    let mut exchanges: Vec<Exchange> = Vec::new();
    for frame in &transcript.frames {
        match frame.direction {
            Direction::ClientToServer => match exchanges.last_mut() {
                Some(last) if last.response.is_empty() && !is_request_line(frame) => {
                    last.request.push(frame)
                }
                _ => exchanges.push(Exchange {
                    request: vec![frame],
                    response: Vec::new(),
                }),
            },
            Direction::ServerToClient => {
                if let Some(last) = exchanges.last_mut() {
                    last.response.push(frame);
                }
            }
            _ => {}
        }
    }
    exchanges
}

/// `POST /mcp`, `GET /mcp`: an upper-case method, a space, a path. Such a
/// line starts the next request, even without a response in between.
fn is_request_line(frame: &Frame) -> bool {
    let text = String::from_utf8_lossy(&frame.bytes);
    text.split_once(' ').is_some_and(|(method, path)| {
        !method.is_empty()
            && method.bytes().all(|byte| byte.is_ascii_uppercase())
            && path.starts_with('/')
    })
}

/// The request on the wire: CRLF line ends, the runner's own headers, the
/// body's lines joined with `\n`.
fn request_bytes(frames: &[&Frame], address: &str, state: &crate::run::capture::Bound) -> Vec<u8> {
    let text = |frame: &Frame| {
        String::from_utf8_lossy(&frame.bytes)
            .trim_end_matches('\n')
            .to_string()
    };
    let mut lines = frames.iter();
    let first = lines.next().map(|frame| text(frame)).unwrap_or_default();
    let mut head = format!("{first} HTTP/1.1\r\n");
    for frame in lines.by_ref() {
        let line = text(frame);
        if line.is_empty() {
            break;
        }
        head.push_str(&line);
        head.push_str("\r\n");
    }
    let body: Vec<u8> = lines.flat_map(|frame| frame.bytes.clone()).collect();
    let mut body = crate::run::capture::fill(&body, state);
    if body.last() == Some(&b'\n') {
        body.pop();
    }
    head.push_str(&format!(
        "Host: {address}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    ));
    let mut bytes = head.into_bytes();
    bytes.extend(body);
    bytes
}

fn send(address: &str, request: &[u8]) -> Result<Vec<u8>, String> {
    let mut stream = TcpStream::connect(address).map_err(|err| format!("cannot connect: {err}"))?;
    stream
        .set_read_timeout(Some(WAIT))
        .map_err(|err| err.to_string())?;
    // A server may answer (413, say) before it has read the whole body and
    // close; the response still counts, so a failed write is not an error.
    let _ = stream.write_all(request);
    let mut response = Vec::new();
    stream
        .read_to_end(&mut response)
        .map_err(|err| format!("no whole response within {} s: {err}", WAIT.as_secs()))?;
    Ok(response)
}

/// The response as a transcript writes it.
fn normalize(response: &[u8]) -> String {
    let text = String::from_utf8_lossy(response);
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let mut lines = head.split("\r\n");
    let status = lines.next().unwrap_or_default();
    let mut out = format!("{}\n", status.strip_prefix("HTTP/1.1 ").unwrap_or(status));
    for header in lines {
        let name = header
            .split(':')
            .next()
            .unwrap_or_default()
            .to_ascii_lowercase();
        if !UNCHECKED.contains(&name.as_str()) {
            out.push_str(header);
            out.push('\n');
        }
    }
    if !body.is_empty() {
        out.push('\n');
        out.push_str(body);
        if !body.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}

fn expected_text(frames: &[&Frame]) -> String {
    let bytes: Vec<u8> = frames
        .iter()
        .flat_map(|frame| frame.bytes.clone())
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Byte for byte for the solution; for anyone else the head must match and
/// the body must hold the same JSON value.
fn same(expected: &str, actual: &str, exact: bool) -> bool {
    if exact || expected == actual {
        return expected == actual;
    }
    let split = |text: &str| -> (String, String) {
        match text.split_once("\n\n") {
            Some((head, body)) => (head.to_string(), body.to_string()),
            None => (text.to_string(), String::new()),
        }
    };
    let ((want_head, want_body), (got_head, got_body)) = (split(expected), split(actual));
    let json = |body: &str| serde_json::from_str::<serde_json::Value>(body).ok();
    want_head == got_head && json(&want_body).is_some() && json(&want_body) == json(&got_body)
}

/// The server under test, listening on a port of its choosing.
struct Listening {
    child: Child,
    address: String,
    log: mpsc::Receiver<String>,
}

/// The fresh `--state` folder of a `# state: removed` transcript: in the
/// temporary folder, named by the process, the scenario and a count, so
/// that the same scenario run twice at once (against the solution and,
/// in the starters' test, against the starter) never shares one: one run
/// removing it while the other makes it again let a server find it there.
fn state_folder(transcript: &Transcript) -> std::path::PathBuf {
    static RUNS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let run = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let name = format!(
        "wire-state-gone-{}-{}-{run}",
        std::process::id(),
        transcript.name
    );
    std::env::temp_dir().join(name)
}

impl Listening {
    fn start(transcript: &Transcript, target: &Target) -> Result<Listening, String> {
        let mut command = Command::new(&target.path);
        let removed = transcript.state_removed.then(|| state_folder(transcript));
        if let Some(folder) = &removed {
            std::fs::create_dir_all(folder)
                .map_err(|err| format!("cannot make {}: {err}", folder.display()))?;
            command.arg("--state").arg(folder);
        }
        // In the workspace root, as the stdio runner: a relative path in
        // `# args:` (a fixture folder) means the same from every caller.
        let mut child = command
            .current_dir(crate::course::root())
            .args(["--listen", "127.0.0.1:0"])
            .args(&transcript.args)
            .envs(transcript.env.iter().cloned())
            .env_remove("WIRE_TOKEN")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|err| format!("cannot start {}: {err}", target.path.display()))?;
        // A thread reads the log, so a server that never prints cannot hang us.
        let (lines, log) = mpsc::channel();
        let stderr = child.stderr.take().expect("stderr is piped");
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if lines.send(line).is_err() {
                    break;
                }
            }
        });
        let first = log.recv_timeout(WAIT).unwrap_or_default();
        let Some(address) = listening_address(&first) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!(
                "the server's first stderr line should be `listening on http://ADDR/mcp`, not {first:?}"
            ));
        };
        if let Some(folder) = removed {
            // The server has checked its folder; now it is gone.
            let _ = std::fs::remove_dir_all(folder);
        }
        Ok(Listening {
            address: address.to_string(),
            child,
            log,
        })
    }

    /// Ends the server and returns what it logged, for the report. SIGTERM
    /// first, as a user's Ctrl-C: a server killed outright leaves its
    /// private state folder in the temporary folder, one per scenario.
    fn stop(&mut self) -> Run {
        terminate(&mut self.child);
        let status = self.child.wait().ok().and_then(|status| status.code());
        std::thread::sleep(Duration::from_millis(20));
        let stderr: Vec<String> = self.log.try_iter().collect();
        Run {
            stdout: Vec::new(),
            stderr: stderr.join("\n").into_bytes(),
            status,
        }
    }
}

/// SIGTERM, then SIGKILL if the child is still running after a grace
/// period (a server that ignores SIGTERM costs the scenario that long);
/// either way it has been waited for when this returns. For the tests that
/// start a server of their own too.
pub fn terminate(child: &mut Child) {
    const GRACE: Duration = Duration::from_secs(2);
    // Ended and waited for already: its pid may be another process's now.
    if matches!(child.try_wait(), Ok(Some(_))) {
        return;
    }
    #[cfg(unix)]
    if let Ok(pid) = i32::try_from(child.id()) {
        // SAFETY: kill(2) on our own child's pid, not yet waited for (just
        // above), so the pid is still ours; no memory is touched.
        unsafe { libc::kill(pid, libc::SIGTERM) };
        let start = std::time::Instant::now();
        while start.elapsed() < GRACE {
            if matches!(child.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// The address in a server's first stderr line, `listening on
/// http://ADDR/mcp` (chapter 13's words, and every HTTP server's here).
pub fn listening_address(line: &str) -> Option<&str> {
    line.trim_end()
        .strip_prefix("listening on http://")
        .and_then(|rest| rest.strip_suffix("/mcp"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn bless_rewrites_a_response_and_keeps_the_requests() {
        let text = "# runner: http\n\
            -> POST /mcp\n\
            -> Content-Type: application/json\n\
            ->\n\
            -> {\"id\":1}\n\
            <- 400 Bad Request\n\
            <- content-type: application/json\n\
            <-\n\
            <- {\"old\":true}\n\
            # between\n\
            -> GET /mcp\n\
            <- 405 Method Not Allowed\n";
        let transcript = Transcript::parse(Path::new("made_up.wire"), text).unwrap();
        let exchanges = exchanges(&transcript);
        let answers = vec![
            (
                exchanges[0].response.clone(),
                "200 OK\ncontent-type: application/json\nx-new: 1\n\n{\"new\":true}\n".to_string(),
            ),
            (
                exchanges[1].response.clone(),
                "405 Method Not Allowed\n".to_string(),
            ),
        ];
        let blessed = rewrite_responses(text, &answers);
        assert_eq!(
            blessed,
            "# runner: http\n\
             -> POST /mcp\n\
             -> Content-Type: application/json\n\
             ->\n\
             -> {\"id\":1}\n\
             <- 200 OK\n\
             <- content-type: application/json\n\
             <- x-new: 1\n\
             <-\n\
             <- {\"new\":true}\n\
             # between\n\
             -> GET /mcp\n\
             <- 405 Method Not Allowed\n"
        );
    }
}
