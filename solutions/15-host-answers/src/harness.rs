//! What the loop runs on: the harness every context shares, one context
//! per conversation, where a context's lines go, and the function the loop
//! is given to start a subagent. The loop (`agent.rs`) and the `Agent`
//! tool (`delegate.rs`) both use these; this module uses neither.

use std::path::PathBuf;

use serde_json::Value;
use tokio::sync::Semaphore;

use crate::agents::{Agent, Started};
use crate::hooks::Hooks;
use crate::join::Run;
use crate::model::Model;
use crate::skills::Skill;
use wire_host::ask::Answers;
use wire_host::messages::{Block, ToolUse};
use wire_host::remote::Servers;
/// Where a context's lines go: printed, or kept for the parent to print,
/// labelled (`wire_host::show`).
pub use wire_host::show::Log;

/// The tool that starts a subagent (`wire_host::agents`).
pub use crate::agents::AGENT;

/// What an `Agent` call gives back: the subagent's final text (or why
/// there is none), and its lines, labelled.
pub type Delegated = (Result<String, String>, Vec<String>);

// ANCHOR: delegate
/// How the loop runs an `Agent` call: `delegate::start`, which runs this
/// loop again in a fresh context. The loop is given it in the harness
/// rather than importing it: the recursion goes through this function, and
/// no two modules import each other.
pub type Delegate =
    for<'a> fn(&'a Harness, &'a Context, &'a ToolUse, &'a Semaphore) -> Run<'a, Delegated>;
// ANCHOR_END: delegate

/// One tool call done: its `tool_result` block, its lines, and a hook's
/// `stopReason` if one stopped the run.
pub type Done = (Block, Vec<String>, Option<String>);

/// What every context shares: the servers, the skills, the agents, the
/// model, and the limits from the command line.
pub struct Harness {
    pub host: Servers,
    /// How a server's questions are answered: the terminal, an answers
    /// file, the roots, whether sampling is offered (chapter 15).
    pub answers: Answers,
    pub skills: Vec<Skill>,
    pub agents: Vec<Agent>,
    pub model: Model,
    /// The main conversation's turn cap, and a subagent's without maxTurns.
    pub max_turns: u32,
    /// How many levels of subagents may run below the main conversation.
    pub max_depth: u32,
    /// How many subagents of one reply may run at the same time.
    pub max_concurrent: usize,
    /// The hooks, and the session: the working folder, where `Bash`
    /// commands and the hooks run, and the fields the hooks all receive.
    pub hooks: Hooks,
    /// Runs an `Agent` call: a subagent.
    pub delegate: Delegate,
    /// The subagents this prompt has started, at every depth.
    pub started: Started,
    /// What SessionStart hooks added, for the first user message.
    pub session_context: Vec<String>,
}

// ANCHOR: context
/// One conversation: the main one, or a subagent's. Each has its own
/// messages list, system prompt and tools; only the harness is shared.
pub struct Context {
    /// `main`, or the id of the `Agent` call that started this subagent.
    pub key: String,
    /// 0 for the main conversation, 1 for its subagents, and so on.
    pub depth: u32,
    /// The `model` field of its requests.
    pub model: String,
    pub system: String,
    /// The only tools it may call.
    pub tools: Vec<Value>,
    pub cap: u32,
    /// The agent's name in a subagent (`agent_type` in its hooks' input).
    pub agent_type: Option<String>,
    /// The JSON-lines file its messages are written to.
    pub transcript: PathBuf,
}
// ANCHOR_END: context

impl Context {
    /// A subagent's `Agent` call id and agent type, which its hooks receive;
    /// `None` in the main conversation.
    pub fn inside(&self) -> Option<(&str, &str)> {
        let agent_type = self.agent_type.as_deref()?;
        Some((&self.key, agent_type))
    }
}

/// The text blocks of an MCP tool result's content, joined by newlines.
pub fn text_of(content: &Value) -> String {
    let texts: Vec<&str> = content
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|block| block["text"].as_str())
        .collect();
    texts.join("\n")
}
