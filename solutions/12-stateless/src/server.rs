//! The MCP side, in two eras on one connection. A request that names its
//! revision in `_meta` is served statelessly under 2026-07-28 (modern.rs);
//! any other request follows chapter 5's rules, the handshake included.
//! Both eras offer the same tools, resources and prompts (`serve`). The
//! transport decides the era and passes it to `handle` (so can HTTP, in 13).

use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::SERVER_NAME;
use crate::jsonrpc::{self, Message, Reply, RpcError};
use crate::resources::Notes;
use crate::state::State;
use crate::{modern, prompts, tools};

// ANCHOR: versions
/// The newest revision this server speaks; the answer when the client asks
/// for one we do not know.
pub const LATEST_PROTOCOL_VERSION: &str = "2025-11-25";
/// Every revision this server can speak, newest first.
pub const SUPPORTED_PROTOCOL_VERSIONS: [&str; 2] = [LATEST_PROTOCOL_VERSION, "2025-06-18"];
// ANCHOR_END: versions

pub struct Server {
    /// The notes this server offers, as resources and through `search_notes`.
    notes: Notes,
    /// The folder the drafts live in, shared with any other instance.
    state: State,
}

// ANCHOR: handshake
/// What a connection remembers, kept by its transport: the agreed revision.
#[derive(Default)]
pub struct Handshake {
    pub protocol_version: Option<String>,
}

/// The rules one message is served under, decided once, by the transport.
pub enum Era<'a> {
    /// 2026-07-28: nothing of the connection is read or written.
    Modern,
    /// 2025-11-25 and 2025-06-18: chapter 5's rules, per connection.
    Legacy(&'a mut Handshake),
}
// ANCHOR_END: handshake

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
    pub fn new(notes: Notes, state: State) -> Server {
        Server { notes, state }
    }

    // ANCHOR: handle_line
    /// Handles one line from stdin; returns the frame to write, if any.
    pub fn handle_line(&self, line: &[u8], handshake: &mut Handshake) -> Option<Reply> {
        if line.iter().all(u8::is_ascii_whitespace) {
            return None; // A blank line carries no message.
        }
        match jsonrpc::parse(line) {
            Err(reply) => Some(handshake.for_revision(reply)),
            Ok(message) => {
                let era = handshake.era(&message);
                self.handle(message, era)
            }
        }
    }
    // ANCHOR_END: handle_line
}

impl Handshake {
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

    // ANCHOR: era
    /// The era of one message, decided by the message alone.
    pub fn era(&mut self, message: &Message) -> Era<'_> {
        let Message::Request { method, params, .. } = message else {
            return Era::Legacy(self);
        };
        // GAP(ch12/era): a request whose params._meta names a protocol
        // version (`modern::is_modern`) is modern, and so is every
        // `server/discover`, which only the modern era has: both are
        // `Era::Modern`. Everything else is `Era::Legacy(self)`.
        // starter: let _ = (modern::is_modern, method, params);
        // starter: Era::Legacy(self)
        if modern::is_modern(params.as_ref()) || method == "server/discover" {
            Era::Modern
        } else {
            Era::Legacy(self)
        }
        // END(ch12/era)
    }
    // ANCHOR_END: era
}

impl Server {
    // ANCHOR: handle
    /// One message, whatever carried it, in the era its transport decided.
    pub fn handle(&self, message: Message, era: Era) -> Option<Reply> {
        match message {
            Message::Request { id, method, params } => {
                Some(Reply::new(id, self.handle_request(&method, params, era)))
            }
            Message::Notification { method } => {
                self.handle_notification(&method);
                None // Notifications never get a reply, not even an error.
            }
            Message::Response => {
                eprintln!("{SERVER_NAME}: ignoring a response; this server sends no requests");
                None
            }
        }
    }

    pub fn handle_request(
        &self,
        method: &str,
        params: Option<Value>,
        era: Era,
    ) -> Result<Value, RpcError> {
        match era {
            Era::Modern => self.handle_modern(method, params),
            Era::Legacy(handshake) => self.handle_legacy(method, params, handshake),
        }
    }
    // ANCHOR_END: handle

    // ANCHOR: modern
    /// 2026-07-28: check the request's `_meta`, answer, and dress the result.
    fn handle_modern(&self, method: &str, params: Option<Value>) -> Result<Value, RpcError> {
        modern::check_meta(params.as_ref())?;
        if let Some(error) = modern::removed(method) {
            return Err(error);
        }
        let result = match method {
            "server/discover" => Ok(modern::discover(capabilities())),
            _ => self.serve(method, params),
        };
        result
            .map(|result| modern::complete(method, result))
            .map_err(modern::renumbered)
    }
    // ANCHOR_END: modern

    // ANCHOR: legacy
    /// 2025-11-25 and 2025-06-18: chapter 5's rules, per connection.
    fn handle_legacy(
        &self,
        method: &str,
        params: Option<Value>,
        handshake: &mut Handshake,
    ) -> Result<Value, RpcError> {
        let initialized = handshake.protocol_version.is_some();
        match method {
            "initialize" => self.initialize(params, handshake),
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
                    "the server is not initialized; send initialize first, or name \
                     a protocol version in params._meta",
                ))
            }
            _ => self.serve(method, params),
        }
    }
    // ANCHOR_END: legacy

    // ANCHOR: serve
    /// What both eras offer, answered the same way: only the envelope
    /// around the answer differs.
    fn serve(&self, method: &str, params: Option<Value>) -> Result<Value, RpcError> {
        match method {
            "tools/list" => Ok(tools::list()),
            "tools/call" => tools::call(params, &self.notes, &self.state),
            "resources/list" => self.notes.list(params),
            "resources/templates/list" => self.notes.templates(params),
            "resources/read" => self.notes.read(params),
            "prompts/list" => prompts::list(params),
            "prompts/get" => prompts::get(params, &self.notes),
            _ => Err(RpcError::method_not_found(method)),
        }
    }

    pub fn handle_notification(&self, method: &str) {
        match method {
            "notifications/initialized" => eprintln!("{SERVER_NAME}: client is ready"),
            _ => eprintln!("{SERVER_NAME}: ignoring notification {method}"),
        }
    }
    // ANCHOR_END: serve

    // ANCHOR: initialize
    fn initialize(
        &self,
        params: Option<Value>,
        handshake: &mut Handshake,
    ) -> Result<Value, RpcError> {
        if handshake.protocol_version.is_some() {
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
        handshake.protocol_version = Some(version.to_string());
        Ok(json!({
            "protocolVersion": version,
            "capabilities": capabilities(),
            "serverInfo": { "name": SERVER_NAME, "version": env!("CARGO_PKG_VERSION") },
        }))
    }
    // ANCHOR_END: initialize
}

/// What this server offers, the same in both eras. Empty objects: "I have
/// tools, resources and prompts", with no change notifications and no
/// subscriptions.
fn capabilities() -> Value {
    json!({ "tools": {}, "resources": {}, "prompts": {} })
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
