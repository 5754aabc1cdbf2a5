//! The MCP side: the handshake from chapter 2, the tools from chapter 3, the
//! resources from chapter 4, and now the `prompts` capability.

use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::SERVER_NAME;
use crate::jsonrpc::{self, Message, Reply, RpcError};
use crate::resources::Notes;
use crate::{prompts, tools};

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
    /// The notes this server offers, as resources and through `search_notes`.
    notes: Notes,
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
    pub fn new(notes: Notes) -> Server {
        Server {
            protocol_version: None,
            notes,
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
        let initialized = self.protocol_version.is_some();
        match method {
            "initialize" => self.initialize(params),
            // `ping` is allowed at any time, even before `initialize`.
            "ping" => Ok(json!({})),
            // Nothing is negotiated before `initialize`, so nothing else is served.
            "tools/list"
            | "tools/call"
            | "resources/list"
            | "resources/templates/list"
            | "resources/read"
            | "prompts/list"
            | "prompts/get"
                if !initialized =>
            {
                Err(RpcError::invalid_request(
                    "the server is not initialized; send initialize first",
                ))
            }
            "tools/list" => Ok(tools::list()),
            "tools/call" => tools::call(params, &self.notes),
            "resources/list" => self.notes.list(params),
            "resources/templates/list" => self.notes.templates(params),
            "resources/read" => self.notes.read(params),
            "prompts/list" => prompts::list(params),
            "prompts/get" => prompts::get(params, &self.notes),
            // STRETCH(ch05/complete): answer completion/complete with
            // `prompts::complete` (and, like the others, not before initialize).
            #[cfg(feature = "stretch")]
            "completion/complete" if !initialized => Err(RpcError::invalid_request(
                "the server is not initialized; send initialize first",
            )),
            #[cfg(feature = "stretch")]
            "completion/complete" => prompts::complete(params),
            // END(ch05/complete)
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
        let version = negotiate(&params.protocol_version);
        self.protocol_version = Some(version.to_string());
        // Empty objects: "I have tools, resources and prompts", with no
        // change notifications and no subscriptions.
        let capabilities = json!({ "tools": {}, "resources": {}, "prompts": {} });
        // STRETCH(ch05/complete): say that this server completes arguments.
        #[cfg(feature = "stretch")]
        let capabilities = {
            let mut capabilities = capabilities;
            capabilities["completions"] = json!({});
            capabilities
        };
        // END(ch05/complete)
        Ok(json!({
            "protocolVersion": version,
            "capabilities": capabilities,
            "serverInfo": { "name": SERVER_NAME, "version": env!("CARGO_PKG_VERSION") },
        }))
    }
    // ANCHOR_END: initialize
}

// ANCHOR: negotiate
/// Echo the client's version if we speak it; otherwise offer our latest and
/// let the client decide whether it can live with that.
fn negotiate(requested: &str) -> &'static str {
    SUPPORTED_PROTOCOL_VERSIONS
        .into_iter()
        .find(|supported| *supported == requested)
        .unwrap_or(LATEST_PROTOCOL_VERSION)
}
// ANCHOR_END: negotiate
