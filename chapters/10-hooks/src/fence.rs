//! The fence: every tool call passes the PreToolUse hooks before it runs,
//! whatever the model says; a call they refuse never runs. The loop
//! (`agent.rs`) runs every call through `run_tool`.

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
    // TODO(ch10/fence): fire Event::PreToolUse before anything runs (with
    // context.inside()). A `stop` (continue: false) beats any decision:
    // finish with the Err "a PreToolUse hook stopped the run" and the stop
    // reason; a call `permitted` refuses never runs: finish with its Err.
    // Else dispatch it, with the hooks' updated_input if any.
    let outcome: Result<Value, String> = Err("TODO(ch10/fence): the call never ran".into());
    let _ = (Event::PreToolUse { call }, permitted, dispatch, slots);
    let (before, arguments) = (Outcome::default(), call["input"].clone());
    // END(ch10/fence)
    let outcome = outcome.map(|result| with_context(result, before.context.into_iter()));
    finish(harness, call, &arguments, outcome, lines, None)
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

// ANCHOR: permitted
/// What the PreToolUse hooks allow: exit 2 or `deny` blocks with the
/// reason the model will read; `ask` asks the user about `call` when there
/// is a terminal, and is a no when there is none. An `ask`'s reason is for
/// the user, not the model (Claude Code's rule).
fn permitted(before: &Outcome, call: &str, lines: &mut Vec<String>) -> Result<(), String> {
    // TODO(ch10/permitted): a block (exit 2) or a `deny` is an Err with the
    // reason; `ask` is Ok only when ask_user says yes, else an Err with why
    // not; anything else is Ok.
    let _ = (before, call, lines, ask_user, Permission::Deny);
    Ok(())
    // END(ch10/permitted)
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
