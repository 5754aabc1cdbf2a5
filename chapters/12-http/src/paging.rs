//! Pagination: a list method answers one page at a time, and a cursor says
//! where the next page starts.

use std::ops::Range;

use serde::Deserialize;
use serde_json::{Value, json};

use crate::base64;
use crate::jsonrpc::RpcError;

// ANCHOR: params
/// Every list method (`resources/list`, `resources/templates/list`,
/// `prompts/list`) takes an optional cursor; params may be absent.
#[derive(Deserialize)]
pub struct ListParams {
    pub cursor: Option<String>,
}

pub fn list_params(params: Option<Value>) -> Result<ListParams, RpcError> {
    let params = params.unwrap_or_else(|| json!({}));
    serde_json::from_value(params).map_err(RpcError::invalid_params)
}
// ANCHOR_END: params

// ANCHOR: page
/// How many items one page holds: small, so that the built-in notes alone
/// take three pages. The client does not choose; the server does.
const PAGE_SIZE: usize = 3;

/// The page of `keys` (sorted) that `cursor` points at, and the cursor of
/// the page after it, if there is one. A cursor is the base64 of the first
/// key of its page: opaque to the client, easy to check for the server.
pub fn page(
    keys: &[&str],
    cursor: Option<&str>,
) -> Result<(Range<usize>, Option<String>), RpcError> {
    let start = match cursor {
        None => 0,
        Some(cursor) => keys
            .iter()
            .position(|key| base64::encode(key.as_bytes()) == cursor)
            .ok_or_else(|| {
                RpcError::invalid_params(format!(
                    "unknown cursor \"{cursor}\"; send a nextCursor back unchanged, \
                     or no cursor to start from the first page"
                ))
            })?,
    };
    let end = keys.len().min(start + PAGE_SIZE);
    let next_cursor = keys.get(end).map(|key| base64::encode(key.as_bytes()));
    Ok((start..end, next_cursor))
}
// ANCHOR_END: page
