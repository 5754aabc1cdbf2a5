//! Chapter 12's state folder, shared by two instances: what one instance
//! records, the other serves. The transcripts (tests/transcripts/ch12) show
//! one instance with a private folder; these tests start two processes on
//! one `--state` folder, as chapter 13's instances behind a load balancer
//! will, and retry a call on the instance that did not make it.

use std::path::{Path, PathBuf};
use std::time::Duration;

use assert_cmd::Command;
use serde_json::{Value, json};
use wire_tests::course::{self, Chapter};
use wire_tests::run::target;
use wire_tests::scratch::Scratch;

/// A stuck binary fails its test instead of hanging the suite.
const LIMIT: Duration = Duration::from_secs(60);

fn binary() -> PathBuf {
    let chapter = Chapter::find("12").expect("chapter 12 exists");
    target::build(&chapter.solution_package()).unwrap_or_else(|err| panic!("{err}"))
}

/// A fresh, empty folder for one test, removed at its end.
fn scratch(name: &str) -> Scratch {
    Scratch::new("stateless", name)
}

/// A modern `tools/call` frame: no handshake, everything in `_meta`.
fn call(id: u64, tool: &str, arguments: Value) -> String {
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let params = json!({ "_meta": meta, "name": tool, "arguments": arguments });
    format!(
        "{}\n",
        json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params })
    )
}

/// Runs one instance over `frames` with `args`, and returns its results,
/// one per frame, without the `_meta` that names the server.
fn instance(args: &[&str], env: Option<(&str, &Path)>, frames: &[String]) -> Vec<Value> {
    let mut command = Command::new(binary());
    command
        .current_dir(course::root())
        .args(args)
        .timeout(LIMIT);
    if let Some((name, value)) = env {
        command.env(name, value);
    }
    let output = command.write_stdin(frames.concat()).output().unwrap();
    assert!(output.status.success(), "{output:?}");
    let replies: Vec<Value> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .collect();
    assert_eq!(replies.len(), frames.len(), "one reply per frame");
    replies
        .into_iter()
        .map(|mut reply| {
            let mut result = reply["result"].take();
            result.as_object_mut().expect("a result").remove("_meta");
            result
        })
        .collect()
}

fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

#[test]
fn a_retry_on_the_other_instance_returns_the_first_outcome() {
    let state = scratch("retry");
    let args = ["--state", state.to_str().unwrap()];
    let append = |id, line: &str| {
        let arguments = json!({ "draft": "draft-1", "text": line, "operation_key": "k-1" });
        call(id, "append_to_draft", arguments)
    };
    let first = instance(
        &args,
        None,
        &[
            call(1, "start_draft", json!({ "title": "Retries" })),
            append(2, "Back off."),
        ],
    );
    assert_eq!(first[0]["structuredContent"], json!({ "draft": "draft-1" }));
    assert_eq!(
        first[1]["structuredContent"],
        json!({ "draft": "draft-1", "lines": 1 })
    );

    // The client did not see the answer and retries on the other instance.
    let read = call(5, "read_draft", json!({ "draft": "draft-1" }));
    let second = instance(
        &args,
        None,
        &[append(3, "Back off."), append(4, "Other."), read],
    );
    assert_eq!(second[0], first[1], "the retry gets the first outcome back");
    assert_eq!(second[1]["isError"], json!(true), "{}", text(&second[1]));
    assert!(text(&second[1]).contains("operation_key \"k-1\" was already used"));
    assert_eq!(
        second[2]["structuredContent"]["lines"],
        json!(["Back off."])
    );
}

#[test]
fn two_instances_never_hand_out_the_same_handle() {
    let state = scratch("handles");
    let args = ["--state", state.to_str().unwrap()];
    let start = |id| call(id, "start_draft", json!({ "title": "Timeouts" }));
    let first = instance(&args, None, &[start(1)]);
    let second = instance(&args, None, &[start(1)]);
    assert_eq!(first[0]["structuredContent"]["draft"], json!("draft-1"));
    assert_eq!(second[0]["structuredContent"]["draft"], json!("draft-2"));
    // Only the drafts are left: every temporary file got its name or went.
    let mut names: Vec<String> = std::fs::read_dir(&state)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["draft-1.json", "draft-2.json"]);
}

#[test]
fn two_instances_appending_to_one_draft_lose_no_line() {
    let state = scratch("together");
    let folder = state.to_str().unwrap().to_string();
    let start = call(1, "start_draft", json!({ "title": "Both" }));
    instance(&["--state", &folder], None, &[start]);
    // Two instances append to the same draft at the same time. Each append
    // reads the draft, adds a line and writes it back: without a lock, one
    // instance writes over a line the other has just added.
    let writers = ["a", "b"].map(|who| {
        let folder = folder.clone();
        std::thread::spawn(move || {
            let frames: Vec<String> = (1..=40)
                .map(|n| {
                    let key = format!("{who}-{n}");
                    let arguments =
                        json!({ "draft": "draft-1", "text": key, "operation_key": key });
                    call(n, "append_to_draft", arguments)
                })
                .collect();
            instance(&["--state", &folder], None, &frames)
        })
    });
    for writer in writers {
        let results = writer.join().expect("an instance's thread");
        assert!(
            results
                .iter()
                .all(|result| result["isError"] == json!(false))
        );
    }
    let read = call(1, "read_draft", json!({ "draft": "draft-1" }));
    let result = instance(&["--state", &folder], None, &[read]);
    let lines = result[0]["structuredContent"]["lines"].as_array().unwrap();
    assert_eq!(lines.len(), 80, "a line was lost: {lines:?}");
}

/// TMPDIR is where `std::env::temp_dir` looks on unix.
#[cfg(unix)]
#[test]
fn without_state_the_private_folder_is_gone_at_exit() {
    let temp = scratch("private");
    let result = instance(
        &[],
        Some(("TMPDIR", &temp)),
        &[call(1, "start_draft", json!({ "title": "Scratch" }))],
    );
    assert_eq!(result[0]["structuredContent"]["draft"], json!("draft-1"));
    let left: Vec<_> = std::fs::read_dir(&temp).unwrap().collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}
