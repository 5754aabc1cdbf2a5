//! Revision 2026-07-28, the stateless one. There is no handshake: every
//! request says in `params._meta` which revision it speaks and what the
//! client can do, every result says it is complete and who answered, and
//! the answers that do not change often say how long they may be reused.

use serde_json::{Value, json};

use crate::SERVER_NAME;
use crate::jsonrpc::RpcError;

// ANCHOR: keys
/// The one modern revision this server speaks.
pub const MODERN_VERSION: &str = "2026-07-28";

/// The `_meta` keys of a modern request: the first two are required.
const VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
const CAPABILITIES_KEY: &str = "io.modelcontextprotocol/clientCapabilities";
const CLIENT_INFO_KEY: &str = "io.modelcontextprotocol/clientInfo";
/// The `_meta` key of every modern result: who answered.
const SERVER_INFO_KEY: &str = "io.modelcontextprotocol/serverInfo";
// ANCHOR_END: keys

// ANCHOR: is_modern
/// A request is modern when its `params._meta` names a protocol version,
/// whatever came before it on the connection. Not `_meta` alone: a legacy
/// request may carry one too, for a `progressToken`.
pub fn is_modern(params: Option<&Value>) -> bool {
    params
        .and_then(|params| params.get("_meta"))
        .and_then(|meta| meta.get(VERSION_KEY))
        .is_some()
}
// ANCHOR_END: is_modern

// ANCHOR: check_meta
/// Checks what every modern request must carry. The version comes first: a
/// client that speaks another revision may mean other keys, so the useful
/// answer is which revisions we speak (-32022), not which key is missing.
pub fn check_meta(params: Option<&Value>) -> Result<(), RpcError> {
    // TODO(ch12/meta): `params._meta` must hold the protocol version (a
    // string) and the client capabilities (an object); clientInfo, if sent,
    // is an object. A missing key or a wrong type is -32602 (`bad_key` says
    // which); a version other than 2026-07-28 is -32022 (`unsupported`).
    let _ = (
        params,
        bad_key,
        unsupported,
        CAPABILITIES_KEY,
        CLIENT_INFO_KEY,
    );
    Ok(())
    // END(ch12/meta)
}

/// -32602, naming the key and what it must be.
fn bad_key(key: &str, expected: &str, found: Option<&Value>) -> RpcError {
    let problem = match found {
        None => format!("params._meta needs {key}, {expected}"),
        Some(value) => format!("params._meta {key} must be {expected}, not {value}"),
    };
    RpcError::invalid_params(problem).with_data(json!({ "key": key, "expected": expected }))
}

/// -32022: the client may retry with one of `supported`, so we choose to name
/// only 2026-07-28 (the handshake revisions need an `initialize` first), as
/// `server/discover`'s `supportedVersions` does; the conformance suite checks.
fn unsupported(requested: &str) -> RpcError {
    RpcError::new(-32022, "Unsupported protocol version".into())
        .with_data(json!({ "supported": [MODERN_VERSION], "requested": requested }))
}
// ANCHOR_END: check_meta

// ANCHOR: removed
/// Handshake-era methods that 2026-07-28 removed, and what replaces them.
const REMOVED: [(&str, &str); 5] = [
    (
        "initialize",
        "there is no handshake; every request carries its version in _meta",
    ),
    (
        "ping",
        "any request is a liveness check now; there is no session to keep",
    ),
    (
        "logging/setLevel",
        "a request asks for logs itself, in _meta",
    ),
    ("resources/subscribe", "subscriptions/listen replaces it"),
    ("resources/unsubscribe", "subscriptions/listen replaces it"),
];

/// -32601 for a removed method sent as a modern request, saying why.
pub fn removed(method: &str) -> Option<RpcError> {
    let (_, instead) = REMOVED.iter().find(|(name, _)| *name == method)?;
    let reason = format!("{method} was removed in {MODERN_VERSION}: {instead}");
    Some(RpcError::method_not_found(method).with_data(json!({ "reason": reason })))
}
// ANCHOR_END: removed

// ANCHOR: discover
/// The answer to `server/discover`: what `initialize` told a legacy client,
/// without a version to agree on (`complete` adds who answered).
pub fn discover(capabilities: Value) -> Value {
    json!({
        "supportedVersions": [MODERN_VERSION],
        "capabilities": capabilities,
        "instructions": "Engineering notes to read and search, prompts about them, and note \
                         drafts. A draft is named by the handle start_draft returns; give \
                         each change a new operation_key, and a retry the same one.",
    })
}
// ANCHOR_END: discover

// ANCHOR: complete
/// How long an answer stays fresh, in ms (a hint, not a guarantee): an hour
/// for what changes only with a new build, a minute for notes. `None`: no hint.
fn cache_ttl_ms(method: &str) -> Option<u64> {
    match method {
        "server/discover" | "tools/list" | "prompts/list" | "resources/templates/list" => {
            Some(3_600_000)
        }
        "resources/list" | "resources/read" => Some(60_000),
        _ => None,
    }
}

/// A modern result: marked complete, with our name (self-reported, nothing
/// verifies it) and its caching hints where the revision requires them.
pub fn complete(method: &str, mut result: Value) -> Value {
    // TODO(ch12/complete): add "resultType": "complete", and in "_meta" the
    // serverInfo (name and version); for the methods `cache_ttl_ms` knows,
    // "ttlMs" and "cacheScope": "public" (every client gets the same answer).
    let _ = (method, cache_ttl_ms, SERVER_INFO_KEY, &mut result);
    // END(ch12/complete)
    result
}
// ANCHOR_END: complete

// ANCHOR: renumbered
/// Errors whose code changed: a resource that does not exist was -32002
/// (resources.rs still says so, for the handshake era); 2026-07-28 makes it
/// -32602, Invalid params, with the same message and `data.uri`.
pub fn renumbered(error: RpcError) -> RpcError {
    if code(&error) != -32002 {
        return error;
    }
    let wire = json!(error); // Its message, and `data` with the uri.
    let message = wire["message"].as_str().unwrap_or_default().to_string();
    RpcError::new(-32602, message).with_data(wire["data"].clone())
}
// ANCHOR_END: renumbered

/// An error's code: `RpcError` keeps it private, the frame it becomes says it.
pub fn code(error: &RpcError) -> i64 {
    json!(error)["code"].as_i64().unwrap_or_default()
}
