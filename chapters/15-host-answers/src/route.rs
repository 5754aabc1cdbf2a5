//! A server that asks: what this client answers. In 2025-11-25 the
//! question is a request of the server's on the open connection
//! (`elicitation/create`, `sampling/createMessage`, `roots/list`); in
//! 2026-07-28 it is an entry of an input-required result (`retry.rs`).
//! Both come here. The user answers a form (on the terminal, or from the
//! answers file), with Claude Code's Elicitation hooks around it; sampling
//! reaches the model only once the user approves it.

use serde_json::{Value, json};
use wire_host::ask::{sampling_request, sampling_result};
use wire_host::model::MAIN;

use crate::events::Event;
use crate::harness::Harness;

/// An error for the server: a JSON-RPC code and message.
pub type Refusal = (i64, String);

// ANCHOR: answer
/// The answer to the server's `method` with `params`: a result, or a
/// JSON-RPC error.
pub async fn answer(
    harness: &Harness,
    server: &str,
    method: &str,
    params: &Value,
) -> Result<Value, Refusal> {
    // TODO(ch15/route): `ping` is {}; `elicitation/create` is
    // `elicit(...)`'s answer; `roots/list` is harness.answers.roots_result();
    // `sampling/createMessage` is `sample(...)` when harness.answers.sampling
    // (declared), else -32601 saying sampling was not declared; any other
    // method -32601 "Method not found: METHOD".
    let _ = (harness, server, params, elicit, sample);
    Err((-32601, format!("TODO(ch15/route): {method}")))
    // END(ch15/route)
}
// ANCHOR_END: answer

/// A form for the user. An Elicitation hook may answer it first (or
/// decline it, exit 2); else the user answers, and ElicitationResult hooks
/// see the answer before it goes and may change it (exit 2: decline).
async fn elicit(harness: &Harness, server: &str, params: &Value) -> Value {
    let event = Event::Elicitation { server, params };
    let (outcome, lines) = harness.hooks.fire(&event, None).await;
    lines.iter().for_each(|line| println!("{line}"));
    let (mut response, how) = match (outcome.block, outcome.updated_input) {
        (Some(_), _) => (
            json!({ "action": "decline" }),
            "an Elicitation hook declined",
        ),
        (None, Some(answer)) => (answer, "an Elicitation hook answered"),
        (None, None) => {
            let (response, how) = harness.answers.elicit(server, params);
            let event = Event::ElicitationResult {
                server,
                params,
                response: &response,
            };
            let (outcome, lines) = harness.hooks.fire(&event, None).await;
            lines.iter().for_each(|line| println!("{line}"));
            match (outcome.block, outcome.updated_input) {
                (Some(_), _) => (
                    json!({ "action": "decline" }),
                    "an ElicitationResult hook declined",
                ),
                (None, Some(changed)) => (changed, "an ElicitationResult hook changed it"),
                (None, None) => (response, how),
            }
        }
    };
    if response["action"] != "accept" {
        response
            .as_object_mut()
            .map(|fields| fields.remove("content"));
    }
    let message = params["message"].as_str().unwrap_or_default();
    println!("  elicitation from {server}: {message} -> {response} ({how})");
    response
}

/// A sampling request: shown to the user, then to the model if approved.
async fn sample(harness: &Harness, server: &str, params: &Value) -> Result<Value, Refusal> {
    let (approved, how) = harness.answers.approve(server, params);
    let said = if approved { "approved" } else { "refused" };
    println!("  sampling from {server}: {said} ({how})");
    if !approved {
        // The spec's example of a user who says no (client/sampling).
        return Err((-1, "User rejected sampling request".into()));
    }
    let model = harness.model.name();
    let request = sampling_request(params, model);
    let reply = harness
        .model
        .send(MAIN, &request)
        .await
        .map_err(|err| (-32603, err))?;
    Ok(sampling_result(&reply, model))
}
