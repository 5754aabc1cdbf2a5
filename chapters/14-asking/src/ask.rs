//! The asking interface. A tool that needs something only the client's side
//! has (the user's decision, a completion from the client's model, the
//! folders it may write to) asks for it here, and is written once. Who
//! implements `Ask` decides how the question travels: `legacy.rs` sends a
//! JSON-RPC request on the open connection and waits for the response
//! (2025-11-25); `rounds.rs` ends the call with an input-required result and
//! finds the answer in the client's retry (2026-07-28).

use serde_json::{Value, json};

use crate::jsonrpc::RpcError;

/// One question for the client: a request the client's side answers.
pub struct InputRequest {
    pub method: &'static str,
    pub params: Value,
}

impl InputRequest {
    /// A form for the user (`elicitation/create`, mode "form").
    pub fn elicit(message: &str, requested_schema: Value) -> InputRequest {
        let params =
            json!({ "mode": "form", "message": message, "requestedSchema": requested_schema });
        InputRequest {
            method: "elicitation/create",
            params,
        }
    }

    /// A completion from the client's model (`sampling/createMessage`).
    pub fn sample(params: Value) -> InputRequest {
        InputRequest {
            method: "sampling/createMessage",
            params,
        }
    }

    /// The folders the user lets the server work in (`roots/list`).
    pub fn roots() -> InputRequest {
        InputRequest {
            method: "roots/list",
            params: json!({}),
        }
    }

    /// The client capability without which nobody would answer.
    pub fn capability(&self) -> &'static str {
        match self.method {
            "elicitation/create" => "elicitation",
            "sampling/createMessage" => "sampling",
            _ => "roots",
        }
    }

    /// As it travels: `{"method": …, "params": …}`.
    pub fn to_json(&self) -> Value {
        json!({ "method": self.method, "params": self.params })
    }
}

/// Why a tool stopped before its result.
pub enum Stop {
    /// 2026-07-28: answers are missing; the call ends input-required.
    Input,
    /// The request fails with this JSON-RPC error.
    Error(RpcError),
    /// The tool cannot go on, for a reason the model should read: a
    /// capability the client never declared, a question it refused.
    Refused(String),
}

impl From<RpcError> for Stop {
    fn from(error: RpcError) -> Stop {
        Stop::Error(error)
    }
}

// ANCHOR: ask
/// What a tool asks through. The keys name each question within one call
/// (2026-07-28 sends them, 2025-11-25 only logs them), so a tool asking
/// again after a missing answer uses the same key.
pub trait Ask {
    /// Whether the client said it can answer `capability` requests
    /// ("elicitation", "sampling", "roots").
    fn can(&self, capability: &str) -> bool;
    /// The answers (each request's result) in order, or why not.
    fn ask_each(&mut self, requests: Vec<(&str, InputRequest)>) -> Result<Vec<Value>, Stop>;
}

/// One question, one answer.
pub fn ask(asker: &mut dyn Ask, key: &str, request: InputRequest) -> Result<Value, Stop> {
    let mut answers = asker.ask_each(vec![(key, request)])?;
    Ok(answers.pop().unwrap_or_default())
}
// ANCHOR_END: ask
