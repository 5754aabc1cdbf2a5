//! The agent loop, and the few helpers it leans on: the request body, and
//! running one tool call. Every question the loop asks on its way (which
//! tools? what does a request carry, and how is it sent? may this call
//! run? how does it run? may the turn end?) is a seam: a method of the
//! harness (`wire_host::seams`), which asks its extensions. In this
//! chapter the only extension is the MCP servers' tools (`mcp.rs`); later
//! chapters add theirs, and the loop stays as it is.

use serde_json::Value;

use crate::tokens;
use wire_host::messages::{Block, Reply, ToolResult, ToolUse, message};
use wire_host::seams::{Call, Context, Done, Gate, Harness, Outcome, Run};
use wire_host::show::{self, Log};

/// The most tokens one reply may use; the API requires a limit.
pub const MAX_TOKENS: u32 = 1024;

/// The model's final answer, or why the run ended without one.
pub type Answer = Result<String, String>;

// ANCHOR: agent_loop
pub async fn run(harness: &Harness<'_>, context: Context, prompt: &str, log: &mut Log) -> Answer {
    // GAP(ch07/loop): the loop. The conversation starts with the harness's
    // opening; each turn sends it whole (next_request builds it, the
    // harness sends it, read_reply refuses a malformed or cut-off reply)
    // and keeps the reply. A reply that asks for no tool is the answer,
    // unless the harness says the turn may not end yet (then its message
    // goes in, and the loop goes on); one that asks for tools gets all
    // their results back in one user message. Every message goes in
    // through harness.remember. After `cap` turns, give up with the error
    // the turn_cap scenario shows.
    // starter: let _ = (harness, context, log, next_request, run_calls, read_reply);
    // starter: Err(format!("TODO(ch07/loop): nothing answers {prompt:?} yet"))
    let mut context = context; // A server's tools may change (chapter 15).
    let cap = context.cap;
    let mut messages = harness.opening(&context, prompt, log).await?;
    for turn in 1..=cap {
        let request = next_request(harness, &mut context, &mut messages, turn, log).await?;
        let reply = read_reply(&harness.send(&context.key, &request, log).await?, log)?;
        harness.remember(&context, &mut messages, reply.message());
        if reply.tool_uses().is_empty() {
            match harness.may_end(&context, &reply.text(), log).await? {
                Some(next) => harness.remember(&context, &mut messages, next),
                None => return Ok(reply.text()),
            }
            continue;
        }
        let results = run_calls(harness, &context, &request, &reply, log).await?;
        harness.remember(&context, &mut messages, message("user", results));
    }
    Err(format!("turn cap: no final answer after {cap} turns"))
    // END(ch07/loop)
}
// ANCHOR_END: agent_loop

/// The next request: a fresh context first when a server's tools changed
/// (chapter 15); the conversation as the extensions leave it (compacted,
/// chapter 22) in a request body, with what they add to it (cache marks,
/// chapter 20); shown, with what it costs.
async fn next_request(
    harness: &Harness<'_>,
    context: &mut Context,
    messages: &mut Vec<Value>,
    turn: u32,
    log: &mut Log,
) -> Result<Value, String> {
    if let Some(fresh) = harness.refreshed(context).await {
        *context = fresh;
    }
    harness.prepare(context, messages, turn, log).await?;
    let mut request = request_body(context, messages);
    harness.carry(context, messages, turn, &mut request);
    show_request(turn, &request, log);
    Ok(request)
}

/// Runs the calls of one reply, as the harness runs them together (one
/// after the other here; chapter 9 runs them at the same time), and
/// returns their results in the order the model asked for them; or why
/// the run stops, when a call stopped it (a hook's `continue: false`,
/// chapter 10).
async fn run_calls(
    harness: &Harness<'_>,
    context: &Context,
    request: &Value,
    reply: &Reply,
    log: &mut Log,
) -> Result<Vec<Block>, String> {
    let runs: Vec<Run<'_, Done>> = (reply.tool_uses().into_iter())
        .map(|call| Box::pin(run_tool(harness, context, request, call)) as Run<'_, _>)
        .collect();
    let mut results = Vec::new();
    let mut stop = None;
    for (result, call) in harness.join(runs).await {
        call.lines.into_iter().for_each(|line| log.say(line));
        results.push(result);
        stop = stop.or(call.stop);
    }
    match stop {
        Some(reason) => Err(format!("a hook stopped the run: {reason}")),
        None => Ok(results),
    }
}

// ANCHOR: request_body
/// A Messages API request: the whole conversation, every time.
pub fn request_body(context: &Context, messages: &[Value]) -> Value {
    serde_json::json!({
        "model": context.model,
        "max_tokens": MAX_TOKENS,
        "system": context.system,
        "tools": context.tools,
        "messages": messages,
    })
}
// ANCHOR_END: request_body

// ANCHOR: run_tool
/// Runs one `tool_use` block through the harness and returns its
/// `tool_result` block. Only a tool the request sent runs; the gate may
/// refuse it; every failure goes back to the model, marked is_error, so
/// it can recover: a tool it made up, arguments the server refused, a
/// tool that failed, a call a fence refused.
async fn run_tool(
    harness: &Harness<'_>,
    context: &Context,
    request: &Value,
    tool_use: &ToolUse,
) -> Done {
    let mut call = Call::new(tool_use);
    let sent = request["tools"].as_array().into_iter().flatten();
    let outcome = if !sent.into_iter().any(|tool| tool["name"] == *call.name()) {
        Err(harness.not_sent(context, call.name()))
    } else {
        match harness.gate(context, &mut call).await {
            Gate::Refuse(why) => Err(why),
            Gate::Run => {
                let outcome = harness.run(context, &mut call).await;
                harness.after(context, &mut call, outcome).await
            }
        }
    };
    finish(harness, call, outcome)
}

/// The `tool_result` block of a call's outcome, and the call with its
/// line added: `tool` or `error`, its name, its input and the text.
fn finish(harness: &Harness<'_>, mut call: Call, outcome: Outcome) -> Done {
    // GAP(ch07/tool-result): turn the outcome into a tool_result block
    // for this call's id: the text of the content, and is_error: true when
    // the call failed or the result says isError.
    // starter: let _ = outcome;
    // starter: let (text, is_error) = ("TODO(ch07/tool-result)".to_string(), true);
    let (text, is_error) = match outcome {
        Ok(result) => (text_of(&result["content"]), result["isError"] == true),
        Err(err) => (err, true),
    };
    // END(ch07/tool-result)
    let (name, input) = (call.name(), &call.tool_use.input);
    let long = harness.long(name);
    let line = show::tool_call(name, input, &text, is_error, long);
    call.lines.push(line);
    (ToolResult::of(&call.tool_use, text, is_error), call)
}
// ANCHOR_END: run_tool

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
/// blocks it knows is not a reply), says what the model said, and returns
/// it. One cut off at max_tokens may end inside a tool_use block, so none
/// of its calls runs.
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
    // STRETCH(ch07/refusal): a reply whose stop_reason is "refusal" is no
    // answer: stop with an error that says the model declined, under
    // #[cfg(feature = "stretch")].
    #[cfg(feature = "stretch")]
    if stop == "refusal" {
        return Err("the model declined to answer (stop_reason refusal); \
                    a host would tell the user, or ask another model"
            .to_string());
    }
    // END(ch07/refusal)
    Ok(reply)
}
// ANCHOR_END: show
