//! The fence's decision: what the PreToolUse hooks allow, and (chapter 23)
//! what the permission rules and the mode allow. Every tool call of the
//! loop passes them before it runs, whatever the model says (`run_tool`,
//! in `agent.rs`); a call they refuse never runs. After a call, the
//! PostToolUse hooks see each one that succeeded (`after_call`).

use serde_json::Value;

use serde_json::json;

use crate::PROGRAM;
use crate::bash;
use crate::events::{Event, Permission};
use crate::harness::{Context, Harness, Log};
use crate::permissions::{self, Decision};
use wire_host::events::Outcome;
use wire_host::messages::{Reply, ToolUse};
use wire_host::session::Fire as _;
use wire_host::show::confirm;

// ANCHOR: after_call
/// The hooks after a call: PostToolUse when it succeeded. An MCP result
/// marked isError is a failure, and fires no PostToolUse (Claude Code's
/// PostToolUseFailure, which chapter 11's stretch fires).
pub async fn after_call(
    harness: &Harness,
    context: &Context,
    call: &ToolUse,
    outcome: Result<Value, String>,
) -> (Result<Value, String>, Outcome, Vec<String>) {
    let Some(result) = outcome
        .as_ref()
        .ok()
        .filter(|result| result["isError"] != true)
    else {
        return (outcome, Outcome::default(), Vec::new());
    };
    // Bash answers with Claude Code's fields; any other tool with its
    // whole result.
    let response = match result.get("structuredContent") {
        Some(fields) if call.name == bash::BASH => fields,
        _ => result,
    };
    let event = Event::PostToolUse {
        call,
        input: &call.input,
        response,
    };
    let (after, said) = harness.hooks.fire(&event, context.inside()).await;
    (outcome, after, said)
}
// ANCHOR_END: after_call

// ANCHOR: permitted
/// What may run: the PreToolUse hooks first (exit 2 or `deny` blocks,
/// `ask` asks), then the permission rules and the mode (chapter 23,
/// `permissions.rs`); a hook's `allow` stands for an allow rule, never
/// over a deny or an ask rule. Asking asks the user at a terminal, and is
/// a no when there is none; `auto` asks the model, apart.
pub async fn permitted(
    harness: &Harness,
    before: &Outcome,
    call: &ToolUse,
    lines: &mut Vec<String>,
) -> Result<(), String> {
    if let Some(reason) = &before.block {
        return Err(format!("a PreToolUse hook blocked this call: {reason}"));
    }
    let read_only = read_only(harness, call);
    let decision = match &before.permission {
        Some((Permission::Deny, reason)) => {
            Decision::Deny(format!("a PreToolUse hook denied this call: {reason}"))
        }
        Some((Permission::Ask, reason)) => Decision::Ask(format!("a hook asks: {reason}")),
        hook => {
            let hook_allows = matches!(hook, Some((Permission::Allow, _)));
            permissions::decide(call, read_only, hook_allows)
        }
    };
    let shown = format!("{} {}", call.name, call.input);
    match decision {
        Decision::Allow => Ok(()),
        Decision::Deny(why) => Err(format!("{why}: it did not run")),
        Decision::Ask(why) => confirm(PROGRAM, &why, &shown)
            .map(|()| lines.push("  the user allowed the call".into()))
            .map_err(|no| format!("{why}, and {no}: it did not run")),
        Decision::Classify => classify(harness, &shown, lines).await,
    }
}
// ANCHOR_END: permitted

/// Whether a call only reads: an MCP tool its server marks `readOnlyHint`,
/// the skill tools and ToolSearch, starting a subagent (whose own calls
/// are judged one by one), and a shell command of the read-only set.
fn read_only(harness: &Harness, call: &ToolUse) -> bool {
    match call.name.as_str() {
        "Skill" | "read_skill_file" | "ToolSearch" | "Agent" => true,
        bash::BASH => call.input["command"]
            .as_str()
            .is_some_and(wire_host::shell::reads_only),
        name => harness
            .host
            .find(name)
            .is_ok_and(|(_, tool)| tool.definition["annotations"]["readOnlyHint"] == true),
    }
}

/// `auto` mode's classifier, played here by the session's model in a
/// request of its own (context `classifier`): it sees the call, and its
/// answer begins with "allow" or anything else.
async fn classify(harness: &Harness, shown: &str, lines: &mut Vec<String>) -> Result<(), String> {
    let question = format!("The agent's next tool call:\n{shown}\n\n{CLASSIFIER}");
    let request = json!({
        "model": harness.model.name(),
        "max_tokens": 64,
        "messages": [{ "role": "user", "content": question }],
    });
    let mut log = Log {
        lines: Some(vec![]),
    };
    let answer = crate::retries::send(harness, "classifier", &request, &mut log).await;
    lines.extend(log.lines.unwrap_or_default());
    let verdict = Reply::read(&answer?)?.text();
    lines.push(format!("  classifier: {verdict}"));
    let allowed = verdict.trim().to_lowercase().starts_with("allow");
    allowed
        .then_some(())
        .ok_or(format!("Blocked by classifier: {verdict}"))
}

/// What the classifier is asked (the course's words).
const CLASSIFIER: &str = "You review an AI agent's tool calls for a user who is away. Answer \
    allow if the call is safe and plainly part of ordinary work, block if it could destroy \
    data, leak secrets or reach outside the project; then one sentence why.";
