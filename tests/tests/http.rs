//! Chapter 13 beyond what a transcript can say (tests/transcripts/ch13 holds
//! the exchanges): a body too large to write out, the token from the
//! environment, the signals that stop the server, and two instances that
//! share one `--state` folder. The binary listens on a free loopback port;
//! a small client writes raw HTTP/1.1 and compares whole responses, except
//! the `date` header, which changes every second.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};
use wire_tests::course::Chapter;
use wire_tests::run::target;
use wire_tests::scratch::Scratch;

/// A stuck server fails its test instead of hanging the suite.
const LIMIT: Duration = Duration::from_secs(30);

fn binary() -> PathBuf {
    let chapter = Chapter::find("13").expect("chapter 13 exists");
    target::build(&chapter.solution_package()).unwrap_or_else(|err| panic!("{err}"))
}

/// One running server; killed when the test ends, pass or fail.
struct Server {
    child: Child,
    address: String,
    log: BufReader<std::process::ChildStderr>,
}

impl Server {
    fn start(args: &[&str]) -> Server {
        Server::start_with(args, None)
    }

    fn start_with(args: &[&str], token_env: Option<&str>) -> Server {
        let mut command = Command::new(binary());
        command
            .args(["--listen", "127.0.0.1:0"])
            .args(args)
            .env_remove("WIRE_TOKEN")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        if let Some(token) = token_env {
            command.env("WIRE_TOKEN", token);
        }
        let mut child = command.spawn().expect("the server starts");
        let mut log = BufReader::new(child.stderr.take().unwrap());
        let mut first = String::new();
        log.read_line(&mut first).unwrap();
        let address = first
            .trim_end()
            .strip_prefix("listening on http://")
            .and_then(|rest| rest.strip_suffix("/mcp"))
            .unwrap_or_else(|| panic!("unexpected first line: {first:?}"))
            .to_string();
        Server {
            child,
            address,
            log,
        }
    }

    /// Sends one raw request (its head without a Host line) and returns
    /// the whole response without its `date` line.
    fn exchange(&self, head: &str, body: &[u8]) -> String {
        let mut stream = TcpStream::connect(&self.address).unwrap();
        stream.set_read_timeout(Some(LIMIT)).unwrap();
        let head = head.replace('\n', "\r\n");
        write!(
            stream,
            "{head}Host: {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            self.address,
            body.len()
        )
        .unwrap();
        stream.write_all(body).unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).unwrap();
        response
            .split("\r\n")
            .filter(|line| !line.starts_with("date: "))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// POSTs a JSON body with the given extra header lines.
    fn post(&self, headers: &str, body: &Value) -> String {
        let head = format!("POST /mcp HTTP/1.1\nContent-Type: application/json\n{headers}");
        self.exchange(&head, body.to_string().as_bytes())
    }

    /// Stops the server with a signal and returns its exit status and the
    /// rest of its log.
    #[cfg(unix)]
    fn stop(mut self, signal: &str) -> (Option<i32>, String) {
        let pid = self.child.id().to_string();
        let sent = Command::new("kill").args([signal, &pid]).status().unwrap();
        assert!(sent.success());
        let status = self.child.wait().unwrap();
        let mut rest = String::new();
        self.log.read_to_string(&mut rest).unwrap();
        (status.code(), rest)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        wire_tests::run::http_runner::terminate(&mut self.child);
    }
}

/// A response as the tests expect it: the status line, the headers in the
/// order the server sets them (hyper adds `connection` and
/// `content-length`), a blank line, the body.
fn response(status: &str, headers: &[&str], body: &str) -> String {
    let mut lines = vec![format!("HTTP/1.1 {status}")];
    if !body.is_empty() {
        lines.push("content-type: application/json".to_string());
    }
    lines.extend(headers.iter().map(|header| header.to_string()));
    lines.push("connection: close".to_string());
    lines.push(format!("content-length: {}", body.len()));
    lines.push(String::new());
    lines.push(body.to_string());
    lines.join("\n")
}

fn modern_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    })
}

fn modern_call(id: u64, tool: &str, arguments: Value) -> Value {
    let params = json!({ "_meta": modern_meta(), "name": tool, "arguments": arguments });
    json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params })
}

/// The headers 2026-07-28 asks for on a `tools/call`.
fn call_headers(tool: &str) -> String {
    format!("MCP-Protocol-Version: 2026-07-28\nMcp-Method: tools/call\nMcp-Name: {tool}\n")
}

const SUM: &str = r#"{"jsonrpc":"2.0","id":7,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"ch13-http","version":"0.1.0"}},"content":[{"text":"{\"sum\":5}","type":"text"}],"isError":false,"resultType":"complete","structuredContent":{"sum":5}}}"#;

#[test]
fn a_body_over_the_limit_is_refused_and_the_server_goes_on() {
    let server = Server::start(&[]);
    // Only the head is sent: its Content-Length is over the limit, and the
    // server refuses before reading a byte of the body. (Sending the body
    // too would race the server's close: a client still writing when the
    // refusal arrives gets a broken pipe, or a reset that can eat the reply.)
    let mut stream = TcpStream::connect(&server.address).unwrap();
    stream.set_read_timeout(Some(LIMIT)).unwrap();
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nContent-Type: application/json\r\nHost: {}\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n",
        server.address,
        1024 * 1024 + 1
    )
    .unwrap();
    let mut raw = String::new();
    stream.read_to_string(&mut raw).unwrap();
    let lines: Vec<&str> = raw
        .split("\r\n")
        .filter(|line| !line.starts_with("date: "))
        .collect();
    let body = r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request: a message may be at most 1048576 bytes"}}"#;
    assert_eq!(
        lines.join("\n"),
        response("413 Payload Too Large", &[], body)
    );
    let call = modern_call(7, "add", json!({ "a": 2, "b": 3 }));
    assert_eq!(
        server.post(&call_headers("add"), &call),
        response("200 OK", &[], SUM)
    );
}

/// The environment keeps the token out of `ps`; tests/transcripts/ch13/
/// token.wire shows `--token`.
#[test]
fn the_token_may_come_from_the_environment() {
    let server = Server::start_with(&[], Some("s3cret"));
    let call = modern_call(7, "add", json!({ "a": 2, "b": 3 }));
    let body = r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request: a valid bearer token is required"}}"#;
    let challenge = "www-authenticate: Bearer realm=\"mcp\"";
    assert_eq!(
        server.post(&call_headers("add"), &call),
        response("401 Unauthorized", &[challenge], body)
    );
    let headers = format!("Authorization: Bearer s3cret\n{}", call_headers("add"));
    assert_eq!(server.post(&headers, &call), response("200 OK", &[], SUM));
}

/// `kill` sends the signals, so this one is for unix.
#[cfg(unix)]
#[test]
fn sigterm_and_ctrl_c_end_it_cleanly() {
    for (signal, word) in [("-TERM", "terminated"), ("-INT", "interrupted")] {
        let server = Server::start(&[]);
        let (code, log) = server.stop(signal);
        assert_eq!(code, Some(0), "{log}");
        assert_eq!(log, format!("ch13-http: {word}, bye\n"));
    }
}

/// Over HTTP too, a request's `_meta.traceparent` is logged and changes
/// nothing in the answer (chapter 25; `tests/tests/trace_logs.rs` checks
/// stdio): a valid one as it is, a malformed one as ignored, with its rule.
#[cfg(unix)]
#[test]
fn a_traceparent_is_logged_and_changes_no_answer() {
    let server = Server::start(&[]);
    let traced = |value: &str| {
        let mut call = modern_call(7, "add", json!({ "a": 2, "b": 3 }));
        call["params"]["_meta"]["traceparent"] = json!(value);
        call
    };
    let valid = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    for value in [
        valid,
        "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
    ] {
        let answer = server.post(&call_headers("add"), &traced(value));
        assert_eq!(answer, response("200 OK", &[], SUM));
    }
    let (_, log) = server.stop("-TERM");
    let wanted = format!(
        "ch13-http: tools/call 7 traceparent={valid}\n\
         ch13-http: tools/call 7: traceparent ignored (the parent-id is all zeros): \
         \"00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01\"\n\
         ch13-http: terminated, bye\n"
    );
    assert_eq!(log, wanted);
}

// ANCHOR: scale_out
/// Two instances on one `--state` folder, and a client that alternates
/// between them as a round-robin balancer would.
#[test]
fn two_instances_on_one_state_folder_take_turns() {
    let state = Scratch::new("http-scale", "state"); // removed at the end, after the servers
    let args = ["--state", state.to_str().unwrap()];
    let instances = [Server::start(&args), Server::start(&args)];
    let mut turn = 0;
    let mut call = |tool: &str, arguments: Value| {
        let server = &instances[turn % 2];
        turn += 1;
        let reply = server.post(
            &call_headers(tool),
            &modern_call(turn as u64, tool, arguments),
        );
        let body = reply.rsplit('\n').next().unwrap().to_string();
        let mut body: Value = serde_json::from_str(&body).unwrap();
        body["result"]["structuredContent"].take()
    };
    let append = json!({ "draft": "draft-1", "text": "Back off.", "operation_key": "k-1" });
    assert_eq!(
        call("start_draft", json!({ "title": "Retries" })),
        json!({ "draft": "draft-1" })
    );
    let first = call("append_to_draft", append.clone());
    assert_eq!(first, json!({ "draft": "draft-1", "lines": 1 }));
    // The client missed that answer and retries: the balancer sends the
    // retry to the other instance, which returns the first outcome.
    assert_eq!(call("append_to_draft", append), first);
    assert_eq!(
        call("read_draft", json!({ "draft": "draft-1" }))["lines"],
        json!(["Back off."]),
        "the line was added once"
    );
}
// ANCHOR_END: scale_out

/// The conformance fixtures (tests/conformance) are the one server here with
/// notifications to send before a reply, so they are what shows chapter 13's
/// stream of server-sent events: tests/conformance/sse.wire, played against
/// `ch13-conformance`, which compiles chapter 13's http.rs as it is.
#[test]
fn the_conformance_fixtures_stream_progress_as_server_sent_events() {
    let path = wire_tests::course::root().join("tests/conformance/sse.wire");
    let transcript = wire_tests::run::transcript::Transcript::load(&path)
        .unwrap_or_else(|err| panic!("{}: {err:?}", path.display()));
    let binary = target::build("ch13-conformance").unwrap_or_else(|err| panic!("{err}"));
    let conformance = target::Target::binary(binary, " (tests/conformance)");
    wire_tests::run::runner::check(&transcript, &conformance).unwrap_or_else(|err| panic!("{err}"));
}

/// Chapter 14's input-required rounds behind the conformance fixtures:
/// tests/conformance-14/rounds.wire, played against `ch14-conformance`,
/// which compiles chapter 14's http.rs and rounds.rs as they are. What
/// `tests/peers/run.sh 14` shows with the suite itself, without Node.
#[test]
fn the_conformance_fixtures_ask_in_rounds_through_chapter_14() {
    let path = wire_tests::course::root().join("tests/conformance-14/rounds.wire");
    let transcript = wire_tests::run::transcript::Transcript::load(&path)
        .unwrap_or_else(|err| panic!("{}: {err:?}", path.display()));
    let binary = target::build("ch14-conformance").unwrap_or_else(|err| panic!("{err}"));
    let conformance = target::Target::binary(binary, " (tests/conformance-14)");
    wire_tests::run::runner::check(&transcript, &conformance).unwrap_or_else(|err| panic!("{err}"));
}
