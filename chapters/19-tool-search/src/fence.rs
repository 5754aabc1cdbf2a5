//! The fence's decision: what the PreToolUse hooks allow. Every tool call
//! of the loop passes them before it runs, whatever the model says
//! (`run_tool`, in `agent.rs`); a call they refuse never runs. After a
//! call, the PostToolUse hooks see each one that succeeded (`after_call`).

use serde_json::Value;

use crate::PROGRAM;
use crate::bash;
use crate::events::{Event, Permission};
use crate::harness::{Context, Harness};
use wire_host::events::Outcome;
use wire_host::messages::ToolUse;
use wire_host::session::Fire as _;
use wire_host::show::ask_user;

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
/// What the PreToolUse hooks allow: exit 2 or `deny` blocks with the
/// reason the model will read; `ask` asks the user about `call` when there
/// is a terminal, and is a no when there is none. An `ask`'s reason is for
/// the user, not the model (Claude Code's rule).
pub fn permitted(before: &Outcome, call: &str, lines: &mut Vec<String>) -> Result<(), String> {
    if let Some(reason) = &before.block {
        return Err(format!("a PreToolUse hook blocked this call: {reason}"));
    }
    match &before.permission {
        Some((Permission::Deny, reason)) => {
            Err(format!("a PreToolUse hook denied this call: {reason}"))
        }
        Some((Permission::Ask, reason)) => match ask_user(PROGRAM, call, reason) {
            Ok(()) => {
                lines.push("  the user allowed the call".into());
                Ok(())
            }
            Err(why) => Err(format!(
                "a PreToolUse hook asked the user to approve this call, and {why}: it did not run"
            )),
        },
        _ => Ok(()),
    }
}

// ANCHOR_END: permitted
