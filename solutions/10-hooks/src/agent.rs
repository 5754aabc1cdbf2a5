//! The agent loop, and the few helpers it leans on: the tools as the model
//! sees them, the request body, and running one tool call through MCP.
//! Chapter 9 runs the loop once per context: the main conversation, and
//! each subagent's, all sharing one `Harness`. Chapter 10 fires the hooks
//! at the loop's fixed points: the prompt, before and after each tool
//! call, and the final answer.

use std::future::Future;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::task::Poll;

use serde_json::{Map, Value, json};
use tokio::sync::Semaphore;

use crate::PROGRAM;
use crate::agents::Agent;
use crate::bash;
use crate::delegate;
use crate::hooks::{Hooks, Outcome, Permission};
use crate::host::Host;
use crate::model::Model;
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

/// What every context shares: the servers, the skills, the agents, the
/// model, and the limits from the command line.
pub struct Harness {
    pub host: Host,
    pub skills: Vec<Skill>,
    pub agents: Vec<Agent>,
    pub model: Model,
    /// The main conversation's turn cap, and a subagent's without maxTurns.
    pub max_turns: u32,
    /// How many levels of subagents may run below the main conversation.
    pub max_depth: u32,
    /// How many subagents of one reply may run at the same time.
    pub max_concurrent: usize,
    /// The hooks, and the session's fields they all receive.
    pub hooks: Hooks,
    /// Where `Bash` commands run.
    pub workdir: PathBuf,
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

/// Where a context's lines go: the main one prints them; a subagent keeps
/// them, and its parent prints them, labelled, once it is done, so lines
/// of subagents running at the same time never mix.
pub struct Log {
    pub lines: Option<Vec<String>>,
}

impl Log {
    pub fn say(&mut self, line: String) {
        match &mut self.lines {
            Some(lines) => lines.push(line),
            None => println!("{line}"),
        }
    }
}

impl Harness {
    /// The main conversation: every tool, the skill catalogue, and the
    /// `Agent` tool when there are agents and subagents are allowed.
    pub fn main_context(&self) -> Context {
        let mut tools = tool_definitions(&self.host, &self.skills);
        tools.push(bash::definition());
        if self.max_depth > 0 {
            tools.extend(delegate::definition(&self.agents));
        }
        Context {
            key: crate::model::MAIN.to_string(),
            depth: 0,
            model: self.model.name().to_string(),
            system: system_prompt(&self.skills),
            tools,
            cap: self.max_turns,
            agent_type: None,
            transcript: self.hooks.transcript_path.clone(),
        }
    }
}

// ANCHOR: agent_loop
pub async fn run(
    harness: &Harness,
    context: &Context,
    prompt: &str,
    log: &mut Log,
) -> Result<String, String> {
    let mut first = json!({ "role": "user", "content": prompt });
    if context.agent_type.is_none() {
        first = submit_prompt(harness, prompt, log).await?;
    }
    let mut messages = vec![];
    remember(context, &mut messages, first);
    let mut refusals = 0;
    for turn in 1..=context.cap {
        let request = request_body(&context.model, &context.system, &context.tools, &messages);
        show_request(turn, &request, log);
        let reply = harness.model.send(&context.key, &request).await?;
        let calls = read_reply(&reply, log)?;
        remember(
            context,
            &mut messages,
            json!({ "role": "assistant", "content": reply["content"] }),
        );
        if calls.is_empty() {
            let answer = text_of(&reply["content"]);
            // A Stop hook may refuse the end: its reason (or its context)
            // goes back to the model as the next user message, and the
            // loop goes on.
            match stop_refused(harness, context, &answer, refusals > 0, log).await? {
                Some(content) if refusals < MAX_STOP_REFUSALS => {
                    refusals += 1;
                    let message = json!({ "role": "user", "content": content });
                    remember(context, &mut messages, message);
                    continue;
                }
                Some(_) => log.say(format!(
                    "  stop hooks refused {MAX_STOP_REFUSALS} times in a row: ending anyway"
                )),
                None => {}
            }
            return Ok(answer);
        }
        refusals = 0;
        // Every call of the reply runs at the same time; the results come
        // back in the order the model asked for them.
        let slots = Semaphore::new(harness.max_concurrent);
        let runs: Vec<Run<'_, Done>> = calls
            .iter()
            .map(|call| Box::pin(run_tool(harness, context, call, &slots)) as Pin<Box<_>>)
            .collect();
        let mut results = Vec::new();
        let mut stop = None;
        for (result, lines, stopped) in join_all(runs).await {
            lines.into_iter().for_each(|line| log.say(line));
            results.push(result);
            stop = stop.or(stopped);
        }
        remember(
            context,
            &mut messages,
            json!({ "role": "user", "content": results }),
        );
        if let Some(reason) = stop {
            return Err(format!("a hook stopped the run: {reason}"));
        }
    }
    Err(format!(
        "turn cap: no final answer after {} turns",
        context.cap
    ))
}
// ANCHOR_END: agent_loop

// ANCHOR: join_all
/// One tool call under way: its `tool_result` block, its lines, and a
/// hook's `stopReason` if one stopped the run, later.
type Done = (Value, Vec<String>, Option<String>);
/// Work under way: a tool call, or (in hooks.rs) a hook.
pub type Run<'a, T> = Pin<Box<dyn Future<Output = T> + 'a>>;

/// Runs the futures at the same time, on this one task, and returns their
/// outputs in the order given: each poll polls every unfinished one.
pub async fn join_all<T>(mut runs: Vec<Run<'_, T>>) -> Vec<T> {
    let mut outputs: Vec<Option<T>> = runs.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        for (run, output) in runs.iter_mut().zip(&mut outputs) {
            if output.is_none()
                && let Poll::Ready(value) = run.as_mut().poll(cx)
            {
                *output = Some(value);
            }
        }
        if outputs.iter().all(Option::is_some) {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    })
    .await;
    outputs.into_iter().flatten().collect()
}
// ANCHOR_END: join_all

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

// ANCHOR: run_tool
/// Runs one `tool_use` block and returns its `tool_result` block, with
/// the lines to print. Every failure goes back to the model, marked
/// is_error, so it can recover: a tool it was not given, a call a hook
/// blocked, arguments the server refused, a tool that failed.
async fn run_tool(harness: &Harness, context: &Context, call: &Value, slots: &Semaphore) -> Done {
    let name = call["name"].as_str().unwrap_or_default();
    let mut lines = Vec::new();
    // Only the tools of this context run, whatever the model asks for.
    let given = context.tools.iter().any(|tool| tool["name"] == name);
    if !given {
        let text =
            format!("there is no tool named {name:?} here: call one of the tools you were given");
        return finish(harness, call, name, &call["input"], Err(text), lines, None);
    }
    // The fence: PreToolUse hooks see the call before anything runs.
    let mut input = tool_input(harness, context, "PreToolUse", call);
    let (before, said) = harness
        .hooks
        .fire("PreToolUse", Some(name), input.clone())
        .await;
    lines.extend(said);
    if let Some(reason) = before.stop {
        // `continue: false` beats any decision; its stopReason is for the
        // user (the run's last line), not the model.
        let text = "a PreToolUse hook stopped the run".to_string();
        return finish(
            harness,
            call,
            name,
            &call["input"],
            Err(text),
            lines,
            Some(reason),
        );
    }
    let call_line = format!("{name} {}", call["input"]);
    if let Err(reason) = permitted(&before, &call_line, &mut lines) {
        return finish(
            harness,
            call,
            name,
            &call["input"],
            Err(reason),
            lines,
            None,
        );
    }
    let arguments = before
        .updated_input
        .clone()
        .unwrap_or_else(|| call["input"].clone());
    let outcome = dispatch(harness, context, call, name, &arguments, slots, &mut lines).await;
    let mut extra = before.context;
    let mut stop = None;
    // STRETCH(ch10/post_tool_failure): fire PostToolUseFailure after a call
    // that ran and failed (an Err, an MCP result marked isError; never a
    // call a hook blocked, which did not run), matched on the tool's name,
    // with the tool's fields, `error` (the text the model reads) and
    // `is_interrupt`; its context reaches the model beside the error. The
    // STRETCH comments of bash.rs and hooks.rs say what else it takes.
    #[cfg(feature = "stretch")]
    let outcome = {
        // An Err becomes a result marked isError, so context fits beside it.
        let result = outcome.unwrap_or_else(
            |text| json!({ "content": [{ "type": "text", "text": text }], "isError": true }),
        );
        if result["isError"] == true {
            let mut input = tool_input(harness, context, "PostToolUseFailure", call);
            input.insert("tool_input".into(), arguments.clone());
            input.insert("error".into(), json!(text_of(&result["content"])));
            // Nothing here aborts a tool: every failure is one it reported.
            input.insert("is_interrupt".into(), json!(false));
            let (after, said) = harness
                .hooks
                .fire("PostToolUseFailure", Some(name), input)
                .await;
            lines.extend(said);
            extra.extend(after.context);
            stop = after.stop;
        }
        Ok::<Value, String>(result)
    };
    // END(ch10/post_tool_failure)
    // PostToolUse is for a call that succeeded; an MCP result marked
    // isError is a failure (Claude Code's PostToolUseFailure, which the
    // chapter's stretch fires).
    if let Some(result) = outcome
        .as_ref()
        .ok()
        .filter(|result| result["isError"] != true)
    {
        input.insert("tool_input".into(), arguments.clone());
        input.insert("hook_event_name".into(), json!("PostToolUse"));
        // Bash answers with Claude Code's fields; any other tool with its
        // whole result.
        let response = match result.get("structuredContent") {
            Some(fields) if name == bash::BASH => fields.clone(),
            _ => result.clone(),
        };
        input.insert("tool_response".into(), response);
        let (after, said) = harness.hooks.fire("PostToolUse", Some(name), input).await;
        lines.extend(said);
        extra.extend(after.context);
        stop = after.stop;
    }
    let outcome = outcome.map(|mut result| {
        // What hooks add reaches the model beside the tool's own output.
        for text in extra {
            if let Some(content) = result["content"].as_array_mut() {
                content.push(json!({ "type": "text", "text": reminder(&text) }));
            }
        }
        result
    });
    finish(harness, call, name, &arguments, outcome, lines, stop)
}
// ANCHOR_END: run_tool

// ANCHOR: permitted
/// What the PreToolUse hooks allow: exit 2 or `deny` blocks with the
/// reason the model will read; `ask` asks the user about `call` when there
/// is a terminal, and is a no when there is none. An `ask`'s reason is for
/// the user, not the model (Claude Code's rule).
fn permitted(before: &Outcome, call: &str, lines: &mut Vec<String>) -> Result<(), String> {
    // GAP(ch10/permitted): a block (exit 2) or a `deny` is an Err with the
    // reason; `ask` is Ok only when ask_user says yes, else an Err with why
    // not; anything else is Ok.
    // starter: let _ = (before, call, lines, ask_user);
    // starter: Ok(())
    if let Some(reason) = &before.block {
        return Err(format!("a PreToolUse hook blocked this call: {reason}"));
    }
    match &before.permission {
        Some((Permission::Deny, reason)) => {
            Err(format!("a PreToolUse hook denied this call: {reason}"))
        }
        Some((Permission::Ask, reason)) => match ask_user(call, reason) {
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
    // END(ch10/permitted)
}

/// Asks on the terminal, and says why not when the answer is no. The
/// question goes to the terminal itself (/dev/tty), never to stdout, which
/// may be a pipe read by a program; with no terminal, nobody can say yes.
fn ask_user(call: &str, reason: &str) -> Result<(), &'static str> {
    use std::io::IsTerminal;
    if !std::io::stdin().is_terminal() {
        return Err("there was no terminal to ask on");
    }
    let question =
        format!("{PROGRAM}: a hook asks: {reason}\n  {call}\nRun this tool call? [y/N] ");
    match std::fs::OpenOptions::new().write(true).open("/dev/tty") {
        Ok(mut terminal) => {
            let _ = terminal.write_all(question.as_bytes());
        }
        Err(_) => eprint!("{question}"),
    }
    let mut answer = String::new();
    let read = std::io::stdin().read_line(&mut answer);
    if read.is_ok() && answer.trim().eq_ignore_ascii_case("y") {
        Ok(())
    } else {
        Err("the user said no")
    }
}
// ANCHOR_END: permitted

/// Runs the tool itself: Agent, the skill tools and ReadMcpResourceTool in
/// the harness, Bash in a shell, every other tool through MCP.
async fn dispatch(
    harness: &Harness,
    context: &Context,
    call: &Value,
    name: &str,
    arguments: &Value,
    slots: &Semaphore,
    lines: &mut Vec<String>,
) -> Result<Value, String> {
    let skills = &harness.skills;
    let text = |text: String| json!({ "content": [{ "type": "text", "text": text }] });
    if name == delegate::AGENT {
        let mut call = call.clone();
        call["input"] = arguments.clone();
        let (outcome, subagent) = delegate::run(harness, context, &call, slots).await;
        lines.extend(subagent);
        outcome.map(text)
    } else if name == bash::BASH {
        bash::run(arguments, &harness.workdir).await
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
    name: &str,
    arguments: &Value,
    outcome: Result<Value, String>,
    mut lines: Vec<String>,
    stop: Option<String>,
) -> Done {
    let (text, is_error) = match outcome {
        Ok(result) => (text_of(&result["content"]), result["isError"] == true),
        Err(err) => (err, true),
    };
    // A skill's or a resource's text is long: its cost in tokens says more
    // than its lines.
    let long = skill_tools::handles(&harness.skills, name) || name == resource_tool::READ;
    let shown = if long && !is_error {
        format!("{} tokens (cl100k_base)", tokens::count(&text))
    } else {
        text.clone()
    };
    lines.push(format!(
        "  {} {name} {arguments} -> {shown}",
        if is_error { "error" } else { "tool" }
    ));
    let mut block = json!({ "type": "tool_result", "tool_use_id": call["id"], "content": text });
    if is_error {
        block["is_error"] = json!(true);
    }
    (block, lines, stop)
}

/// The input of a tool event: the common fields, the tool's, and
/// `agent_id`/`agent_type` inside a subagent.
fn tool_input(
    harness: &Harness,
    context: &Context,
    event: &str,
    call: &Value,
) -> Map<String, Value> {
    let mut input = event_input(harness, context, event);
    input.insert("tool_name".into(), call["name"].clone());
    input.insert("tool_input".into(), call["input"].clone());
    input.insert("tool_use_id".into(), call["id"].clone());
    input
}

/// The common fields, with the subagent's own when there is one.
fn event_input(harness: &Harness, context: &Context, event: &str) -> Map<String, Value> {
    let mut input = harness.hooks.input(event);
    if let Some(agent_type) = &context.agent_type {
        input.insert("agent_id".into(), json!(context.key));
        input.insert("agent_type".into(), json!(agent_type));
    }
    input
}

// ANCHOR: submit_prompt
/// Fires UserPromptSubmit, and returns the first user message: the prompt,
/// then what hooks added as context. A block erases the prompt.
async fn submit_prompt(harness: &Harness, prompt: &str, log: &mut Log) -> Result<Value, String> {
    let mut input = harness.hooks.input("UserPromptSubmit");
    input.insert("prompt".into(), json!(prompt));
    let (outcome, said) = harness.hooks.fire("UserPromptSubmit", None, input).await;
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
    let event = if context.agent_type.is_some() {
        "SubagentStop"
    } else {
        "Stop"
    };
    let mut input = event_input(harness, context, event);
    input.insert("stop_hook_active".into(), json!(active));
    input.insert("last_assistant_message".into(), json!(answer));
    if context.agent_type.is_some() {
        input.insert("agent_transcript_path".into(), json!(context.transcript));
    }
    let target = context.agent_type.as_deref();
    let (outcome, said) = harness.hooks.fire(event, target, input).await;
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

/// What a hook adds for the model, marked as the harness's, not the user's.
fn reminder(text: &str) -> String {
    format!("<system-reminder>{text}</system-reminder>")
}

/// Adds a message to the conversation and to its transcript file (JSON
/// lines), which hooks may read at `transcript_path`.
fn remember(context: &Context, messages: &mut Vec<Value>, message: Value) {
    record(&context.transcript, &message);
    messages.push(message);
}

/// One line appended to a transcript file; a file that cannot be written
/// is reported, never fatal.
fn record(path: &Path, message: &Value) {
    let line = json!({ "type": message["role"], "message": message });
    let written = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .and_then(|mut file| writeln!(file, "{line}"));
    if let Err(err) = written {
        eprintln!(
            "{PROGRAM}: cannot write the transcript {}: {err}",
            path.display()
        );
    }
}

/// The text blocks of a content list, joined by newlines.
fn text_of(content: &Value) -> String {
    let texts: Vec<&str> = content
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|block| block["text"].as_str())
        .collect();
    texts.join("\n")
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
