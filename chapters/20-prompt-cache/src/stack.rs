//! Chapter 20's harness: chapter 19's, with the prompt cache after tool
//! search, so that it marks the tools of the turn, as they are sent.

use wire_host::model::Provider;
use wire_host::program::{Parts, Stack};
use wire_host::stack19;
use wire_host::tool_search::Mode;

use crate::prompt_cache::PromptCache;

/// The extensions of chapters 7 to 20, over a run's parts.
pub fn stack<T>(parts: &Parts<T>, mode: Mode) -> Result<Stack<'_>, String> {
    let mut stack = stack19::stack(parts, mode)?;
    let scripted = matches!(parts.model.provider, Provider::Scripted { .. });
    stack.insert_after("tool search", "prompt cache", PromptCache::new(scripted));
    Ok(stack)
}
