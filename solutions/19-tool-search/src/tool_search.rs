//! Tool search, as Claude Code does it: past a threshold the model is not
//! sent the MCP tools' definitions, only their names and one tool of the
//! harness's own, `ToolSearch`, that finds them. What a search finds is
//! sent, in full, from the next request on. The setting is Claude Code's
//! environment variable `ENABLE_TOOL_SEARCH` (`true`, `false`, `auto`,
//! `auto:N`); unset, it is `auto`: defer when the MCP definitions would
//! take more than 10% of the context window.
//!
//! Nothing is kept between turns: the tools a conversation has found are
//! the matches of the `ToolSearch` calls in its messages, searched again.
//! `ToolSearch`, the extension, puts it in chapter 15's harness.

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{Value, json};
use wire_host::messages::{Block, ToolUse};
use wire_host::seams::{Call, Context, Extension, Harness, Outcome};
use wire_host::show::Log;
use wire_host::tokens;

/// The search tool's name, Claude Code's.
pub const TOOL_SEARCH: &str = "ToolSearch";
/// The setting, Claude Code's environment variable.
pub const SETTING: &str = "ENABLE_TOOL_SEARCH";
/// The context window `auto` takes its share of: Claude's, in tokens.
const CONTEXT_WINDOW: usize = 200_000;
/// `auto`'s share of the window, in percent (Claude Code's default).
const AUTO_PERCENT: usize = 10;
/// How many tools one search loads when it does not say (the course's).
const MAX_RESULTS: usize = 5;

/// `ENABLE_TOOL_SEARCH`: always, never, or past a share of the window.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Mode {
    Off,
    On,
    Auto { percent: usize },
}

impl Mode {
    /// Reads the setting's value (`None`: unset, so `auto`). A value it
    /// does not know is an error that names the ones it does.
    pub fn read(value: Option<&str>) -> Result<Mode, String> {
        let percent = |text: &str| match text.parse::<usize>() {
            Ok(percent) if percent <= 100 => Ok(Mode::Auto { percent }),
            _ => Err(format!(
                "{SETTING}=auto:{text}: N is a percentage, 0 to 100"
            )),
        };
        match value {
            None | Some("auto") => Ok(Mode::Auto {
                percent: AUTO_PERCENT,
            }),
            Some("true") => Ok(Mode::On),
            Some("false") => Ok(Mode::Off),
            Some(other) => match other.strip_prefix("auto:") {
                Some(text) => percent(text),
                None => Err(format!(
                    "{SETTING}={other}: expected true, false, auto or auto:N"
                )),
            },
        }
    }
}

// ANCHOR: extension
/// Tool search, as an extension of the harness: each request carries the
/// tools a conversation has found and the names of the others; a
/// deferred tool not yet found is refused with how to find it; and
/// `ToolSearch` runs here, in the harness.
pub struct ToolSearch {
    /// ENABLE_TOOL_SEARCH, read once at the start.
    pub mode: Mode,
}

#[async_trait(?Send)]
impl Extension for ToolSearch {
    /// The main conversation opens with a line: how many of its tools wait
    /// behind the search.
    async fn opening(
        &self,
        _: &Harness<'_>,
        context: &Context,
        message: Value,
        log: &mut Log,
    ) -> Result<Value, String> {
        if context.depth == 0 {
            log.say(self.shown(&context.tools));
        }
        Ok(message)
    }

    fn carry(&self, context: &Context, messages: &[Value], _turn: u32, request: &mut Value) {
        let offer = split(&context.tools, self.mode);
        request["tools"] = json!(tools_for(&offer, messages));
        let system = request["system"].as_str().unwrap_or_default();
        request["system"] = json!(announce(system, &offer));
    }

    fn not_sent(&self, context: &Context, name: &str) -> Option<String> {
        let offer = split(&context.tools, self.mode);
        let deferred = offer.deferred.iter().any(|tool| tool["name"] == name);
        deferred.then(|| not_loaded(name))
    }

    async fn run(&self, _: &Harness<'_>, context: &Context, call: &mut Call) -> Option<Outcome> {
        if call.name() != TOOL_SEARCH {
            return None;
        }
        Some(run(&split(&context.tools, self.mode), &call.tool_use.input))
    }
}
// ANCHOR_END: extension

/// A context's tools split in two: the ones sent in full on every request,
/// and the deferred ones, sent only by name until a search finds them.
#[derive(Debug, Default)]
pub struct Offer {
    pub loaded: Vec<Value>,
    pub deferred: Vec<Value>,
}

/// MCP tools are the ones that can be deferred: their names say so
/// (`mcp__server__tool`); the harness's own (Bash, Skill, Agent) never are.
fn from_a_server(tool: &Value) -> bool {
    tool["name"]
        .as_str()
        .is_some_and(|name| name.starts_with("mcp__"))
}

// ANCHOR: split
/// Which tools to defer: with `On` every MCP tool; with `Auto` all of
/// them when their definitions together cost more than the mode's share
/// of the context window, else none; with `Off` none.
pub fn split(tools: &[Value], mode: Mode) -> Offer {
    // GAP(ch19/defer): decide whether the MCP tools are deferred: always
    // for Mode::On, never for Mode::Off, and for Mode::Auto when the tokens
    // of their definitions (tokens::count of each one's JSON, summed) pass
    // `percent` of CONTEXT_WINDOW. Then put every MCP tool (from_a_server)
    // in `deferred` if so, every other tool in `loaded`, in their order.
    // starter: let _ = (mode, CONTEXT_WINDOW, from_a_server(&Value::Null));
    // starter: Offer { loaded: tools.to_vec(), deferred: Vec::new() }
    let mcp_tokens: usize = (tools.iter())
        .filter(|tool| from_a_server(tool))
        .map(|tool| tokens::count(&tool.to_string()))
        .sum();
    let defer = match mode {
        Mode::Off => false,
        Mode::On => true,
        Mode::Auto { percent } => mcp_tokens * 100 > CONTEXT_WINDOW * percent,
    };
    let (deferred, loaded) = (tools.iter().cloned()).partition(|tool| defer && from_a_server(tool));
    Offer { loaded, deferred }
    // END(ch19/defer)
}
// ANCHOR_END: split

/// What the model sends `ToolSearch`.
#[derive(Deserialize)]
struct Search {
    query: String,
    max_results: Option<usize>,
}

// ANCHOR: search
/// The deferred tools a query finds, best first: `select:A,B` names them
/// exactly; otherwise each word of the query is looked for, whatever its
/// case, in a tool's name (its `_`s as spaces) and description, and the
/// tools that hold most of the words come first (ties in catalogue order).
pub fn search<'a>(deferred: &'a [Value], query: &str, max: usize) -> Vec<&'a Value> {
    // GAP(ch19/search): `select:` followed by names separated by commas:
    // the deferred tools of exactly those names, in the query's order.
    // Otherwise split the lowercased query into words; a tool's score is
    // how many of them occur in its lowercased name (with `_` as a space)
    // plus description; keep the tools that score above 0, highest first
    // (a stable sort keeps ties in order), at most `max` of them.
    // starter: let _ = (deferred, query, max);
    // starter: Vec::new()
    let named = |name: &str| deferred.iter().find(|tool| tool["name"] == name.trim());
    if let Some(names) = query.strip_prefix("select:") {
        return names.split(',').filter_map(named).take(max).collect();
    }
    let query = query.to_lowercase();
    let words: Vec<&str> = query.split_whitespace().collect();
    let mut scored: Vec<(usize, &Value)> = (deferred.iter())
        .map(|tool| {
            let name = tool["name"].as_str().unwrap_or_default().replace('_', " ");
            let description = tool["description"].as_str().unwrap_or_default();
            let text = format!("{name} {description}").to_lowercase();
            (
                words.iter().filter(|word| text.contains(*word)).count(),
                tool,
            )
        })
        .filter(|(score, _)| *score > 0)
        .collect();
    scored.sort_by_key(|(score, _)| std::cmp::Reverse(*score));
    scored.into_iter().take(max).map(|(_, tool)| tool).collect()
    // END(ch19/search)
}
// ANCHOR_END: search

/// Runs a `ToolSearch` call: the names it found, which the next request
/// carries in full, or why it found none. A miss is no error: the model
/// reads it and tries other words, at the cost of this one turn.
pub fn run(offer: &Offer, input: &Value) -> Result<Value, String> {
    let asked: Search = serde_json::from_value(input.clone())
        .map_err(|err| format!("{TOOL_SEARCH} takes {{\"query\": string}}: {err}"))?;
    let max = asked.max_results.unwrap_or(MAX_RESULTS);
    let found: Vec<&str> = search(&offer.deferred, &asked.query, max)
        .iter()
        .filter_map(|tool| tool["name"].as_str())
        .collect();
    let text = match found.as_slice() {
        [] => format!(
            "No deferred tool matches {:?}. Try other words from the names in \
             <available-deferred-tools>, or select:NAME for one of them.",
            asked.query
        ),
        names => format!(
            "Found {}; the definitions are in your tools from the next turn: {}",
            names.len(),
            names.join(", ")
        ),
    };
    Ok(json!({ "content": [{ "type": "text", "text": text }] }))
}

/// The search tool's definition, as the model sees it.
fn definition() -> Value {
    json!({
        "name": TOOL_SEARCH,
        "description": "Finds deferred tools, whose names are listed in \
            <available-deferred-tools>, and loads their definitions for the next turn. \
            Use select:NAME,NAME for tools you know by name, or words that describe the task.",
        "input_schema": {
            "type": "object",
            "properties": {
                "query": { "type": "string", "description": "select:NAME,NAME or keywords" },
                "max_results": { "type": "number", "description": "At most this many tools (default 5)" }
            },
            "required": ["query"]
        }
    })
}

// ANCHOR: tools_for
/// The tools of the next request: the loaded ones, then (when there are
/// deferred tools) `ToolSearch`, then every deferred tool an earlier
/// search in `messages` found, once each, in the order they were found.
pub fn tools_for(offer: &Offer, messages: &[Value]) -> Vec<Value> {
    // GAP(ch19/load): start from offer.loaded. If offer.deferred is
    // empty, that is all. Otherwise add definition(), then for each
    // ToolSearch call in the messages (searches_in), the tools
    // search(&offer.deferred, query, max) finds, skipping one already
    // added.
    // starter: let _ = (messages, definition(), searches_in(messages));
    // starter: offer.loaded.clone()
    let mut tools = offer.loaded.clone();
    if offer.deferred.is_empty() {
        return tools;
    }
    tools.push(definition());
    for Search { query, max_results } in searches_in(messages) {
        for found in search(&offer.deferred, &query, max_results.unwrap_or(MAX_RESULTS)) {
            if !tools.contains(found) {
                tools.push(found.clone());
            }
        }
    }
    tools
    // END(ch19/load)
}
// ANCHOR_END: tools_for

/// The `ToolSearch` calls the model made so far, in order (an input that
/// is not a search is skipped: its call was answered with an error).
fn searches_in(messages: &[Value]) -> Vec<Search> {
    let blocks = messages
        .iter()
        .filter(|message| message["role"] == "assistant")
        .filter_map(|message| Vec::<Block>::deserialize(&message["content"]).ok())
        .flatten();
    blocks
        .filter_map(|block| match block {
            Block::ToolUse(ToolUse { name, input, .. }) if name == TOOL_SEARCH => {
                serde_json::from_value(input).ok()
            }
            _ => None,
        })
        .collect()
}

/// The system prompt with the deferred tools' names after it, so the model
/// knows what it can search for.
pub fn announce(system: &str, offer: &Offer) -> String {
    if offer.deferred.is_empty() {
        return system.to_string();
    }
    let names: Vec<&str> = (offer.deferred.iter())
        .filter_map(|tool| tool["name"].as_str())
        .collect();
    format!(
        "{system}\n\n<available-deferred-tools>\n{}\n</available-deferred-tools>",
        names.join("\n")
    )
}

impl ToolSearch {
    /// The line the session starts with: how many tools are deferred.
    pub fn shown(&self, tools: &[Value]) -> String {
        let offer = split(tools, self.mode);
        format!(
            "tool search ({SETTING}={}): {} of {} tools deferred",
            match self.mode {
                Mode::Off => "false".to_string(),
                Mode::On => "true".to_string(),
                Mode::Auto { percent } => format!("auto:{percent}"),
            },
            offer.deferred.len(),
            tools.len()
        )
    }
}

/// The error a deferred tool's call gets before a search loaded it.
pub fn not_loaded(name: &str) -> String {
    format!(
        "{name} is a deferred tool: its definition is not loaded. Call {TOOL_SEARCH} with \
         {{\"query\": \"select:{name}\"}} first, then call it."
    )
}
