//! The Messages API's content blocks, as types: what a reply holds, and
//! what the harness sends back. A reply is read once, here, into these
//! types, so a `tool_use` block without a name or an id is an error that
//! says so, not a call to the tool `""`.
//!
//! Only the blocks this harness asks for are known: it offers no server
//! tools and turns no extended thinking on, so a reply with another block
//! type is one it cannot act on, and reading it fails with the type's name.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

// ANCHOR: blocks
/// One content block. The API tags each block with its `type`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Block {
    /// Text for the user (in a reply) or for the model.
    Text { text: String },
    /// The model asks for a tool call.
    ToolUse(ToolUse),
    /// The harness answers one, in the next user message.
    ToolResult(ToolResult),
}

/// A tool call the model asked for: `id` ties its result to it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolUse {
    pub id: String,
    pub name: String,
    pub input: Value,
}

/// The answer to one `tool_use`, by its id. `is_error` tells the model the
/// call failed, so it can recover; the API leaves it out when false.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolResult {
    pub tool_use_id: String,
    pub content: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub is_error: bool,
}
// ANCHOR_END: blocks

/// A message of the conversation: its role (`user` or `assistant`) and
/// its content, a string or a list of blocks.
pub fn message(role: &str, content: impl Serialize) -> Value {
    json!({ "role": role, "content": content })
}

impl ToolResult {
    /// The result block of `call`: its text, marked is_error when it failed.
    pub fn of(call: &ToolUse, content: String, is_error: bool) -> Block {
        Block::ToolResult(ToolResult {
            tool_use_id: call.id.clone(),
            content,
            is_error,
        })
    }
}

/// The part of a reply the loop reads: its blocks and why it stopped.
#[derive(Clone, Debug, Deserialize)]
pub struct Reply {
    pub content: Vec<Block>,
    /// `end_turn`, `tool_use`, `max_tokens`, `refusal`, ...
    #[serde(default)]
    pub stop_reason: Option<String>,
}

impl Reply {
    /// Reads a reply body, or says why it is not one this harness can act on.
    pub fn read(body: &Value) -> Result<Reply, String> {
        Reply::deserialize(body).map_err(|err| {
            format!(
                "the model's reply has no content list of text and tool_use blocks ({err}): {body}"
            )
        })
    }

    /// The reply as the conversation keeps it: an assistant message.
    pub fn message(&self) -> Value {
        message("assistant", &self.content)
    }

    /// The tool calls it asks for, in order.
    pub fn tool_uses(&self) -> Vec<&ToolUse> {
        self.content
            .iter()
            .filter_map(|block| match block {
                Block::ToolUse(call) => Some(call),
                _ => None,
            })
            .collect()
    }

    /// Its text blocks, joined by newlines: the answer, when it asks for no tool.
    pub fn text(&self) -> String {
        let texts: Vec<&str> = self
            .content
            .iter()
            .filter_map(|block| match block {
                Block::Text { text } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        texts.join("\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_tool_use_without_a_name_is_not_read() {
        let body = json!({ "content": [{ "type": "tool_use", "id": "toolu_01", "input": {} }] });
        let err = Reply::read(&body).unwrap_err();
        assert!(err.contains("missing field `name`"), "{err}");
    }

    #[test]
    fn an_unknown_block_type_is_named() {
        let body = json!({ "content": [{ "type": "thinking", "thinking": "..." }] });
        let err = Reply::read(&body).unwrap_err();
        assert!(err.contains("unknown variant `thinking`"), "{err}");
    }

    #[test]
    fn a_result_leaves_is_error_out_when_false() {
        let call = ToolUse {
            id: "toolu_01".into(),
            name: "add".into(),
            input: json!({}),
        };
        let ok = serde_json::to_value(ToolResult::of(&call, "5".into(), false)).unwrap();
        assert_eq!(
            ok,
            json!({ "type": "tool_result", "tool_use_id": "toolu_01", "content": "5" })
        );
        let failed = serde_json::to_value(ToolResult::of(&call, "no".into(), true)).unwrap();
        assert_eq!(failed["is_error"], json!(true));
    }
}
