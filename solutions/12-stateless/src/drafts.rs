//! Drafts: state a session would have held, carried instead as a handle.
//! `start_draft` answers a handle (`draft-1`); the caller passes it back in
//! every later call, so whichever instance gets the call finds the draft in
//! the state folder. Nothing depends on which connection the call came on.
//!
//! A change carries an operation key the caller picks. The key is stored in
//! the draft with the change and its outcome, in one write: a retried call
//! gets the first outcome back instead of changing the draft twice.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::draft_tools::{Failure, answer, only, text, tool_result};
use crate::jsonrpc::RpcError;
use crate::state::{State, damaged};

// ANCHOR: draft
/// One draft, as its file in the state folder holds it.
#[derive(Serialize, Deserialize)]
struct Draft {
    title: String,
    lines: Vec<String>,
    /// Every operation key applied to this draft, with what it asked and
    /// what it answered.
    operations: BTreeMap<String, Operation>,
}

#[derive(Serialize, Deserialize)]
struct Operation {
    /// The call's arguments, without the key itself.
    arguments: Map<String, Value>,
    /// The tool result it got.
    outcome: Value,
}
// ANCHOR_END: draft

/// Runs one of the draft tools. `Ok(None)` means `name` is not one of them.
pub fn call(
    name: &str,
    arguments: &Map<String, Value>,
    state: &State,
) -> Result<Option<Value>, RpcError> {
    let outcome = match name {
        "start_draft" => start(arguments, state),
        "append_to_draft" => append(arguments, state),
        "read_draft" => read(arguments, state),
        _ => return Ok(None),
    };
    answer(outcome).map(Some)
}

// ANCHOR: start
fn start(arguments: &Map<String, Value>, state: &State) -> Result<Value, Failure> {
    only(arguments, &["title"])?;
    let title = text(arguments, "title")?;
    let draft = Draft {
        title: title.to_string(),
        lines: Vec::new(),
        operations: BTreeMap::new(),
    };
    // A free number: its file is linked in, so one instance wins each name.
    let handle = format!(
        "draft-{}",
        state.create_next("draft-", ".json", &to_text(&draft))?
    );
    let summary = format!("Started {handle} ({title}); pass \"draft\": \"{handle}\" from now on.");
    Ok(tool_result(summary, json!({ "draft": handle })))
}
// ANCHOR_END: start

// ANCHOR: append
fn append(arguments: &Map<String, Value>, state: &State) -> Result<Value, Failure> {
    only(arguments, &["draft", "text", "operation_key"])?;
    let (handle, line) = (text(arguments, "draft")?, text(arguments, "text")?);
    let key = text(arguments, "operation_key")?;
    load(state, handle)?; // A handle that names no draft gets no lock file.
    // One writer per draft at a time: between our read and our write, no
    // other instance may change the draft, or its change would be lost.
    let _writer = state.lock(&file_name(handle))?;
    let mut draft = load(state, handle)?;
    // What the key is recorded with: the call's arguments without the key.
    let mut asked = arguments.clone();
    asked.remove("operation_key");
    // GAP(ch12/replay): if `key` is already in `draft.operations`, do not
    // change the draft again: the same arguments get the recorded outcome
    // back; other arguments are refused (a tool error naming the key).
    // starter: let _ = (&asked, key);
    if let Some(done) = draft.operations.get(key) {
        if done.arguments == asked {
            return Ok(done.outcome.clone());
        }
        return Err(Failure::Caller(format!(
            "operation_key \"{key}\" was already used on {handle} with other arguments; \
             use a new key for a new change, the same key only to retry the same call"
        )));
    }
    // END(ch12/replay)
    draft.lines.push(line.to_string());
    let count = draft.lines.len();
    let outcome = tool_result(
        format!("{handle} has {count} line(s) now."),
        json!({ "draft": handle, "lines": count }),
    );
    let operation = Operation {
        arguments: asked,
        outcome: outcome.clone(),
    };
    draft.operations.insert(key.to_string(), operation);
    // The change, the key and the outcome go to the disk in one write.
    state.replace(&file_name(handle), &to_text(&draft))?;
    Ok(outcome)
}
// ANCHOR_END: append

fn read(arguments: &Map<String, Value>, state: &State) -> Result<Value, Failure> {
    only(arguments, &["draft"])?;
    let handle = text(arguments, "draft")?;
    let draft = load(state, handle)?;
    let body = format!("# {}\n{}", draft.title, draft.lines.join("\n"));
    let structured = json!({ "draft": handle, "title": draft.title, "lines": draft.lines });
    Ok(tool_result(body, structured))
}

/// The draft a handle names. Handles are `draft-N`: anything else, a path
/// in particular, names no file in the state folder.
fn load(state: &State, handle: &str) -> Result<Draft, Failure> {
    let unknown = || {
        Failure::Caller(format!(
            "there is no draft \"{handle}\"; start_draft returns a handle such as draft-1"
        ))
    };
    let number = handle.strip_prefix("draft-").ok_or_else(unknown)?;
    if number.is_empty() || !number.bytes().all(|byte| byte.is_ascii_digit()) {
        return Err(unknown());
    }
    let text = state.read(&file_name(handle))?.ok_or_else(unknown)?;
    serde_json::from_str(&text).map_err(|err| Failure::Disk(damaged(&file_name(handle), err)))
}

fn file_name(handle: &str) -> String {
    format!("{handle}.json")
}

fn to_text(draft: &Draft) -> String {
    serde_json::to_string(draft).expect("a draft is plain data")
}
