//! The conformance fixtures.
//!
//! The official conformance suite (`@modelcontextprotocol/conformance`)
//! calls tools, resources and prompts by fixed names (`test_simple_text`,
//! `test://static-text`, `test_simple_prompt`, …) and checks what comes
//! back. None of them is part of the notes server: this binary offers these
//! instead, so the suite judges chapter 13's transport and chapter 12's
//! protocol around them. Nothing here is meant for a real client.

use serde_json::{Value, json};

use wire_server::folder;
use wire_server::jsonrpc::RpcError;

/// A 1×1 transparent PNG: the smallest real image the suite can check.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
/// A WAV header with no samples.
const WAV: &str = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=";

/// What one request to the fixtures produced: notifications to send
/// before the reply (progress, log messages), then the reply itself.
pub struct Answer {
    pub notifications: Vec<Value>,
    pub outcome: Result<Value, RpcError>,
}

impl Answer {
    fn reply(outcome: Result<Value, RpcError>) -> Answer {
        Answer {
            notifications: Vec::new(),
            outcome,
        }
    }
}

/// The capabilities a server with the fixtures announces. `subscribe` is a
/// legacy promise (resources/subscribe); in 2026-07-28 it would promise a
/// `subscriptions/listen` stream, which this server does not offer.
pub fn capabilities(modern: bool) -> Value {
    let resources = if modern {
        json!({})
    } else {
        json!({ "subscribe": true })
    };
    json!({ "tools": {}, "resources": resources, "prompts": {},
            "logging": {}, "completions": {} })
}

/// Serves one request; `modern` is true for a 2026-07-28 request.
pub fn serve(method: &str, params: Option<Value>, modern: bool) -> Answer {
    let params = params.unwrap_or_else(|| json!({}));
    let text = |key: &str| params.get(key).and_then(Value::as_str).unwrap_or_default();
    match method {
        "tools/list" => Answer::reply(Ok(json!({ "tools": tools() }))),
        "tools/call" => call(text("name"), &params, modern),
        "resources/list" => Answer::reply(Ok(json!({ "resources": resources() }))),
        "resources/templates/list" => Answer::reply(Ok(json!({ "resourceTemplates": [{
            "uriTemplate": "test://template/{id}/data", "name": "template",
            "description": "A resource whose URI carries an id", "mimeType": "application/json",
        }] }))),
        "resources/read" => Answer::reply(read(text("uri"))),
        "prompts/list" => Answer::reply(Ok(json!({ "prompts": prompts() }))),
        "prompts/get" => Answer::reply(prompt(text("name"), params.get("arguments"))),
        // Offered, but with nothing to suggest.
        "completion/complete" => Answer::reply(Ok(json!({
            "completion": { "values": [], "total": 0, "hasMore": false }
        }))),
        // Legacy only (2026-07-28 removed them, modern.rs answers -32601):
        // accepted, though without a session there is nothing to remember.
        "logging/setLevel" | "resources/subscribe" | "resources/unsubscribe" => {
            Answer::reply(Ok(json!({})))
        }
        _ => Answer::reply(Err(RpcError::method_not_found(method))),
    }
}

fn tool(name: &str, description: &str) -> Value {
    json!({ "name": name, "description": description,
            "inputSchema": { "type": "object", "properties": {} } })
}

fn tools() -> Vec<Value> {
    vec![
        tool("test_simple_text", "Returns one text block"),
        tool("test_image_content", "Returns an image"),
        tool("test_audio_content", "Returns audio"),
        tool("test_embedded_resource", "Returns an embedded resource"),
        tool(
            "test_multiple_content_types",
            "Returns text, an image and a resource",
        ),
        tool(
            "test_tool_with_logging",
            "Logs three messages while it runs",
        ),
        tool("test_logging_tool", "Logs one message while it runs"),
        tool("test_tool_with_progress", "Reports progress three times"),
        tool("test_error_handling", "Always fails, as a tool result"),
        tool(
            "test_missing_capability",
            "Needs the client's sampling capability",
        ),
        tool(
            "test_streaming_elicitation",
            "Answers on a stream, with no request inside",
        ),
    ]
}

fn text_block(text: &str) -> Value {
    json!({ "type": "text", "text": text })
}

fn embedded() -> Value {
    json!({ "type": "resource", "resource": { "uri": "test://embedded-resource",
            "mimeType": "text/plain", "text": "This is an embedded resource content." } })
}

fn call(name: &str, params: &Value, modern: bool) -> Answer {
    let meta = params.get("_meta");
    let content = |blocks: Vec<Value>| Ok(json!({ "content": blocks }));
    let image = json!({ "type": "image", "data": PNG, "mimeType": "image/png" });
    let mut notifications = Vec::new();
    let outcome = match name {
        "test_simple_text" => content(vec![text_block(
            "This is a simple text response for testing.",
        )]),
        "test_image_content" => content(vec![image]),
        "test_audio_content" => content(vec![
            json!({ "type": "audio", "data": WAV, "mimeType": "audio/wav" }),
        ]),
        "test_embedded_resource" => content(vec![embedded()]),
        "test_multiple_content_types" => content(vec![
            text_block("Multiple content types test:"),
            image,
            embedded(),
        ]),
        "test_tool_with_logging" | "test_logging_tool" => {
            // 2026-07-28: log only when the request asked, in its _meta.
            let asked = meta.and_then(|meta| meta.get("io.modelcontextprotocol/logLevel"));
            if !modern || asked.is_some() {
                for data in [
                    "Tool execution started",
                    "Tool processing data",
                    "Tool execution completed",
                ] {
                    notifications
                        .push(json!({ "jsonrpc": "2.0", "method": "notifications/message",
                        "params": { "level": "info", "logger": "conformance", "data": data } }));
                }
            }
            content(vec![text_block("Logging done")])
        }
        "test_tool_with_progress" => {
            if let Some(token) = meta.and_then(|meta| meta.get("progressToken")) {
                for progress in [0, 50, 100] {
                    notifications.push(
                        json!({ "jsonrpc": "2.0", "method": "notifications/progress",
                        "params": { "progressToken": token, "progress": progress, "total": 100 } }),
                    );
                }
            }
            content(vec![text_block("Progress done")])
        }
        "test_error_handling" => Ok(json!({ "isError": true, "content": [
            text_block("This tool intentionally returns an error for testing")
        ] })),
        "test_missing_capability" => {
            let capabilities =
                meta.and_then(|meta| meta.get("io.modelcontextprotocol/clientCapabilities"));
            match capabilities.and_then(|capabilities| capabilities.get("sampling")) {
                Some(_) => content(vec![text_block("The client can sample")]),
                None => Err(
                    RpcError::new(-32021, "Missing required client capability".into())
                        .with_data(json!({ "requiredCapabilities": { "sampling": {} } })),
                ),
            }
        }
        "test_streaming_elicitation" => content(vec![text_block(
            "This server asks the client nothing: input-required results come later",
        )]),
        _ => Err(RpcError::invalid_params(format!("unknown tool {name:?}"))),
    };
    Answer {
        notifications,
        outcome,
    }
}

fn resources() -> Vec<Value> {
    let resource = |uri: &str, mime: &str| {
        json!({ "uri": uri, "name": uri.trim_start_matches("test://"),
                "description": "A conformance fixture", "mimeType": mime })
    };
    vec![
        resource("test://static-text", "text/plain"),
        resource("test://static-binary", "image/png"),
        resource("test://watched-resource", "text/plain"),
    ]
}

fn read(uri: &str) -> Result<Value, RpcError> {
    let contents = match uri {
        "test://static-text" => json!({ "uri": uri, "mimeType": "text/plain",
            "text": "This is the content of the static text resource." }),
        "test://static-binary" => json!({ "uri": uri, "mimeType": "image/png", "blob": PNG }),
        "test://watched-resource" => json!({ "uri": uri, "mimeType": "text/plain",
            "text": "Watched resource content" }),
        _ => {
            let id = uri
                .strip_prefix("test://template/")
                .and_then(|rest| rest.strip_suffix("/data"))
                .filter(|id| !id.is_empty() && !id.contains('/'))
                .ok_or_else(|| folder::not_found(uri))?;
            let text =
                json!({ "id": id, "templateTest": true, "data": format!("Data for ID: {id}") });
            json!({ "uri": uri, "mimeType": "application/json", "text": text.to_string() })
        }
    };
    Ok(json!({ "contents": [contents] }))
}

fn prompts() -> Vec<Value> {
    let argument = |name: &str| json!({ "name": name, "description": name, "required": true });
    vec![
        json!({ "name": "test_simple_prompt", "description": "A prompt without arguments" }),
        json!({ "name": "test_prompt_with_arguments", "description": "A prompt with two arguments",
                "arguments": [argument("arg1"), argument("arg2")] }),
        json!({ "name": "test_prompt_with_embedded_resource",
                "description": "A prompt that embeds a resource",
                "arguments": [argument("resourceUri")] }),
        json!({ "name": "test_prompt_with_image", "description": "A prompt with an image" }),
    ]
}

fn prompt(name: &str, arguments: Option<&Value>) -> Result<Value, RpcError> {
    let argument = |key: &str| {
        arguments
            .and_then(|arguments| arguments.get(key))
            .and_then(Value::as_str)
            .ok_or_else(|| RpcError::invalid_params(format!("missing argument {key:?}")))
    };
    let user = |content: Value| json!({ "messages": [{ "role": "user", "content": content }] });
    match name {
        "test_simple_prompt" => Ok(user(text_block("This is a simple prompt for testing."))),
        "test_prompt_with_arguments" => {
            let text = format!(
                "Prompt with arguments: arg1='{}', arg2='{}'",
                argument("arg1")?,
                argument("arg2")?
            );
            Ok(user(text_block(&text)))
        }
        "test_prompt_with_embedded_resource" => Ok(user(json!({ "type": "resource",
            "resource": { "uri": argument("resourceUri")?, "mimeType": "text/plain",
                          "text": "Embedded resource content for testing." } }))),
        "test_prompt_with_image" => Ok(user(
            json!({ "type": "image", "data": PNG, "mimeType": "image/png" }),
        )),
        _ => Err(RpcError::invalid_params(format!("unknown prompt {name:?}"))),
    }
}
