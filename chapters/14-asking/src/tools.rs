//! The three tools that ask. Each is written once, against `Ask`: it does
//! not know whether its question travels as a request on the connection or
//! as an input-required result, only what it asks and what each answer
//! means. They read drafts and notes through chapter 12's server, as any
//! client would.

use serde_json::{Map, Value, json};

use crate::ask::{Ask, InputRequest, Stop, ask};
use crate::asking_tools::publish_form;
use crate::draft_tools::tool_result;
use crate::jsonrpc::RpcError;
use crate::roots;
use crate::server::{Era, Handshake, LATEST_PROTOCOL_VERSION, Server};

/// Runs the tool `name` (one of `asking_tools::NAMES`).
pub fn call(
    server: &Server,
    name: &str,
    arguments: &Map<String, Value>,
    asker: &mut dyn Ask,
) -> Result<Value, Stop> {
    match name {
        "publish_draft" => publish_draft(server, arguments, asker),
        "summarize_note" => summarize_note(server, arguments, asker),
        _ => export_draft(server, arguments, asker),
    }
}

// ANCHOR: publish
/// Asks the user to confirm, and publishes only on "accept": a declined
/// form and a dismissed one both leave the draft as it was. The model
/// asked for the publication; only the user can agree to it.
fn publish_draft(
    server: &Server,
    arguments: &Map<String, Value>,
    asker: &mut dyn Ask,
) -> Result<Value, Stop> {
    let draft = argument(arguments, "draft")?;
    let title = read_draft(server, draft)?["title"].clone();
    let message = format!("Publish {draft}, {title}? Choose who may read it.");
    let answer = ask(
        asker,
        "confirm",
        InputRequest::elicit(&message, publish_form()),
    )?;
    let unpublished = |why: String| tool_result(why, json!({ "draft": draft, "published": false }));
    match answer["action"].as_str() {
        Some("accept") => {
            let visibility = match answer["content"]["visibility"].as_str() {
                Some(chosen @ ("team" | "everyone")) => chosen,
                _ => return Err(bad_answer("visibility must be \"team\" or \"everyone\"")),
            };
            let summary = format!("Published {draft}, {title}, for {visibility}.");
            let structured = json!({ "draft": draft, "published": true, "visibility": visibility });
            Ok(tool_result(summary, structured))
        }
        Some("decline") => Ok(unpublished(format!(
            "Not published: the user declined to publish {draft}."
        ))),
        Some("cancel") => Ok(unpublished(format!(
            "Not published: the user closed the form without deciding; {draft} is unchanged."
        ))),
        _ => Err(bad_answer("action must be accept, decline or cancel")),
    }
}
// ANCHOR_END: publish

// ANCHOR: summarize
/// Asks the client's model for a summary. The server says what it would
/// like (a small, fast model; a short answer) but the client chooses the
/// model, and its user may read and refuse the request: no tools are
/// offered to the model, since the client never said it could run them.
fn summarize_note(
    server: &Server,
    arguments: &Map<String, Value>,
    asker: &mut dyn Ask,
) -> Result<Value, Stop> {
    let uri = argument(arguments, "uri")?;
    let read = own_request(server, "resources/read", json!({ "uri": uri }))
        .map_err(|error| Stop::Refused(message(&json!(error))))?;
    let Some(text) = read["contents"][0]["text"].as_str() else {
        return Err(Stop::Refused(format!("{uri} is not a text note")));
    };
    let request = InputRequest::sample(json!({
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
    }));
    let answer = ask(asker, "summary", request)?;
    // One content block (2025-11-25 also allows a list of them).
    let content = match &answer["content"] {
        Value::Array(blocks) => blocks.first().cloned().unwrap_or_default(),
        block => block.clone(),
    };
    let Some(summary) = content["text"]
        .as_str()
        .filter(|_| content["type"] == "text")
    else {
        return Err(bad_answer("the completion must be text"));
    };
    let model = answer["model"].as_str().unwrap_or_default();
    let structured = json!({ "uri": uri, "summary": summary, "model": model });
    Ok(tool_result(summary.to_string(), structured))
}
// ANCHOR_END: summarize

// ANCHOR: export
/// Asks for the roots, and writes only inside one of them: the roots are
/// the folders the user chose to share, and a path that leaves them (by
/// `..` or a symlink) is refused before anything is written.
fn export_draft(
    server: &Server,
    arguments: &Map<String, Value>,
    asker: &mut dyn Ask,
) -> Result<Value, Stop> {
    let draft = argument(arguments, "draft")?;
    let path = argument(arguments, "path")?;
    let body = read_draft(server, draft)?;
    let answer = ask(asker, "roots", InputRequest::roots())?;
    let Some(listed) = answer["roots"].as_array() else {
        return Err(bad_answer("roots/list must answer a list of roots"));
    };
    let uris: Vec<String> = listed
        .iter()
        .filter_map(|root| root["uri"].as_str().map(String::from))
        .collect();
    let target = roots::confine(&uris, path).map_err(Stop::Refused)?;
    let lines: Vec<&str> = body["lines"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let text = format!(
        "# {}\n{}\n",
        body["title"].as_str().unwrap_or_default(),
        lines.join("\n")
    );
    roots::write_new(&target, &text)
        .map_err(|err| Stop::Refused(format!("cannot write {}: {err}", target.display())))?;
    let shown = target.display().to_string();
    let structured = json!({ "draft": draft, "path": shown });
    Ok(tool_result(
        format!("Wrote {draft} to {shown}."),
        structured,
    ))
}
// ANCHOR_END: export

/// A string argument the tool needs; a missing one is the model's mistake.
fn argument<'a>(arguments: &'a Map<String, Value>, name: &str) -> Result<&'a str, Stop> {
    match arguments.get(name) {
        Some(Value::String(value)) if !value.trim().is_empty() => Ok(value),
        _ => Err(Stop::Refused(format!(
            "Argument \"{name}\" must be a non-empty string."
        ))),
    }
}

/// A draft's `structuredContent` (title, lines), read with `read_draft`.
fn read_draft(server: &Server, draft: &str) -> Result<Value, Stop> {
    let params = json!({ "name": "read_draft", "arguments": { "draft": draft } });
    let result = own_request(server, "tools/call", params)?;
    if result["isError"] == true {
        return Err(Stop::Refused(message(&result["content"][0])));
    }
    Ok(result["structuredContent"].clone())
}

/// A request of the server's own to chapter 12's server, as a client
/// after the handshake would send it.
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
fn bad_answer(problem: &str) -> Stop {
    Stop::Error(RpcError::invalid_params(format!(
        "the client's answer: {problem}"
    )))
}
