//! Chapter 17's tasks, driven as real binaries: two instances over HTTP on
//! one `--state` folder. A task the first made is answered by the second,
//! to its end (`completed`, with the index written); a task cancelled
//! through the second stops between two steps in the first, and leaves no
//! index and no temporary file behind; a task that waits for its user
//! takes its answer through the second, and the first shows it completed.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use wire_tests::course::Chapter;
use wire_tests::run::target;

fn binary() -> PathBuf {
    let chapter = Chapter::find("17").expect("the chapter exists");
    target::build(&chapter.solution_package()).unwrap_or_else(|err| panic!("{err}"))
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wire-ch17-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The state folder's entries other than the tasks, their locks and the
/// seal's key: what the work wrote, hidden temporary files included.
fn written(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| !name.starts_with("task-") && !name.starts_with(".task-"))
        .filter(|name| name != "request-state.key")
        .collect();
    names.sort();
    names
}

struct Server(Child, String);

impl Server {
    fn listen(state: &Path, step: &str) -> Server {
        let mut child = Command::new(binary())
            .args(["--listen", "127.0.0.1:0", "--step", step, "--state"])
            .arg(state)
            .env_remove("WIRE_TOKEN")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut log = BufReader::new(child.stderr.take().unwrap());
        let mut first = String::new();
        log.read_line(&mut first).unwrap();
        let url = first
            .trim_end()
            .strip_prefix("listening on http://")
            .unwrap();
        let address = url.trim_end_matches("/mcp").to_string();
        std::thread::spawn(move || std::io::copy(&mut log, &mut std::io::sink()));
        Server(child, address)
    }

    /// POSTs one 2026-07-28 request that declares the tasks extension;
    /// its reply's result (or error).
    fn request(&self, method: &str, params: Value) -> Value {
        self.request_with(method, params, json!({}))
    }

    /// The same, declaring `capabilities` besides the extension.
    fn request_with(&self, method: &str, mut params: Value, mut capabilities: Value) -> Value {
        capabilities["extensions"] = json!({ "io.modelcontextprotocol/tasks": {} });
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": { "name": "tasks-test", "version": "1" },
            "io.modelcontextprotocol/clientCapabilities": capabilities,
        });
        let name = params["name"].as_str().or(params["taskId"].as_str());
        let name = name.unwrap_or_default().to_string();
        let body = json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params });
        let body = body.to_string();
        let address = &self.1;
        let mut stream = TcpStream::connect(address).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        let request = format!(
            "POST /mcp HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
             Mcp-Method: {method}\r\nMcp-Name: {name}\r\nConnection: close\r\n\
             Content-Length: {}\r\n\r\n{body}",
            body.len()
        );
        stream.write_all(request.as_bytes()).unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).unwrap();
        let (_, body) = response.split_once("\r\n\r\n").expect("a response head");
        let reply: Value = serde_json::from_str(body).unwrap();
        reply.get("result").unwrap_or(&reply["error"]).clone()
    }

    fn get(&self, task_id: &str) -> Value {
        self.request("tasks/get", json!({ "taskId": task_id }))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        wire_tests::run::http_runner::terminate(&mut self.0);
    }
}

fn start_reindex(server: &Server) -> String {
    let handle = server.request(
        "tools/call",
        json!({ "name": "reindex_notes", "arguments": {} }),
    );
    assert_eq!(handle["resultType"], "task", "{handle}");
    assert_eq!(handle["status"], "working", "{handle}");
    handle["taskId"].as_str().unwrap().to_string()
}

#[test]
fn a_second_instance_answers_for_a_task_the_first_made() {
    let state = scratch("shared");
    let (first, second) = (
        Server::listen(&state, "0.05"),
        Server::listen(&state, "0.05"),
    );
    let task_id = start_reindex(&first);
    // Stored before it was returned: the other instance knows it at once.
    assert_eq!(second.get(&task_id)["taskId"], task_id.as_str());
    let until = Instant::now() + Duration::from_secs(20);
    let task = loop {
        let task = second.get(&task_id);
        if task["status"] != "working" || Instant::now() > until {
            break task;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(task["status"], "completed", "{task}");
    assert_eq!(task["resultType"], "complete", "{task}");
    let text = task["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(text.starts_with("Indexed 8 notes"), "{task}");
    assert_eq!(written(&state), vec!["notes-index.json".to_string()]);
    // Terminal: a cancel now is acknowledged and changes nothing.
    let ack = first.request("tasks/cancel", json!({ "taskId": task_id }));
    assert_eq!(ack["resultType"], "complete", "{ack}");
    assert_eq!(first.get(&task_id)["status"], "completed");
    drop((first, second));
    let _ = std::fs::remove_dir_all(&state);
}

#[test]
fn a_task_cancelled_through_another_instance_stops_and_writes_nothing() {
    let state = scratch("cancel");
    let (first, second) = (Server::listen(&state, "1"), Server::listen(&state, "1"));
    let task_id = start_reindex(&first);
    let ack = second.request("tasks/cancel", json!({ "taskId": task_id }));
    assert_eq!(ack["resultType"], "complete", "{ack}");
    assert_eq!(first.get(&task_id)["status"], "cancelled");
    // The work would take 7 s more; it stops at its next look, within 1 s.
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(written(&state), Vec::<String>::new());
    assert_eq!(second.get(&task_id)["status"], "cancelled");
    drop((first, second));
    let _ = std::fs::remove_dir_all(&state);
}

#[test]
fn a_task_that_waits_for_its_user_is_answered_through_another_instance() {
    let state = scratch("waiting");
    let (first, second) = (Server::listen(&state, "1"), Server::listen(&state, "1"));
    let draft = first.request(
        "tools/call",
        json!({ "name": "start_draft", "arguments": { "title": "Release notes" } }),
    );
    let draft = draft["structuredContent"]["draft"]
        .as_str()
        .unwrap()
        .to_string();
    // The request declares elicitation as well as tasks: the question can go.
    let handle = first.request_with(
        "tools/call",
        json!({ "name": "publish_draft", "arguments": { "draft": draft } }),
        json!({ "elicitation": {} }),
    );
    assert_eq!(handle["resultType"], "task", "{handle}");
    assert_eq!(handle["status"], "input_required", "{handle}");
    assert!(handle["inputRequests"]["confirm"].is_object(), "{handle}");
    let task_id = handle["taskId"].as_str().unwrap().to_string();
    // The answer goes to the other instance, which runs the call again.
    let answer = json!({ "action": "accept", "content": { "visibility": "everyone" } });
    let ack = second.request(
        "tasks/update",
        json!({ "taskId": task_id, "inputResponses": { "confirm": answer } }),
    );
    assert_eq!(ack["resultType"], "complete", "{ack}");
    let task = first.get(&task_id);
    assert_eq!(task["status"], "completed", "{task}");
    let published = &task["result"]["structuredContent"];
    assert_eq!(
        *published,
        json!({ "draft": draft, "published": true, "visibility": "everyone" })
    );
    drop((first, second));
    let _ = std::fs::remove_dir_all(&state);
}
