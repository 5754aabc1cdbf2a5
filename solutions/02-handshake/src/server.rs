//! The MCP side: the `initialize` handshake, version negotiation and `ping`.

use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::SERVER_NAME;
use crate::jsonrpc::{self, Message, Reply, RpcError};

// ANCHOR: versions
/// The newest revision this server speaks; the answer when the client asks
/// for one we do not know.
pub const LATEST_PROTOCOL_VERSION: &str = "2025-11-25";
/// Every revision this server can speak, newest first.
pub const SUPPORTED_PROTOCOL_VERSIONS: [&str; 2] = [LATEST_PROTOCOL_VERSION, "2025-06-18"];
// ANCHOR_END: versions

pub struct Server {
    /// The revision agreed in `initialize`; `None` until then.
    protocol_version: Option<String>,
    // STRETCH(ch02/used-ids): refuse a request whose id this session has
    // already used, with -32600; in three places: a field of `Server`, its
    // start in `new`, the check in `handle_line`; each under
    // #[cfg(feature = "stretch")].
    /// Every request id seen so far, as JSON text: `1` and `"1"` differ.
    #[cfg(feature = "stretch")]
    used_ids: std::collections::HashSet<String>,
    // END(ch02/used-ids)
}

// ANCHOR: initialize_params
/// The part of `initialize`'s params this server reads. serde checks the
/// types and names a missing field in its error message.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct InitializeParams {
    protocol_version: String,
    capabilities: Map<String, Value>,
    client_info: ClientInfo,
}

#[derive(Deserialize)]
struct ClientInfo {
    name: String,
    version: String,
}
// ANCHOR_END: initialize_params

impl Server {
    pub fn new() -> Server {
        Server {
            protocol_version: None,
            // STRETCH(ch02/used-ids): no id is used yet.
            #[cfg(feature = "stretch")]
            used_ids: std::collections::HashSet::new(),
            // END(ch02/used-ids)
        }
    }

    // ANCHOR: handle_line
    /// Handles one line from stdin; returns the frame to write, if any.
    pub fn handle_line(&mut self, line: &[u8]) -> Option<Reply> {
        if line.iter().all(u8::is_ascii_whitespace) {
            return None; // A blank line carries no message.
        }
        match jsonrpc::parse(line) {
            Err(reply) => Some(self.for_revision(reply)),
            Ok(Message::Request { id, method, params }) => {
                // STRETCH(ch02/used-ids): a reused id gets -32600, and the
                // request is not run.
                #[cfg(feature = "stretch")]
                if !self.used_ids.insert(id.to_string()) {
                    let error = RpcError::invalid_request(format!(
                        "request id {id} was already used in this session"
                    ));
                    return Some(Reply::new(id, Err(error)));
                }
                // END(ch02/used-ids)
                Some(Reply::new(id, self.handle_request(&method, params)))
            }
            Ok(Message::Notification { method }) => {
                self.handle_notification(&method);
                None // Notifications never get a reply, not even an error.
            }
            Ok(Message::Response) => {
                eprintln!("{SERVER_NAME}: ignoring a response; this server sends no requests");
                None
            }
        }
    }
    // ANCHOR_END: handle_line

    // ANCHOR: for_revision
    /// An error reply whose request id could not be read, in the agreed
    /// revision's shape: 2025-11-25 leaves the id out. 2025-06-18's schema has
    /// no shape for it, and its text defers to JSON-RPC 2.0: `"id": null`.
    pub fn for_revision(&self, reply: Reply) -> Reply {
        match self.protocol_version.as_deref() {
            Some("2025-06-18") => reply.with_null_id(),
            _ => reply,
        }
    }
    // ANCHOR_END: for_revision

    // ANCHOR: dispatch
    fn handle_request(&mut self, method: &str, params: Option<Value>) -> Result<Value, RpcError> {
        match method {
            "initialize" => self.initialize(params),
            // `ping` is allowed at any time, even before `initialize`.
            "ping" => Ok(json!({})),
            // Anything else, `server/discover` included, is unknown here.
            _ => Err(RpcError::method_not_found(method)),
        }
    }

    fn handle_notification(&mut self, method: &str) {
        match method {
            "notifications/initialized" => eprintln!("{SERVER_NAME}: client is ready"),
            _ => eprintln!("{SERVER_NAME}: ignoring notification {method}"),
        }
    }
    // ANCHOR_END: dispatch

    // ANCHOR: initialize
    fn initialize(&mut self, params: Option<Value>) -> Result<Value, RpcError> {
        if self.protocol_version.is_some() {
            return Err(RpcError::invalid_request(
                "initialize may be sent only once",
            ));
        }
        let params = params.ok_or_else(|| RpcError::invalid_params("initialize needs params"))?;
        let params: InitializeParams =
            serde_json::from_value(params).map_err(RpcError::invalid_params)?;
        eprintln!(
            "{SERVER_NAME}: {} {} asks for {} ({} client capabilities)",
            params.client_info.name,
            params.client_info.version,
            params.protocol_version,
            params.capabilities.len()
        );
        // GAP(ch02/negotiate): agree on a protocol version, remember it, and
        // answer with the version, the server's capabilities and its identity.
        // starter: Err(RpcError::new(-32603, "TODO(ch02/negotiate): answer initialize".into()))
        let version = negotiate(&params.protocol_version);
        self.protocol_version = Some(version.to_string());
        Ok(json!({
            "protocolVersion": version,
            "capabilities": {},
            "serverInfo": { "name": SERVER_NAME, "version": env!("CARGO_PKG_VERSION") },
        }))
        // END(ch02/negotiate)
    }
    // ANCHOR_END: initialize
}

// ANCHOR: negotiate
/// Echo the client's version if we speak it; otherwise offer our latest and
/// let the client decide whether it can live with that.
fn negotiate(requested: &str) -> &'static str {
    // GAP(ch02/pick-version): return the requested version if it is in
    // SUPPORTED_PROTOCOL_VERSIONS, otherwise LATEST_PROTOCOL_VERSION.
    SUPPORTED_PROTOCOL_VERSIONS
        .into_iter()
        .find(|supported| *supported == requested)
        .unwrap_or(LATEST_PROTOCOL_VERSION)
    // END(ch02/pick-version)
}
// ANCHOR_END: negotiate
