//! Chapter 16's server, driven as a real binary: over HTTP the first
//! progress event arrives while the work still runs (read incrementally,
//! and checked by cancelling: a stream dropped after it leaves no index),
//! a cancelled call leaves nothing in the state folder on stdio too, a
//! note edited on disk reaches a 2025-11-25 subscriber, and chapter 15's
//! host shows the progress and calls the tool that appears at run time.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};
use wire_tests::course::{self, Chapter};
use wire_tests::run::target;

fn binary(chapter: &str) -> PathBuf {
    let chapter = Chapter::find(chapter).expect("the chapter exists");
    target::build(&chapter.solution_package()).unwrap_or_else(|err| panic!("{err}"))
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wire-ch16-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The state folder's entries, hidden ones (temporary files) included.
fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name != "request-state.key")
        .collect();
    names.sort();
    names
}

fn meta(token: Option<&str>) -> Value {
    let mut meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": { "name": "long-work-test", "version": "1" },
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    if let Some(token) = token {
        meta["progressToken"] = json!(token);
    }
    meta
}

struct Server(Child, String);

impl Server {
    fn listen(state: &Path, step: &str) -> Server {
        let mut child = Command::new(binary("16"))
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
}

impl Drop for Server {
    fn drop(&mut self) {
        wire_tests::run::http_runner::terminate(&mut self.0);
    }
}

/// POSTs a 2026-07-28 call of `name` and returns the open connection, its
/// response head read.
fn post_call(address: &str, id: u64, name: &str, token: Option<&str>) -> BufReader<TcpStream> {
    let body = json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": { "_meta": meta(token), "name": name, "arguments": {} } })
    .to_string();
    let mut stream = TcpStream::connect(address).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: tools/call\r\nMcp-Name: {name}\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).unwrap();
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line).unwrap();
    assert!(line.starts_with("HTTP/1.1 200"), "{line}");
    while line != "\r\n" {
        line.clear();
        reader.read_line(&mut line).unwrap();
    }
    reader
}

/// The next `data:` line's message, read as it arrives.
fn next_message(reader: &mut BufReader<TcpStream>) -> Value {
    loop {
        let mut line = String::new();
        assert!(reader.read_line(&mut line).unwrap() > 0, "the stream ended");
        if let Some(data) = line.trim_end().strip_prefix("data: ") {
            return serde_json::from_str(data).unwrap();
        }
    }
}

#[test]
fn over_http_progress_comes_while_the_work_runs_and_a_dropped_stream_cancels_it() {
    let state = scratch("http");
    let server = Server::listen(&state, "0.3");
    let mut stream = post_call(&server.1, 1, "reindex_notes", Some("t1"));
    let first = next_message(&mut stream);
    assert_eq!(first["method"], "notifications/progress", "{first}");
    assert_eq!(first["params"]["progress"], 1, "{first}");
    assert_eq!(first["params"]["total"], 8, "{first}");
    // The work still runs: the index is not written before the last step.
    assert_eq!(entries(&state), Vec::<String>::new());
    drop(stream); // 2026-07-28: closing the stream is the cancellation.
    std::thread::sleep(Duration::from_millis(8 * 300 + 500));
    assert_eq!(
        entries(&state),
        Vec::<String>::new(),
        "a cancelled call left files"
    );
    // Without the drop, the same call finishes and writes the index.
    let mut stream = post_call(&server.1, 2, "reindex_notes", None);
    let reply = next_message(&mut stream);
    assert_eq!(reply["id"], 2, "{reply}");
    assert_eq!(entries(&state), vec!["notes-index.json".to_string()]);
    let _ = std::fs::remove_dir_all(&state);
}

/// Runs chapter 16's server on stdio with `args`, sends `frames` one at a
/// time after `pause_ms`, and returns every line it wrote.
fn stdio(args: &[&str], frames: &[Value], pause_ms: u64) -> Vec<Value> {
    let mut child = Command::new(binary("16"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for frame in frames {
        writeln!(stdin, "{frame}").unwrap();
        stdin.flush().unwrap();
        std::thread::sleep(Duration::from_millis(pause_ms));
    }
    drop(stdin);
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    child.wait().unwrap();
    out.lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

fn legacy_init() -> [Value; 2] {
    [
        json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": { "name": "long-work-test", "version": "1" } } }),
        json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }),
    ]
}

fn legacy_reindex(id: u64) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": { "_meta": { "progressToken": id }, "name": "reindex_notes", "arguments": {} } })
}

#[test]
fn on_stdio_a_cancelled_call_leaves_no_index_and_no_temporary_file() {
    let state = scratch("stdio");
    let state_arg = state.to_str().unwrap();
    let [init, initialized] = legacy_init();
    let cancel = json!({ "jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": { "requestId": 2, "reason": "test" } });
    let out = stdio(
        &["--step", "2", "--state", state_arg],
        &[init, initialized, legacy_reindex(2), cancel],
        300,
    );
    assert!(
        out.iter().all(|frame| frame["id"] != 2),
        "a reply to the cancelled call: {out:?}"
    );
    assert!(
        out.iter().any(|frame| frame["params"]["progress"] == 1),
        "{out:?}"
    );
    assert_eq!(entries(&state), Vec::<String>::new());
    let _ = std::fs::remove_dir_all(&state);
}

#[test]
fn a_note_edited_on_disk_reaches_its_2025_11_25_subscriber_only() {
    let (state, notes) = (scratch("sub-state"), scratch("sub-notes"));
    std::fs::write(notes.join("plan.md"), "Ship the index first.").unwrap();
    // Edited too, but nobody subscribed to it: nobody hears of it.
    std::fs::write(notes.join("later.md"), "Then the search.").unwrap();
    let args = [
        "--step",
        "0",
        "--state",
        state.to_str().unwrap(),
        "--notes-dir",
    ];
    let mut args = args.to_vec();
    args.push(notes.to_str().unwrap());
    let [init, initialized] = legacy_init();
    let subscribe = json!({ "jsonrpc": "2.0", "id": 2, "method": "resources/subscribe",
        "params": { "uri": "folder:///plan.md" } });
    stdio(
        &args,
        &[
            init.clone(),
            initialized.clone(),
            subscribe.clone(),
            legacy_reindex(3),
        ],
        50,
    );
    std::fs::write(notes.join("plan.md"), "Ship the search next.").unwrap();
    std::fs::write(notes.join("later.md"), "Then the index again.").unwrap();
    let out = stdio(
        &args,
        &[init, initialized, subscribe, legacy_reindex(3)],
        50,
    );
    let updated: Vec<&Value> = out
        .iter()
        .filter(|frame| frame["method"] == "notifications/resources/updated")
        .collect();
    assert_eq!(updated.len(), 1, "{out:?}");
    assert_eq!(updated[0]["params"], json!({ "uri": "folder:///plan.md" }));
    let _ = std::fs::remove_dir_all(&state);
    let _ = std::fs::remove_dir_all(&notes);
}

#[test]
fn chapter_15s_host_shows_the_progress_and_calls_the_tool_that_appears() {
    let state = scratch("host");
    let fixtures = course::root().join("tests/fixtures");
    let server = format!(
        "notes={} --step 0.01 --state {}",
        binary("16").display(),
        state.display()
    );
    let output = Command::new(binary("15"))
        .arg("--server")
        .arg(server)
        .arg("--script")
        .arg(fixtures.join("answers/scripts/reindex.json"))
        .arg("--skills")
        .arg(fixtures.join("hooks/none"))
        .arg("--agents")
        .arg(fixtures.join("hooks/agents"))
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
    );
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("progress 8/8 Indexed note://utf8"),
        "{stderr}"
    );
    assert!(stderr.contains("subscription acknowledged"), "{stderr}");
    assert!(stdout.contains("tools of notes listed again"), "{stdout}");
    assert!(stdout.contains("tool mcp__notes__search_index"), "{stdout}");
    assert!(stdout.contains("note://backoff"), "{stdout}");
    let _ = std::fs::remove_dir_all(&state);
}
