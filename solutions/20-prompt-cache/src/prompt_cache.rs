//! Prompt caching, the harness's side. The Messages API caches a request's
//! prefix (its `tools`, then `system`, then `messages`) up to each block
//! marked `cache_control: {"type": "ephemeral"}`, and a later request that
//! begins with the same bytes reads it back at a tenth of the price. So
//! the harness marks three breakpoints (`mark`), keeps what comes before
//! the last one the same from turn to turn (the catalogue in one order),
//! and reads the figures each reply reports (`Usage`): what was written to
//! the cache, read from it, and sent uncached. `PromptCache` does all
//! three, as an extension of the harness.
//!
//! `WIRE_CACHE_BREAKER` breaks the prefix on purpose, for `wire-measure
//! cache` (the course's switch, not an API's or Claude Code's setting).

use std::cell::Cell;

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{Value, json};
use wire_host::seams::{Context, Extension, Harness};
use wire_host::show::Log;
use wire_host::stub_cache::StubCache;

// ANCHOR: extension
/// The cache, as an extension of the harness.
pub struct PromptCache {
    /// A scripted model has no cache of its own: its replies leave `usage`
    /// to this stand-in, which computes it from the request, as the API
    /// would (`wire_host::stub_cache`). `None` for a real model.
    pub stub: Option<StubCache>,
    /// The session's input so far: its cost with the cache, and without.
    pub session: Cell<(f64, u64)>,
}

impl PromptCache {
    /// The cache of a run: the stand-in for a scripted model.
    pub fn new(scripted: bool) -> PromptCache {
        PromptCache {
            stub: scripted.then(StubCache::default),
            session: Cell::new((0.0, 0)),
        }
    }
}

#[async_trait(?Send)]
impl Extension for PromptCache {
    /// The session's last line: its input cost, with the cache and without.
    fn end(&self) {
        let (cost, without) = self.session.get();
        let saved = match without {
            0 => 0.0,
            _ => 100.0 * (1.0 - cost / without as f64),
        };
        println!(
            "session input: {cost:.1} base tokens with the cache, {without} without ({saved:.0}% saved)"
        );
    }

    /// The servers' tools in the order of their names: whatever order the
    /// servers started, answered or listed in, the prefix is the same.
    fn tools(&self, tools: &mut Vec<Value>) {
        let mcp = tools.iter().take_while(|tool| is_mcp(tool)).count();
        // GAP(ch20/stable): sort the MCP tools (the first `mcp` of `tools`)
        // by their "name", so that the catalogue's bytes do not depend on
        // the servers' order.
        // starter: let _ = (tools, mcp);
        tools[..mcp].sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
        // END(ch20/stable)
    }

    fn carry(&self, _: &Context, _: &[Value], turn: u32, request: &mut Value) {
        breaker(turn, request);
        mark(request);
    }

    fn replied(&self, _: &Harness<'_>, request: &Value, reply: &mut Value, log: &mut Log) {
        account(self, request, reply, log);
    }
}
// ANCHOR_END: extension

/// The mark on a breakpoint: the API's only type, the default 5 minutes.
fn ephemeral() -> Value {
    json!({ "type": "ephemeral" })
}

// ANCHOR: mark
/// Marks the request's breakpoints: the last tool definition (the
/// catalogue), the system prompt (a string becomes one text block, the
/// only shape that carries a mark) and the last content block of the last
/// message (the breakpoint that moves forward each turn). Three, under
/// the API's limit of four. Every message's content is sent as a list of
/// blocks, so the message marked this turn has the same bytes, unmarked,
/// the next. The conversation kept between turns is not marked: only the
/// request is.
pub fn mark(request: &mut Value) {
    // GAP(ch20/breakpoints): put "cache_control": ephemeral() on the last
    // element of request["tools"] (when there is one); replace a string
    // request["system"] with [{"type": "text", "text": it, "cache_control":
    // ephemeral()}]; make every message's string content a list of one
    // text block (so a message has one shape, marked or not), and mark
    // the last block of the last message.
    // starter: let _ = (request, ephemeral());
    if let Some(last) = request["tools"].as_array_mut().and_then(|t| t.last_mut()) {
        last["cache_control"] = ephemeral();
    }
    if let Value::String(text) = &request["system"] {
        let block = json!({ "type": "text", "text": text, "cache_control": ephemeral() });
        request["system"] = json!([block]);
    }
    let messages = request["messages"]
        .as_array_mut()
        .map_or(&mut [][..], |m| &mut m[..]);
    for message in messages.iter_mut() {
        if let Value::String(text) = &message["content"] {
            message["content"] = json!([{ "type": "text", "text": text }]);
        }
    }
    let last = messages
        .last_mut()
        .and_then(|m| m["content"].as_array_mut());
    if let Some(block) = last.and_then(|blocks| blocks.last_mut()) {
        block["cache_control"] = ephemeral();
    }
    // END(ch20/breakpoints)
}
// ANCHOR_END: mark

// ANCHOR: usage
/// A reply's `usage`, as the Messages API reports it. Every field may be
/// missing: a local model (Ollama) reports no cache figures.
#[derive(Debug, Default, Deserialize, Clone, Copy)]
pub struct Usage {
    pub input_tokens: Option<u64>,
    pub output_tokens: Option<u64>,
    pub cache_creation_input_tokens: Option<u64>,
    pub cache_read_input_tokens: Option<u64>,
}

/// The price of a cache write and of a read, against an input token's:
/// the API's multipliers for the 5-minute lifetime.
const WRITE: f64 = 1.25;
const READ: f64 = 0.1;

impl Usage {
    /// Written to the cache, read from it, sent uncached: the three parts
    /// of the input (0 for a figure the model did not report).
    pub fn parts(&self) -> (u64, u64, u64) {
        let or0 = |figure: Option<u64>| figure.unwrap_or(0);
        (
            or0(self.cache_creation_input_tokens),
            or0(self.cache_read_input_tokens),
            or0(self.input_tokens),
        )
    }

    /// The input's cost in base-token units (an uncached input token is
    /// 1), and what the same input costs without the cache.
    pub fn cost(&self) -> (f64, u64) {
        // GAP(ch20/usage): from parts(): with the cache, a written token
        // costs WRITE, a read one READ, an uncached one 1; without it,
        // every one of them costs 1, so that cost is their sum.
        // starter: let _ = (self.parts(), WRITE, READ);
        // starter: (0.0, 0)
        let (written, read, uncached) = self.parts();
        let cached = written as f64 * WRITE + read as f64 * READ + uncached as f64;
        (cached, written + read + uncached)
        // END(ch20/usage)
    }
}
// ANCHOR_END: usage

// ANCHOR: send
/// Reads a reply's `usage`: one line says what the turn wrote, read and
/// sent uncached, and its cost; the session's totals grow.
pub fn account(cache: &PromptCache, request: &Value, reply: &mut Value, log: &mut Log) {
    if let Some(stub) = &cache.stub {
        stub.fill(request, reply);
    }
    let usage = Usage::deserialize(&reply["usage"]).unwrap_or_default();
    let (written, read, uncached) = usage.parts();
    let (cost, without) = usage.cost();
    if usage.input_tokens.is_none() {
        log.say("  cache: the model reported no usage".to_string());
    } else {
        let output = usage.output_tokens.unwrap_or(0);
        log.say(format!(
            "  cache: wrote {written}, read {read}, uncached {uncached}, output {output}: \
             input {cost:.1} base tokens ({without} without the cache)"
        ));
    }
    let (total, total_without) = cache.session.get();
    cache.session.set((total + cost, total_without + without));
}
// ANCHOR_END: send

/// `WIRE_CACHE_BREAKER`, for the measurement: from the second request
/// on, `timestamp` puts a clock in the system prompt (one that ticks a
/// second a request, so the figures are the same every run), `reorder`
/// turns the MCP tools' order around (a server that lists in another
/// order), `change` edits the first tool's description (a server whose
/// list changed mid-session).
pub fn breaker(turn: u32, request: &mut Value) {
    let which = std::env::var("WIRE_CACHE_BREAKER").unwrap_or_default();
    let tools = request["tools"]
        .as_array_mut()
        .map_or(&mut [][..], |t| &mut t[..]);
    let mcp = tools.iter().take_while(|tool| is_mcp(tool)).count();
    match which.as_str() {
        "timestamp" => {
            let system = request["system"].as_str().unwrap_or_default();
            let clock = format!("\n\nThe time is 2026-12-04T09:00:{turn:02}Z.");
            request["system"] = json!(format!("{system}{clock}"));
        }
        "reorder" if turn > 1 => tools[..mcp].reverse(),
        "change" if turn > 1 && mcp > 0 => {
            let text = tools[0]["description"].as_str().unwrap_or_default();
            tools[0]["description"] = json!(format!("{text} (version 2)"));
        }
        _ => {}
    }
}

/// A tool of an MCP server: its qualified name says so.
pub fn is_mcp(tool: &Value) -> bool {
    tool["name"]
        .as_str()
        .is_some_and(|name| name.starts_with("mcp__"))
}
