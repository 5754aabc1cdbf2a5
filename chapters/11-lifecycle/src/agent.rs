//! The agent loop, and the few helpers it leans on: the tools as the model
//! sees them and the request body. Chapter 9 runs the loop once per
//! context: the main conversation, and each subagent's, all sharing one
//! `Harness` (`harness.rs`). Chapter 10 sent every tool call through the
//! fence (`fence.rs`); chapter 11 fires the hooks at the loop's other fixed
//! points: the prompt and the final answer here.

use serde_json::{Value, json};
use tokio::sync::Semaphore;
use wire_host::join::{Run, join_all};

use crate::PROGRAM;
use crate::events::Event;
use crate::fence::{Done, reminder, run_tool};
use crate::harness::text_of;
pub use crate::harness::{Context, Harness, Log};
use crate::host::Host;
use crate::resource_tool;
use crate::skill_tools;
use crate::skills::{self, Skill};
use crate::tokens;

/// What the model is told about its situation, in every request.
const SYSTEM: &str = "You are a careful assistant. Use the tools for arithmetic.";
/// The most tokens one reply may use; the API requires a limit.
const MAX_TOKENS: u32 = 1024;
/// How many times in a row Stop hooks may refuse the end before the
/// harness ends anyway (Claude Code's number): a hook must not loop forever.
const MAX_STOP_REFUSALS: u32 = 8;

// ANCHOR: agent_loop
pub async fn run(
    harness: &Harness,
    context: &Context,
    prompt: &str,
    log: &mut Log,
) -> Result<String, String> {
    let mut messages = vec![];
    let mut first = json!({ "role": "user", "content": prompt });
    if context.agent_type.is_none() {
        first = submit_prompt(harness, prompt, log).await?;
    }
    remember(context, &mut messages, first);
    // Stop hooks' refusals so far. An end they allow ends the run, so these
    // are always in a row (Claude Code's cap counts blocks in a row); after
    // the first, every Stop is told stop_hook_active.
    let mut refusals = 0;
    let cap = context.cap;
    for turn in 1..=cap {
        let request = request_body(&context.model, &context.system, &context.tools, &messages);
        show_request(turn, &request, log);
        let reply = harness.model.send(&context.key, &request).await?;
        let calls = read_reply(&reply, log)?;
        let answer = json!({ "role": "assistant", "content": reply["content"] });
        remember(context, &mut messages, answer);
        if calls.is_empty() {
            let answer = text_of(&reply["content"]);
            // A Stop hook may refuse the end: its reason (or its context)
            // goes back to the model as the next user message, and the
            // loop goes on.
            match stop_refused(harness, context, &answer, refusals > 0, log).await? {
                Some(content) if refusals < MAX_STOP_REFUSALS => {
                    refusals += 1;
                    remember(
                        context,
                        &mut messages,
                        json!({ "role": "user", "content": content }),
                    );
                    continue;
                }
                Some(_) => log.say(format!(
                    "  stop hooks refused {MAX_STOP_REFUSALS} times in a row: ending anyway"
                )),
                None => {}
            }
            return Ok(answer);
        }
        let (results, stop) = run_calls(harness, context, &calls, log).await;
        remember(
            context,
            &mut messages,
            json!({ "role": "user", "content": results }),
        );
        // A hook's `continue: false`: its stopReason ends the run.
        if let Some(reason) = stop {
            return Err(format!("a hook stopped the run: {reason}"));
        }
    }
    Err(format!("turn cap: no final answer after {cap} turns"))
}
// ANCHOR_END: agent_loop

/// Runs the calls of one reply, each through the fence, all at the same
/// time; the results come back in the order the model asked for them,
/// with the first hook's `stopReason`, if one stopped the run.
async fn run_calls(
    harness: &Harness,
    context: &Context,
    calls: &[Value],
    log: &mut Log,
) -> (Vec<Value>, Option<String>) {
    let slots = Semaphore::new(harness.max_concurrent);
    let runs: Vec<Run<'_, Done>> = calls
        .iter()
        .map(|call| Box::pin(run_tool(harness, context, call, &slots)) as Run<'_, Done>)
        .collect();
    let mut results = Vec::new();
    let mut stop = None;
    for (result, lines, stopped) in join_all(runs).await {
        lines.into_iter().for_each(|line| log.say(line));
        results.push(result);
        stop = stop.or(stopped);
    }
    (results, stop)
}

// ANCHOR: tool_definitions
/// The catalogue as the model sees it: the qualified name, the server's
/// description, and its inputSchema renamed to input_schema; then
/// ReadMcpResourceTool, when a server has resources, and the two skill
/// tools, when there are skills.
pub fn tool_definitions(host: &Host, skills: &[Skill]) -> Vec<Value> {
    host.tools()
        .iter()
        .filter(|tool| fits_the_api(&tool.qualified))
        .map(|tool| {
            json!({
                "name": tool.qualified,
                "description": tool.definition["description"].as_str().unwrap_or_default(),
                "input_schema": tool.definition["inputSchema"],
            })
        })
        .chain(resource_tool::definition(host))
        .chain(skill_tools::definitions(skills))
        .collect()
}

/// The Messages API takes tool names of 1 to 64 ASCII letters, digits,
/// `_` and `-`. MCP allows more (dots, up to 128 characters), so a name
/// that does not fit is left out, with a warning: one bad name would
/// make the API refuse every request.
fn fits_the_api(name: &str) -> bool {
    let fits = (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'-');
    if !fits {
        eprintln!(
            "{PROGRAM}: not offering {name:?} to the model: a Messages API tool name is \
             1 to 64 of a-z, A-Z, 0-9, _ and -"
        );
    }
    fits
}
// ANCHOR_END: tool_definitions

// ANCHOR: system_prompt
/// The system prompt: the chapter 7 sentence, then the skill catalogue
/// (tier 1) when there are skills.
pub fn system_prompt(skills: &[Skill]) -> String {
    let catalogue = skills::catalogue(skills);
    if catalogue.is_empty() {
        SYSTEM.to_string()
    } else {
        format!("{SYSTEM}\n\n{catalogue}")
    }
}
// ANCHOR_END: system_prompt

// ANCHOR: request_body
/// A Messages API request: the whole conversation, every time.
pub fn request_body(model: &str, system: &str, tools: &[Value], messages: &[Value]) -> Value {
    json!({
        "model": model,
        "max_tokens": MAX_TOKENS,
        "system": system,
        "tools": tools,
        "messages": messages,
    })
}
// ANCHOR_END: request_body

// ANCHOR: submit_prompt
/// Fires UserPromptSubmit, and returns the first user message: the prompt,
/// then what hooks added as context. A block erases the prompt.
async fn submit_prompt(harness: &Harness, prompt: &str, log: &mut Log) -> Result<Value, String> {
    // TODO(ch11/prompt): fire Event::UserPromptSubmit (no subagent is
    // inside) and say its lines; a stop or a block is an Err naming the
    // reason; else the prompt, with the SessionStart context
    // (harness.session_context) and then this event's as system reminders
    // after it, or the plain prompt when there is none.
    let _ = (
        Event::UserPromptSubmit { prompt },
        &harness.session_context,
        reminder,
        log,
    );
    Ok(json!({ "role": "user", "content": prompt }))
    // END(ch11/prompt)
}
// ANCHOR_END: submit_prompt

// ANCHOR: stop_refused
/// Fires Stop (SubagentStop in a subagent, matched on its agent type) at a
/// final answer. Returns the next user message's content when a hook
/// refuses the end: a block's reason, and any `additionalContext` as a
/// system reminder (non-error feedback that also keeps the run going).
/// `stop_hook_active` tells the hooks the run goes on because of an
/// earlier refusal.
async fn stop_refused(
    harness: &Harness,
    context: &Context,
    answer: &str,
    active: bool,
    log: &mut Log,
) -> Result<Option<Value>, String> {
    let event = match &context.agent_type {
        Some(agent_type) => Event::SubagentStop {
            active,
            answer,
            agent_type,
            transcript: &context.transcript,
        },
        None => Event::Stop { active, answer },
    };
    // TODO(ch11/stop): fire the event (with context.inside()) and say its
    // lines. A stop is an Err "a {event name} hook stopped the run:
    // {reason}". A block's reason, or "A {event name} hook refused the end
    // without giving a reason." when it has none, is the next message:
    // a plain string, or, when hooks added context, text blocks (the
    // reason, then each context as a reminder). No block and no context:
    // None, the run ends.
    let _ = (event, reminder, log);
    Ok(None)
    // END(ch11/stop)
}
// ANCHOR_END: stop_refused

/// Adds a message to the conversation and to its transcript file (JSON
/// lines), which hooks may read at `transcript_path`.
fn remember(context: &Context, messages: &mut Vec<Value>, message: Value) {
    wire_host::session::record(PROGRAM, &context.transcript, &message);
    messages.push(message);
}

// ANCHOR: show
/// One line per turn: what the request costs, in tokens.
fn show_request(turn: u32, request: &Value, log: &mut Log) {
    let text = request.to_string();
    let messages = request["messages"].as_array().map_or(0, Vec::len);
    log.say(format!(
        "turn {turn}: sending {messages} messages, {} bytes: {} tokens (cl100k_base), ~{} by the 4-characters rule",
        text.len(),
        tokens::count(&text),
        tokens::rough(&text)
    ));
}

/// Prints what the model said and returns the tool calls it asked for.
/// A reply without a content list is not a reply; one cut off at
/// max_tokens may end inside a tool_use block, so none of its calls runs.
fn read_reply(reply: &Value, log: &mut Log) -> Result<Vec<Value>, String> {
    let content = reply["content"]
        .as_array()
        .ok_or(format!("the model's reply has no content list: {reply}"))?;
    let mut calls = Vec::new();
    for block in content {
        match block["type"].as_str() {
            Some("text") => log.say(format!(
                "  model: {}",
                block["text"].as_str().unwrap_or_default()
            )),
            Some("tool_use") => calls.push(block.clone()),
            _ => {}
        }
    }
    let stop = reply["stop_reason"].as_str().unwrap_or("?");
    log.say(format!(
        "  stop_reason {stop}, {} tool call(s)",
        calls.len()
    ));
    if stop == "max_tokens" {
        return Err(format!(
            "the reply was cut off at max_tokens ({MAX_TOKENS}); its tool calls may be \
             incomplete, so none was run"
        ));
    }
    Ok(calls)
}
// ANCHOR_END: show
