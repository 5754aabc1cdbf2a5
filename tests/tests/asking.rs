//! Chapter 14 over HTTP, beyond what a transcript can say (a transcript
//! sends one request at a time and reads each response whole): in
//! 2025-11-25 the call's response stays open as an event stream while the
//! server waits, and the answer arrives as another POST. The same answer
//! posted to another instance finds no waiting call there: refused, and
//! the call gives up after `--answer-wait`. In 2026-07-28 nothing waits,
//! so a retry may go to any instance sharing `--state` (and its key).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};
use wire_tests::course::Chapter;
use wire_tests::run::target::{self, Kind, Target};

/// A stuck server fails its test instead of hanging the suite.
const LIMIT: Duration = Duration::from_secs(30);

fn binary() -> PathBuf {
    let chapter = Chapter::find("14").expect("chapter 14 exists");
    target::build(&chapter.solution_package()).unwrap_or_else(|err| panic!("{err}"))
}

/// One running server; killed when the test ends, pass or fail.
struct Server {
    child: Child,
    address: String,
}

impl Server {
    fn start(args: &[&str]) -> Server {
        Server::start_binary(binary(), args)
    }

    fn start_binary(binary: PathBuf, args: &[&str]) -> Server {
        let mut child = Command::new(binary)
            .args(["--listen", "127.0.0.1:0"])
            .args(args)
            .env_remove("WIRE_TOKEN")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the server starts");
        let mut log = BufReader::new(child.stderr.take().unwrap());
        let mut first = String::new();
        log.read_line(&mut first).unwrap();
        let address = first
            .trim_end()
            .strip_prefix("listening on http://")
            .and_then(|rest| rest.strip_suffix("/mcp"))
            .unwrap_or_else(|| panic!("unexpected first line: {first:?}"))
            .to_string();
        // Keep reading the log, so the server never blocks on a full pipe.
        std::thread::spawn(move || std::io::copy(&mut log, &mut std::io::sink()));
        Server { child, address }
    }

    /// POSTs one message with `headers` and returns the open stream, the
    /// response's head already read.
    fn post(&self, message: &Value, headers: &str) -> (String, BufReader<TcpStream>) {
        let mut stream = TcpStream::connect(&self.address).unwrap();
        stream.set_read_timeout(Some(LIMIT)).unwrap();
        let body = message.to_string();
        write!(
            stream,
            "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\n{headers}\
             Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            self.address,
            body.len()
        )
        .unwrap();
        let mut reader = BufReader::new(stream);
        let mut head = String::new();
        loop {
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            if line == "\r\n" || line.is_empty() {
                break;
            }
            head.push_str(&line);
        }
        (head, reader)
    }

    /// A legacy POST (2025-11-25, no session: the header says the revision).
    fn legacy(&self, message: &Value) -> (String, BufReader<TcpStream>) {
        self.post(message, "MCP-Protocol-Version: 2025-11-25\r\n")
    }

    /// A 2026-07-28 tools/call, read whole: its JSON-RPC reply.
    fn modern_call(&self, id: u64, tool: &str, params: Value) -> Value {
        let mut params = params;
        params["name"] = tool.into();
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": { "elicitation": {}, "roots": {} },
        });
        let message =
            json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params });
        let headers = format!(
            "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: {tool}\r\n"
        );
        let (_, mut reader) = self.post(&message, &headers);
        let mut body = String::new();
        reader.read_to_string(&mut body).unwrap();
        serde_json::from_str(&body).unwrap_or_else(|_| panic!("not JSON: {body}"))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        wire_tests::run::http_runner::terminate(&mut self.child);
    }
}

/// The next `data:` event of a stream, as JSON; `None` when it ended.
fn next_event(reader: &mut BufReader<TcpStream>) -> Option<Value> {
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        // Chunked transfer: chunk sizes and event lines interleave.
        if let Some(data) = line.trim_end().strip_prefix("data: ") {
            return Some(serde_json::from_str(data).unwrap());
        }
    }
}

fn call(id: u64, tool: &str, arguments: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": { "name": tool, "arguments": arguments } })
}

fn start_draft(server: &Server) {
    let (head, mut reader) = server.legacy(&call(1, "start_draft", json!({ "title": "Notes" })));
    assert!(head.starts_with("HTTP/1.1 200 OK"), "{head}");
    let mut body = String::new();
    reader.read_to_string(&mut body).unwrap();
    assert!(body.contains("draft-1"), "{body}");
}

#[test]
fn a_legacy_call_over_http_asks_on_its_open_stream() {
    let server = Server::start(&[]);
    start_draft(&server);
    let (head, mut stream) =
        server.legacy(&call(2, "publish_draft", json!({ "draft": "draft-1" })));
    assert!(head.starts_with("HTTP/1.1 200 OK"), "{head}");
    assert!(head.contains("content-type: text/event-stream"), "{head}");
    // The server's request, while the call waits.
    let request = next_event(&mut stream).expect("the server asks");
    assert_eq!(request["method"], "elicitation/create");
    assert_eq!(request["params"]["mode"], "form");
    let answer = json!({ "jsonrpc": "2.0", "id": request["id"],
                         "result": { "action": "accept", "content": { "visibility": "team" } } });
    let (head, _) = server.legacy(&answer);
    assert!(head.starts_with("HTTP/1.1 202 Accepted"), "{head}");
    // The reply is the last event, and the stream ends.
    let reply = next_event(&mut stream).expect("the reply comes");
    assert_eq!(reply["id"], 2);
    assert_eq!(reply["result"]["structuredContent"]["published"], true);
    assert_eq!(next_event(&mut stream), None);
}

// ANCHOR: two_instances
#[test]
fn an_answer_that_reaches_another_instance_is_refused_and_the_call_gives_up() {
    let state = std::env::temp_dir().join(format!("wire-ch14-two-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&state);
    let folder = state.to_str().unwrap();
    let first = Server::start(&["--state", folder, "--answer-wait", "1"]);
    let second = Server::start(&["--state", folder]);
    start_draft(&first);
    let (_, mut stream) = first.legacy(&call(2, "publish_draft", json!({ "draft": "draft-1" })));
    let request = next_event(&mut stream).expect("the server asks");
    // The load balancer sends the answer to the other instance.
    let answer = json!({ "jsonrpc": "2.0", "id": request["id"],
                         "result": { "action": "accept", "content": { "visibility": "team" } } });
    let (head, mut refused) = second.legacy(&answer);
    assert!(head.starts_with("HTTP/1.1 400 Bad Request"), "{head}");
    let mut body = String::new();
    refused.read_to_string(&mut body).unwrap();
    assert!(body.contains("no request of this instance waits"), "{body}");
    // The first instance never hears it, and gives up after --answer-wait.
    let reply = next_event(&mut stream).expect("the reply comes");
    assert_eq!(reply["result"]["isError"], true, "{reply}");
    let text = reply["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("no answer to elicitation/create within 1 s"),
        "{text}"
    );
    drop((first, second));
    let _ = std::fs::remove_dir_all(&state);
}
// ANCHOR_END: two_instances

#[test]
fn a_modern_retry_may_go_to_any_instance_sharing_the_state_folder() {
    let base = std::env::temp_dir().join(format!("wire-ch14-rounds-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    let (state, root) = (base.join("state"), base.join("root"));
    std::fs::create_dir_all(&root).unwrap();
    let folder = state.to_str().unwrap();
    let first = Server::start(&["--state", folder]);
    let second = Server::start(&["--state", folder]);
    let started = first.modern_call(
        1,
        "start_draft",
        json!({ "arguments": { "title": "Notes" } }),
    );
    assert_eq!(
        started["result"]["structuredContent"]["draft"], "draft-1",
        "{started}"
    );
    let path = root.join("notes.md");
    let arguments = json!({ "draft": "draft-1", "path": path.to_str().unwrap() });
    let asked = first.modern_call(2, "export_draft", json!({ "arguments": arguments }));
    assert_eq!(asked["result"]["resultType"], "input_required", "{asked}");
    let roots = json!({ "roots": [{ "uri": format!("file://{}", root.display()) }] });
    let retry = json!({ "arguments": arguments, "inputResponses": { "roots": roots },
                        "requestState": asked["result"]["requestState"] });
    // The other instance opens the state: the key is in the shared folder.
    let done = second.modern_call(3, "export_draft", retry.clone());
    assert_eq!(done["result"]["isError"], false, "{done}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "# Notes\n\n");
    // The file exists now: the same retry never overwrites it.
    let again = first.modern_call(4, "export_draft", retry);
    assert_eq!(again["result"]["isError"], true, "{again}");
    drop((first, second));
    let _ = std::fs::remove_dir_all(&base);
}

/// Runs the binary on stdio with `--state folder` and no input; its exit
/// code and stderr.
fn run_with_state(folder: &std::path::Path) -> (Option<i32>, String) {
    let output = Command::new(binary())
        .arg("--state")
        .arg(folder)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    (output.status.code(), stderr)
}

#[cfg(unix)]
#[test]
fn the_key_of_the_state_folder_is_made_once_readable_by_its_owner_only() {
    use std::os::unix::fs::PermissionsExt;
    let folder = std::env::temp_dir().join(format!("wire-ch14-key-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    assert_eq!(run_with_state(&folder).0, Some(0));
    let key = folder.join("request-state.key");
    let first = std::fs::read_to_string(&key).unwrap();
    assert_eq!(first.len(), 64, "{first:?}");
    assert!(
        first.bytes().all(|byte| byte.is_ascii_hexdigit()),
        "{first:?}"
    );
    let mode = std::fs::metadata(&key).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "mode {mode:o}");
    // A second instance reads the same key: states sealed by one open in the other.
    assert_eq!(run_with_state(&folder).0, Some(0));
    assert_eq!(std::fs::read_to_string(&key).unwrap(), first);
    let _ = std::fs::remove_dir_all(&folder);
}

#[cfg(unix)]
#[test]
fn a_fifo_a_symlink_or_a_short_file_in_place_of_the_key_is_refused() {
    let base = std::env::temp_dir().join(format!("wire-ch14-odd-key-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    let plant = |name: &str, how: &dyn Fn(&std::path::Path)| {
        let folder = base.join(name);
        std::fs::create_dir_all(&folder).unwrap();
        how(&folder.join("request-state.key"));
        let (code, stderr) = run_with_state(&folder);
        assert_eq!(code, Some(2), "{name}: {stderr}");
        assert!(
            stderr.contains("request-state.key in the state folder"),
            "{name}: {stderr}"
        );
    };
    // A FIFO would block a plain open until a writer came: refused at once.
    plant("fifo", &|key| {
        let made = Command::new("mkfifo").arg(key).status().unwrap();
        assert!(made.success());
    });
    plant("symlink", &|key| {
        std::os::unix::fs::symlink("/etc/hostname", key).unwrap();
    });
    plant("short", &|key| std::fs::write(key, "abc").unwrap());
    let _ = std::fs::remove_dir_all(&base);
}

const BASE64URL: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// The refusal of a state already spent (the stretch `ch14/spent-once`).
fn assert_used(reply: &Value) {
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    let message = reply["error"]["message"].as_str().unwrap();
    let used = "requestState refused: it was used already; call again without it";
    assert!(message.ends_with(used), "{message}");
}

/// The stretch `ch14/spent-once`, built with `--features stretch`: the
/// record of spent states is in the state folder, so a confirmation spent
/// on one instance is spent on every instance sharing `--state`, and of two
/// instances that get the same retry at once exactly one publishes.
#[test]
fn a_spent_confirmation_is_refused_by_every_instance_sharing_the_state() {
    let chapter = Chapter::find("14").expect("chapter 14 exists");
    let stretch =
        Target::built(&chapter, Kind::Solution, true).unwrap_or_else(|err| panic!("{err}"));
    let state = std::env::temp_dir().join(format!("wire-ch14-spent-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&state);
    let folder = state.to_str().unwrap();
    let first = Server::start_binary(stretch.path.clone(), &["--state", folder]);
    let second = Server::start_binary(stretch.path, &["--state", folder]);
    let arguments = json!({ "arguments": { "title": "Notes" } });
    let started = first.modern_call(1, "start_draft", arguments);
    assert_eq!(
        started["result"]["structuredContent"]["draft"], "draft-1",
        "{started}"
    );
    let draft = json!({ "draft": "draft-1" });
    let accept = json!({ "confirm": { "action": "accept", "content": { "visibility": "team" } } });
    let retry_of = |asked: &Value| {
        assert_eq!(asked["result"]["resultType"], "input_required", "{asked}");
        json!({ "arguments": draft, "inputResponses": accept,
                "requestState": asked["result"]["requestState"] })
    };
    let asked = first.modern_call(2, "publish_draft", json!({ "arguments": draft }));
    let retry = retry_of(&asked);
    let published = second.modern_call(3, "publish_draft", retry.clone());
    assert_eq!(
        published["result"]["structuredContent"]["published"], true,
        "{published}"
    );
    // The replay, on the instance that sealed the state: spent there too.
    let replayed = first.modern_call(4, "publish_draft", retry.clone());
    assert_used(&replayed);
    // The same state spelled another way: the last character of base64url
    // has two spare bits, so flipping the lowest one changes the text and
    // not the bytes. The record is of the bytes: spent all the same.
    let text = retry["requestState"].as_str().unwrap();
    let at = BASE64URL
        .iter()
        .position(|c| text.ends_with(char::from(*c)))
        .unwrap();
    let respelled = format!(
        "{}{}",
        &text[..text.len() - 1],
        char::from(BASE64URL[at ^ 1])
    );
    let mut respelled_retry = retry;
    respelled_retry["requestState"] = respelled.into();
    assert_used(&second.modern_call(5, "publish_draft", respelled_retry));
    // A fresh state, sent to both instances at once: one of them wins.
    let asked = second.modern_call(6, "publish_draft", json!({ "arguments": draft }));
    let retry = retry_of(&asked);
    let replies: Vec<Value> = std::thread::scope(|scope| {
        let calls = [(&first, 7), (&second, 8)].map(|(server, id)| {
            let retry = retry.clone();
            scope.spawn(move || server.modern_call(id, "publish_draft", retry))
        });
        calls.map(|call| call.join().unwrap()).into()
    });
    let won = replies
        .iter()
        .filter(|reply| reply["result"]["structuredContent"]["published"] == true);
    assert_eq!(won.count(), 1, "{replies:?}");
    assert!(
        replies.iter().any(|reply| reply["error"]["code"] == -32602),
        "{replies:?}"
    );
    // One empty file per spent state, in the folder both instances share.
    let spent = std::fs::read_dir(&state).unwrap().flatten();
    let spent = spent.filter(|entry| entry.file_name().to_string_lossy().starts_with("spent-"));
    assert_eq!(spent.count(), 2);
    drop((first, second));
    let _ = std::fs::remove_dir_all(&state);
}
