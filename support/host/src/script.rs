//! The course's stand-in model: a script's replies, given in order, one
//! queue per conversation (the main one, and from chapter 9 on each
//! subagent's, under the id of the `Agent` call that starts it). No key,
//! no network: how every chapter's demo runs offline and every scenario
//! replays. Support-own: a test double, no chapter's lesson; chapter 7's
//! `model.rs` decides when it stands in for a real model.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use serde_json::Value;

use crate::model::MAIN;

/// A script, read: each reply exactly what `POST /v1/messages` would
/// return.
pub struct Script {
    /// Where the script came from, for messages.
    pub name: String,
    /// The replies still to give, per conversation. Subagents run at the
    /// same time, so the queues sit behind a lock.
    replies: Mutex<HashMap<String, VecDeque<Value>>>,
}

impl Script {
    /// Reads a script: `prompt`, the prompt to start with; `replies`, the
    /// main conversation's; `subagents`, from an `Agent` call's id to the
    /// replies of the subagent it starts.
    pub fn read(name: &str, text: &str) -> Result<(Script, String), String> {
        let bad = |what: &str| format!("script {name}: {what}");
        let script: Value =
            serde_json::from_str(text).map_err(|err| bad(&format!("not JSON: {err}")))?;
        let prompt = script["prompt"]
            .as_str()
            .ok_or(bad("no \"prompt\" string"))?;
        let main = script["replies"]
            .as_array()
            .ok_or(bad("no \"replies\" list"))?;
        let mut replies = HashMap::from([(MAIN.to_string(), main.iter().cloned().collect())]);
        if let Some(subagents) = script.get("subagents") {
            let subagents = (subagents.as_object())
                .ok_or(bad("\"subagents\" maps Agent call ids to replies"))?;
            for (id, queue) in subagents {
                let queue = (queue.as_array())
                    .ok_or(bad(&format!("subagents.{id} is not a list of replies")))?;
                replies.insert(id.clone(), queue.iter().cloned().collect());
            }
        }
        let script = Script {
            name: name.to_string(),
            replies: Mutex::new(replies),
        };
        Ok((script, prompt.to_string()))
    }

    /// The next reply for the conversation `key`.
    pub fn next(&self, key: &str) -> Result<Value, String> {
        let mut replies = self.replies.lock().map_err(|err| err.to_string())?;
        let queue = replies.entry(key.to_string()).or_default();
        queue.pop_front().ok_or(format!(
            "script {} has no more replies for context {key} and the loop asked for one more",
            self.name
        ))
    }
}
