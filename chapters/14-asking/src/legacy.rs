//! 2025-11-25: the server asks with a JSON-RPC request of its own, sent to
//! the client while the call waits, and reads the response into the tool's
//! answer. It travels on a `Transport` (given, in `wire_server::asking`): on
//! stdio the call's connection, which queues the client's other frames
//! meanwhile so replies keep their order; over HTTP the call's event stream.

use serde_json::Value;

use crate::ask::{Ask, InputRequest, Stop};
use crate::asking::Transport;

// ANCHOR: ask
impl<T: Transport> Ask for T {
    fn can(&self, capability: &str) -> bool {
        self.declared(capability)
    }

    /// One request after another, each waited for: 2025-11-25 has no way
    /// to ask two things in one message.
    fn ask_each(&mut self, requests: Vec<(&str, InputRequest)>) -> Result<Vec<Value>, Stop> {
        let answers = requests.iter().map(|(_key, request)| answer(self, request));
        answers.collect()
    }
}

/// Sends `request` on `transport` and reads the client's response into the
/// answer: its result, or why there is none.
fn answer(transport: &mut impl Transport, request: &InputRequest) -> Result<Value, Stop> {
    // TODO(ch14/legacy-request): a capability the client did not declare
    // (`transport.declared(request.capability())`) is a Stop::Refused
    // naming it and `initialize`: nobody would answer. Else
    // `transport.request(request)?` is the client's response: its "result"
    // is the answer; an "error" is a Stop::Refused saying that the client
    // refused `request.method`, and the error's "message".
    let _ = (transport, request);
    Err(Stop::Refused("TODO(ch14/legacy-request)".into()))
    // END(ch14/legacy-request)
}
// ANCHOR_END: ask
