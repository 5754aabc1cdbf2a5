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
    // TODO(ch15/route): `ping` is {}; `elicitation/create` is
    // `elicit(...)`'s answer; `roots/list` is respondent.answers.roots_result();
    // `sampling/createMessage` is `ask::sample(...)` (the user approves, then
    // the model answers) when respondent.answers.sampling (declared), else -32601 saying sampling was not declared; any other
    // method -32601 "Method not found: METHOD".
    let _ = (respondent, server, params, elicit, ask::sample);
    Err((-32601, format!("TODO(ch15/route): {method}")))
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
