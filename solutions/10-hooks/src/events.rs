//! The events the harness fires, as a type: each variant holds what its
//! hooks are told, and writes its own input (`hook_event_name` and the
//! event's fields) once, here. The loop builds a variant and fires it; it
//! never spells a field name or an event's name.

use std::path::Path;

use serde_json::{Map, Value, json};

/// The event names a settings file may use here (Claude Code has more).
pub const EVENTS: &[&str] = &[
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    // STRETCH(ch10/post_tool_failure): the settings may name
    // PostToolUseFailure, and the event is a variant of its own, with
    // `error` and `is_interrupt` instead of `tool_response`. The STRETCH
    // comments of fence.rs and bash.rs say what else it takes.
    #[cfg(feature = "stretch")]
    "PostToolUseFailure",
    // END(ch10/post_tool_failure)
    "Stop",
    "SubagentStop",
];

/// One event, with what its hooks are told.
// ANCHOR: event
pub enum Event<'a> {
    /// Once, before the first prompt (here always a fresh start).
    SessionStart { model: &'a str },
    /// Before the prompt reaches the model.
    UserPromptSubmit { prompt: &'a str },
    /// Before a tool call runs: the `tool_use` block.
    PreToolUse { call: &'a Value },
    /// After a call that succeeded: the input it ran with, and its result.
    PostToolUse {
        call: &'a Value,
        input: &'a Value,
        response: &'a Value,
    },
    // STRETCH(ch10/post_tool_failure): after a call that ran and failed.
    #[cfg(feature = "stretch")]
    PostToolUseFailure {
        call: &'a Value,
        input: &'a Value,
        error: &'a str,
    },
    // END(ch10/post_tool_failure)
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
            // STRETCH(ch10/post_tool_failure): its name.
            #[cfg(feature = "stretch")]
            Event::PostToolUseFailure { .. } => "PostToolUseFailure",
            // END(ch10/post_tool_failure)
            Event::Stop { .. } => "Stop",
            Event::SubagentStop { .. } => "SubagentStop",
        }
    }

    /// What matchers are matched against: the tool's name, how the session
    /// started, the agent type; `None` for the events that ignore matchers.
    pub fn target(&self) -> Option<&str> {
        match self {
            Event::SessionStart { .. } => Some("startup"),
            Event::PreToolUse { call } | Event::PostToolUse { call, .. } => call["name"].as_str(),
            // STRETCH(ch10/post_tool_failure): matched on the tool's name.
            #[cfg(feature = "stretch")]
            Event::PostToolUseFailure { call, .. } => call["name"].as_str(),
            // END(ch10/post_tool_failure)
            Event::SubagentStop { agent_type, .. } => Some(agent_type),
            Event::UserPromptSubmit { .. } | Event::Stop { .. } => None,
        }
    }

    /// Whether the action already happened, so a block cannot stop it and
    /// its reason goes to the model instead.
    pub fn after_the_fact(&self) -> bool {
        match self {
            Event::PostToolUse { .. } => true,
            // STRETCH(ch10/post_tool_failure): a failed call cannot be unrun.
            #[cfg(feature = "stretch")]
            Event::PostToolUseFailure { .. } => true,
            // END(ch10/post_tool_failure)
            _ => false,
        }
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
            Event::PreToolUse { call } => tool_fields(call, &call["input"]),
            Event::PostToolUse {
                call,
                input,
                response,
            } => {
                let mut fields = tool_fields(call, input);
                fields["tool_response"] = (*response).clone();
                fields
            }
            // STRETCH(ch10/post_tool_failure): the tool's fields, `error`
            // (the text the model reads) and `is_interrupt` (nothing here
            // aborts a tool: every failure is one it reported).
            #[cfg(feature = "stretch")]
            Event::PostToolUseFailure { call, input, error } => {
                let mut fields = tool_fields(call, input);
                fields["error"] = json!(error);
                fields["is_interrupt"] = json!(false);
                fields
            }
            // END(ch10/post_tool_failure)
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
fn tool_fields(call: &Value, input: &Value) -> Value {
    json!({ "tool_name": call["name"], "tool_input": input, "tool_use_id": call["id"] })
}

fn stop_fields(active: bool, answer: &str) -> Value {
    json!({ "stop_hook_active": active, "last_assistant_message": answer })
}
