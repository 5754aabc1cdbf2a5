//! Chapter 16's given code: what long work reports to (`Work`, and how it
//! travels on stdio and over HTTP: `watched.rs`, `asking_http.rs`), the
//! frame of a notification, and the index that `reindex_notes` writes and
//! `search_index` reads (its file, its words, its tools' schemas). The
//! chapter's lesson uses these: the progress loop, stopping on a cancel,
//! telling the subscribers.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::draft_tools::{tool_error, tool_result};
use crate::server::Era;
use crate::state::State;

/// What long work reports to, and hears its cancel through, whatever
/// carries the call: the connection on stdio, the call's event stream
/// over HTTP.
pub trait Work {
    /// Sends one notification about this call, before its reply.
    fn notify(&mut self, notification: &Notification);
    /// Waits `pause` for news of this call: `true` once it is cancelled.
    fn cancelled(&mut self, pause: Duration) -> bool;
}

/// A notification, its fields in the order every frame of ours has.
#[derive(Serialize)]
pub struct Notification {
    pub jsonrpc: &'static str,
    pub method: &'static str,
    pub params: Value,
}

/// A notification frame.
pub fn notification(method: &'static str, params: Value) -> Notification {
    Notification {
        jsonrpc: "2.0",
        method,
        params,
    }
}

/// The `subscriptionId` key of a notification's `_meta`.
pub const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// What a subscription asked to hear: the fields of the listen request's
/// `notifications` this server honours (its tool list and its resources
/// can change; prompts and the resource list cannot, so they are left out
/// of the acknowledgment).
#[derive(Default, Deserialize, Serialize, Clone)]
#[serde(rename_all = "camelCase")]
pub struct Filter {
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub tools_list_changed: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resource_subscriptions: Vec<String>,
}

/// One subscription: `id` is the listen request's id (2026-07-28), or
/// `None` for a 2025-11-25 connection's.
#[derive(Clone)]
pub struct Subscription {
    pub id: Option<Value>,
    pub filter: Filter,
}

/// Something that changed, for whoever asked to hear it.
pub enum Change {
    /// `search_index` appeared: the tool list changed.
    Tools,
    /// A resource's content changed.
    Updated(String),
}

/// The index, in the state folder: every word of every note, by note.
pub const INDEX: &str = "notes-index.json";

/// The index as written: for each note's URI, its words, sorted, once each.
pub type Index = BTreeMap<String, Vec<String>>;

/// The words of a note worth looking up: letters only, in lower case, at
/// least three of them, sorted, once each.
pub fn words(text: &str) -> Vec<String> {
    let mut words: Vec<String> = text
        .split(|c: char| !c.is_alphabetic())
        .filter(|word| word.chars().count() >= 3)
        .map(str::to_lowercase)
        .collect();
    words.sort();
    words.dedup();
    words
}

/// The index in the state folder, if a reindex ever finished.
pub fn read(state: &State) -> Result<Option<Index>, String> {
    let text = state
        .read(INDEX)
        .map_err(|err| format!("cannot read the index: {err}"))?;
    let Some(text) = text else {
        return Ok(None);
    };
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|err| format!("the index is damaged ({err}); call reindex_notes again"))
}

/// Writes the index all at once (aside, then renamed over the old one),
/// and says which notes' words differ from the index it replaces.
pub fn write(state: &State, index: &Index, before: Option<&Index>) -> Result<Vec<String>, String> {
    let text = serde_json::to_string_pretty(index).unwrap_or_default();
    state
        .replace(INDEX, &text)
        .map_err(|err| format!("cannot write the index: {err}"))?;
    let edited = index.iter().filter(|(uri, words)| {
        let old = before.and_then(|before| before.get(*uri));
        old.is_some_and(|old| old != *words)
    });
    Ok(edited.map(|(uri, _)| uri.clone()).collect())
}

/// `search_index`'s result: the notes that hold the argument `word`, from
/// the last index; a tool error without a word or an index.
pub fn search(state: &State, params: Option<&Value>) -> Value {
    let word = params.and_then(|params| params["arguments"]["word"].as_str());
    let Some(word) = word.map(str::to_lowercase) else {
        return tool_error("search_index needs a word: {\"word\": \"retry\"}");
    };
    let index = match read(state) {
        Ok(Some(index)) => index,
        Ok(None) => return tool_error("there is no index yet: call reindex_notes first"),
        Err(why) => return tool_error(&why),
    };
    let found: Vec<&str> = index
        .iter()
        .filter(|(_, words)| words.binary_search(&word).is_ok())
        .map(|(uri, _)| uri.as_str())
        .collect();
    let summary = match found.len() {
        0 => format!("No note holds \"{word}\"."),
        _ => format!("\"{word}\" is in {}.", found.join(", ")),
    };
    tool_result(summary, json!({ "word": word, "notes": found }))
}

/// The result of a finished reindex.
pub fn reindexed(notes: usize, index: &Index) -> Value {
    let count: usize = index.values().map(Vec::len).sum();
    let summary = format!("Indexed {notes} notes, {count} words; search_index looks a word up.");
    tool_result(summary, json!({ "notes": notes, "words": count }))
}

/// A `tools/list` result with the tools chapter 16 adds: `search_index`
/// only once an index exists in the state folder, so the list changes
/// when the first reindex finishes (in every instance that shares it).
pub fn with_definitions(mut result: Value, state: &State) -> Value {
    let indexed = matches!(read(state), Ok(Some(_)));
    if let Some(Value::Array(tools)) = result.get_mut("tools") {
        tools.extend(definitions(indexed));
    }
    result
}

fn definitions(indexed: bool) -> Vec<Value> {
    let reindex = json!({
        "name": "reindex_notes",
        "title": "Reindex the notes",
        "description": "Reads every note, one at a time, and writes an index of their words. \
                        Slow: it reports progress, and can be cancelled, leaving the old index.",
        "inputSchema": { "type": "object", "properties": {}, "additionalProperties": false },
    });
    let search = json!({
        "name": "search_index",
        "title": "Look a word up",
        "description": "The notes that hold a word, from the last reindex_notes.",
        "inputSchema": {
            "type": "object",
            "properties": { "word": { "type": "string", "description": "One word." } },
            "required": ["word"],
        },
    });
    if indexed {
        vec![reindex, search]
    } else {
        vec![reindex]
    }
}

/// Whether a request is a `tools/call` of `tool`.
pub fn calls(method: &str, params: Option<&Value>, tool: &str) -> bool {
    method == "tools/call" && params.and_then(|params| params["name"].as_str()) == Some(tool)
}

/// Whether a call may run: 2026-07-28 with a good `_meta`, or after
/// initialize. Else chapter 12's server answers it, with its refusal.
pub fn ready(params: Option<&Value>, era: &Era) -> bool {
    match era {
        Era::Modern => crate::modern::check_meta(params).is_ok(),
        Era::Legacy(handshake) => handshake.protocol_version.is_some(),
    }
}

/// A tool's result, dressed as its era wants.
pub fn dressed(modern: bool, result: Value) -> Value {
    if modern {
        crate::modern::complete("tools/call", result)
    } else {
        result
    }
}
