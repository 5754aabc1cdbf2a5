//! The asking interface. A tool that needs what only the client's side has
//! (the user's decision, a completion from its model, the folders it may
//! write to) asks here, and is written once. The implementation decides how
//! the question travels: `legacy.rs` sends the client a request and waits
//! (2025-11-25); `rounds.rs` ends the call input-required and finds the
//! answer in the retry (2026-07-28). `InputRequest` and `Stop` are given.

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
