//! The state folder under attack (issue 19): it is shared with processes we
//! do not control, so bad entries in it must be refused by name, at once,
//! and must never make the server write outside the folder, hand out
//! another instance's draft, or wait without end. Each test drives chapter
//! 12's binary over its stdio; none asserts a time, only what was answered
//! and in which order.
#![cfg(unix)]

use std::fs::{self, File};
use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{Value, json};
use wire_tests::course::{self, Chapter};
use wire_tests::run::target;
use wire_tests::scratch::Scratch;

fn binary() -> PathBuf {
    let chapter = Chapter::find("12").expect("chapter 12 exists");
    target::build(&chapter.solution_package()).unwrap_or_else(|err| panic!("{err}"))
}

/// A fresh, empty folder for one test, with the state folder inside it and
/// room beside it for what must never be written; removed at the end.
fn scratch(name: &str) -> (Scratch, PathBuf) {
    let dir = Scratch::new("state", name);
    let state = dir.join("state");
    fs::create_dir_all(&state).unwrap();
    (dir, state)
}

fn call(id: u64, tool: &str, arguments: Value) -> String {
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let params = json!({ "_meta": meta, "name": tool, "arguments": arguments });
    let frame = json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params });
    format!("{frame}\n")
}

fn start(id: u64) -> String {
    call(id, "start_draft", json!({ "title": "Attacked" }))
}

fn read(id: u64, draft: &str) -> String {
    call(id, "read_draft", json!({ "draft": draft }))
}

fn append(id: u64, draft: &str) -> String {
    let key = format!("key-{id}");
    call(
        id,
        "append_to_draft",
        json!({ "draft": draft, "text": "A line.", "operation_key": key }),
    )
}

/// A running instance on `state`, optionally under a wrapper (`unshare`).
struct Instance {
    child: std::process::Child,
    replies: BufReader<std::process::ChildStdout>,
}

impl Instance {
    fn start(state: &Path, wrapper: &[&str]) -> Instance {
        let binary = binary();
        let mut command = match wrapper.split_first() {
            Some((program, args)) => {
                let mut command = Command::new(program);
                command.args(args).arg(&binary);
                command
            }
            None => Command::new(&binary),
        };
        let mut child = command
            .current_dir(course::root())
            .arg("--state")
            .arg(state)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let replies = BufReader::new(child.stdout.take().unwrap());
        Instance { child, replies }
    }

    /// Sends one frame and waits for its reply's result.
    fn ask(&mut self, frame: &str) -> Value {
        let stdin = self.child.stdin.as_mut().unwrap();
        stdin.write_all(frame.as_bytes()).unwrap();
        stdin.flush().unwrap();
        let mut line = String::new();
        self.replies.read_line(&mut line).unwrap();
        let reply: Value = serde_json::from_str(&line).unwrap_or_else(|_| panic!("{line:?}"));
        reply["result"].clone()
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        wire_tests::run::http_runner::terminate(&mut self.child);
    }
}

/// Asks in a thread and fails, rather than hangs, if no reply comes: the
/// old code waited here for good. The limit is a safety net, not a measure.
fn ask_or_fail(instance: &mut Instance, frame: String, what: &str) -> Value {
    let (sender, receiver) = std::sync::mpsc::channel();
    let pid = instance.child.id().to_string();
    std::thread::scope(|scope| {
        scope.spawn(|| {
            let _ = sender.send(instance.ask(&frame));
        });
        match receiver.recv_timeout(std::time::Duration::from_secs(30)) {
            Ok(result) => result,
            Err(_) => {
                // Killed, its stdout ends and the asking thread returns.
                let _ = Command::new("kill").args(["-9", &pid]).status();
                panic!("no reply: {what}");
            }
        }
    })
}

fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

#[test]
fn a_damaged_draft_is_named_and_the_others_keep_working() {
    let (_dir, state) = scratch("damaged");
    let mut server = Instance::start(&state, &[]);
    assert_eq!(
        server.ask(&start(1))["structuredContent"]["draft"],
        "draft-1"
    );
    assert_eq!(
        server.ask(&start(2))["structuredContent"]["draft"],
        "draft-2"
    );
    fs::write(state.join("draft-1.json"), "{\"title\": \"cut off").unwrap();
    let damaged = server.ask(&read(3, "draft-1"));
    assert_eq!(damaged["isError"], true, "{damaged}");
    assert!(
        text(&damaged).contains("draft-1.json in the state folder is damaged (EOF"),
        "{damaged}"
    );
    assert_eq!(server.ask(&append(4, "draft-2"))["isError"], false);
    assert_eq!(
        server.ask(&read(5, "draft-2"))["structuredContent"]["lines"],
        json!(["A line."])
    );
    assert_eq!(
        server.ask(&start(6))["structuredContent"]["draft"],
        "draft-3"
    );
}

#[test]
fn a_fifo_named_like_a_draft_is_refused_without_waiting() {
    let (_dir, state) = scratch("fifo");
    let fifo = state.join("draft-1.json");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let mut server = Instance::start(&state, &[]);
    let refused = ask_or_fail(&mut server, read(1, "draft-1"), "read_draft on a FIFO");
    assert_eq!(refused["isError"], true, "{refused}");
    assert!(
        text(&refused).contains("draft-1.json in the state folder is not a regular file"),
        "{refused}"
    );
    let refused = ask_or_fail(
        &mut server,
        append(2, "draft-1"),
        "append_to_draft on a FIFO",
    );
    assert!(text(&refused).contains("not a regular file"), "{refused}");
    // The number is taken by the FIFO: the next draft gets another one.
    let started = ask_or_fail(&mut server, start(3), "start_draft beside a FIFO");
    assert_eq!(started["structuredContent"]["draft"], "draft-2");
}

#[test]
fn a_symlink_at_the_lock_file_writes_nothing_outside() {
    let (dir, state) = scratch("lock-link");
    let outside = dir.join("victim");
    let mut server = Instance::start(&state, &[]);
    server.ask(&start(1));
    symlink(&outside, state.join(".draft-1.json.lock")).unwrap();
    let refused = server.ask(&append(2, "draft-1"));
    assert!(
        !outside.exists(),
        "a file was created outside the state folder"
    );
    assert_eq!(refused["isError"], true, "{refused}");
    assert!(
        text(&refused).contains(".draft-1.json.lock in the state folder is not a regular file"),
        "{refused}"
    );
    assert_eq!(server.ask(&read(3, "draft-1"))["isError"], false);
}

#[test]
fn a_symlink_at_a_draft_is_not_followed() {
    let (dir, state) = scratch("draft-link");
    let outside = dir.join("secret.json");
    fs::write(
        &outside,
        r#"{"title":"outside","lines":["secret"],"operations":{}}"#,
    )
    .unwrap();
    symlink(&outside, state.join("draft-1.json")).unwrap();
    let mut server = Instance::start(&state, &[]);
    let refused = server.ask(&read(1, "draft-1"));
    assert!(text(&refused).contains("not a regular file"), "{refused}");
    assert!(!refused.to_string().contains("secret"));
}

#[test]
fn a_lock_held_elsewhere_costs_one_call_a_bounded_wait() {
    let (_dir, state) = scratch("held");
    let mut server = Instance::start(&state, &[]);
    server.ask(&start(1));
    server.ask(&start(2));
    // Another process (this test) holds draft-1's lock and never lets go.
    let lock = File::create(state.join(".draft-1.json.lock")).unwrap();
    lock.lock().unwrap();
    let refused = ask_or_fail(
        &mut server,
        append(3, "draft-1"),
        "append under a held lock",
    );
    assert_eq!(refused["isError"], true, "{refused}");
    assert!(
        text(&refused).contains("draft-1.json is being changed by another writer for over 5 s"),
        "{refused}"
    );
    // The same server goes on with the next call, and other drafts work.
    assert_eq!(server.ask(&append(4, "draft-2"))["isError"], false);
    drop(lock);
    assert_eq!(server.ask(&append(5, "draft-1"))["isError"], false);
}

/// Two instances that are both PID 1 (two containers on one volume): their
/// temporary names must still differ. A symlink planted where the old name
/// `.draft-1.json.1.tmp` would be must not be followed either.
#[test]
fn two_instances_that_are_both_pid_1_keep_their_drafts_apart() {
    let namespaces = ["unshare", "-p", "-f", "--mount-proc"];
    let works = Command::new(namespaces[0])
        .args(&namespaces[1..])
        .arg("true")
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    if !works {
        let problem = "skipped: `unshare -p -f --mount-proc` (util-linux) needs root here; \
                       install util-linux and run as root, as CI does";
        assert!(std::env::var_os("CI").is_none(), "{problem}");
        eprintln!("{problem}");
        return;
    }
    let (dir, state) = scratch("pid1");
    let outside = dir.join("victim");
    symlink(&outside, state.join(".draft-1.json.1.tmp")).unwrap();
    let mut servers = [0, 1].map(|_| Instance::start(&state, &namespaces));
    let mut told = Vec::new();
    for round in 0..20u64 {
        for (who, server) in servers.iter_mut().enumerate() {
            let started = server.ask(&start(round * 10 + 1));
            assert_eq!(started["isError"], false, "{started}");
            let handle = started["structuredContent"]["draft"]
                .as_str()
                .unwrap()
                .to_string();
            told.push((handle, format!("i{who}-r{round}")));
        }
    }
    for (who, server) in servers.iter_mut().enumerate() {
        for (handle, _) in &told {
            let appended = server.ask(&call(
                900,
                "append_to_draft",
                json!({ "draft": handle, "text": format!("by {who}"), "operation_key": format!("{who}") }),
            ));
            assert_eq!(appended["isError"], false, "{appended}");
        }
    }
    let mut handles: Vec<&String> = told.iter().map(|(handle, _)| handle).collect();
    handles.sort();
    handles.dedup();
    assert_eq!(handles.len(), 40, "a handle was handed out twice: {told:?}");
    for (handle, _) in &told {
        let result = servers[0].ask(&read(999, handle));
        assert_eq!(
            result["structuredContent"]["lines"],
            json!(["by 0", "by 1"]),
            "{handle}"
        );
    }
    assert!(
        !outside.exists(),
        "a file was written outside the state folder"
    );
}
