//! A reader's view of each transcript, generated for the book.
//!
//! A transcript is written for the runner: one frame per line, however long.
//! The book shows a *view* of it instead, under
//! `book/src/generated/views/chNN/<scenario>.md`: each frame labelled with
//! who sends it to whom and what it is, its JSON pretty-printed (in the key
//! order and number spelling of the wire), a model request folded down to
//! what is new since the previous one, the metadata as a caption, and the
//! raw transcript, the tested source, one click away.
//!
//! [`steps`] reads a transcript as a conversation (who speaks, which request
//! a reply answers, which request a cancellation ends); the views and the
//! sequence diagrams ([`crate::generate::diagrams`]) are both drawn from it.
//! `cargo xtask changes` writes both; `tests/tests/generated.rs` checks that
//! they are fresh.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::fs;
use std::path::PathBuf;

use serde_json::Value;

use crate::course::{self, Chapter};
use crate::generate::diagrams;
use crate::run::transcript::{Direction, Frame, Runner, Transcript};

/// The longest code line a chapter page shows outside a folded block.
pub const MAX_LINE: usize = 100;

/// How a step is drawn: the diagrams give each its own line style.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    Request,
    Notification,
    Reply,
    Error,
    /// Not JSON-RPC: plain text, exact bytes, a program's output.
    Other,
}

/// One thing that happens in a transcript: a frame, or a run of text lines.
#[derive(Clone, Debug)]
pub struct Step {
    /// 1-based, as the view and the diagram number it.
    pub number: usize,
    /// Lanes: `client`, `host`, `model`, `server`, `server add`, `stdout`, ….
    pub from: String,
    pub to: String,
    /// For the view: Markdown.
    pub label: String,
    /// For the diagram: a few plain words.
    pub short: String,
    pub style: Style,
    /// Indices into the transcript's frames.
    pub frames: Vec<usize>,
    /// `channel/id` of the request this step sends.
    pub opens: Option<String>,
    /// `channel/id` of the request this step answers or cancels.
    pub closes: Option<String>,
    /// The JSON-RPC method it calls, notifies or answers.
    pub method: Option<String>,
}

/// Where the view of a scenario is written.
pub fn view_path(chapter: &Chapter, scenario: &str) -> PathBuf {
    views_dir()
        .join(chapter.id())
        .join(format!("{scenario}.md"))
}

pub fn views_dir() -> PathBuf {
    course::root().join("book/src/generated/views")
}

/// Every view, for every transcript of every chapter, stretch ones
/// (`views/chNN/stretch/NAME.md`) included.
pub fn files() -> Result<Vec<(PathBuf, String)>, String> {
    let mut files = Vec::new();
    for chapter in Chapter::all() {
        let scenarios: Vec<String> = chapter
            .scenarios()
            .into_iter()
            .chain(chapter.stretch_scenarios())
            .collect();
        // The views a page includes, in the order it shows them, share what
        // they have shown; a view on no page stands alone.
        let mut order: Vec<(Option<String>, String)> = Vec::new();
        for page in crate::book::chapter_pages(&chapter) {
            let text =
                fs::read_to_string(course::root().join("book/src").join(&page)).unwrap_or_default();
            let prefix = format!("{{{{#include generated/views/{}/", chapter.id());
            for line in text.lines() {
                let Some(rest) = line.trim().strip_prefix(&prefix) else {
                    continue;
                };
                let scenario = rest.trim_end_matches("}}").trim_end_matches(".md");
                if scenarios.iter().any(|s| s == scenario)
                    && !order.iter().any(|(_, s)| s == scenario)
                {
                    order.push((Some(page.clone()), scenario.to_string()));
                }
            }
        }
        for scenario in &scenarios {
            if !order.iter().any(|(_, s)| s == scenario) {
                order.push((None, scenario.clone()));
            }
        }
        // A chapter split into sub-pages shows a large frame once, on the
        // first page (in reading order) that has it; later pages fold it and
        // link back to that page.
        let reading = |page: &Option<String>| {
            let main = format!("{}.md", chapter.dir);
            (page.as_deref() == Some(main.as_str())) as u8
        };
        order.sort_by_key(|(page, _)| if page.is_some() { reading(page) } else { 2 });
        let mut shown = Shown::default();
        for (page, scenario) in order {
            let path = chapter.transcript_path(&scenario);
            let text = fs::read_to_string(&path)
                .map_err(|err| format!("cannot read {}: {err}", path.display()))?;
            let mut transcript = Transcript::parse(&path, &text).map_err(|err| err.to_string())?;
            // `stretch/NAME`: named by its path under the chapter's folder.
            transcript.name = scenario.clone();
            let mut alone = Shown::default();
            let seen = match page {
                Some(page) => {
                    shown.page = Some(page);
                    &mut shown
                }
                None => &mut alone,
            };
            files.push((
                view_path(&chapter, &scenario),
                render_on_page(&chapter, &transcript, &text, seen),
            ));
        }
    }
    Ok(files)
}

/// The large frames a page has shown so far, by their JSON without the
/// `id` (`tools/list`'s result is the same result whatever the request's
/// id): where each was first, as `(scenario, frame number)`.
#[derive(Default, Clone)]
pub struct Shown {
    frames: BTreeMap<String, (String, usize, Option<Value>, Option<String>)>,
    /// The page (`07-agent-loop-tour.md`) the view being rendered is on.
    page: Option<String>,
    /// Model requests by everything but their `messages` (the model, the
    /// system prompt, the tools): where such a request was first shown.
    requests: BTreeMap<String, (String, usize, Option<String>)>,
    /// Tool definitions in model requests, by their JSON: where each was
    /// first shown.
    tools: BTreeMap<String, (String, usize, Option<String>)>,
}

/// Whether a view's first model request carries tool definitions an
/// earlier view of the page or chapter showed.
fn known_tools(value: &Value, shown: &Shown) -> bool {
    value
        .get("tools")
        .and_then(Value::as_array)
        .is_some_and(|tools| {
            tools
                .iter()
                .any(|tool| shown.tools.contains_key(&tool.to_string()))
        })
}

/// Where a frame was first shown, for a summary or a sentence: ` of
/// <code>ch09/tour</code> on <a …>its page</a>`, or ` above`.
fn first_shown(
    (scenario, _, page): &(String, usize, Option<String>),
    chapter: &Chapter,
    transcript: &Transcript,
    shown: &Shown,
) -> String {
    let whose = if *scenario == transcript.name {
        String::new()
    } else {
        format!(" of <code>{}/{scenario}</code>", chapter.id())
    };
    let place = match page {
        Some(page) if shown.page.as_ref() != Some(page) => format!(
            " on <a href=\"{}\">{}</a>",
            page.replace(".md", ".html"),
            page_title(page)
        ),
        _ => " above".to_string(),
    };
    format!("{whose}{place}")
}

/// A view's first model request some of whose tool definitions an earlier
/// view showed: those are named, the rest of the request is printed, and
/// the whole request is folded.
fn fewer_tools(
    out: &mut String,
    text: &str,
    value: &Value,
    chapter: &Chapter,
    transcript: &Transcript,
    shown: &Shown,
) {
    let tools = value
        .get("tools")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let (known, new): (Vec<Value>, Vec<Value>) = tools
        .into_iter()
        .partition(|tool| shown.tools.contains_key(&tool.to_string()));
    let origins: Vec<&(String, usize, Option<String>)> = known
        .iter()
        .filter_map(|tool| shown.tools.get(&tool.to_string()))
        .collect();
    let names: Vec<String> = known
        .iter()
        .map(|tool| {
            let name = tool.get("name").and_then(Value::as_str).unwrap_or("?");
            format!("<code>{name}</code>")
        })
        .collect();
    let whence = match origins.first() {
        Some(first)
            if origins
                .iter()
                .all(|origin| origin.1 == first.1 && origin.0 == first.0) =>
        {
            format!(
                "as in frame {}{}",
                first.1,
                first_shown(first, chapter, transcript, shown)
            )
        }
        _ => "as earlier views of this chapter show them".to_string(),
    };
    let _ = writeln!(
        out,
        "Its tools {} are defined {whence}; the rest of the request:\n",
        names.join(", ")
    );
    let mut rest = value.clone();
    if let Some(map) = rest.as_object_mut() {
        map.insert("tools".to_string(), Value::Array(new));
    }
    let rest = serde_json::to_string(&rest).unwrap_or_default();
    fence(out, "json", &pretty_json(&rest));
    let _ = writeln!(out, "<details>\n<summary>The whole request</summary>\n");
    fence(out, "json", &pretty_json(text));
    let _ = writeln!(out, "</details>\n");
}

/// A model request without its conversation: what most requests of a
/// chapter share.
fn settings_key(value: &Value) -> String {
    let mut value = value.clone();
    if let Value::Object(map) = &mut value {
        map.remove("messages");
    }
    value.to_string()
}

/// A view's first model request whose settings (model, system prompt,
/// tools) an earlier view showed: only its messages, the whole request
/// folded.
fn same_settings(
    out: &mut String,
    text: &str,
    value: &Value,
    first: &(String, usize, Option<String>),
    chapter: &Chapter,
    transcript: &Transcript,
    shown: &Shown,
) {
    let number = first.1;
    let where_first = first_shown(first, chapter, transcript, shown);
    let keys: Vec<String> = value
        .as_object()
        .map(|map| {
            map.keys()
                .filter(|key| *key != "messages")
                .map(|key| format!("<code>{key}</code>"))
                .collect()
        })
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "Its {} are those of frame {number}{where_first}; its messages:\n",
        keys.join(", ")
    );
    let messages = value.get("messages").cloned().unwrap_or(Value::Null);
    let messages = serde_json::to_string(&messages).unwrap_or_default();
    fence(out, "json", &pretty_json(&messages));
    let _ = writeln!(out, "<details>\n<summary>The whole request</summary>\n");
    fence(out, "json", &pretty_json(text));
    let _ = writeln!(out, "</details>\n");
}

/// The page's title, its first line without `# ` and `Chapter N: `, for a
/// link back to the page that showed a frame first.
fn page_title(page: &str) -> String {
    let text = fs::read_to_string(course::root().join("book/src").join(page)).unwrap_or_default();
    let title = text
        .lines()
        .next()
        .unwrap_or_default()
        .trim_start_matches('#')
        .trim();
    let title = match title.split_once(": ") {
        Some((chapter, rest)) if chapter.starts_with("Chapter ") => rest,
        _ => title,
    };
    // Raw HTML: Markdown's `code` is written out.
    let mut html = String::new();
    for (index, part) in title
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .split('`')
        .enumerate()
    {
        if index % 2 == 1 {
            html += &format!("<code>{part}</code>");
        } else {
            html += part;
        }
    }
    html
}

/// A frame this long (pretty-printed lines) is shown once per page; again,
/// it is named and folded.
const REPEAT_LINES: usize = 8;

/// A view with this many steps shows the first [`RUN_HEAD`] and folds the
/// rest, so a long run does not push the page's prose screens apart.
const LONG_RUN: usize = 12;
const RUN_HEAD: usize = 8;
const RUN_LINES: usize = 100;

/// The key under which a frame counts as already shown.
fn repeat_key(value: &Value) -> String {
    let mut value = value.clone();
    if let Value::Object(map) = &mut value {
        map.remove("id");
    }
    value.to_string()
}

/// The lane of the program that talks to servers: a server's tests play
/// its client; from chapter 6 the program under test is itself the client
/// (`runner: client`) or a host with a model (`runner: agent`).
fn own_lane(transcript: &Transcript) -> &'static str {
    match transcript.runner {
        Runner::Agent => "host",
        _ => "client",
    }
}

fn server_lane(channel: Option<&str>) -> String {
    match channel {
        Some(name) => format!("server {name}"),
        None => "server".to_string(),
    }
}

/// The model in one context: `model` for the main conversation, `model
/// [toolu_01]` for the subagent that call started (chapter 9), so each
/// subagent gets a lane of its own.
fn model_lane(context: Option<&str>) -> String {
    match context {
        Some(name) => format!("model [{name}]"),
        None => "model".to_string(),
    }
}

/// The lanes a step goes between, from the frame's direction.
fn lanes(transcript: &Transcript, frame: &Frame) -> (String, String) {
    let own = own_lane(transcript).to_string();
    let server = server_lane(frame.channel.as_deref());
    match frame.direction {
        Direction::ClientToServer => (own, server),
        Direction::ServerToClient => (server, own),
        Direction::HostToModel => (own, model_lane(frame.channel.as_deref())),
        Direction::ModelToHost => (model_lane(frame.channel.as_deref()), own),
        Direction::HarnessToHook => (own, "hook".to_string()),
        Direction::HookToHarness => ("hook".to_string(), own),
        Direction::Stdout => (own, "stdout".to_string()),
    }
}

/// The frame's line in the transcript, without its channel.
fn line_of<'a>(raw: &'a str, frame: &Frame) -> &'a str {
    let line = raw.lines().nth(frame.line - 1).unwrap_or_default();
    match line.strip_prefix('[') {
        Some(rest) => rest.split_once("] ").map(|(_, rest)| rest).unwrap_or(rest),
        None => line,
    }
}

/// The frame as written in the transcript, without channel and arrow.
fn written(raw: &str, frame: &Frame) -> String {
    let line = line_of(raw, frame);
    let rest = line.strip_prefix(frame.direction.arrow()).unwrap_or(line);
    let rest = rest.strip_prefix('!').unwrap_or(rest);
    rest.strip_prefix(' ').unwrap_or(rest).to_string()
}

/// `->!` and `<-!`: a frame spelled as exact bytes.
fn is_exact_bytes(raw: &str, frame: &Frame) -> bool {
    line_of(raw, frame).starts_with(&format!("{}!", frame.direction.arrow()))
}

/// The frame's JSON, when it is one line of JSON.
fn json_of(raw: &str, frame: &Frame) -> Option<(String, Value)> {
    if is_exact_bytes(raw, frame) || frame.direction == Direction::Stdout {
        return None;
    }
    let text = written(raw, frame);
    let value = serde_json::from_str::<Value>(&text).ok()?;
    // A bare number or string is JSON but no message: show it as text.
    matches!(value, Value::Object(_) | Value::Array(_)).then_some((text, value))
}

/// What the steps so far have asked, keyed by `channel/id`.
#[derive(Default)]
struct Requests {
    /// Requests still waiting for an answer, and their methods.
    pending: BTreeMap<String, String>,
    /// Requests the client gave up on, and their methods.
    cancelled: BTreeMap<String, String>,
    /// Requests that sent a cursor: their reply is a page after the first.
    paged: BTreeSet<String>,
}

/// The conversation in a transcript, step by step.
pub fn steps(transcript: &Transcript, raw: &str) -> Vec<Step> {
    let mut steps: Vec<Step> = Vec::new();
    let mut requests = Requests::default();
    // Turns are counted per context: subagents' turns interleave.
    let mut turns: BTreeMap<String, usize> = BTreeMap::new();
    for (index, frame) in transcript.frames.iter().enumerate() {
        let (from, to) = lanes(transcript, frame);
        let channel = frame.channel.clone().unwrap_or_default();
        let mut step = Step {
            number: steps.len() + 1,
            from,
            to,
            label: String::new(),
            short: String::new(),
            style: Style::Other,
            frames: vec![index],
            opens: None,
            closes: None,
            method: None,
        };
        if let Some((_, value)) = json_of(raw, frame) {
            match frame.direction {
                Direction::HostToModel => {
                    let turn = turns.entry(channel.clone()).or_default();
                    *turn += 1;
                    describe_model_request(&mut step, &value, *turn);
                    step.opens = Some(format!("model/{channel}/{turn}"));
                }
                Direction::ModelToHost => {
                    describe_model_reply(&mut step, &value);
                    let turn = turns.get(&channel).copied().unwrap_or_default();
                    step.closes = Some(format!("model/{channel}/{turn}"));
                }
                Direction::HarnessToHook => describe_hook_input(&mut step, &value),
                Direction::HookToHarness => describe_hook_answer(&mut step, &value),
                _ => describe_message(&mut step, &value, &channel, &mut requests),
            }
        } else {
            let text = written(raw, frame);
            let exact = is_exact_bytes(raw, frame);
            // Consecutive plain text lines between the same lanes read as one block.
            if let Some(last) = steps.last_mut() {
                let previous = &transcript.frames[*last.frames.last().expect("a step has frames")];
                if !exact
                    && last.style == Style::Other
                    && previous.direction == frame.direction
                    && previous.channel == frame.channel
                    && !is_exact_bytes(raw, previous)
                    && json_of(raw, previous).is_none()
                {
                    last.frames.push(index);
                    let lines = last.frames.len();
                    let first = written(raw, &transcript.frames[last.frames[0]]);
                    if transcript.runner == Runner::Http && !first.is_empty() {
                        // A request line or a status line, then its headers:
                        // what HTTP says is the first line.
                        let headers = lines - 1;
                        let plural = if headers == 1 { "" } else { "s" };
                        last.label = format!("`{first}` and {headers} more line{plural} of HTTP");
                        last.short = clip(&first, 30);
                    } else {
                        last.label = text_label(frame.direction, lines);
                        last.short = format!("{lines} lines of text");
                    }
                    continue;
                }
            }
            if exact {
                // Bytes that hold one JSON message still ask or answer something.
                let message = std::str::from_utf8(&frame.bytes)
                    .ok()
                    .and_then(|text| serde_json::from_str::<Value>(text.trim_end()).ok())
                    .filter(Value::is_object);
                match message {
                    Some(value) if frame.direction != Direction::Stdout => {
                        describe_message(&mut step, &value, &channel, &mut requests);
                        step.label = format!("{}, as exact bytes", step.label);
                    }
                    _ => {
                        step.label = "exact bytes".to_string();
                        step.short = format!("bytes {}", clip(&text, 22));
                    }
                }
            } else {
                step.label = if text.is_empty() {
                    "an empty line".to_string()
                } else {
                    text_label(frame.direction, 1)
                };
                step.short = if text.is_empty() {
                    "an empty line".to_string()
                } else if transcript.runner == Runner::Http {
                    // `202 Accepted`, alone: a status line needs no quotes.
                    step.label = format!("`{text}`, a line of HTTP");
                    clip(&text, 30)
                } else {
                    format!("“{}”", clip(&text, 24))
                };
            }
        }
        steps.push(step);
    }
    steps
}

/// What the harness hands a hook on stdin: the event, and for a tool event
/// the tool and what it was asked (`PreToolUse Bash rm -rf "$PWD"`).
fn describe_hook_input(step: &mut Step, value: &Value) {
    let event = value["hook_event_name"].as_str().unwrap_or("a hook event");
    let tool = value["tool_name"].as_str();
    let asked = value
        .pointer("/tool_input/command")
        .or_else(|| value.get("prompt"))
        .and_then(Value::as_str);
    step.style = Style::Request;
    step.label = match (tool, asked) {
        (Some(tool), Some(asked)) => format!("the hook's input: `{event}` for `{tool}` `{asked}`"),
        (Some(tool), None) => format!("the hook's input: `{event}` for `{tool}`"),
        (None, Some(asked)) => format!("the hook's input: `{event}`, `{asked}`"),
        (None, None) => format!("the hook's input: `{event}`"),
    };
    let what = [Some(event), tool, asked].into_iter().flatten();
    step.short = clip(&what.collect::<Vec<_>>().join(" "), 34);
}

/// How a hook answered: its exit status, and what that decides. Exit 2
/// blocks; with another status the JSON on stdout, if any, decides.
fn describe_hook_answer(step: &mut Step, value: &Value) {
    let exit = value["exit"].as_i64().unwrap_or_default();
    let stdout = value["stdout"].as_str().unwrap_or_default();
    // `continue: false` stops the whole run, whatever else the JSON says.
    let decision = serde_json::from_str::<Value>(stdout.trim())
        .ok()
        .and_then(|json| {
            if json.get("continue") == Some(&Value::Bool(false)) {
                return Some("stop".to_string());
            }
            json.get("decision")
                .or_else(|| json.pointer("/hookSpecificOutput/permissionDecision"))
                .and_then(Value::as_str)
                .map(str::to_string)
        });
    let decides = match (exit, decision) {
        (2, _) => "block".to_string(),
        (_, Some(decision)) => decision,
        // "No objection" reads true for every event: before a call it
        // runs, at a Stop the run may end.
        (0, None) => "no objection".to_string(),
        (_, None) => "no objection (a non-blocking error)".to_string(),
    };
    step.style = if exit == 2 {
        Style::Error
    } else {
        Style::Reply
    };
    let stderr = value["stderr"].as_str().unwrap_or_default().trim();
    step.label = if stderr.is_empty() {
        format!("the hook exits with status {exit}: {decides}")
    } else {
        format!(
            "the hook exits with status {exit}: {decides}, stderr {}",
            code_span(stderr)
        )
    };
    step.short = format!("exit {exit} → {decides}");
}

fn text_label(direction: Direction, lines: usize) -> String {
    let what = if lines == 1 {
        "a line".to_string()
    } else {
        format!("{lines} lines")
    };
    if direction == Direction::Stdout {
        format!("prints {what} on its stdout")
    } else {
        format!("{what} of text, not JSON")
    }
}

/// `abc…` when `text` is longer than `max` characters.
fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_string()
    } else {
        let head: String = text.chars().take(max - 1).collect();
        format!("{head}…")
    }
}

fn id_text(value: &Value) -> Option<String> {
    value.get("id").map(|id| match id {
        Value::String(text) => format!("\"{text}\""),
        other => other.to_string(),
    })
}

/// The standard JSON-RPC error codes, and MCP's resource-not-found.
fn error_name(code: i64) -> Option<&'static str> {
    Some(match code {
        -32700 => "parse error",
        -32600 => "invalid request",
        -32601 => "method not found",
        -32602 => "invalid params",
        -32603 => "internal error",
        -32002 => "resource not found",
        _ => return None,
    })
}

/// `−32602`, with a real minus sign.
fn code_text(code: i64) -> String {
    if code < 0 {
        format!("−{}", -code)
    } else {
        code.to_string()
    }
}

fn describe_message(step: &mut Step, value: &Value, channel: &str, requests: &mut Requests) {
    let Requests {
        pending,
        cancelled,
        paged,
    } = requests;
    if let Value::Array(items) = value {
        let parts: Vec<String> = items.iter().map(one_line_summary).collect();
        step.style = Style::Request;
        if items.is_empty() {
            step.label = "an empty batch".to_string();
            step.short = "empty batch [ ]".to_string();
        } else {
            step.label = format!(
                "a batch of {}: {}",
                items.len(),
                parts
                    .iter()
                    .map(|p| format!("`{p}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            step.short = format!("batch [{}]", clip(&parts.join(", "), 28));
        }
        return;
    }
    let id = id_text(value);
    let key = |id: &str| format!("{channel}/{id}");
    if let Some(method) = value.get("method").and_then(Value::as_str) {
        step.method = Some(method.to_string());
        match &id {
            Some(id) => {
                step.style = Style::Request;
                step.label = format!("request `{method}`, id {id}");
                // What is called or read says more than the method alone.
                let what = ["/params/name", "/params/uri"]
                    .iter()
                    .find_map(|pointer| value.pointer(pointer).and_then(Value::as_str))
                    .map(|what| format!(" {}", clip(what, 24)))
                    .unwrap_or_default();
                step.short = format!("{method}{what}  · id {id}");
                if let Some(cursor) = value.pointer("/params/cursor").and_then(Value::as_str) {
                    step.short += &format!(" · cursor {}", clip(cursor, 26));
                    paged.insert(key(id));
                }
                step.opens = Some(key(id));
                pending.insert(key(id), method.to_string());
            }
            None => {
                step.style = Style::Notification;
                step.label = format!("notification `{method}`");
                step.short = method.to_string();
                let target = value.pointer("/params/requestId").map(|id| match id {
                    Value::String(text) => format!("\"{text}\""),
                    other => other.to_string(),
                });
                if let (Some(target), "notifications/cancelled") = (target, method) {
                    let reason = value
                        .pointer("/params/reason")
                        .and_then(Value::as_str)
                        .map(|reason| format!(": {reason}"))
                        .unwrap_or_default();
                    step.label = format!("notification `{method}` for request {target}");
                    step.short = format!("{method}  · request {target}{reason}");
                    if let Some(method) = pending.remove(&key(&target)) {
                        step.closes = Some(key(&target));
                        cancelled.insert(key(&target), method);
                    }
                }
            }
        }
        return;
    }
    let answered = id.as_ref().and_then(|id| pending.remove(&key(id)));
    let late = id.as_ref().and_then(|id| cancelled.remove(&key(id)));
    if answered.is_some() {
        step.closes = id.as_ref().map(|id| key(id));
    }
    step.method = answered.clone().or(late.clone());
    let to_what = match (&answered, &late, &id) {
        (Some(method), _, Some(id)) => format!("`{method}`, id {id}"),
        (None, Some(method), Some(id)) => {
            format!("`{method}`, id {id}, which was cancelled: nobody waits for it")
        }
        (None, None, Some(id)) => format!("id {id}"),
        _ => "with no id".to_string(),
    };
    let short_to = match (&answered, &late, &id) {
        (Some(method), _, Some(id)) => format!("{method}  · id {id}"),
        (None, Some(method), Some(id)) => format!("{method}  · id {id} (too late)"),
        (None, None, Some(id)) => format!("id {id}"),
        _ => "no id".to_string(),
    };
    if let Some(error) = value.get("error") {
        let code = error.get("code").and_then(Value::as_i64).unwrap_or(0);
        let name = error_name(code)
            .map(|name| format!(" ({name})"))
            .unwrap_or_default();
        step.style = Style::Error;
        let answering = if id.is_some() { "answering " } else { "" };
        step.label = format!("error {}{name}, {answering}{to_what}", code_text(code));
        step.short = format!("error {} to {short_to}", code_text(code));
    } else if value.get("result").is_some() {
        let tool_error = value.pointer("/result/isError") == Some(&Value::Bool(true));
        step.style = if tool_error {
            Style::Error
        } else {
            Style::Reply
        };
        let flag = if tool_error { " (isError: true)" } else { "" };
        let answering = if id.is_some() { "answering " } else { "" };
        step.label = format!("result{flag}, {answering}{to_what}");
        step.short = if tool_error {
            format!("isError result of {short_to}")
        } else {
            format!("result of {short_to}")
        };
        // Pages: the cursor to the next one, or none on the last page.
        match value.pointer("/result/nextCursor").and_then(Value::as_str) {
            Some(cursor) => step.short += &format!(" · nextCursor {}", clip(cursor, 26)),
            None if id.as_ref().is_some_and(|id| paged.contains(&key(id))) => {
                step.short += " · no nextCursor"
            }
            None => {}
        }
    } else {
        step.label = "a JSON object that is no JSON-RPC message".to_string();
        step.short = "not a message".to_string();
    }
}

/// `ping id 1`, `result id 2`, `error −32600`: one message of a batch.
fn one_line_summary(value: &Value) -> String {
    let id = id_text(value)
        .map(|id| format!(" id {id}"))
        .unwrap_or_default();
    if let Some(method) = value.get("method").and_then(Value::as_str) {
        format!("{method}{id}")
    } else if let Some(code) = value.pointer("/error/code").and_then(Value::as_i64) {
        format!("error {}{id}", code_text(code))
    } else if value.get("result").is_some() {
        format!("result{id}")
    } else {
        clip(&value.to_string(), 20)
    }
}

fn describe_model_request(step: &mut Step, value: &Value, turn: usize) {
    let messages = value
        .get("messages")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    let plural = if messages == 1 { "" } else { "s" };
    step.style = Style::Request;
    step.label = format!("Messages API request, turn {turn}: {messages} message{plural}");
    step.short = format!("POST /v1/messages  · {messages} message{plural}");
}

fn describe_model_reply(step: &mut Step, value: &Value) {
    if let Some(kind) = value.pointer("/error/type").and_then(Value::as_str) {
        step.style = Style::Error;
        step.label = format!("error `{kind}`");
        step.short = format!("error {kind}");
        return;
    }
    let stop = value
        .get("stop_reason")
        .and_then(Value::as_str)
        .unwrap_or("?");
    let blocks = value
        .get("content")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let calls = blocks
        .iter()
        .filter(|block| block.get("type").and_then(Value::as_str) == Some("tool_use"))
        .count();
    step.style = Style::Reply;
    if calls > 0 {
        let plural = if calls == 1 { "" } else { "s" };
        step.label = format!("reply, stop_reason `{stop}`: {calls} tool call{plural}");
        let names: Vec<&str> = blocks
            .iter()
            .filter_map(|block| block.get("name").and_then(Value::as_str))
            .collect();
        step.short = format!("{stop}  · {}", clip(&names.join(", "), 30));
    } else {
        step.label = format!("reply, stop_reason `{stop}`");
        let text = blocks
            .iter()
            .find_map(|block| block.get("text").and_then(Value::as_str))
            .unwrap_or_default();
        step.short = format!("{stop}  · “{}”", clip(text, 22));
    }
}

/// A JSON value as written: scalars keep their text, objects their order.
enum Node {
    Scalar(String),
    Array(Vec<Node>),
    Object(Vec<(String, Node)>),
}

/// Reads JSON that serde_json has already accepted.
fn parse_node(chars: &[char], at: &mut usize) -> Node {
    let skip = |at: &mut usize| {
        while chars.get(*at).is_some_and(|c| c.is_whitespace()) {
            *at += 1;
        }
    };
    skip(at);
    let string = |at: &mut usize| {
        let start = *at;
        *at += 1;
        while *at < chars.len() && chars[*at] != '"' {
            *at += if chars[*at] == '\\' { 2 } else { 1 };
        }
        *at += 1;
        chars[start..(*at).min(chars.len())]
            .iter()
            .collect::<String>()
    };
    match chars.get(*at) {
        Some('{') | Some('[') => {
            let object = chars[*at] == '{';
            *at += 1;
            let mut fields = Vec::new();
            let mut items = Vec::new();
            loop {
                skip(at);
                match chars.get(*at) {
                    Some('}') | Some(']') | None => {
                        *at += 1;
                        break;
                    }
                    Some(',') => *at += 1,
                    _ if object => {
                        let key = string(at);
                        skip(at);
                        *at += 1; // the colon
                        fields.push((key, parse_node(chars, at)));
                    }
                    _ => items.push(parse_node(chars, at)),
                }
            }
            if object {
                Node::Object(fields)
            } else {
                Node::Array(items)
            }
        }
        Some('"') => Node::Scalar(string(at)),
        _ => {
            let start = *at;
            while chars
                .get(*at)
                .is_some_and(|c| !matches!(c, ',' | '}' | ']') && !c.is_whitespace())
            {
                *at += 1;
            }
            Node::Scalar(chars[start..*at].iter().collect())
        }
    }
}

/// The node on one line, if it holds no container but empty ones.
fn inline(node: &Node) -> Option<String> {
    match node {
        Node::Scalar(text) => Some(text.clone()),
        Node::Array(items) if items.is_empty() => Some("[]".to_string()),
        Node::Object(fields) if fields.is_empty() => Some("{}".to_string()),
        Node::Array(items) => {
            let parts: Option<Vec<String>> = items.iter().map(flat).collect();
            Some(format!("[{}]", parts?.join(", ")))
        }
        Node::Object(fields) => {
            let parts: Option<Vec<String>> = fields
                .iter()
                .map(|(key, value)| flat(value).map(|value| format!("{key}: {value}")))
                .collect();
            Some(format!("{{ {} }}", parts?.join(", ")))
        }
    }
}

/// A scalar or an empty container.
fn flat(node: &Node) -> Option<String> {
    match node {
        Node::Scalar(text) => Some(text.clone()),
        Node::Array(items) if items.is_empty() => Some("[]".to_string()),
        Node::Object(fields) if fields.is_empty() => Some("{}".to_string()),
        _ => None,
    }
}

/// Short containers of scalars stay on one line: `[1, 2]`, `{ "a": 2 }`.
const INLINE: usize = 60;

fn write_node(out: &mut String, node: &Node, depth: usize, used: usize, top: bool) {
    if let Some(line) = inline(node) {
        let small = line.chars().count() <= INLINE && used + line.chars().count() <= MAX_LINE;
        if matches!(node, Node::Scalar(_)) || (small && !top) || line.len() <= 2 {
            out.push_str(&line);
            return;
        }
    }
    let indent = "  ".repeat(depth + 1);
    let (open, close, entries): (char, char, Vec<(Option<&str>, &Node)>) = match node {
        Node::Array(items) => ('[', ']', items.iter().map(|item| (None, item)).collect()),
        Node::Object(fields) => (
            '{',
            '}',
            fields
                .iter()
                .map(|(key, value)| (Some(key.as_str()), value))
                .collect(),
        ),
        Node::Scalar(_) => unreachable!("scalars are written inline"),
    };
    out.push(open);
    for (index, (key, value)) in entries.iter().enumerate() {
        out.push('\n');
        out.push_str(&indent);
        let mut used = indent.len();
        if let Some(key) = key {
            out.push_str(key);
            out.push_str(": ");
            used += key.chars().count() + 2;
        }
        write_node(out, value, depth + 1, used + 1, false);
        if index + 1 < entries.len() {
            out.push(',');
        }
    }
    out.push('\n');
    out.push_str(&"  ".repeat(depth));
    out.push(close);
}

/// Pretty-prints one line of JSON without parsing it into a map, so that
/// keys keep their order on the wire and numbers their spelling; short
/// lists of scalars stay on one line.
pub fn pretty_json(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let node = parse_node(&chars, &mut 0);
    let mut out = String::new();
    write_node(&mut out, &node, 0, 0, true);
    out
}

/// Splits a line too long to read at `MAX_LINE`, after a space or a comma;
/// continuation lines start with `↪ `. (The raw transcript keeps the line.)
fn wrap(line: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut rest: Vec<char> = line.chars().collect();
    let mut prefix = "";
    while prefix.chars().count() + rest.len() > MAX_LINE {
        let room = MAX_LINE - 4 - prefix.chars().count();
        // Break after the last space or comma that fits, past the indentation.
        let indent = rest.iter().take_while(|c| **c == ' ').count();
        let cut = (indent + 1..=room.min(rest.len() - 1))
            .rev()
            .find(|&at| matches!(rest[at - 1], ' ' | ','));
        let Some(cut) = cut else { break };
        let head: String = rest[..cut].iter().collect();
        lines.push(format!("{prefix}{}", head.trim_end()));
        rest = rest[cut..].to_vec();
        while rest.first() == Some(&' ') {
            rest.remove(0);
        }
        prefix = "↪ ";
    }
    lines.push(format!("{prefix}{}", rest.iter().collect::<String>()));
    lines
}

/// The exact-bytes form, one string token per line when it is long.
fn bytes_block(written: &str) -> String {
    if written.chars().count() <= MAX_LINE {
        return written.to_string();
    }
    let mut lines: Vec<String> = Vec::new();
    let mut rest = written.trim_start();
    while !rest.is_empty() {
        let token_end = if rest.starts_with('"') {
            let mut stream = serde_json::Deserializer::from_str(rest).into_iter::<String>();
            match stream.next() {
                Some(Ok(_)) => stream.byte_offset(),
                _ => rest.len(),
            }
        } else {
            rest.find(char::is_whitespace).unwrap_or(rest.len())
        };
        let (token, tail) = rest.split_at(token_end);
        match lines.last_mut() {
            // `*N` stays with the token it repeats.
            Some(last) if token.starts_with('*') => {
                last.push(' ');
                last.push_str(token);
            }
            _ => lines.push(token.to_string()),
        }
        rest = tail.trim_start();
    }
    lines.join("\n")
}

fn fence(out: &mut String, language: &str, body: &str) {
    let _ = writeln!(out, "```{language}\n{body}\n```\n");
}

/// The caption: the free comments, then the metadata the runner reads.
fn caption(chapter: &Chapter, transcript: &Transcript, raw: &str) -> String {
    let comments: Vec<&str> = raw
        .lines()
        .filter_map(|line| line.strip_prefix('#'))
        .map(str::trim)
        .filter(|line| {
            let key = line.split_once(':').map(|(key, _)| key);
            !matches!(
                key,
                Some(
                    "book"
                        | "revision"
                        | "args"
                        | "exit"
                        | "runner"
                        | "env"
                        | "stderr"
                        | "recorded"
                        | "tool"
                        // How the runner schedules replies: a setting of
                        // the test, not something the reader sees happen.
                        | "together"
                        | "pipelined"
                        | "bless"
                        | "workdir"
                        | "home"
                        | "unprivileged"
                        | "needs"
                        | "state"
                )
            )
        })
        .collect();
    let mut facts = Vec::new();
    if let Some(revision) = &transcript.revision {
        let plural = if revision.contains(" and ") { "s" } else { "" };
        facts.push(format!("MCP revision{plural} {revision}"));
    }
    let mut program = match transcript.runner {
        Runner::Server => chapter.solution_package().replace("-solution", ""),
        _ => chapter.starter_package(),
    };
    let mut runner = match transcript.runner {
        Runner::Server => "the server under test, played by its client",
        Runner::Client => "the client under test, with replayed servers",
        Runner::Agent => "the host under test, with replayed servers and a scripted model",
        Runner::Http => "http",
    };
    if let Some(tool) = &transcript.tool {
        program = format!("{tool} --bin {program}");
        runner = "the book's measuring tool, driving the host under test, with replayed servers";
    }
    facts.push(runner.to_string());
    if !transcript.args.is_empty() {
        facts.push(format!("runs `{program} {}`", transcript.args.join(" ")));
    }
    for (name, value) in &transcript.env {
        facts.push(format!("with `{name}={value}`"));
    }
    if transcript.exit != 0 {
        facts.push(format!("exits with status {}", transcript.exit));
    }
    for text in &transcript.stderr {
        // In code, as the program prints it: a reader copies a flag or a
        // path out of it.
        facts.push(format!("stderr says {}", code_span(text)));
    }
    for recorded in &transcript.recorded {
        facts.push(format!(
            "server `{}`'s replies recorded from chapter {}'s solution",
            recorded.channel,
            recorded.chapter.trim_start_matches('0')
        ));
    }
    if transcript
        .frames
        .iter()
        .any(|frame| is_exact_bytes(raw, frame))
    {
        facts.push(
            "in exact bytes, `\"…\"` is a JSON string, `0xHH` one byte, \
             and `*N` repeats the one before, N times in all"
                .to_string(),
        );
    }
    if let Some(book) = &transcript.book {
        facts.push(format!("pinned for [{book}]({book})"));
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "> **Transcript `{}/{}`.** {}",
        chapter.id(),
        transcript.name,
        comments.join(" ")
    );
    let _ = writeln!(out, ">\n> <small>{}</small>\n", facts.join(" · "));
    out
}

/// The view of one transcript, as Markdown for mdBook.
pub fn render(chapter: &Chapter, transcript: &Transcript, raw: &str) -> String {
    render_on_page(chapter, transcript, raw, &mut Shown::default())
}

/// The view, on a page that has already shown the frames in `shown`. A
/// view that would be longer than a page by itself ([`VIEW_LINES`]) folds
/// its run however few its steps, the way a long run does: no page could
/// hold it, and the frames after the fold are the same kind as those before.
pub fn render_on_page(
    chapter: &Chapter,
    transcript: &Transcript,
    raw: &str,
    shown: &mut Shown,
) -> String {
    let mut trial = shown.clone();
    let out = render_folding(chapter, transcript, raw, &mut trial, false);
    if out.lines().count() <= VIEW_LINES {
        *shown = trial;
        return out;
    }
    render_folding(chapter, transcript, raw, shown, true)
}

/// More Markdown lines than this, and a view folds its run
/// ([`render_on_page`]): about four screens of frames.
const VIEW_LINES: usize = 250;

fn render_folding(
    chapter: &Chapter,
    transcript: &Transcript,
    raw: &str,
    shown: &mut Shown,
    fold_run: bool,
) -> String {
    let steps = steps(transcript, raw);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<!-- Generated from tests/transcripts/{}/{}.wire by `cargo xtask changes`. Do not edit. -->\n",
        chapter.id(),
        transcript.name
    );
    out += &caption(chapter, transcript, raw);
    if let Some(svg) = diagrams::diagram_path(chapter, &transcript.name) {
        let name = svg.file_name().unwrap_or_default().to_string_lossy();
        let _ = writeln!(
            out,
            "<figure class=\"wire-diagram\">\n{{{{#include ../../diagrams/{name}}}}}\n\
             <figcaption>The frames below as a sequence diagram: time runs down, and the \
             numbers match.{}</figcaption>\n</figure>\n",
            diagrams::caption_note(transcript)
        );
    }
    // From chapter 3 on, the opening handshake is chapter 2's lesson:
    // folded, so that the frames the scenario is about come first.
    // From chapter 8 on, a host's `tools/list` after it is chapter 6's
    // lesson too (chapter 7 shows it: the names the model may not get).
    let catalogue = transcript.runner == Runner::Agent && chapter.number >= 8;
    let mut handshake = if chapter.number >= 3 {
        steps
            .iter()
            .take_while(|step| match step.method.as_deref() {
                Some("initialize" | "notifications/initialized") => true,
                Some("tools/list") => catalogue,
                _ => false,
            })
            .count()
    } else {
        0
    };
    let listed = steps[..handshake]
        .iter()
        .any(|step| step.method.as_deref() == Some("tools/list"));
    // A host of both eras (chapter 15) opens with `server/discover`, and
    // that choice, then `initialize` if it falls back, is its lesson: those
    // frames stay in sight. Only the catalogue after them is folded, as
    // chapter 6's lesson: the steps `catalogue_from..=handshake`.
    let mut catalogue_from = 0;
    if catalogue
        && handshake == 0
        && steps.first().and_then(|step| step.method.as_deref()) == Some("server/discover")
    {
        // A stray reply with no request (a fake server answering the
        // notification, id null) does not end the opening.
        let opening = steps
            .iter()
            .take_while(|step| {
                matches!(
                    step.method.as_deref(),
                    None | Some(
                        "server/discover"
                            | "initialize"
                            | "notifications/initialized"
                            | "tools/list"
                    )
                )
            })
            .count();
        let is_listing = |step: &Step| step.method.as_deref() == Some("tools/list");
        let first = steps[..opening].iter().position(is_listing);
        let last = steps[..opening].iter().rposition(is_listing);
        if let (Some(first), Some(last)) = (first, last) {
            catalogue_from = first + 1;
            handshake = last + 1;
        }
    }
    let mut previous_request: Option<Value> = None;
    // After a folded catalogue, the run's head counts from the frames
    // past it.
    let run_head = if catalogue_from > 0 {
        handshake + RUN_HEAD
    } else {
        RUN_HEAD
    };
    let folded_run = (fold_run || steps.len() >= LONG_RUN) && handshake < run_head;
    let mut run_folded = false;
    let mut shown_from = out.len();
    for step in &steps {
        // The run folds after RUN_HEAD frames, or earlier once two frames
        // past the handshake have filled RUN_LINES lines (a model request
        // with a dozen tool definitions is a screen by itself).
        let long_enough =
            step.number > handshake + 2 && out[shown_from..].lines().count() > RUN_LINES;
        if folded_run && !run_folded && (step.number == run_head + 1 || long_enough) {
            run_folded = true;
            let _ = writeln!(
                out,
                "<details>\n<summary>Frames {} to {}: the rest of the run</summary>\n",
                step.number,
                steps.len()
            );
        }
        if catalogue_from > 0 && step.number == catalogue_from {
            let _ = writeln!(
                out,
                "<details>\n<summary>Frames {catalogue_from} to {handshake}: <code>tools/list</code> \
                 and its result, the catalogue, as in chapter 6</summary>\n"
            );
        }
        if catalogue_from == 0 && handshake >= 2 && step.number == 1 {
            let _ = writeln!(
                out,
                "<details>\n<summary>Frames 1 to {handshake}: the handshake \
                 (<code>initialize</code>, its result, <code>notifications/initialized</code>)\
                 {}</summary>\n",
                if listed {
                    " and <code>tools/list</code>, as in chapters 2 and 6"
                } else {
                    ", as in chapter 2"
                }
            );
        }
        let first = &transcript.frames[step.frames[0]];
        let _ = writeln!(
            out,
            "**{} · {} → {}** — {}\n",
            step.number,
            who(&step.from),
            who(&step.to),
            step.label
        );
        match json_of(raw, first) {
            Some((text, value)) if first.direction == Direction::HostToModel => {
                let settings = settings_key(&value);
                let earlier = shown.requests.get(&settings).cloned();
                match (&previous_request, earlier) {
                    (None, Some(earlier)) => same_settings(
                        &mut out, &text, &value, &earlier, chapter, transcript, shown,
                    ),
                    (None, None) if known_tools(&value, shown) => {
                        fewer_tools(&mut out, &text, &value, chapter, transcript, shown)
                    }
                    _ => model_request(&mut out, &text, &value, previous_request.as_ref()),
                }
                for tool in value
                    .get("tools")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    shown.tools.entry(tool.to_string()).or_insert((
                        transcript.name.clone(),
                        step.number,
                        shown.page.clone(),
                    ));
                }
                shown.requests.entry(settings).or_insert((
                    transcript.name.clone(),
                    step.number,
                    shown.page.clone(),
                ));
                previous_request = Some(value);
            }
            Some((text, value)) => {
                let pretty = pretty_json(&text);
                let key = repeat_key(&value);
                let here = (
                    transcript.name.clone(),
                    step.number,
                    value.get("id").cloned(),
                    shown.page.clone(),
                );
                let big = pretty.lines().count() >= REPEAT_LINES;
                match shown.frames.get(&key).filter(|_| big) {
                    Some((scenario, number, id, page)) => {
                        let whose = if *scenario == transcript.name {
                            String::new()
                        } else {
                            format!(" of <code>{}/{scenario}</code>", chapter.id())
                        };
                        let place = match page {
                            Some(page) if shown.page.as_ref() != Some(page) => format!(
                                " on <a href=\"{}\">{}</a>",
                                page.replace(".md", ".html"),
                                page_title(page)
                            ),
                            _ => " above".to_string(),
                        };
                        let _ = writeln!(
                            out,
                            "<details>\n<summary>The same frame as frame {number}{whose}{place}\
                             {}</summary>\n",
                            if value.get("id") != id.as_ref() {
                                ", the id aside"
                            } else {
                                ""
                            }
                        );
                        fence(&mut out, "json", &pretty);
                        out += "</details>\n\n";
                    }
                    None => {
                        if big {
                            shown.frames.entry(key).or_insert(here);
                        }
                        fence(&mut out, "json", &pretty);
                    }
                }
            }
            None if is_exact_bytes(raw, first) => {
                fence(&mut out, "text", &bytes_block(&written(raw, first)))
            }
            None => {
                let lines: Vec<String> = step
                    .frames
                    .iter()
                    .flat_map(|&index| wrap(&written(raw, &transcript.frames[index])))
                    .collect();
                fence(&mut out, "text", &lines.join("\n"));
            }
        }
        if handshake >= 2 && step.number == handshake {
            out += "</details>\n\n";
            shown_from = out.len();
        }
    }
    if run_folded {
        out += "</details>\n\n";
    }
    let _ = writeln!(
        out,
        "<details>\n<summary>The raw transcript, as the tests read it: \
         <code>tests/transcripts/{0}/{1}.wire</code></summary>\n\n\
         ```text\n{{{{#include {2}tests/transcripts/{0}/{1}.wire}}}}\n```\n\n</details>",
        chapter.id(),
        transcript.name,
        // From book/src/generated/views/chNN/, one more for a stretch's folder.
        "../".repeat(5 + transcript.name.matches('/').count())
    );
    out
}

/// `text` as a Markdown code span: fenced by one backtick more than the
/// longest run inside it, padded when it starts or ends with one.
fn code_span(text: &str) -> String {
    let longest = text
        .split(|c| c != '`')
        .map(str::len)
        .max()
        .unwrap_or_default();
    let fence = "`".repeat(longest + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{text}{pad}{fence}")
}

/// A lane's name in a label: `server add` becomes “server `add`”.
fn who(lane: &str) -> String {
    match lane.strip_prefix("server ") {
        Some(name) => format!("server `{name}`"),
        None => lane.to_string(),
    }
}

/// A model request: the first in full; later ones show what is new since
/// the previous request, with the whole request folded.
fn model_request(out: &mut String, text: &str, value: &Value, previous: Option<&Value>) {
    let Some(previous) = previous else {
        fence(out, "json", &pretty_json(text));
        return;
    };
    let empty = Vec::new();
    let old = previous
        .get("messages")
        .and_then(Value::as_array)
        .unwrap_or(&empty);
    let new = value
        .get("messages")
        .and_then(Value::as_array)
        .unwrap_or(&empty);
    let (Some(fields), Some(old_fields)) = (value.as_object(), previous.as_object()) else {
        fence(out, "json", &pretty_json(text));
        return;
    };
    let changed: Vec<&String> = fields
        .keys()
        .filter(|key| *key != "messages" && old_fields.get(*key) != fields.get(*key))
        .collect();
    if !new.starts_with(old) || !changed.is_empty() {
        // Not an extension of the previous request: show it all.
        fence(out, "json", &pretty_json(text));
        return;
    }
    let added = &new[old.len()..];
    let _ = writeln!(
        out,
        "New since the previous request: {} ({} to {}). The rest is the same.\n",
        if added.len() == 1 {
            "one message".to_string()
        } else {
            format!("{} messages", added.len())
        },
        ordinal(old.len() + 1),
        ordinal(new.len())
    );
    let added_json = serde_json::to_string(&Value::Array(added.to_vec())).unwrap_or_default();
    fence(out, "json", &pretty_json(&added_json));
    let _ = writeln!(out, "<details>\n<summary>The whole request</summary>\n");
    fence(out, "json", &pretty_json(text));
    let _ = writeln!(out, "</details>\n");
}

fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// The code lines of a Markdown page that a reader sees without unfolding
/// anything and that run past [`MAX_LINE`] characters, unless the line is a
/// single long string (with its key). Returns `(line number, length)`.
pub fn long_code_lines(page: &str) -> Vec<(usize, usize)> {
    let mut long = Vec::new();
    let mut fence: Option<String> = None;
    let mut folded = 0usize;
    let mut in_diff = false;
    for (index, line) in page.lines().enumerate() {
        let trimmed = line.trim_start();
        if let Some(open) = &fence {
            // In a diff, a code line sits behind a `+`, `-` or ` `.
            let code = if in_diff {
                line.get(1..).unwrap_or_default()
            } else {
                line
            };
            if trimmed.starts_with(open.as_str()) && trimmed.trim_end() == open.as_str() {
                fence = None;
            } else if folded == 0 && code.chars().count() > MAX_LINE && !is_single_string(code) {
                long.push((index + 1, code.chars().count()));
            }
            continue;
        }
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            let marker: String = trimmed
                .chars()
                .take_while(|c| *c == '`' || *c == '~')
                .collect();
            in_diff = trimmed[marker.len()..].trim() == "diff";
            fence = Some(marker);
            continue;
        }
        folded += line.matches("<details").count();
        folded = folded.saturating_sub(line.matches("</details>").count());
    }
    long
}

/// `"text"`, `"key": "text"` or `key = "text"`, with an optional trailing
/// comma: one string.
fn is_single_string(line: &str) -> bool {
    let mut rest = line.trim().trim_end_matches(',');
    // A TOML key: `description = "…"`.
    if let Some((key, value)) = rest.split_once('=') {
        let bare = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.');
        if !key.trim().is_empty() && key.trim().chars().all(bare) {
            rest = value.trim_start();
        }
    }
    let mut strings = 0;
    while !rest.is_empty() {
        if !rest.starts_with('"') {
            return false;
        }
        let mut stream = serde_json::Deserializer::from_str(rest).into_iter::<String>();
        match stream.next() {
            Some(Ok(_)) => rest = rest[stream.byte_offset()..].trim_start(),
            _ => return false,
        }
        strings += 1;
        if strings == 1
            && let Some(tail) = rest.strip_prefix(':')
        {
            rest = tail.trim_start();
        }
    }
    (1..=2).contains(&strings)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_large_frame_shown_before_on_the_page_is_named_and_folded() {
        let list = r#"{"jsonrpc":"2.0","id":ID,"result":{"tools":[{"name":"add","description":"Adds.","inputSchema":{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}}}}]}}"#;
        let raw = |id: &str, name: &str| {
            let reply = list.replace("ID", id);
            let request = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list"}}"#);
            let mut t = Transcript::parse(
                std::path::Path::new("t.wire"),
                &format!("-> {request}\n<- {reply}\n"),
            )
            .unwrap();
            t.name = name.to_string();
            (t, format!("-> {request}\n<- {reply}\n"))
        };
        let chapter = Chapter {
            number: 3,
            dir: "03-x".to_string(),
        };
        let mut shown = Shown::default();
        let (first, text) = raw("2", "first");
        let view = render_on_page(&chapter, &first, &text, &mut shown);
        assert!(!view.contains("The same frame"), "{view}");
        let (second, text) = raw("5", "second");
        let view = render_on_page(&chapter, &second, &text, &mut shown);
        assert!(
            view.contains(
                "<summary>The same frame as frame 2 of <code>ch03/first</code> above, the id aside"
            ),
            "{view}"
        );
        // On a page of its own, it is shown in full.
        assert!(!render(&chapter, &second, &text).contains("The same frame"));
    }

    #[test]
    fn pretty_json_keeps_order_and_numbers() {
        let text = r#"{"b":1,"a":[1e400,-0,{}],"s":"x,:{\"y"}"#;
        assert_eq!(
            pretty_json(text),
            "{\n  \"b\": 1,\n  \"a\": [1e400, -0, {}],\n  \"s\": \"x,:{\\\"y\"\n}"
        );
    }

    #[test]
    fn replies_are_named_after_their_requests() {
        let raw = "-> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n\
                   <- {\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32602,\"message\":\"x\"}}\n\
                   -> hello\n-> there\n";
        let t = Transcript::parse(std::path::Path::new("t.wire"), raw).unwrap();
        let steps = steps(&t, raw);
        assert_eq!(steps.len(), 3);
        assert_eq!(steps[0].label, "request `ping`, id 1");
        assert_eq!(
            steps[1].label,
            "error −32602 (invalid params), answering `ping`, id 1"
        );
        assert_eq!(steps[1].closes.as_deref(), Some("/1"));
        assert_eq!(steps[2].frames, [2, 3]);
    }

    #[test]
    fn a_cancelled_request_ends_at_the_cancellation_and_its_reply_is_late() {
        let raw = "[slow] -> {\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"add\"}}\n\
                   [slow] -> {\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":3}}\n\
                   [slow] <- {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}\n";
        let t = Transcript::parse(
            std::path::Path::new("t.wire"),
            &format!("# runner: client\n{raw}"),
        )
        .unwrap();
        let steps = steps(&t, &format!("# runner: client\n{raw}"));
        assert_eq!(steps[0].opens.as_deref(), Some("slow/3"));
        assert_eq!(steps[0].short, "tools/call add  · id 3");
        assert_eq!(steps[1].closes.as_deref(), Some("slow/3"));
        assert_eq!(
            (steps[2].from.as_str(), steps[2].to.as_str()),
            ("server slow", "client")
        );
        assert!(
            steps[2].label.contains("which was cancelled"),
            "{}",
            steps[2].label
        );
        assert_eq!(steps[2].closes, None);
    }

    #[test]
    fn long_lines_count_unless_folded_or_one_string() {
        let long = "x".repeat(120);
        let page = format!(
            "```text\n{long}\n```\n<details>\n\n```text\n{long}\n```\n\n</details>\n\
             ```json\n  \"key\": \"{long}\",\n```\n{long}\n\
             ```diff\n+  \"{long}\",\n-  x{long}\n```\n```toml\ndescription = \"{long}\"\n```\n"
        );
        assert_eq!(long_code_lines(&page), [(2, 120), (17, 123)]);
    }

    #[test]
    fn long_output_lines_wrap_at_spaces() {
        let line = format!("  {}", "word ".repeat(40).trim_end());
        let lines = wrap(&line);
        assert!(lines.len() > 1);
        assert!(lines.iter().all(|l| l.chars().count() <= MAX_LINE));
        assert!(lines[0].starts_with("  word"));
        assert!(lines[1].starts_with("↪ word"));
    }
}
