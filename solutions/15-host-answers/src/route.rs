//! A server that asks: what this client answers. In 2025-11-25 the
//! question is a request of the server's on the open connection
//! (`elicitation/create`, `sampling/createMessage`, `roots/list`); in
//! 2026-07-28 it is an entry of an input-required result (`retry.rs`).
//! Both come here. The user answers a form (on the terminal, or from the
//! answers file), with Claude Code's Elicitation hooks around it; sampling
//! reaches the model only once the user approves it.

use serde_json::{Value, json};
use wire_host::ask::{self, Answers};
use wire_host::connection::METHOD_NOT_FOUND;
use wire_host::seams::ModelApi;
use wire_host::session::Fire;

use crate::events::Event;

/// Who answers a server's questions: the user (on the terminal, or from
/// the answers file, which also holds the roots and whether sampling is
/// offered), the Elicitation hooks around a form, the model for sampling.
pub struct Respondent<'a> {
    pub answers: &'a Answers,
    pub hooks: &'a dyn Fire,
    pub model: &'a dyn ModelApi,
}

/// An error for the server: a JSON-RPC code and message.
pub type Refusal = (i64, String);

// ANCHOR: answer
/// The answer to the server's `method` with `params`: a result, or a
/// JSON-RPC error.
pub async fn answer(
    respondent: &Respondent<'_>,
    server: &str,
    method: &str,
    params: &Value,
) -> Result<Value, Refusal> {
    // GAP(ch15/route): `ping` is {}; `elicitation/create` is
    // `elicit(...)`'s answer; `roots/list` is respondent.answers.roots_result();
    // `sampling/createMessage` is `ask::sample(...)` (the user approves, then
    // the model answers) when respondent.answers.sampling (declared), else -32601 saying sampling was not declared; any other
    // method -32601 "Method not found: METHOD".
    // starter: let _ = (respondent, server, params, elicit, ask::sample);
    // starter: Err((-32601, format!("TODO(ch15/route): {method}")))
    match method {
        "ping" => Ok(json!({})),
        "elicitation/create" => Ok(elicit(respondent, server, params).await),
        "roots/list" => Ok(respondent.answers.roots_result()),
        "sampling/createMessage" if respondent.answers.sampling => {
            ask::sample(respondent.answers, respondent.model, server, params).await
        }
        // The spec (2025-11-25, lifecycle) lets a server use only what the
        // client declared, but names no error for one that asks anyway: the
        // course answers as for a method this client does not have.
        "sampling/createMessage" => Err((
            METHOD_NOT_FOUND,
            "sampling was not declared in the capabilities".into(),
        )),
        _ => Err((METHOD_NOT_FOUND, format!("Method not found: {method}"))),
    }
    // END(ch15/route)
}
// ANCHOR_END: answer

/// A form for the user. An Elicitation hook may answer it first (or
/// decline it, exit 2); else the user answers, and ElicitationResult hooks
/// see the answer before it goes and may change it (exit 2: decline).
async fn elicit(respondent: &Respondent<'_>, server: &str, params: &Value) -> Value {
    let event = Event::Elicitation { server, params };
    let (outcome, lines) = respondent.hooks.fire(&event, None).await;
    lines.iter().for_each(|line| println!("{line}"));
    let (mut response, how) = match (outcome.block, outcome.updated_input) {
        (Some(_), _) => (
            json!({ "action": "decline" }),
            "an Elicitation hook declined",
        ),
        (None, Some(answer)) => (answer, "an Elicitation hook answered"),
        (None, None) => {
            let (response, how) = respondent.answers.elicit(server, params);
            // STRETCH(ch15/fits-form): an accepted form that does not fit its
            // requestedSchema is asked again (`fits::until_it_fits`).
            #[cfg(feature = "stretch")]
            let (response, how) =
                crate::fits::until_it_fits(respondent.answers, server, params, (response, how));
            // END(ch15/fits-form)
            let event = Event::ElicitationResult {
                server,
                params,
                response: &response,
            };
            let (outcome, lines) = respondent.hooks.fire(&event, None).await;
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
