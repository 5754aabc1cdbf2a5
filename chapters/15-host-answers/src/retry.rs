//! One tool call to an MCP server, answered as it asks. In 2025-11-25 the
//! server's requests arrive during the call and are answered on the same
//! connection; in 2026-07-28 the call ends `input_required`, and the
//! client calls again, under a new id, with the answers and the server's
//! `requestState` unchanged, round after round, until the result is
//! complete (or the rounds run out).

use serde_json::{Map, Value, json};
use wire_host::transport::Message;

use crate::harness::Harness;
use crate::route;

/// How many input-required rounds one call may take.
pub const MAX_ROUNDS: usize = 4;

/// Calls a tool by its qualified name. The result may still have
/// `isError: true`: the tool ran and failed, which is not our error.
pub async fn call_tool(
    harness: &Harness,
    qualified: &str,
    arguments: Value,
) -> Result<Value, String> {
    let (server, tool) = harness.host.find(qualified)?;
    let mut call = json!({ "name": tool.name, "arguments": arguments });
    // ANCHOR: rounds
    // TODO(ch15/retry): up to MAX_ROUNDS times: send `call` (with
    // server.params) through `send`; a result whose resultType is not
    // "input_required" is the answer. Else answer each inputRequests entry
    // (key → {method, params}) with route::answer (a refusal ends the call
    // with an Err), and put the answers under call's "inputResponses" and
    // the result's requestState, unchanged, under "requestState". After
    // the last round: an Err that names the bound.
    let _ = (server, &mut call, send, route::answer, Map::new());
    Err("TODO(ch15/retry)".to_string())
    // END(ch15/retry)
    // ANCHOR_END: rounds
}

/// One `tools/call` request: the server's own requests on the way are
/// routed and answered (2025-11-25); returns the result.
async fn send(
    harness: &Harness,
    server: &wire_host::remote::Server,
    params: Value,
) -> Result<Value, String> {
    let link = &server.link;
    let mut call = link.send("tools/call", Some(params)).await?;
    loop {
        match call.next().await? {
            Message::Reply(Ok(result)) => return Ok(result),
            Message::Reply(Err(error)) => {
                return Err(format!(
                    "server {} answered tools/call with {error}",
                    server.name
                ));
            }
            Message::Request { id, method, params } => {
                let answer = route::answer(harness, &server.name, &method, &params).await;
                link.answer(&id, answer).await?;
            }
            Message::Broken(why) => return Err(why),
        }
    }
}
