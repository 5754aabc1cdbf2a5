//! The agent loop, and the few helpers it leans on: the tools as the model
//! sees them, the request body, and running one tool call through MCP.
//! Chapter 9 runs the loop once per context: the main conversation, and
//! each subagent's, all sharing one `Harness` (`harness.rs`). An `Agent`
//! call runs the loop again, for a subagent: the harness hands the loop
//! the function that does it (`Harness::delegate`), so this module never
//! imports the one that calls it back. Chapter 10 puts the fence in
//! `run_tool`: the PreToolUse hooks, and what they allow (`fence.rs`);
//! chapter 11 fires the hooks at the loop's other fixed points: the prompt
//! and the final answer here, after a call in `fence.rs`. Chapter 19 sends
//! each request the tools tool search leaves it (`tool_search.rs`), and
//! runs `ToolSearch` here, in the harness. Chapter 20 marks each request's
//! cache breakpoints, sends the catalogue in one order, and reads the
//! cache figures of each reply (`prompt_cache.rs`). Chapter 21 opens each
//! conversation with the memory files (`memory.rs`), and runs the skill
//! tools for a skill a server serves through its server
//! (`served_skills.rs`). Chapter 22 sends each turn through `send_turn`:
//! compacted when over the budget (`compaction.rs`), retried when the
//! model API is overloaded (`retries.rs`). Chapter 23 offers no tool whose
//! definition changed since it was approved (`pins.rs`), and runs a call
//! only when the permission rules let it (`fence.rs`).

use serde_json::{Value, json};
use tokio::sync::Semaphore;

use crate::PROGRAM;
use crate::bash;
use crate::events::Event;
use crate::fence::{after_call, permitted};
use crate::harness::text_of;
pub use crate::harness::{AGENT, Context, Done, Harness, Log};
use crate::join::{Run, join_all};
use crate::memory;
use crate::pins;
use crate::prompt_cache;
use crate::served_skills;
use crate::skill_tools;
use crate::skills::{self, Skill};
use crate::tool_search::{self, Offer, TOOL_SEARCH};
use crate::{compaction, retries};
use wire_host::messages::{Block, Reply, ToolResult, ToolUse};
use wire_host::remote::Servers;
use wire_host::session::Fire as _;
use wire_host::xml::{reminder, with_reminders};
use wire_host::{show, tokens};

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
    remember(context, &mut messages, memory::opening(first));
    // Stop hooks' refusals so far. An end they allow ends the run, so these
    // are always in a row (Claude Code's cap counts blocks in a row); after
    // the first, every Stop is told stop_hook_active.
    let mut refusals = 0;
    let cap = context.cap;
    let (main, mut fresh) = (context, None);
    for turn in 1..=cap {
        // Tools changed (list_changed): the main context offers the new ones.
        if main.depth == 0 && harness.host.refresh().await {
            fresh = Some(main_context(harness));
        }
        let context = fresh.as_ref().unwrap_or(main);
        let (offered, body) = send_turn(harness, context, &mut messages, turn, log).await?;
        let reply = read_reply(&body, log)?;
        let answer = json!({ "role": "assistant", "content": reply.content });
        remember(context, &mut messages, answer);
        let calls = reply.tool_uses();
        if calls.is_empty() {
            let answer = reply.text();
            // A Stop hook may refuse the end: its reason (or its context)
            // goes back to the model as the next user message, and the
            // loop goes on.
            match stop_refused(harness, context, &answer, refusals > 0, log).await? {
                Some(content) if refusals < MAX_STOP_REFUSALS => {
                    refusals += 1;
                    let content = json!({ "role": "user", "content": content });
                    remember(context, &mut messages, content);
                    continue;
                }
                Some(_) => log.say(format!(
                    "  stop hooks refused {MAX_STOP_REFUSALS} times in a row: ending anyway"
                )),
                None => {}
            }
            return Ok(answer);
        }
        let (results, stop) = run_calls(harness, context, &offered, &calls, log).await;
        let results = json!({ "role": "user", "content": results });
        remember(context, &mut messages, results);
        // A hook's `continue: false`: its stopReason ends the run.
        if let Some(reason) = stop {
            return Err(format!("a hook stopped the run: {reason}"));
        }
    }
    Err(format!("turn cap: no final answer after {cap} turns"))
}
// ANCHOR_END: agent_loop

// ANCHOR: send_turn
/// One turn's request, sent with retries (chapter 22); compacted first
/// when it would carry more than the budget (unless a hook refuses), and
/// refused when even compacted it would.
async fn send_turn(
    harness: &Harness,
    context: &Context,
    messages: &mut Vec<Value>,
    turn: u32,
    log: &mut Log,
) -> Result<(Offered, Value), String> {
    let (mut offered, mut request) = next_request(context, messages, turn);
    if compaction::over_budget(&request)
        && compaction::compact(harness, context, messages, log).await?
    {
        (offered, request) = next_request(context, messages, turn);
        if compaction::over_budget(&request) {
            let size = compaction::size(&request);
            return Err(format!(
                "even compacted, the next request is {size} tokens, over the --context-budget"
            ));
        }
    }
    show_request(turn, &request, log);
    let body = retries::send(harness, &context.key, &request, log).await?;
    Ok((offered, body))
}
// ANCHOR_END: send_turn

/// What one request offered: the context's tools split by tool search,
/// and the tools it sent (the loaded ones, ToolSearch, the found ones).
struct Offered {
    offer: Offer,
    tools: Vec<Value>,
}

/// The next request, and what it offered: the context's tools split by
/// the setting, the names announced in its system prompt, the tools found
/// by the searches in the conversation so far (chapter 19); its cache
/// breakpoints marked (chapter 20; and broken, when the measurement asks).
fn next_request(context: &Context, messages: &[Value], turn: u32) -> (Offered, Value) {
    let offer = tool_search::split(&context.tools, tool_search::mode());
    let mut tools = tool_search::tools_for(&offer, messages);
    let mut system = tool_search::announce(&context.system, &offer);
    prompt_cache::breaker(turn, &mut system, &mut tools);
    let mut request = request_body(&context.model, &system, &tools, messages);
    prompt_cache::mark(&mut request);
    (Offered { offer, tools }, request)
}

/// Runs the calls of one reply, each through the fence, all at the same
/// time; the results come back in the order the model asked for them,
/// with the first hook's `stopReason`, if one stopped the run.
async fn run_calls(
    harness: &Harness,
    context: &Context,
    offered: &Offered,
    calls: &[&ToolUse],
    log: &mut Log,
) -> (Vec<Block>, Option<String>) {
    let slots = Semaphore::new(harness.max_concurrent);
    let runs: Vec<Run<'_, Done>> = calls
        .iter()
        .map(|call| Box::pin(run_tool(harness, context, offered, call, &slots)) as Run<'_, _>)
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

/// The main conversation: every tool, the skill catalogue, and the
/// `Agent` tool when there are agents and subagents are allowed. (Chapter
/// 15's `Harness::main_context`: the harness is `wire_host`'s type now, so
/// this is a function of the loop's own.)
pub fn main_context(harness: &Harness) -> Context {
    // Chapter 23: each definition against its pin; a changed one is not offered.
    pins::check(&harness.host.tools())
        .iter()
        .for_each(|line| println!("{line}"));
    let mut tools = tool_definitions(&harness.host, &harness.skills);
    tools.push(bash::definition());
    if harness.max_depth > 0 {
        tools.extend(crate::agents::tool_definition(&harness.agents));
    }
    Context {
        key: crate::model::MAIN.to_string(),
        depth: 0,
        model: harness.model.name().to_string(),
        system: system_prompt(&harness.skills),
        tools,
        cap: harness.max_turns,
        agent_type: None,
        transcript: harness.hooks.session.transcript_path(),
    }
}

// ANCHOR: tool_definitions
/// The catalogue as the model sees it: the qualified name, the server's
/// description, and its inputSchema renamed to input_schema, in the order
/// of their names (chapter 20: whatever order the servers started, answered
/// or listed in, the prefix is the same); then the two skill tools, when
/// there are skills.
pub fn tool_definitions(host: &Servers, skills: &[Skill]) -> Vec<Value> {
    let mut tools: Vec<Value> = (host.tools().iter())
        .filter(|tool| fits_the_api(&tool.qualified) && !pins::refused(&tool.qualified))
        .map(|tool| {
            json!({
                "name": tool.qualified,
                "description": tool.definition["description"].as_str().unwrap_or_default(),
                "input_schema": tool.definition["inputSchema"],
            })
        })
        .collect();
    tools.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
    tools.extend(skill_tools::definitions(skills));
    tools
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
    match skills::catalogue(skills).as_str() {
        "" => SYSTEM.to_string(),
        catalogue => format!("{SYSTEM}\n\n{catalogue}"),
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

/// Adds a message to the conversation and to its transcript file (JSON
/// lines), which hooks may read at `transcript_path`.
fn remember(context: &Context, messages: &mut Vec<Value>, message: Value) {
    wire_host::session::record(PROGRAM, &context.transcript, &message);
    messages.push(message);
}

// ANCHOR: dispatch
// ANCHOR: run_tool
/// Runs one `tool_use` block and returns its `tool_result` block, with
/// the lines to print. Every failure goes back to the model, marked
/// is_error, so it can recover: a tool it was not given, arguments the
/// server refused, a tool that failed, a subagent that failed. Chapter 10
/// puts the fence in its path: a call the PreToolUse hooks refuse never
/// runs, and its refusal is its result; a hook's `stopReason`, if one
/// stopped the run, comes back too.
async fn run_tool(
    harness: &Harness,
    context: &Context,
    offered: &Offered,
    call: &ToolUse,
    slots: &Semaphore,
) -> Done {
    let name = call.name.as_str();
    let mut lines = Vec::new();
    // Only the tools this request sent run, whatever the model asks for;
    // a deferred one not yet found is told how to find it.
    if !offered.tools.iter().any(|tool| tool["name"] == name) {
        let deferred = offered
            .offer
            .deferred
            .iter()
            .any(|tool| tool["name"] == name);
        let text = match deferred {
            true => tool_search::not_loaded(name),
            false => format!(
                "there is no tool named {name:?} here: call one of the tools you were given"
            ),
        };
        return finish(harness, call, Err(text), lines, None);
    }
    let (before, said) = harness
        .hooks
        .fire(&Event::PreToolUse { call }, context.inside())
        .await;
    lines.extend(said);
    if let Some(reason) = before.stop {
        // Its stopReason is for the user (the run's last line), not the model.
        let text = "a PreToolUse hook stopped the run".to_string();
        return finish(harness, call, Err(text), lines, Some(reason));
    }
    if let Err(reason) = permitted(harness, &before, call, &mut lines).await {
        return finish(harness, call, Err(reason), lines, None);
    }
    // The call runs with the input a hook gave it, if one did.
    let mut call = call.clone();
    if let Some(input) = &before.updated_input {
        call.input = input.clone();
    }
    let outcome = dispatch(harness, context, offered, &call, slots, &mut lines).await;
    let (outcome, after, said) = after_call(harness, context, &call, outcome).await;
    lines.extend(said);
    // What the hooks added reaches the model beside the tool's own output.
    let extra = before.context.into_iter().chain(after.context);
    let outcome = outcome.map(|result| with_reminders(result, extra));
    finish(harness, &call, outcome, lines, after.stop)
}
// ANCHOR_END: run_tool

/// Runs one tool call the fence let through, with the input it runs
/// with: the model's, or a hook's `updatedInput`.
async fn dispatch(
    harness: &Harness,
    context: &Context,
    offered: &Offered,
    call: &ToolUse,
    slots: &Semaphore,
    lines: &mut Vec<String>,
) -> Result<Value, String> {
    let name = call.name.as_str();
    let skills = &harness.skills;
    // The skill tools, Agent and ToolSearch run here, in the
    // harness, and answer like a tool result; every other tool is MCP.
    if name == TOOL_SEARCH {
        tool_search::run(&offered.offer, &call.input)
    } else if name == AGENT {
        let (outcome, subagent) = (harness.delegate)(harness, context, call, slots).await;
        lines.extend(subagent);
        outcome.map(|text| json!({ "content": [{ "type": "text", "text": text }] }))
    } else if name == bash::BASH {
        let finished = bash::run(&call.input, &harness.hooks.session.workdir).await;
        finished.map(|finished| finished.result())
    } else if let Some(served) = served_skills::find(name, &call.input) {
        let path = call.input["path"].as_str();
        let text = match path {
            Some(path) if name == skill_tools::READ_SKILL_FILE => {
                served_skills::read_file(&harness.host, served, path).await
            }
            _ => served_skills::activate(&harness.host, served).await,
        };
        text.map(|text| json!({ "content": [{ "type": "text", "text": text }] }))
    } else if skill_tools::handles(skills, name) {
        let text = skill_tools::run(skills, name, &call.input);
        if text.is_ok() && name == skill_tools::SKILL {
            grant_skill(skills, &call.input, lines);
        }
        text.map(|text| json!({ "content": [{ "type": "text", "text": text }] }))
    } else {
        crate::retry::call_tool(harness, name, call.input.clone()).await
    }
}

/// A local skill, once active, grants what its `allowed-tools` names
/// (chapter 23's `permissions::grant`); the trace says what.
fn grant_skill(skills: &[Skill], input: &Value, lines: &mut Vec<String>) {
    let wanted = input["skill"].as_str().unwrap_or_default();
    if let Some(skill) = skills.iter().find(|skill| skill.name == wanted) {
        let granted = crate::permissions::grant(&skill.root);
        if !granted.is_empty() {
            lines.push(format!("  skill {wanted} allows: {}", granted.join(", ")));
        }
    }
}

/// The `tool_result` block of a call's outcome (a failure marked
/// is_error), and the lines to print.
fn finish(
    harness: &Harness,
    call: &ToolUse,
    outcome: Result<Value, String>,
    mut lines: Vec<String>,
    stop: Option<String>,
) -> Done {
    let name = call.name.as_str();
    let skills = &harness.skills;
    let (text, is_error) = match outcome {
        Ok(result) => (text_of(&result["content"]), result["isError"] == true),
        Err(err) => (err, true),
    };
    // A skill's text is long: show::tool_call shows its
    // cost in tokens.
    let long = skill_tools::handles(skills, name);
    let line = show::tool_call(name, &call.input, &text, is_error, long);
    lines.push(line);
    (ToolResult::of(call, text, is_error), lines, stop)
}
// ANCHOR_END: dispatch

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

/// Reads the reply (`Reply::read`, in wire-host: a reply without a list of
/// blocks it knows is not a reply), says what the model said, and
/// returns it. One cut off at max_tokens may end inside a tool_use block,
/// so none of its calls runs.
fn read_reply(body: &Value, log: &mut Log) -> Result<Reply, String> {
    let reply = Reply::read(body)?;
    for block in &reply.content {
        if let Block::Text { text } = block {
            log.say(format!("  model: {text}"));
        }
    }
    let stop = reply.stop_reason.as_deref().unwrap_or("?");
    let calls = reply.tool_uses().len();
    log.say(format!("  stop_reason {stop}, {calls} tool call(s)"));
    if stop == "max_tokens" {
        return Err(format!(
            "the reply was cut off at max_tokens ({MAX_TOKENS}); its tool calls may be \
             incomplete, so none was run"
        ));
    }
    Ok(reply)
}
// ANCHOR_END: show

// ANCHOR: submit_prompt
/// Fires UserPromptSubmit, and returns the first user message: the prompt,
/// then what hooks added as context. A block erases the prompt.
async fn submit_prompt(harness: &Harness, prompt: &str, log: &mut Log) -> Result<Value, String> {
    let event = Event::UserPromptSubmit { prompt };
    let (outcome, said) = harness.hooks.fire(&event, None).await;
    said.into_iter().for_each(|line| log.say(line));
    if let Some(reason) = outcome.stop.or(outcome.block) {
        return Err(format!(
            "a UserPromptSubmit hook blocked the prompt: {reason}"
        ));
    }
    let mut context = harness.session_context.clone();
    context.extend(outcome.context);
    if context.is_empty() {
        return Ok(json!({ "role": "user", "content": prompt }));
    }
    let mut content = vec![json!({ "type": "text", "text": prompt })];
    for text in context {
        content.push(json!({ "type": "text", "text": reminder(&text) }));
    }
    Ok(json!({ "role": "user", "content": content }))
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
    let (outcome, said) = harness.hooks.fire(&event, context.inside()).await;
    let event = event.name();
    said.into_iter().for_each(|line| log.say(line));
    if let Some(reason) = outcome.stop {
        return Err(format!("a {event} hook stopped the run: {reason}"));
    }
    // The reason is the model's next message, and the API refuses an empty
    // one: a hook that blocks without a reason still says that it did.
    let block = outcome.block.map(|reason| match reason.is_empty() {
        true => format!("A {event} hook refused the end without giving a reason."),
        false => reason,
    });
    if outcome.context.is_empty() {
        return Ok(block.map(Value::String));
    }
    let reminders = outcome.context.iter().map(|text| reminder(text));
    let texts = block.into_iter().chain(reminders);
    Ok(Some(
        texts
            .map(|text| json!({ "type": "text", "text": text }))
            .collect(),
    ))
}
// ANCHOR_END: stop_refused
