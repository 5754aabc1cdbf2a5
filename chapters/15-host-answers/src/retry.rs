//! One tool call to an MCP server, answered as it asks. In 2025-11-25 the
//! server's requests arrive during the call and are answered on the same
//! connection; in 2026-07-28 the call ends `input_required`, and the
//! client calls again, under a new id, with the answers and the server's
//! `requestState` unchanged, round after round, until the result is
//! complete (or the rounds run out).

use async_trait::async_trait;
use serde_json::{Map, Value, json};
use wire_host::mcp::tool_definitions;
use wire_host::remote::{Server, Servers};
use wire_host::seams::{Call, Context, Extension, Harness, Outcome};
use wire_host::transport::Message;

use crate::route::{self, Respondent};

/// How many input-required rounds one call may take.
pub const MAX_ROUNDS: usize = 4;

/// The servers, of either era, as an extension of the harness: their
/// tools (listed again when a server says they changed), and each call of
/// one run through the questions its server asks.
pub struct Answering<'a> {
    /// The name this program goes by in its warnings.
    pub program: &'static str,
    pub servers: &'a Servers,
    /// Who answers a server's questions (`route.rs`).
    pub respondent: Respondent<'a>,
}

#[async_trait(?Send)]
impl Extension for Answering<'_> {
    fn tools(&self, tools: &mut Vec<Value>) {
        tools.extend(tool_definitions(self.program, &self.servers.tools()));
    }

    /// A server's `notifications/tools/list_changed`: its tools, listed again.
    async fn tools_changed(&self) -> bool {
        self.servers.refresh().await
    }

    async fn run(&self, _: &Harness<'_>, _: &Context, call: &mut Call) -> Option<Outcome> {
        let (name, input) = (call.name(), call.tool_use.input.clone());
        self.servers.find(name).ok()?;
        Some(call_tool(self, name, input).await)
    }
}

/// Calls a tool by its qualified name. The result may still have
/// `isError: true`: the tool ran and failed, which is not our error.
pub async fn call_tool(
    answering: &Answering<'_>,
    qualified: &str,
    arguments: Value,
) -> Result<Value, String> {
    let (server, tool) = answering.servers.find(qualified)?;
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
async fn send(answering: &Answering<'_>, server: &Server, params: Value) -> Result<Value, String> {
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
                let answer =
                    route::answer(&answering.respondent, &server.name, &method, &params).await;
                link.answer(&id, answer).await?;
            }
            Message::Broken(why) => return Err(why),
        }
    }
}
