//! Chapter 15's host over Streamable HTTP, against a small fake server on
//! 127.0.0.1:0 in this process (a transcript plays stdio servers only): what
//! the host sends, headers included, and that it reads JSON and event-stream
//! responses alike. 2026-07-28: `Mcp-Method`, `Mcp-Name` and the version
//! header on every request, an input-required result read from a stream and
//! answered by a retry. 2025-11-25: a 404 to `server/discover` is an old
//! server, `initialize` follows; the session id is kept and sent back, the
//! version header too; a server request in the call's stream is answered by
//! a POST of its own; the session is closed with a DELETE at the end. A
//! stream that ends before its reply is resumed with `Last-Event-ID`;
//! progress resets a call's timeout; `x-mcp-header` arguments become
//! `Mcp-Param-*` headers.
//! Last, chapter 14's real server over HTTP: its tools that ask complete in
//! both eras with scripted answers.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::Command;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use wire_tests::course::{self, Chapter};
use wire_tests::run::target;
use wire_tests::scratch::Scratch;

/// One request the fake server got.
#[derive(Clone, Debug)]
struct Seen {
    method: String,
    /// Header names in lower case.
    headers: BTreeMap<String, String>,
    body: Value,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(String::as_str)
    }
    fn rpc(&self) -> &str {
        self.body["method"].as_str().unwrap_or_default()
    }
}

/// What the fake answers: a status, headers, and the body's parts. A
/// `Wait` part holds the rest back until a POST whose body contains the
/// text has arrived (the client's answer to a server request).
enum Part {
    Text(String),
    Wait(&'static str),
    Sleep(u64),
}

struct Reply {
    status: &'static str,
    headers: Vec<(&'static str, String)>,
    parts: Vec<Part>,
}

fn json_reply(body: Value) -> Reply {
    let headers = vec![("Content-Type", "application/json".to_string())];
    Reply {
        status: "200 OK",
        headers,
        parts: vec![Part::Text(body.to_string())],
    }
}

fn sse(parts: Vec<Part>) -> Reply {
    let headers = vec![("Content-Type", "text/event-stream".to_string())];
    Reply {
        status: "200 OK",
        headers,
        parts,
    }
}

fn status(status: &'static str) -> Reply {
    Reply {
        status,
        headers: Vec::new(),
        parts: Vec::new(),
    }
}

fn event(message: Value) -> Part {
    Part::Text(format!("event: message\ndata: {message}\n\n"))
}

type Log = Arc<(Mutex<Vec<Seen>>, Condvar)>;
type Handler = Arc<dyn Fn(&Seen, &[Seen]) -> Reply + Send + Sync>;

/// Serves `handler` on 127.0.0.1:0; returns the URL and the log.
fn fake(handler: Handler) -> (String, Log) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let log: Log = Arc::default();
    let shared = Arc::clone(&log);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let (log, handler) = (Arc::clone(&shared), Arc::clone(&handler));
            std::thread::spawn(move || serve(stream, &log, &*handler));
        }
    });
    (url, log)
}

fn serve(stream: TcpStream, log: &Log, handler: &(dyn Fn(&Seen, &[Seen]) -> Reply + Send + Sync)) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut line = String::new();
    reader.read_line(&mut line).unwrap();
    let method = line.split(' ').next().unwrap_or_default().to_string();
    let mut headers = BTreeMap::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(':').unwrap();
        headers.insert(name.to_ascii_lowercase(), value.trim().to_string());
    }
    let length: usize = headers
        .get("content-length")
        .map_or(0, |n| n.parse().unwrap());
    let mut body = vec![0; length];
    reader.read_exact(&mut body).unwrap();
    let body = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let seen = Seen {
        method,
        headers,
        body,
    };
    let reply = {
        let mut seen_so_far = log.0.lock().unwrap();
        seen_so_far.push(seen.clone());
        log.1.notify_all();
        handler(&seen, &seen_so_far)
    };
    let mut stream = stream;
    let mut head = format!("HTTP/1.1 {}\r\nConnection: close\r\n", reply.status);
    for (name, value) in &reply.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    if reply.parts.is_empty() {
        head.push_str("Content-Length: 0\r\n");
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).unwrap();
    for part in reply.parts {
        match part {
            Part::Text(text) => {
                let _ = stream.write_all(text.as_bytes());
                let _ = stream.flush();
            }
            Part::Sleep(ms) => std::thread::sleep(Duration::from_millis(ms)),
            Part::Wait(text) => {
                let (lock, arrived) = &**log;
                let seen = lock.lock().unwrap();
                let has = |seen: &Vec<Seen>| seen.iter().any(|s| s.body.to_string().contains(text));
                let _ =
                    arrived.wait_timeout_while(seen, Duration::from_secs(10), |seen| !has(seen));
            }
        }
    }
}

/// A folder of this test's own, removed at the end.
fn scratch() -> Scratch {
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    Scratch::new("host-http", &n.to_string())
}

fn binary() -> PathBuf {
    let chapter = Chapter::find("15").expect("chapter 15 exists");
    target::build(&chapter.solution_package()).unwrap_or_else(|err| panic!("{err}"))
}

/// Runs the host with a one-call script against `url`; returns its stdout.
fn host(url: &str, tool: &str, answers: Value) -> String {
    host_waiting(url, tool, answers, 5000)
}

/// As `host`, with `--timeout-ms timeout_ms`.
fn host_waiting(url: &str, tool: &str, answers: Value, timeout_ms: u64) -> String {
    let dir = scratch();
    let call = json!({ "id": "msg_01", "type": "message", "role": "assistant", "model": "scripted",
        "content": [{ "type": "tool_use", "id": "toolu_01", "name": tool, "input": { "draft": "d1" } }],
        "stop_reason": "tool_use", "stop_sequence": null, "usage": { "input_tokens": 0, "output_tokens": 0 } });
    let end = json!({ "id": "msg_02", "type": "message", "role": "assistant", "model": "scripted",
        "content": [{ "type": "text", "text": "Done." }],
        "stop_reason": "end_turn", "stop_sequence": null, "usage": { "input_tokens": 0, "output_tokens": 0 } });
    let script = dir.join("script.json");
    std::fs::write(
        &script,
        json!({ "prompt": "Publish d1.", "replies": [call, end] }).to_string(),
    )
    .unwrap();
    let answers_file = dir.join("answers.json");
    std::fs::write(&answers_file, answers.to_string()).unwrap();
    let fixtures = course::root().join("tests/fixtures/hooks");
    let output = Command::new(binary())
        .arg("--server")
        .arg(format!("web={url}"))
        .arg("--script")
        .arg(&script)
        .arg("--answers")
        .arg(&answers_file)
        .arg("--skills")
        .arg(fixtures.join("none"))
        .arg("--agents")
        .arg(fixtures.join("agents"))
        .arg("--timeout-ms")
        .arg(timeout_ms.to_string())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the host failed:\n{stdout}\n{stderr}"
    );
    stdout
}

const TOOLS: &str = r#"[{"name":"publish","description":"Publishes a draft.","inputSchema":{"type":"object","properties":{"draft":{"type":"string"}}}}]"#;

fn modern_result(id: &Value, mut result: Value) -> Value {
    result["resultType"] = result
        .get("resultType")
        .cloned()
        .unwrap_or(json!("complete"));
    result["_meta"] =
        json!({ "io.modelcontextprotocol/serverInfo": { "name": "fake-web", "version": "1.0.0" } });
    json!({ "jsonrpc": "2.0", "id": id, "result": result })
}

fn modern(seen: &Seen, _: &[Seen], resume: bool) -> Reply {
    let id = &seen.body["id"];
    if seen.method == "GET" {
        let done = modern_result(
            &json!(3),
            json!({ "content": [{ "type": "text", "text": "Published d1 (resumed)." }] }),
        );
        return sse(vec![event(done)]);
    }
    match seen.rpc() {
        "server/discover" => json_reply(modern_result(
            id,
            json!({
            "supportedVersions": ["2026-07-28"], "capabilities": { "tools": {} }, "ttlMs": 0, "cacheScope": "private" }),
        )),
        "tools/list" => json_reply(modern_result(
            id,
            json!({ "tools": serde_json::from_str::<Value>(TOOLS).unwrap(), "ttlMs": 0, "cacheScope": "private" }),
        )),
        "tools/call" if resume => sse(vec![Part::Text("id: e1\nretry: 50\ndata:\n\n".into())]),
        "tools/call" if seen.body["params"].get("requestState").is_none() => {
            let form = json!({ "message": "Publish d1?", "mode": "form",
                "requestedSchema": { "type": "object", "properties": { "ok": { "type": "boolean" } } } });
            let asked = modern_result(
                id,
                json!({ "resultType": "input_required",
                "inputRequests": { "confirm": { "method": "elicitation/create", "params": form } },
                "requestState": "state-1" }),
            );
            sse(vec![Part::Text("id: p1\ndata:\n\n".into()), event(asked)])
        }
        "tools/call" => json_reply(modern_result(
            id,
            json!({ "content": [{ "type": "text", "text": "Published d1." }] }),
        )),
        _ => status("404 Not Found"),
    }
}

// ANCHOR: modern
#[test]
fn modern_headers_a_streamed_input_required_result_and_its_retry() {
    let (url, log) = fake(Arc::new(|seen: &Seen, all: &[Seen]| {
        modern(seen, all, false)
    }));
    let stdout = host(
        &url,
        "mcp__web__publish",
        json!({ "elicitation": [{ "action": "accept", "content": { "ok": true } }] }),
    );
    assert!(
        stdout.contains("era web: 2026-07-28 (server/discover)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("tool mcp__web__publish {\"draft\":\"d1\"} -> Published d1."),
        "{stdout}"
    );
    let seen = log.0.lock().unwrap().clone();
    let calls: Vec<&Seen> = seen.iter().filter(|s| s.rpc() == "tools/call").collect();
    assert_eq!(calls.len(), 2, "{seen:#?}");
    for request in &seen {
        assert_eq!(
            request.header("mcp-protocol-version"),
            Some("2026-07-28"),
            "{request:?}"
        );
        assert_eq!(
            request.header("mcp-method"),
            Some(request.rpc()),
            "{request:?}"
        );
        assert_eq!(
            request.body["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"],
            "2026-07-28"
        );
        assert!(request.header("mcp-session-id").is_none());
    }
    assert_eq!(calls[0].header("mcp-name"), Some("publish"));
    let retry = &calls[1].body["params"];
    assert_eq!(retry["requestState"], "state-1");
    assert_eq!(
        retry["inputResponses"]["confirm"],
        json!({ "action": "accept", "content": { "ok": true } })
    );
    assert_ne!(
        calls[0].body["id"], calls[1].body["id"],
        "a retry is a new request"
    );
    assert!(seen.iter().all(|s| s.rpc() != "initialize"));
}
// ANCHOR_END: modern

#[test]
fn a_stream_that_ends_early_is_resumed_with_last_event_id() {
    let (url, log) = fake(Arc::new(|seen: &Seen, all: &[Seen]| {
        modern(seen, all, true)
    }));
    let stdout = host(&url, "mcp__web__publish", json!({}));
    assert!(stdout.contains("-> Published d1 (resumed)."), "{stdout}");
    let seen = log.0.lock().unwrap().clone();
    let get = seen
        .iter()
        .find(|s| s.method == "GET")
        .expect("a GET resumes the stream");
    assert_eq!(get.header("last-event-id"), Some("e1"));
    assert!(
        get.header("accept")
            .unwrap_or_default()
            .contains("text/event-stream")
    );
}

fn legacy(seen: &Seen, _: &[Seen]) -> Reply {
    let id = &seen.body["id"];
    let mut reply = match (seen.method.as_str(), seen.rpc()) {
        ("DELETE", _) => status("200 OK"),
        (_, "server/discover") => status("404 Not Found"),
        (_, "initialize") => json_reply(json!({ "jsonrpc": "2.0", "id": id, "result": {
            "protocolVersion": "2025-11-25", "capabilities": { "tools": {} },
            "serverInfo": { "name": "fake-old", "version": "0.9.0" } } })),
        (_, "tools/list") => json_reply(
            json!({ "jsonrpc": "2.0", "id": id, "result": { "tools": serde_json::from_str::<Value>(TOOLS).unwrap() } }),
        ),
        (_, "tools/call") => {
            let ask = json!({ "jsonrpc": "2.0", "id": 9, "method": "elicitation/create",
                "params": { "message": "Publish d1?", "requestedSchema": { "type": "object", "properties": {} } } });
            let done = json!({ "jsonrpc": "2.0", "id": id, "result": { "content": [{ "type": "text", "text": "Published d1 (2025-11-25)." }] } });
            sse(vec![
                Part::Text("id: s1\ndata:\n\n".into()),
                event(ask),
                Part::Wait("\"action\":\"accept\""),
                event(done),
            ])
        }
        _ => status("202 Accepted"),
    };
    if seen.rpc() == "initialize" {
        reply.headers.push(("Mcp-Session-Id", "sess-1".to_string()));
    }
    reply
}

// ANCHOR: legacy
#[test]
fn an_old_server_gets_initialize_a_session_and_its_request_answered() {
    let (url, log) = fake(Arc::new(legacy));
    let stdout = host(
        &url,
        "mcp__web__publish",
        json!({ "elicitation": [{ "action": "accept", "content": {} }] }),
    );
    assert!(
        stdout.contains("era web: 2025-11-25 (server/discover: HTTP 404; initialize)"),
        "{stdout}"
    );
    assert!(stdout.contains("-> Published d1 (2025-11-25)."), "{stdout}");
    let seen = log.0.lock().unwrap().clone();
    let after: Vec<&Seen> = seen
        .iter()
        .skip_while(|s| s.rpc() != "initialize")
        .skip(1)
        .collect();
    assert!(!after.is_empty());
    for request in &after {
        assert_eq!(
            request.header("mcp-session-id"),
            Some("sess-1"),
            "{request:?}"
        );
        if request.method == "POST" {
            assert_eq!(
                request.header("mcp-protocol-version"),
                Some("2025-11-25"),
                "{request:?}"
            );
            assert_eq!(
                request.header("mcp-method"),
                request.body["method"].as_str(),
                "{request:?}"
            );
        }
    }
    let answer = seen
        .iter()
        .find(|s| s.body["id"] == 9 && s.body.get("result").is_some())
        .expect("the answer");
    assert_eq!(answer.body["result"]["action"], "accept");
    assert_eq!(
        seen.last().map(|s| s.method.as_str()),
        Some("DELETE"),
        "the session is ended"
    );
}
// ANCHOR_END: legacy

#[test]
fn progress_resets_the_timeout_of_its_call() {
    // Three progress events 200 ms apart, the reply 200 ms after the last:
    // 600 ms in all, longer than the 300 ms timeout, which each progress
    // event resets.
    let handler = |seen: &Seen, all: &[Seen]| {
        if seen.rpc() != "tools/call" {
            return modern(seen, all, false);
        }
        let token = seen.body["params"]["_meta"]["progressToken"].clone();
        let progress = |n: u32| {
            event(
                json!({ "jsonrpc": "2.0", "method": "notifications/progress",
            "params": { "progressToken": token, "progress": n, "total": 3 } }),
            )
        };
        let done = modern_result(
            &seen.body["id"],
            json!({ "content": [{ "type": "text", "text": "Published d1, slowly." }] }),
        );
        sse(vec![
            progress(1),
            Part::Sleep(200),
            progress(2),
            Part::Sleep(200),
            progress(3),
            Part::Sleep(200),
            event(done),
        ])
    };
    let (url, _log) = fake(Arc::new(handler));
    let stdout = host_waiting(&url, "mcp__web__publish", json!({}), 300);
    assert!(stdout.contains("-> Published d1, slowly."), "{stdout}");
}

#[test]
fn x_mcp_header_arguments_are_mirrored_and_an_invalid_tool_left_out() {
    let handler = |seen: &Seen, all: &[Seen]| {
        if seen.rpc() != "tools/list" {
            return modern(seen, all, false);
        }
        let tools = json!([
            { "name": "publish", "inputSchema": { "type": "object", "properties": {
                "draft": { "type": "string", "x-mcp-header": "Draft" } } } },
            { "name": "bad", "inputSchema": { "type": "object", "properties": {
                "where": { "type": "object", "x-mcp-header": "Where" } } } },
            // 2026-07-28 permits integer, string and boolean: not number.
            { "name": "score", "inputSchema": { "type": "object", "properties": {
                "score": { "type": "number", "x-mcp-header": "Score" } } } }
        ]);
        json_reply(modern_result(
            &seen.body["id"],
            json!({ "tools": tools, "ttlMs": 0, "cacheScope": "private" }),
        ))
    };
    let (url, log) = fake(Arc::new(handler));
    let stdout = host(
        &url,
        "mcp__web__publish",
        json!({ "elicitation": [{ "action": "accept", "content": {} }] }),
    );
    assert!(
        stdout.contains("tool mcp__web__publish (server web"),
        "{stdout}"
    );
    assert!(!stdout.contains("mcp__web__bad"), "{stdout}");
    assert!(!stdout.contains("mcp__web__score"), "{stdout}");
    let seen = log.0.lock().unwrap().clone();
    let call = seen
        .iter()
        .find(|s| s.rpc() == "tools/call")
        .expect("a call");
    assert_eq!(call.header("mcp-param-draft"), Some("d1"));
}

/// Chapter 14's server over HTTP (`--listen 127.0.0.1:0`), killed at the end.
struct Chapter14(std::process::Child, String);

impl Chapter14 {
    fn start() -> Chapter14 {
        let chapter = Chapter::find("14").expect("chapter 14 exists");
        let binary =
            target::build(&chapter.solution_package()).unwrap_or_else(|err| panic!("{err}"));
        let mut child = Command::new(binary)
            .args(["--listen", "127.0.0.1:0"])
            .env_remove("WIRE_TOKEN")
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("chapter 14's server starts");
        let mut log = BufReader::new(child.stderr.take().unwrap());
        let mut first = String::new();
        log.read_line(&mut first).unwrap();
        let url = first
            .trim_end()
            .strip_prefix("listening on ")
            .expect("its address")
            .to_string();
        std::thread::spawn(move || std::io::copy(&mut log, &mut std::io::sink()));
        Chapter14(child, url)
    }
}

impl Drop for Chapter14 {
    fn drop(&mut self) {
        wire_tests::run::http_runner::terminate(&mut self.0);
    }
}

/// The host against chapter 14's server over HTTP, with `extra` arguments.
fn against_14(url: &str, script: &str, answers: &str, extra: &[&str]) -> String {
    let root = course::root();
    let fixtures = root.join("tests/fixtures");
    let output = Command::new(binary())
        .arg("--server")
        .arg(format!("drafts={url}"))
        .args(extra)
        .arg("--script")
        .arg(fixtures.join("answers/scripts").join(script))
        .arg("--answers")
        .arg(fixtures.join("answers").join(answers))
        .arg("--skills")
        .arg(fixtures.join("hooks/none"))
        .arg("--agents")
        .arg(fixtures.join("hooks/agents"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

#[test]
fn chapter_14s_tools_complete_over_http_in_both_eras() {
    let server = Chapter14::start();
    for (extra, era) in [
        (&[][..], "2026-07-28 (server/discover)"),
        (&["--legacy"][..], "2025-11-25 (--legacy; initialize)"),
    ] {
        let published = against_14(&server.1, "publish.json", "accept.json", extra);
        assert!(
            published.contains(&format!("era drafts: {era}")),
            "{published}"
        );
        assert!(
            published.contains("-> Published draft-1, \"Release notes\", for team."),
            "{published}"
        );
        let summarized = against_14(&server.1, "summarize.json", "approve.json", extra);
        assert!(
            summarized.contains("sampling from drafts: approved (scripted)"),
            "{summarized}"
        );
        assert!(
            summarized.contains("-> Retry with growing waits, five times at most."),
            "{summarized}"
        );
    }
}
