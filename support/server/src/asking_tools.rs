//! Chapter 14's tools as the model sees them (`tools/list`), the form
//! `publish_draft` shows the user and the request `summarize_note` sends,
//! and the reading of arguments, drafts, notes and answers: given, as
//! chapter 12's draft tools' schemas are (`draft_tools.rs`). What the tools
//! ask and what each answer leads to is the chapter's.
//!
//! The schemas name their dialect, JSON Schema 2020-12, which is what MCP
//! assumes when none is named; saying it costs one line and leaves no doubt.

use serde_json::{Map, Value, json};

use crate::asking::Stop;
use crate::jsonrpc::RpcError;
use crate::server::{Era, Handshake, LATEST_PROTOCOL_VERSION, Server};

pub const NAMES: [&str; 3] = ["publish_draft", "summarize_note", "export_draft"];

const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// A tool's input schema: an object of required strings, nothing else.
fn strings(fields: &[(&str, &str)]) -> Value {
    let properties: serde_json::Map<String, Value> = fields
        .iter()
        .map(|(name, about)| {
            (
                name.to_string(),
                json!({ "type": "string", "description": about }),
            )
        })
        .collect();
    let required: Vec<&str> = fields.iter().map(|(name, _)| *name).collect();
    json!({
        "$schema": DIALECT,
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}

/// What every one of them returns as `structuredContent`: what it did.
fn outcome(fields: Value) -> Value {
    json!({ "$schema": DIALECT, "type": "object", "properties": fields })
}

pub fn definitions() -> [Value; 3] {
    let draft = (
        "draft",
        "The draft's handle, as start_draft returned it, such as draft-1",
    );
    [
        json!({
            "name": NAMES[0],
            "title": "Publish a draft",
            "description": "Publishes a draft once the user confirms it in a form. The user may \
                            decline or cancel: then nothing is published.",
            "inputSchema": strings(&[draft]),
            "outputSchema": outcome(json!({
                "draft": { "type": "string" },
                "published": { "type": "boolean" },
                "visibility": { "type": "string", "enum": ["team", "everyone"] },
            })),
        }),
        json!({
            "name": NAMES[1],
            "title": "Summarize a note",
            "description": "Summarizes one note in two sentences, asking the client's model \
                            (the user sees and may refuse the request).",
            "inputSchema": strings(&[("uri", "The note's URI, such as note://backoff")]),
            "outputSchema": outcome(json!({
                "uri": { "type": "string" },
                "summary": { "type": "string" },
                "model": { "type": "string" },
            })),
        }),
        json!({
            "name": NAMES[2],
            "title": "Export a draft to a file",
            "description": "Writes a draft as Markdown to a new file, which must lie inside one \
                            of the roots the client gives; an existing file is never replaced.",
            "inputSchema": strings(&[draft, ("path", "The absolute path of the new file")]),
            "outputSchema": outcome(json!({
                "draft": { "type": "string" },
                "path": { "type": "string" },
            })),
        }),
    ]
}

/// The form of `publish_draft`: every field has a default (SEP-1034), so
/// a client can prefill it, and the choice of audience is an enum with a
/// title for each value (SEP-1330's titled single-select: `oneOf` of
/// `const` and `title`). Accepting the form is the consent; its defaults
/// are the narrowest choice, so accepting unread publishes to the team only.
pub fn publish_form() -> Value {
    json!({
        "type": "object",
        "properties": {
            "visibility": {
                "type": "string",
                "title": "Who may read it",
                "oneOf": [
                    { "const": "team", "title": "My team" },
                    { "const": "everyone", "title": "Everyone" },
                ],
                "default": "team",
            },
            "notify": {
                "type": "boolean",
                "title": "Tell the readers it is out",
                "default": false,
            },
        },
        "required": ["visibility"],
    })
}

/// What `summarize_note` asks the client's model. The server may say
/// which model it would like (`modelPreferences`: hints and priorities),
/// never which one it gets, and offers the model no tools: only a client
/// that declared `sampling.tools` could run them.
pub fn summary_request(text: &str) -> Value {
    json!({
        "messages": [{
            "role": "user",
            "content": { "type": "text", "text": format!("Summarize this note in two sentences.\n\n{text}") },
        }],
        "systemPrompt": "You summarize engineering notes for a busy reader. Plain text only.",
        "modelPreferences": {
            "hints": [{ "name": "haiku" }],
            "costPriority": 0.8,
            "speedPriority": 0.8,
            "intelligencePriority": 0.3,
        },
        "maxTokens": 200,
    })
}

/// A string argument a tool needs; a missing one is the model's mistake.
pub fn argument<'a>(arguments: &'a Map<String, Value>, name: &str) -> Result<&'a str, Stop> {
    match arguments.get(name) {
        Some(Value::String(value)) if !value.trim().is_empty() => Ok(value),
        _ => Err(Stop::Refused(format!(
            "Argument \"{name}\" must be a non-empty string."
        ))),
    }
}

/// A draft's `structuredContent` (title, lines), read with `read_draft`.
pub fn read_draft(server: &Server, draft: &str) -> Result<Value, Stop> {
    let params = json!({ "name": "read_draft", "arguments": { "draft": draft } });
    let result = own_request(server, "tools/call", params)?;
    if result["isError"] == true {
        return Err(Stop::Refused(message(&result["content"][0])));
    }
    Ok(result["structuredContent"].clone())
}

/// The draft as Markdown: its title as a heading, then its lines.
pub fn markdown(draft: &Value) -> String {
    let lines = draft["lines"].as_array().into_iter().flatten();
    let lines: Vec<&str> = lines.filter_map(Value::as_str).collect();
    format!(
        "# {}\n{}\n",
        draft["title"].as_str().unwrap_or_default(),
        lines.join("\n")
    )
}

/// The text of a note, read with `resources/read`.
pub fn note_text(server: &Server, uri: &str) -> Result<String, Stop> {
    let read = own_request(server, "resources/read", json!({ "uri": uri }))
        .map_err(|error| Stop::Refused(message(&json!(error))))?;
    match read["contents"][0]["text"].as_str() {
        Some(text) => Ok(text.to_string()),
        None => Err(Stop::Refused(format!("{uri} is not a text note"))),
    }
}

/// The `file://` URIs of a `roots/list` answer.
pub fn root_uris(answer: &Value) -> Result<Vec<String>, Stop> {
    let Some(roots) = answer["roots"].as_array() else {
        return Err(bad_answer("roots/list must answer a list of roots"));
    };
    let uris = roots.iter().filter_map(|root| root["uri"].as_str());
    Ok(uris.map(String::from).collect())
}

/// The text block of a completion (2025-11-25 also allows a list of blocks).
pub fn completion_text(answer: &Value) -> Result<&str, Stop> {
    let content = match &answer["content"] {
        Value::Array(blocks) => blocks.first().unwrap_or(&Value::Null),
        block => block,
    };
    match content["text"].as_str() {
        Some(text) if content["type"] == "text" => Ok(text),
        _ => Err(bad_answer("the completion must be text")),
    }
}

/// A request of the server's own to chapter 12's server, as a client
/// after the handshake would send it: the tools read drafts and notes as
/// any client would.
fn own_request(server: &Server, method: &str, params: Value) -> Result<Value, RpcError> {
    let mut handshake = Handshake {
        protocol_version: Some(LATEST_PROTOCOL_VERSION.into()),
    };
    server.handle_request(method, Some(params), Era::Legacy(&mut handshake))
}

fn message(value: &Value) -> String {
    let text = value.get("message").or(value.get("text"));
    text.and_then(Value::as_str).unwrap_or("failed").to_string()
}

/// An answer from the client that does not have the shape asked for: the
/// client's fault, so a protocol error.
pub fn bad_answer(problem: &str) -> Stop {
    Stop::Error(RpcError::invalid_params(format!(
        "the client's answer: {problem}"
    )))
}

/// A `tools/list` result with these tools after chapter 12's.
pub fn with_definitions(mut result: Value) -> Value {
    if let Some(Value::Array(tools)) = result.get_mut("tools") {
        tools.extend(definitions());
    }
    result
}

/// A call of one of these tools: its name and arguments. Anything else,
/// a broken call included, is chapter 12's to answer.
pub fn our_call(params: &Value) -> Option<(String, Map<String, Value>)> {
    let name = params
        .get("name")?
        .as_str()
        .filter(|name| NAMES.contains(name))?;
    let arguments = match params.get("arguments") {
        None => Map::new(),
        Some(Value::Object(arguments)) => arguments.clone(),
        Some(_) => return None,
    };
    Some((name.to_string(), arguments))
}
