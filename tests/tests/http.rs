//! Chapter 12 over real loopback sockets: the binary listens on a free
//! port, a small client writes raw HTTP/1.1 requests and every test
//! compares the whole response (status line, headers, body) with what the
//! spec asks for. Only the `date` header, which changes every second, is
//! left out of the comparison.
//!
//! Later: these exchanges belong in transcripts with an `http` runner; for
//! now they are plain tests.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};
use wire_tests::course::Chapter;
use wire_tests::target;

/// A stuck server fails its test instead of hanging the suite.
const LIMIT: Duration = Duration::from_secs(30);

fn binary() -> PathBuf {
    let chapter = Chapter::find("12").expect("chapter 12 exists");
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
        let _ = self.child.kill();
        let _ = self.child.wait();
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

const SUM: &str = r#"{"jsonrpc":"2.0","id":7,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"ch12-http","version":"0.1.0"}},"content":[{"text":"{\"sum\":5}","type":"text"}],"isError":false,"resultType":"complete","structuredContent":{"sum":5}}}"#;

#[test]
fn a_modern_call_is_answered_with_json() {
    let server = Server::start(&[]);
    let call = modern_call(7, "add", json!({ "a": 2, "b": 3 }));
    assert_eq!(
        server.post(&call_headers("add"), &call),
        response("200 OK", &[], SUM)
    );
}

#[test]
fn the_legacy_era_works_without_a_session() {
    let server = Server::start(&[]);
    let initialize = json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": { "name": "test", "version": "1" } } });
    let expected = r#"{"jsonrpc":"2.0","id":1,"result":{"capabilities":{"prompts":{},"resources":{},"tools":{}},"protocolVersion":"2025-11-25","serverInfo":{"name":"ch12-http","version":"0.1.0"}}}"#;
    assert_eq!(
        server.post("", &initialize),
        response("200 OK", &[], expected)
    );
    // No Mcp-Session-Id came back, so none goes out: the header alone
    // names the revision.
    let initialized = json!({ "jsonrpc": "2.0", "method": "notifications/initialized" });
    let version = "MCP-Protocol-Version: 2025-11-25\n";
    assert_eq!(
        server.post(version, &initialized),
        response("202 Accepted", &[], "")
    );
    let call = json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": { "name": "add", "arguments": { "a": 2, "b": 3 } } });
    let expected = r#"{"jsonrpc":"2.0","id":2,"result":{"content":[{"text":"{\"sum\":5}","type":"text"}],"isError":false,"structuredContent":{"sum":5}}}"#;
    assert_eq!(
        server.post(version, &call),
        response("200 OK", &[], expected)
    );
    // A legacy error is a JSON-RPC answer: the HTTP exchange itself worked.
    let unknown = json!({ "jsonrpc": "2.0", "id": 3, "method": "tools/nothing" });
    let expected = r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"Method not found: tools/nothing"}}"#;
    assert_eq!(
        server.post(version, &unknown),
        response("200 OK", &[], expected)
    );
}

#[test]
fn a_legacy_request_must_name_a_revision_we_speak() {
    let server = Server::start(&[]);
    let list = json!({ "jsonrpc": "2.0", "id": 4, "method": "tools/list" });
    let expected = r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32600,"message":"Invalid Request: MCP-Protocol-Version must name a revision this server speaks: 2025-11-25, 2025-06-18 (after initialize), or 2026-07-28"}}"#;
    for headers in ["", "MCP-Protocol-Version: 2025-03-26\n"] {
        assert_eq!(
            server.post(headers, &list),
            response("400 Bad Request", &[], expected)
        );
    }
}

#[test]
fn modern_errors_carry_their_http_status() {
    let server = Server::start(&[]);
    let unknown = json!({ "jsonrpc": "2.0", "id": 5, "method": "nothing/here",
        "params": { "_meta": modern_meta() } });
    let expected = r#"{"jsonrpc":"2.0","id":5,"error":{"code":-32601,"message":"Method not found: nothing/here"}}"#;
    let headers = "MCP-Protocol-Version: 2026-07-28\nMcp-Method: nothing/here\n";
    assert_eq!(
        server.post(headers, &unknown),
        response("404 Not Found", &[], expected)
    );

    // The header names 2026-07-28 but the body carries no _meta: -32602.
    let bare = json!({ "jsonrpc": "2.0", "id": 6, "method": "tools/list" });
    let headers = "MCP-Protocol-Version: 2026-07-28\nMcp-Method: tools/list\n";
    let reply = server.post(headers, &bare);
    assert!(reply.starts_with("HTTP/1.1 400 Bad Request\n"), "{reply}");
    assert!(
        reply.contains(r#""id":6,"error":{"code":-32602"#),
        "{reply}"
    );

    // A version we do not speak, named alike in header and body: -32022.
    let mut meta = modern_meta();
    meta["io.modelcontextprotocol/protocolVersion"] = json!("2099-01-01");
    let future = json!({ "jsonrpc": "2.0", "id": 8, "method": "tools/list",
        "params": { "_meta": meta } });
    let headers = "MCP-Protocol-Version: 2099-01-01\nMcp-Method: tools/list\n";
    let reply = server.post(headers, &future);
    assert!(reply.starts_with("HTTP/1.1 400 Bad Request\n"), "{reply}");
    assert!(
        reply.contains(r#""id":8,"error":{"code":-32022"#),
        "{reply}"
    );
}

#[test]
fn headers_that_disagree_with_the_body_are_refused() {
    let server = Server::start(&[]);
    let call = modern_call(9, "add", json!({ "a": 2, "b": 3 }));
    let mismatch = |detail: &str| {
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":9,"error":{{"code":-32020,"message":"Header mismatch: {detail}"}}}}"#
        );
        response("400 Bad Request", &[], &body)
    };
    assert_eq!(
        server.post(&call_headers("search_notes"), &call),
        mismatch("Mcp-Name header value 'search_notes' does not match body value 'add'")
    );
    let no_method = "MCP-Protocol-Version: 2026-07-28\nMcp-Name: add\n";
    assert_eq!(
        server.post(no_method, &call),
        mismatch("the Mcp-Method header is missing")
    );
    let old = "MCP-Protocol-Version: 2025-11-25\nMcp-Method: tools/call\nMcp-Name: add\n";
    assert_eq!(
        server.post(old, &call),
        mismatch(
            "MCP-Protocol-Version header value '2025-11-25' does not match body value '2026-07-28'"
        )
    );
    // The base64 form of a name is the same name.
    let encoded =
        "MCP-Protocol-Version: 2026-07-28\nMcp-Method: tools/call\nMcp-Name: =?base64?YWRk?=\n";
    let expected = SUM.replace(r#""id":7"#, r#""id":9"#);
    assert_eq!(
        server.post(encoded, &call),
        response("200 OK", &[], &expected)
    );
}

fn refusal(status: &str, extra: &[&str], problem: &str) -> String {
    let body = format!(
        r#"{{"jsonrpc":"2.0","error":{{"code":-32600,"message":"Invalid Request: {problem}"}}}}"#
    );
    response(status, extra, &body)
}

#[test]
fn other_methods_paths_and_bodies_are_answered_not_crashed_on() {
    let server = Server::start(&[]);
    let not_allowed = refusal(
        "405 Method Not Allowed",
        &["allow: POST"],
        "only POST is served here",
    );
    for method in ["GET", "DELETE", "PUT"] {
        let head = format!("{method} /mcp HTTP/1.1\nAccept: text/event-stream\n");
        assert_eq!(server.exchange(&head, b""), not_allowed, "{method}");
    }
    assert_eq!(
        server.exchange(
            "POST /other HTTP/1.1\nContent-Type: application/json\n",
            b"{}"
        ),
        refusal("404 Not Found", &[], "the MCP endpoint is /mcp")
    );
    assert_eq!(
        server.exchange("POST /mcp HTTP/1.1\nContent-Type: text/plain\n", b"{}"),
        refusal(
            "415 Unsupported Media Type",
            &[],
            "send the message with Content-Type: application/json"
        )
    );
    let head = "POST /mcp HTTP/1.1\nContent-Type: application/json\n";
    assert_eq!(
        server.exchange(head, b"{\"jsonrpc\": "),
        response(
            "400 Bad Request",
            &[],
            r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error: EOF while parsing a value at line 1 column 12"}}"#
        )
    );
    let big = vec![b' '; 1024 * 1024 + 1];
    assert_eq!(
        server.exchange(head, &big),
        refusal(
            "413 Payload Too Large",
            &[],
            "a message may be at most 1048576 bytes"
        )
    );
    // After all that, the server still answers.
    let call = modern_call(7, "add", json!({ "a": 2, "b": 3 }));
    assert_eq!(
        server.post(&call_headers("add"), &call),
        response("200 OK", &[], SUM)
    );
}

#[test]
fn foreign_origins_are_refused_and_loopback_or_allowed_ones_pass() {
    let server = Server::start(&["--allow-origin", "https://app.example"]);
    let call = modern_call(7, "add", json!({ "a": 2, "b": 3 }));
    let forbidden = refusal("403 Forbidden", &[], "this Origin may not use the server");
    for origin in [
        "http://evil.example",
        "http://localhost.evil.example",
        "null",
    ] {
        let headers = format!("Origin: {origin}\n{}", call_headers("add"));
        assert_eq!(server.post(&headers, &call), forbidden, "{origin}");
    }
    for origin in [
        "http://localhost:5173",
        "http://127.0.0.1",
        "https://app.example",
    ] {
        let headers = format!("Origin: {origin}\n{}", call_headers("add"));
        assert_eq!(
            server.post(&headers, &call),
            response("200 OK", &[], SUM),
            "{origin}"
        );
    }
}

#[test]
fn a_token_is_asked_for_and_checked() {
    for server in [
        Server::start(&["--token", "s3cret"]),
        Server::start_with(&[], Some("s3cret")),
    ] {
        let call = modern_call(7, "add", json!({ "a": 2, "b": 3 }));
        let problem = "a valid bearer token is required";
        let challenge = "www-authenticate: Bearer realm=\"mcp\"";
        let missing = refusal("401 Unauthorized", &[challenge], problem);
        assert_eq!(server.post(&call_headers("add"), &call), missing);
        let challenge = "www-authenticate: Bearer realm=\"mcp\", error=\"invalid_token\"";
        let wrong = refusal("401 Unauthorized", &[challenge], problem);
        let headers = format!("Authorization: Bearer guess\n{}", call_headers("add"));
        assert_eq!(server.post(&headers, &call), wrong);
        let headers = format!("Authorization: Bearer s3cret\n{}", call_headers("add"));
        assert_eq!(server.post(&headers, &call), response("200 OK", &[], SUM));
    }
}

#[test]
fn sigterm_and_ctrl_c_end_it_cleanly() {
    for (signal, word) in [("-TERM", "terminated"), ("-INT", "interrupted")] {
        let server = Server::start(&[]);
        let (code, log) = server.stop(signal);
        assert_eq!(code, Some(0), "{log}");
        assert_eq!(log, format!("ch12-http: {word}, bye\n"));
    }
}

/// Two instances on one `--state` folder, and a client that alternates
/// between them as a round-robin balancer would.
#[test]
fn two_instances_on_one_state_folder_take_turns() {
    let state = std::env::temp_dir().join(format!("wire-http-scale-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&state);
    std::fs::create_dir_all(&state).unwrap();
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
