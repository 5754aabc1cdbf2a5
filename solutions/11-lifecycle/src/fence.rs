//! The fence: every tool call passes the PreToolUse hooks before it runs,
//! whatever the model says; a call they refuse never runs; the PostToolUse
//! hooks see each call that succeeded. The loop (`agent.rs`) runs every
//! call through `run_tool`.

use serde_json::{Value, json};
use tokio::sync::Semaphore;

use crate::PROGRAM;

use crate::bash;
use crate::events::Event;
use crate::harness::{AGENT, Context, Harness, text_of};
use crate::hooks::{Outcome, Permission};
use crate::resource_tool;
use crate::skill_tools;
use wire_host::show::{self, ask_user};

// STRETCH(ch11/post_tool_failure): fire PostToolUseFailure after a call
// that ran and failed (an Err, an MCP result marked isError; never a call
// a hook blocked, which did not run), matched on the tool's name; its
// context reaches the model beside the error. A Bash command that exits
// non-zero is such a failure: an Err that reads `Exit code N`, then the
// output (`Finished::failed_unless_zero`, in wire-host). Its code is a
// module of its own, `failure`, called from after_call and dispatch;
// hooks.rs's EVENTS must name the event.
#[cfg(feature = "stretch")]
mod failure {
    //! Claude Code's PostToolUseFailure, fired after a call that ran and
    //! failed.
    use serde_json::{Value, json};

    use super::text_of;
    use crate::events::Event;
    use crate::harness::{Context, Harness};
    use crate::hooks::Outcome;

    /// What `after_call` gives back: the outcome, and what the hooks decided.
    type Fired = (Result<Value, String>, Outcome, Vec<String>);

    /// After a failed call (an Err, or a result marked isError): fires
    /// PostToolUseFailure, with `error` the text the model reads, and makes
    /// an Err a result marked isError, so the hooks' context fits beside it.
    /// A call that succeeded comes back as it went in.
    pub async fn after(
        harness: &Harness,
        context: &Context,
        call: &Value,
        arguments: &Value,
        outcome: Result<Value, String>,
    ) -> Result<Fired, Result<Value, String>> {
        let result = outcome.unwrap_or_else(
            |text| json!({ "content": [{ "type": "text", "text": text }], "isError": true }),
        );
        if result["isError"] != true {
            return Err(Ok(result));
        }
        let error = text_of(&result["content"]);
        let event = Event::PostToolUseFailure {
            call,
            input: arguments,
            error: &error,
        };
        let (after, said) = harness.hooks.fire(&event, context.inside()).await;
        Ok((Ok(result), after, said))
    }
}
// END(ch11/post_tool_failure)

/// One tool call done: its `tool_result` block, its lines, and a hook's
/// `stopReason` if one stopped the run.
pub type Done = (Value, Vec<String>, Option<String>);

// ANCHOR: run_tool
/// Runs one `tool_use` block through the fence and returns its
/// `tool_result` block, with the lines to print. Every failure goes back
/// to the model, marked is_error, so it can recover: a tool it was not
/// given, a call a hook refused, arguments the server refused, a tool
/// that failed.
pub async fn run_tool(
    harness: &Harness,
    context: &Context,
    call: &Value,
    slots: &Semaphore,
) -> Done {
    let name = call["name"].as_str().unwrap_or_default();
    let mut lines = Vec::new();
    // Only the tools of this context run, whatever the model asks for.
    if !context.tools.iter().any(|tool| tool["name"] == name) {
        let text =
            format!("there is no tool named {name:?} here: call one of the tools you were given");
        return finish(harness, call, &call["input"], Err(text), lines, None);
    }
    let (before, said) = harness
        .hooks
        .fire(&Event::PreToolUse { call }, context.inside())
        .await;
    lines.extend(said);
    if let Some(reason) = before.stop {
        // Its stopReason is for the user (the run's last line), not the model.
        let text = "a PreToolUse hook stopped the run".to_string();
        return finish(
            harness,
            call,
            &call["input"],
            Err(text),
            lines,
            Some(reason),
        );
    }
    let call_line = format!("{name} {}", call["input"]);
    if let Err(reason) = permitted(&before, &call_line, &mut lines) {
        return finish(harness, call, &call["input"], Err(reason), lines, None);
    }
    let arguments = before
        .updated_input
        .clone()
        .unwrap_or_else(|| call["input"].clone());
    let outcome = dispatch(harness, context, call, &arguments, slots, &mut lines).await;
    let (outcome, after, said) = after_call(harness, context, call, &arguments, outcome).await;
    lines.extend(said);
    let extra = before.context.into_iter().chain(after.context);
    let outcome = outcome.map(|result| with_context(result, extra));
    finish(harness, call, &arguments, outcome, lines, after.stop)
}
// ANCHOR_END: run_tool

/// What hooks add reaches the model beside the tool's own output, each
/// text as a system reminder.
fn with_context(mut result: Value, extra: impl Iterator<Item = String>) -> Value {
    if let Some(content) = result["content"].as_array_mut() {
        content.extend(extra.map(|text| json!({ "type": "text", "text": reminder(&text) })));
    }
    result
}

// ANCHOR: after_call
/// The hooks after a call: PostToolUse when it succeeded. An MCP result
/// marked isError is a failure, and fires no PostToolUse (Claude Code's
/// PostToolUseFailure, which the chapter's stretch fires).
async fn after_call(
    harness: &Harness,
    context: &Context,
    call: &Value,
    arguments: &Value,
    outcome: Result<Value, String>,
) -> (Result<Value, String>, Outcome, Vec<String>) {
    // STRETCH(ch11/post_tool_failure): a failure fires its own event.
    #[cfg(feature = "stretch")]
    let outcome = match failure::after(harness, context, call, arguments, outcome).await {
        Ok(fired) => return fired,
        Err(outcome) => outcome,
    };
    // END(ch11/post_tool_failure)
    // GAP(ch11/after-call): a call that failed (an Err, or a result marked
    // isError) fires nothing: its outcome comes back with no decision and
    // no lines. Else fire Event::PostToolUse (with context.inside()) with
    // the input the call ran with and its response: for Bash its
    // structuredContent (Claude Code's fields), for any other tool the
    // whole result.
    // starter: let _ = (harness, context, call, arguments, bash::BASH);
    // starter: (outcome, Outcome::default(), Vec::new())
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
        Some(fields) if call["name"] == bash::BASH => fields,
        _ => result,
    };
    let event = Event::PostToolUse {
        call,
        input: arguments,
        response,
    };
    let (after, said) = harness.hooks.fire(&event, context.inside()).await;
    (outcome, after, said)
    // END(ch11/after-call)
}
// ANCHOR_END: after_call

// ANCHOR: permitted
/// What the PreToolUse hooks allow: exit 2 or `deny` blocks with the
/// reason the model will read; `ask` asks the user about `call` when there
/// is a terminal, and is a no when there is none. An `ask`'s reason is for
/// the user, not the model (Claude Code's rule).
fn permitted(before: &Outcome, call: &str, lines: &mut Vec<String>) -> Result<(), String> {
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

/// Runs the tool itself: Agent, the skill tools and ReadMcpResourceTool in
/// the harness, Bash in a shell, every other tool through MCP.
async fn dispatch(
    harness: &Harness,
    context: &Context,
    call: &Value,
    arguments: &Value,
    slots: &Semaphore,
    lines: &mut Vec<String>,
) -> Result<Value, String> {
    let name = call["name"].as_str().unwrap_or_default();
    let skills = &harness.skills;
    let text = |text: String| json!({ "content": [{ "type": "text", "text": text }] });
    if name == AGENT {
        let mut call = call.clone();
        call["input"] = arguments.clone();
        let (outcome, subagent) = (harness.delegate)(harness, context, &call, slots).await;
        lines.extend(subagent);
        outcome.map(text)
    } else if name == bash::BASH {
        let finished = bash::run(arguments, &harness.workdir).await;
        // STRETCH(ch11/post_tool_failure): a command that exits non-zero
        // has failed, as Claude Code counts it (Finished::failed_unless_zero).
        #[cfg(feature = "stretch")]
        let finished = finished.and_then(bash::Finished::failed_unless_zero);
        // END(ch11/post_tool_failure)
        finished.map(|finished| finished.result())
    } else if skill_tools::handles(skills, name) {
        skill_tools::run(skills, name, arguments).map(text)
    } else if name == resource_tool::READ {
        resource_tool::run(&harness.host, arguments).await
    } else {
        harness.host.call_tool(name, arguments.clone()).await
    }
}

/// The `tool_result` block for a call's outcome, and its line.
fn finish(
    harness: &Harness,
    call: &Value,
    arguments: &Value,
    outcome: Result<Value, String>,
    mut lines: Vec<String>,
    stop: Option<String>,
) -> Done {
    let name = call["name"].as_str().unwrap_or_default();
    let (text, is_error) = match outcome {
        Ok(result) => (text_of(&result["content"]), result["isError"] == true),
        Err(err) => (err, true),
    };
    // A skill's or a resource's text is long: show::tool_call shows its
    // cost in tokens.
    let long = skill_tools::handles(&harness.skills, name) || name == resource_tool::READ;
    let line = show::tool_call(name, arguments, &text, is_error, long);
    lines.push(line);
    let mut block = json!({ "type": "tool_result", "tool_use_id": call["id"], "content": text });
    if is_error {
        block["is_error"] = json!(true);
    }
    (block, lines, stop)
}

/// What a hook adds for the model, marked as the harness's, not the user's.
pub fn reminder(text: &str) -> String {
    format!("<system-reminder>{text}</system-reminder>")
}
