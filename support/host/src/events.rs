//! The hook events of chapter 10, as a type: each variant holds what its
//! hooks are told, and writes its own input (`hook_event_name` and the
//! event's fields) once, here. The loop builds a variant and fires it; it
//! never spells a field name or an event's name. A hook's JSON answer is
//! read here too, one hook at a time (`Answer::said`). This is the wire's
//! shape (Claude Code's hooks reference, per event), not a lesson:
//! chapters 10 and 11 teach *when* each event fires, what an exit code
//! means, which of several answers wins and what the harness does with it.
//! Which events a harness fires is its own list (chapter 10's
//! `hooks::EVENTS`).

use std::path::Path;

use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::messages::ToolUse;

/// What the hooks of one event decided, together (chapter 10's `hooks.rs`
/// folds each hook's answer in).
#[derive(Debug, Default)]
pub struct Outcome {
    /// Exit 2 or `decision: "block"`: the reason.
    pub block: Option<String>,
    /// `continue: false`: stop the whole run, with `stopReason`.
    pub stop: Option<String>,
    /// The strongest `permissionDecision` (deny > ask > allow) and its reason.
    pub permission: Option<(Permission, String)>,
    /// `updatedInput`: the tool's whole new input.
    pub updated_input: Option<Value>,
    /// Text for the model: `additionalContext`, plain stdout where it counts.
    pub context: Vec<String>,
}

/// The most characters of one string a hook's answer may add (context, a
/// reason, plain stdout): Claude Code's cap. Claude Code saves the rest to
/// a file and gives a preview; this harness cuts it, and says so.
pub const MAX_HOOK_TEXT: usize = 10_000;

/// A hook's text cut at MAX_HOOK_TEXT characters, with a note when it was.
pub fn capped(text: String) -> String {
    match text.char_indices().nth(MAX_HOOK_TEXT) {
        None => text,
        Some((end, _)) => format!(
            "{}\n[hook output cut after {MAX_HOOK_TEXT} characters]",
            &text[..end]
        ),
    }
}

/// The fields every event's input carries: the session's id, its
/// transcript file, the working folder, and the permission mode (always
/// `default` here: this harness has no other).
pub fn common_fields(session_id: &str, transcript_path: &Path, cwd: &Path) -> Map<String, Value> {
    let mut input = Map::new();
    input.insert("session_id".into(), json!(session_id));
    input.insert("transcript_path".into(), json!(transcript_path));
    input.insert("cwd".into(), json!(cwd));
    input.insert("permission_mode".into(), json!("default"));
    input
}

/// One event, with what its hooks are told.
// ANCHOR: event
pub enum Event<'a> {
    /// Once, before the first prompt (here always a fresh start).
    SessionStart { model: &'a str },
    /// Before the prompt reaches the model.
    UserPromptSubmit { prompt: &'a str },
    /// Before a tool call runs: the `tool_use` block.
    PreToolUse { call: &'a ToolUse },
    /// After a call that succeeded: the input it ran with, and its result.
    PostToolUse {
        call: &'a ToolUse,
        input: &'a Value,
        response: &'a Value,
    },
    /// After a call that ran and failed (chapter 10's stretch fires it):
    /// `error` is the text the model reads.
    PostToolUseFailure {
        call: &'a ToolUse,
        input: &'a Value,
        error: &'a str,
    },
    /// At the main conversation's final answer; `active` when the run goes
    /// on because a Stop hook refused an earlier end.
    Stop { active: bool, answer: &'a str },
    /// At a subagent's final answer.
    SubagentStop {
        active: bool,
        answer: &'a str,
        agent_type: &'a str,
        transcript: &'a Path,
    },
    /// Chapter 15: an MCP server asks the user (`elicitation/create`, or
    /// an `inputRequests` entry): its name and the request's params.
    Elicitation { server: &'a str, params: &'a Value },
    /// Chapter 15: the user answered (`response`, an ElicitResult), before
    /// the answer goes to the server.
    ElicitationResult {
        server: &'a str,
        params: &'a Value,
        response: &'a Value,
    },
    /// Chapter 22: before the conversation is compacted; `trigger` is
    /// `auto` (over the budget) or `manual` (asked for), and
    /// `custom_instructions` what a manual compaction was told.
    PreCompact {
        trigger: &'a str,
        custom_instructions: &'a str,
    },
}
// ANCHOR_END: event

impl Event<'_> {
    /// The event's name, as settings files and `hook_event_name` spell it.
    pub fn name(&self) -> &'static str {
        match self {
            Event::SessionStart { .. } => "SessionStart",
            Event::UserPromptSubmit { .. } => "UserPromptSubmit",
            Event::PreToolUse { .. } => "PreToolUse",
            Event::PostToolUse { .. } => "PostToolUse",
            Event::PostToolUseFailure { .. } => "PostToolUseFailure",
            Event::Stop { .. } => "Stop",
            Event::SubagentStop { .. } => "SubagentStop",
            Event::Elicitation { .. } => "Elicitation",
            Event::ElicitationResult { .. } => "ElicitationResult",
            Event::PreCompact { .. } => "PreCompact",
        }
    }

    /// What matchers are matched against: the tool's name, how the session
    /// started, the agent type; `None` for the events that ignore matchers.
    pub fn target(&self) -> Option<&str> {
        match self {
            Event::SessionStart { .. } => Some("startup"),
            Event::PreToolUse { call }
            | Event::PostToolUse { call, .. }
            | Event::PostToolUseFailure { call, .. } => Some(&call.name),
            Event::SubagentStop { agent_type, .. } => Some(agent_type),
            // Claude Code's elicitation hooks match the MCP server's name.
            Event::Elicitation { server, .. } | Event::ElicitationResult { server, .. } => {
                Some(server)
            }
            Event::PreCompact { trigger, .. } => Some(trigger),
            Event::UserPromptSubmit { .. } | Event::Stop { .. } => None,
        }
    }

    /// Whether the action already happened, so a block cannot stop it and
    /// its reason goes to the model instead.
    pub fn after_the_fact(&self) -> bool {
        matches!(
            self,
            Event::PostToolUse { .. } | Event::PostToolUseFailure { .. }
        )
    }

    // ANCHOR: input
    /// The hook's stdin: the session's common fields, `hook_event_name`,
    /// `agent_id` and `agent_type` inside a subagent, then the event's own.
    pub fn input(&self, mut common: Map<String, Value>, inside: Option<(&str, &str)>) -> Value {
        common.insert("hook_event_name".into(), json!(self.name()));
        if let Some((agent_id, agent_type)) = inside {
            common.insert("agent_id".into(), json!(agent_id));
            common.insert("agent_type".into(), json!(agent_type));
        }
        let fields = match self {
            Event::SessionStart { model } => json!({ "source": "startup", "model": model }),
            Event::UserPromptSubmit { prompt } => json!({ "prompt": prompt }),
            Event::PreToolUse { call } => tool_fields(call, &call.input),
            Event::PostToolUse {
                call,
                input,
                response,
            } => {
                let mut fields = tool_fields(call, input);
                fields["tool_response"] = (*response).clone();
                fields
            }
            Event::PostToolUseFailure { call, input, error } => {
                let mut fields = tool_fields(call, input);
                fields["error"] = json!(error);
                // Nothing here aborts a tool: every failure is one it reported.
                fields["is_interrupt"] = json!(false);
                fields
            }
            Event::Stop { active, answer } => stop_fields(*active, answer),
            Event::SubagentStop {
                active,
                answer,
                transcript,
                ..
            } => {
                let mut fields = stop_fields(*active, answer);
                fields["agent_transcript_path"] = json!(transcript);
                fields
            }
            Event::Elicitation { server, params } => elicitation_fields(server, params),
            Event::PreCompact {
                trigger,
                custom_instructions,
            } => json!({ "trigger": trigger, "custom_instructions": custom_instructions }),
            Event::ElicitationResult {
                server,
                params,
                response,
            } => {
                let mut fields = json!({ "mcp_server_name": server });
                fields["action"] = response["action"].clone();
                copy_present(
                    &mut fields,
                    params,
                    &[("mode", "mode"), ("elicitationId", "elicitation_id")],
                );
                copy_present(&mut fields, response, &[("content", "content")]);
                fields
            }
        };
        if let Value::Object(fields) = fields {
            common.extend(fields);
        }
        Value::Object(common)
    }
    // ANCHOR_END: input
}

/// A tool event's fields: the call's name and id, and the input it runs
/// with (a PreToolUse hook's `updatedInput` may have replaced the model's).
fn tool_fields(call: &ToolUse, input: &Value) -> Value {
    json!({ "tool_name": call.name, "tool_input": input, "tool_use_id": call.id })
}

/// Elicitation's input (Claude Code's hooks reference): the server's name,
/// the message, and when present the mode, URL, elicitation id and schema.
fn elicitation_fields(server: &str, params: &Value) -> Value {
    let mut fields = json!({ "mcp_server_name": server, "message": params["message"] });
    let optional = [
        ("mode", "mode"),
        ("url", "url"),
        ("elicitationId", "elicitation_id"),
        ("requestedSchema", "requested_schema"),
    ];
    copy_present(&mut fields, params, &optional);
    fields
}

/// Copies each `(from, to)` field of `source` that is present.
fn copy_present(fields: &mut Value, source: &Value, names: &[(&str, &str)]) {
    for (from, to) in names {
        if let Some(value) = source.get(*from) {
            fields[*to] = value.clone();
        }
    }
}

fn stop_fields(active: bool, answer: &str) -> Value {
    json!({ "stop_hook_active": active, "last_assistant_message": answer })
}

/// A hook's JSON answer on stdout, the fields a harness reads (Claude
/// Code's hooks reference, "JSON output"). Each field is `None` when it is
/// absent or not of its type: one mistaken field never voids the others.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Answer {
    /// `continue: false` stops the whole run.
    #[serde(rename = "continue", deserialize_with = "lenient")]
    pub keep_going: Option<bool>,
    #[serde(deserialize_with = "lenient")]
    pub stop_reason: Option<String>,
    #[serde(deserialize_with = "lenient")]
    pub system_message: Option<String>,
    /// The old top-level decision: `approve` or `block` (PreToolUse), or
    /// `block` (the events after an action, and Stop).
    #[serde(deserialize_with = "lenient")]
    pub decision: Option<String>,
    #[serde(deserialize_with = "lenient")]
    pub reason: Option<String>,
    #[serde(deserialize_with = "lenient")]
    pub hook_specific_output: Option<Specific>,
}

/// `hookSpecificOutput`: what only some events read.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Specific {
    /// PreToolUse: `allow`, `ask` or `deny`.
    #[serde(deserialize_with = "lenient")]
    pub permission_decision: Option<String>,
    #[serde(deserialize_with = "lenient")]
    pub permission_decision_reason: Option<String>,
    /// PreToolUse: the tool's whole new input (an object, else ignored).
    #[serde(deserialize_with = "lenient")]
    pub updated_input: Option<Map<String, Value>>,
    #[serde(deserialize_with = "lenient")]
    pub additional_context: Option<String>,
    /// Elicitation, ElicitationResult: `accept`, `decline` or `cancel`.
    #[serde(deserialize_with = "lenient")]
    pub action: Option<String>,
    /// Elicitation, ElicitationResult: the form's answers with `accept`.
    #[serde(deserialize_with = "lenient")]
    pub content: Option<Map<String, Value>>,
}

impl Answer {
    /// A hook's stdout read as its JSON answer: `None` when it does not
    /// start with `{` (plain text), `Some(Err(first line))` when it does
    /// but is not a JSON object.
    pub fn read(stdout: &str) -> Option<Result<Answer, String>> {
        if !stdout.trim_start().starts_with('{') {
            return None;
        }
        Some(match serde_json::from_str::<Value>(stdout) {
            Ok(object @ Value::Object(_)) => Ok(serde_json::from_value(object).unwrap_or_default()),
            _ => Err(first_line(stdout).to_string()),
        })
    }

    /// `hookSpecificOutput`, or an empty one.
    pub fn specific(&self) -> &Specific {
        static NONE: Specific = Specific {
            permission_decision: None,
            permission_decision_reason: None,
            updated_input: None,
            additional_context: None,
            action: None,
            content: None,
        };
        self.hook_specific_output.as_ref().unwrap_or(&NONE)
    }

    /// The reason the answer gives for a block it makes itself, if it
    /// makes one: `decision: "block"` (PreToolUse's old spelling included)
    /// or a PreToolUse `deny`; an empty reason is none. Cut at the cap.
    pub fn block_reason(&self) -> Option<String> {
        let specific = self.specific();
        let reason = match specific.permission_decision.as_deref() {
            Some("deny") => specific.permission_decision_reason.as_deref(),
            _ if self.decision.as_deref() == Some("block") => None,
            _ => return None,
        };
        let reason = reason.or(self.reason.as_deref());
        let reason = reason.filter(|text| !text.is_empty());
        reason.map(|text| capped(text.to_string()))
    }
}

/// What a `PreToolUse` hook decided about the call. The order is how
/// strict a decision is, `Allow < Ask < Deny`: chapter 10's precedence
/// keeps the strictest by it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Permission {
    Allow,
    Ask,
    Deny,
}

/// What one hook's JSON answer asks of the harness, read for the event it
/// answers (`Answer::said`), and the hook's line. The chapter folds each
/// hook's into what the hooks of one event decided together. Each reason
/// and context is already cut at Claude Code's cap (`capped`).
#[derive(Debug, Default)]
pub struct Said {
    /// `continue: false`: stop the whole run, with `stopReason`.
    pub stop: Option<String>,
    /// A `permissionDecision` (before a tool, the old `decision` spelling
    /// included) and its reason.
    pub permission: Option<(Permission, String)>,
    /// `decision: "block"` that is no permission decision: its reason,
    /// empty when it gives none.
    pub block: Option<String>,
    /// `updatedInput`: the tool's whole new input.
    pub updated_input: Option<Value>,
    /// `additionalContext`: text for the model.
    pub context: Option<String>,
    /// What the answer said, for the hook's line: `json`, then each field
    /// it acts on (`stop: …`, `deny: …`, `context: …`).
    pub line: String,
}

// ANCHOR: said
impl Answer {
    /// What the answer asks of the harness when it answers `event`:
    /// `continue`/`stopReason`, `systemMessage` (a line for the user),
    /// `decision`/`reason`, and `hookSpecificOutput`. Before a tool, the
    /// old top-level `approve` and `block` are `allow` and `deny`; an
    /// `allow`'s or an `ask`'s reason is for the user (the line), a
    /// `deny`'s for the model.
    pub fn said(&self, event: &Event<'_>) -> Said {
        let mut said = Said::default();
        let mut parts = vec!["json".to_string()];
        if self.keep_going == Some(false) {
            let reason = self.stop_reason.clone().unwrap_or_default();
            parts.push(format!("stop: {reason}"));
            said.stop = Some(reason);
        }
        if let Some(message) = self.system_message.as_ref().filter(|m| !m.is_empty()) {
            parts.push(format!("message: {message}"));
        }
        let specific = self.specific();
        let before = matches!(event, Event::PreToolUse { .. });
        let decision = self.decision.as_deref().unwrap_or_default();
        let permission = match (specific.permission_decision.as_deref(), decision) {
            (Some("allow"), _) | (None, "approve") if before => Some(Permission::Allow),
            (Some("ask"), _) => Some(Permission::Ask),
            (Some("deny"), _) | (None, "block") if before => Some(Permission::Deny),
            _ => None,
        };
        if let Some(permission) = permission {
            let reason = specific.permission_decision_reason.as_ref();
            let reason = reason.or(self.reason.as_ref()).cloned().unwrap_or_default();
            let reason = capped(reason);
            let word = format!("{permission:?}").to_lowercase();
            parts.push(match reason.is_empty() {
                true => word,
                false => format!("{word}: {reason}"),
            });
            said.permission = Some((permission, reason));
        } else if decision == "block" {
            let reason = self.reason.clone().unwrap_or_default();
            parts.push(match reason.is_empty() {
                true => "block, with no reason".to_string(),
                false => format!("block: {reason}"),
            });
            said.block = Some(capped(reason));
        }
        if let Some(input) = &specific.updated_input {
            let input = Value::Object(input.clone());
            parts.push(format!("updated input: {input}"));
            said.updated_input = Some(input);
        }
        // An elicitation hook's answer (`action`, `content`) is the response
        // to send: it travels in `updated_input`'s place, so chapter 11's
        // hooks.rs folds it unchanged (the last hook's answer wins).
        let elicitation = matches!(
            event,
            Event::Elicitation { .. } | Event::ElicitationResult { .. }
        );
        if let (true, Some(action)) = (elicitation, &specific.action) {
            let mut response = json!({ "action": action });
            if let Some(content) = &specific.content {
                response["content"] = Value::Object(content.clone());
            }
            parts.push(format!("answer: {response}"));
            said.updated_input = Some(response);
        }
        if let Some(context) = &specific.additional_context {
            parts.push(format!("context: {context}"));
            said.context = Some(capped(context.clone()));
        }
        said.line = parts.join(", ");
        said
    }
}
// ANCHOR_END: said

/// The first line of a hook's output, for its line: what it printed on a
/// failure, or the start of stdout that is not JSON.
pub fn first_line(text: &str) -> &str {
    text.trim().lines().next().unwrap_or_default()
}

/// A field of the wrong type reads as absent: the course's choice, so that
/// one mistaken field never voids the rest of an answer.
fn lenient<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::de::DeserializeOwned,
{
    let value = Value::deserialize(deserializer)?;
    Ok(serde_json::from_value(value).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn said(stdout: &str, event: &Event<'_>) -> Said {
        Answer::read(stdout).unwrap().unwrap().said(event)
    }

    #[test]
    fn the_old_block_is_a_deny_before_a_tool_and_a_block_after_one() {
        let call = ToolUse {
            id: "toolu_01".into(),
            name: "Bash".into(),
            input: json!({}),
        };
        let answer = r#"{"decision":"block","reason":"no"}"#;
        let before = said(answer, &Event::PreToolUse { call: &call });
        assert_eq!(before.permission, Some((Permission::Deny, "no".into())));
        assert_eq!(
            (before.block, before.line.as_str()),
            (None, "json, deny: no")
        );
        let stop = said(
            answer,
            &Event::Stop {
                active: false,
                answer: "",
            },
        );
        assert_eq!((stop.permission, stop.block), (None, Some("no".into())));
    }

    #[test]
    fn context_is_cut_at_the_cap_but_the_line_is_not() {
        let long = "x".repeat(MAX_HOOK_TEXT + 5);
        let answer = json!({ "hookSpecificOutput": { "additionalContext": long } });
        let read = said(&answer.to_string(), &Event::UserPromptSubmit { prompt: "" });
        assert_eq!(read.context, Some(capped(long.clone())));
        assert_eq!(read.line, format!("json, context: {long}"));
    }
}
