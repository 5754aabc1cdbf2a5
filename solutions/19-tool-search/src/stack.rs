//! Chapter 19's harness: chapter 15's extensions, with tool search just
//! after the servers' tools, whose catalogue it splits.

use wire_host::program::{Parts, Stack};

use crate::tool_search::{Mode, ToolSearch};

/// The extensions of chapters 7 to 19, over a run's parts; `mode` is
/// ENABLE_TOOL_SEARCH, read.
pub fn stack<T>(parts: &Parts<T>, mode: Mode) -> Result<Stack<'_>, String> {
    let mut stack = parts.base();
    stack.insert_after("answering", "tool search", ToolSearch { mode });
    Ok(stack)
}
