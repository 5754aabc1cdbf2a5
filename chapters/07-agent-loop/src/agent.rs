//! The agent loop, and the few helpers it leans on: the tools as the model
//! sees them, the request body, and running one tool call through MCP.

use serde_json::{Value, json};

use crate::PROGRAM;
use crate::model::{MAIN, Model};
use crate::tokens;
use wire_host::host::Host;
use wire_host::messages::{Block, Reply, ToolResult, ToolUse};

/// What the model is told about its situation, in every request.
const SYSTEM: &str = "You are a careful assistant. Use the tools for arithmetic.";
/// The most tokens one reply may use; the API requires a limit.
const MAX_TOKENS: u32 = 1024;

// ANCHOR: agent_loop
pub async fn run(host: &Host, model: &Model, prompt: &str, cap: u32) -> Result<String, String> {
    // TODO(ch07/loop): the loop: send the conversation, read the reply
    // (read_reply refuses a malformed or cut-off one), stop when it asks
    // for no tool, otherwise run every tool_use and send the results back
    // as one user message; give up after `cap` turns.
    Err(format!("TODO(ch07/loop): nothing answers {prompt:?} yet"))
    // END(ch07/loop)
}
// ANCHOR_END: agent_loop

// ANCHOR: tool_definitions
/// The catalogue as the model sees it: the qualified name, the server's
/// description, and its inputSchema renamed to input_schema.
pub fn tool_definitions(host: &Host) -> Vec<Value> {
    // TODO(ch07/tool-definitions): one Messages API tool per catalogue
    // entry whose name the API accepts: name (qualified), description,
    // input_schema.
    todo!(
        "ch07/tool-definitions: one Messages API tool per catalogue entry whose name the API accepts: name (qualified), description, input_schema."
    )
    // END(ch07/tool-definitions)
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

// ANCHOR: request_body
/// A Messages API request: the whole conversation, every time.
fn request_body(model: &str, tools: &[Value], messages: &[Value]) -> Value {
    json!({
        "model": model,
        "max_tokens": MAX_TOKENS,
        "system": SYSTEM,
        "tools": tools,
        "messages": messages,
    })
}
// ANCHOR_END: request_body

// ANCHOR: run_tool
/// Runs one `tool_use` block and returns its `tool_result` block. Every
/// failure goes back to the model, marked is_error, so it can recover:
/// a tool it made up, arguments the server refused, a tool that failed.
async fn run_tool(host: &Host, tools: &[Value], call: &ToolUse) -> Block {
    let name = &call.name;
    // Only the tools the model was given run, whatever it asks for: a
    // server may hold a tool that was not offered (a name the API refuses).
    let offered = tools.iter().any(|tool| tool["name"] == *name);
    let outcome = match offered {
        true => host.call_tool(name, call.input.clone()).await,
        false => Err(format!(
            "there is no tool named {name:?} here: call one of the tools you were given"
        )),
    };
    // TODO(ch07/tool-result): turn the outcome into a tool_result block
    // for this call's id: the text of the content, and is_error: true when
    // the call failed or the result says isError.
    let _ = outcome;
    let (text, is_error) = ("TODO(ch07/tool-result)".to_string(), true);
    // END(ch07/tool-result)
    println!(
        "  {} {name} {} -> {text}",
        if is_error { "error" } else { "tool" },
        call.input
    );
    ToolResult::of(call, text, is_error)
}
// ANCHOR_END: run_tool

/// The text blocks of an MCP tool result's content, joined by newlines.
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
fn show_request(turn: u32, request: &Value) {
    let text = request.to_string();
    let messages = request["messages"].as_array().map_or(0, Vec::len);
    println!(
        "turn {turn}: sending {messages} messages, {} bytes: {} tokens (cl100k_base), ~{} by the 4-characters rule",
        text.len(),
        tokens::count(&text),
        tokens::rough(&text)
    );
}

/// Reads the reply (`Reply::read`, in wire-host: a reply without a list of
/// blocks it knows is not a reply), prints what the model said, and
/// returns it. One cut off at max_tokens may end inside a tool_use block,
/// so none of its calls runs.
fn read_reply(body: &Value) -> Result<Reply, String> {
    let reply = Reply::read(body)?;
    for block in &reply.content {
        if let Block::Text { text } = block {
            println!("  model: {text}");
        }
    }
    let stop = reply.stop_reason.as_deref().unwrap_or("?");
    let calls = reply.tool_uses().len();
    println!("  stop_reason {stop}, {calls} tool call(s)");
    if stop == "max_tokens" {
        return Err(format!(
            "the reply was cut off at max_tokens ({MAX_TOKENS}); its tool calls may be \
             incomplete, so none was run"
        ));
    }
    // STRETCH(ch07/refusal): a reply whose stop_reason is "refusal" is no
    // answer: stop with an error that says the model declined, under
    // #[cfg(feature = "stretch")].
    // END(ch07/refusal)
    Ok(reply)
}
// ANCHOR_END: show
