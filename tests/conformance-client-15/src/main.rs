//! ch15-conformance-client: what the official conformance suite's client
//! scenarios run (`conformance client --command CMD --scenario X`). The
//! suite appends the server's URL to CMD and names the scenario in
//! `MCP_CONFORMANCE_SCENARIO` (and its data in `MCP_CONFORMANCE_CONTEXT`);
//! the client connects, finds the era with chapter 15's own `discover.rs`
//! (compiled here as it is), lists the tools, makes the calls the scenario
//! wants (by default each tool, with arguments made from its schema), answers
//! what the server asks (a form accepted with its defaults, a canned
//! sampling reply, no roots), retries input-required results with the state
//! unchanged, and ends the session. The learner never needs to read this.
//!
//! The chapter's `route.rs` and `retry.rs` answer through the harness (the
//! user, the hooks, the model), which a scenario has none of: their rules
//! are repeated here in a few lines, with answers that need no one.

#[path = "../../../solutions/15-host-answers/src/discover.rs"]
mod discover;

use std::process::ExitCode;
use std::time::Duration;

use serde_json::{Map, Value, json};
use wire_host::remote::Server;
use wire_host::transport::{Link, Message};

/// How many input-required rounds one call may take (chapter 15's bound).
const MAX_ROUNDS: usize = 4;

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let Some(url) = std::env::args().skip(1).last() else {
        eprintln!("usage: ch15-conformance-client [ARGS...] URL");
        return ExitCode::from(2);
    };
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    eprintln!("ch15-conformance-client: scenario {scenario:?}, server {url}");
    match run(&url, &scenario).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("ch15-conformance-client: {err}");
            ExitCode::FAILURE
        }
    }
}

async fn run(url: &str, scenario: &str) -> Result<(), String> {
    let link = Link::open("server", &[url.to_string()], Duration::from_secs(30), true).await?;
    let capabilities = discover::capabilities(true);
    let server = discover::open("server", link, &capabilities, false).await?;
    let mut outcome = Ok(());
    for (name, arguments) in calls(scenario, &server.tools) {
        match call(&server, &name, arguments).await {
            Ok(result) => println!("tool {name}: {}", result["content"]),
            Err(err) => {
                eprintln!("tool {name}: {err}");
                outcome = Err(err);
            }
        }
    }
    server.link.shutdown().await;
    outcome
}

/// The calls a scenario wants: those `MCP_CONFORMANCE_CONTEXT` names
/// (`toolCalls`) that are in the catalogue, the schema echo of json-schema-2020-12-preservation,
/// none for json-schema-ref-no-deref (listing is the test), else every
/// tool with arguments made from its schema.
fn calls(scenario: &str, tools: &[Value]) -> Vec<(String, Value)> {
    let context: Value = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default();
    if let Some(calls) = context["toolCalls"].as_array() {
        // Only a tool the catalogue kept: one with an invalid x-mcp-header
        // was left out (wire_host::remote), and is never called.
        let listed = |name: &str| tools.iter().any(|tool| tool["name"] == name);
        let named = calls.iter().filter_map(|call| {
            let name = call["name"].as_str().filter(|name| listed(name))?;
            Some((name.to_string(), call["arguments"].clone()))
        });
        return named.collect();
    }
    let schema_of = |name: &str| {
        tools
            .iter()
            .find(|tool| tool["name"] == name)
            .map(|tool| tool["inputSchema"].clone())
    };
    match scenario {
        "json-schema-ref-no-deref" => Vec::new(),
        "json-schema-2020-12-preservation" => schema_of("json_schema_2020_12_tool")
            .map(|schema| vec![("json_schema_echo".to_string(), json!({ "schema": schema }))])
            .unwrap_or_default(),
        _ => tools
            .iter()
            .map(|tool| {
                (
                    tool["name"].as_str().unwrap_or_default().to_string(),
                    arguments(&tool["inputSchema"]),
                )
            })
            .collect(),
    }
}

/// Arguments for a tool, from its schema: every property, a value of its
/// type (its default, its first enum value, else 1, "test", true).
fn arguments(schema: &Value) -> Value {
    let mut arguments = Map::new();
    let empty = Map::new();
    for (name, property) in schema["properties"].as_object().unwrap_or(&empty) {
        let value = match (
            &property["default"],
            &property["enum"],
            property["type"].as_str(),
        ) {
            (Value::Null, Value::Array(values), _) if !values.is_empty() => values[0].clone(),
            (Value::Null, _, Some("number" | "integer")) => json!(1),
            (Value::Null, _, Some("boolean")) => json!(true),
            (Value::Null, _, Some("array")) => json!([]),
            (Value::Null, _, Some("object")) => json!({}),
            (Value::Null, _, _) => json!("test"),
            (default, _, _) => default.clone(),
        };
        arguments.insert(name.clone(), value);
    }
    Value::Object(arguments)
}

/// One tool call, round after round (2026-07-28), the server's requests
/// on the way answered (2025-11-25).
async fn call(server: &Server, name: &str, arguments: Value) -> Result<Value, String> {
    let mut call = json!({ "name": name, "arguments": arguments });
    for _ in 0..MAX_ROUNDS {
        let params = server.params(call.clone());
        let mut sent = server.link.send("tools/call", Some(params)).await?;
        let result = loop {
            match sent.next().await? {
                Message::Reply(Ok(result)) => break result,
                Message::Reply(Err(error)) => return Err(format!("tools/call answered {error}")),
                Message::Request { id, method, params } => {
                    server.link.answer(&id, answer(&method, &params)).await?;
                }
                Message::Broken(why) => return Err(why),
            }
        };
        if result["resultType"] != "input_required" {
            return Ok(result);
        }
        let mut responses = Map::new();
        for (key, request) in result["inputRequests"]
            .as_object()
            .cloned()
            .unwrap_or_default()
        {
            let method = request["method"].as_str().unwrap_or_default();
            let answer = answer(method, &request["params"])
                .map_err(|(code, why)| format!("{key}: {code} {why}"))?;
            responses.insert(key, answer);
        }
        call["inputResponses"] = Value::Object(responses);
        match result.get("requestState") {
            Some(state) => call["requestState"] = state.clone(),
            None => drop(call.as_object_mut().map(|call| call.remove("requestState"))),
        }
    }
    Err(format!(
        "{name}: still input-required after {MAX_ROUNDS} rounds"
    ))
}

/// What this client answers without anyone to ask.
fn answer(method: &str, params: &Value) -> Result<Value, (i64, String)> {
    match method {
        "ping" => Ok(json!({})),
        // Accepted, each field its default (SEP-1034): no user to fill it in.
        "elicitation/create" => {
            let mut content = Map::new();
            let empty = Map::new();
            let properties = params["requestedSchema"]["properties"]
                .as_object()
                .unwrap_or(&empty);
            for (name, property) in properties {
                if let Some(default) = property.get("default") {
                    content.insert(name.clone(), default.clone());
                }
            }
            Ok(json!({ "action": "accept", "content": content }))
        }
        "sampling/createMessage" => Ok(json!({
            "role": "assistant",
            "content": { "type": "text", "text": "A reply from the conformance client." },
            "model": "ch15-conformance-client",
            "stopReason": "endTurn",
        })),
        "roots/list" => Ok(json!({ "roots": [] })),
        _ => Err((-32601, format!("Method not found: {method}"))),
    }
}
