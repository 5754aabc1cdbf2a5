//! The asking interface. A tool that needs something only the client's side
//! has (the user's decision, a completion from the client's model, the
//! folders it may write to) asks for it here, and is written once. Who
//! implements `Ask` decides how the question travels: `legacy.rs` sends a
//! JSON-RPC request to the client and waits for its response (2025-11-25);
//! `rounds.rs` ends the call with an input-required result and finds the
//! answer in the client's retry (2026-07-28). A question (`InputRequest`)
//! and the ways a tool stops (`Stop`) are given, in `wire_server::asking`.

use serde_json::Value;

pub use crate::asking::{InputRequest, Stop};

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
