//! The MCP side, in two eras on one connection. A request that names its
//! revision in `_meta` is served statelessly under 2026-07-28 (modern.rs);
//! any other request follows chapter 5's rules, the handshake included.
//! Both eras then offer the same tools, resources and prompts (`serve`).

use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::SERVER_NAME;
use crate::jsonrpc::RpcError;
use crate::resources::Notes;
use crate::state::State;
use crate::{fixtures, modern, prompts, tools};

// ANCHOR: versions
/// The newest revision this server speaks; the answer when the client asks
/// for one we do not know.
pub const LATEST_PROTOCOL_VERSION: &str = "2025-11-25";
/// Every revision this server can speak, newest first.
pub const SUPPORTED_PROTOCOL_VERSIONS: [&str; 2] = [LATEST_PROTOCOL_VERSION, "2025-06-18"];
// ANCHOR_END: versions

pub struct Server {
    /// The revision agreed in `initialize`; `None` until then. Only
    /// handshake-era requests look at it: modern ones carry their own.
    protocol_version: Option<String>,
    /// The notes this server offers, as resources and through `search_notes`.
    notes: Notes,
    /// The folder the drafts live in, shared with any other instance.
    state: State,
    /// `--conformance-fixtures`: serve fixtures.rs instead of the notes.
    fixtures: bool,
    /// Notifications produced by the request being handled (progress, log
    /// messages), for the transport to send before the reply.
    outbox: Vec<Value>,
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
    pub fn new(notes: Notes, state: State, fixtures: bool) -> Server {
        Server {
            protocol_version: None,
            notes,
            state,
            fixtures,
            outbox: Vec::new(),
        }
    }

    /// The notifications the last request produced, to go out before its reply.
    pub fn take_notifications(&mut self) -> Vec<Value> {
        std::mem::take(&mut self.outbox)
    }

    // ANCHOR: assume_revision
    /// Over HTTP no connection remembers the handshake: each request names
    /// its revision in a header, and the transport sets it here first
    /// (`None` before `initialize`).
    pub fn assume_revision(&mut self, revision: Option<String>) {
        self.protocol_version = revision;
    }
    // ANCHOR_END: assume_revision

    // ANCHOR: era
    /// Decides the era of each request on its own: the connection's history
    /// changes nothing, and nothing here changes the connection's history.
    pub fn handle_request(
        &mut self,
        method: &str,
        params: Option<Value>,
    ) -> Result<Value, RpcError> {
        if modern::is_modern(params.as_ref()) || method == "server/discover" {
            self.handle_modern(method, params)
        } else {
            self.handle_legacy(method, params)
        }
    }
    // ANCHOR_END: era

    // ANCHOR: modern
    /// 2026-07-28: check the request's `_meta`, answer, and dress the
    /// result. No state of the connection is read or written.
    fn handle_modern(&mut self, method: &str, params: Option<Value>) -> Result<Value, RpcError> {
        modern::check_meta(params.as_ref())?;
        if let Some(error) = modern::removed(method) {
            return Err(error);
        }
        let result = match method {
            "server/discover" => Ok(modern::discover(self.capabilities(true))),
            _ => self.serve(method, params, true),
        };
        result
            .map(|result| modern::complete(method, result))
            .map_err(modern::renumbered)
    }
    // ANCHOR_END: modern

    // ANCHOR: legacy
    /// 2025-11-25 and 2025-06-18: chapter 5's rules, per connection.
    fn handle_legacy(&mut self, method: &str, params: Option<Value>) -> Result<Value, RpcError> {
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
                    "the server is not initialized; send initialize first, or name \
                     a protocol version in params._meta",
                ))
            }
            _ => self.serve(method, params, false),
        }
    }
    // ANCHOR_END: legacy

    // ANCHOR: serve
    /// What both eras offer, answered the same way: only the envelope
    /// around the answer differs.
    fn serve(
        &mut self,
        method: &str,
        params: Option<Value>,
        modern: bool,
    ) -> Result<Value, RpcError> {
        if self.fixtures {
            let answer = fixtures::serve(method, params, modern);
            self.outbox.extend(answer.notifications);
            return answer.outcome;
        }
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

    pub fn handle_notification(&mut self, method: &str) {
        match method {
            "notifications/initialized" => eprintln!("{SERVER_NAME}: client is ready"),
            _ => eprintln!("{SERVER_NAME}: ignoring notification {method}"),
        }
    }
    // ANCHOR_END: serve

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
        Ok(json!({
            "protocolVersion": version,
            "capabilities": self.capabilities(false),
            "serverInfo": { "name": SERVER_NAME, "version": env!("CARGO_PKG_VERSION") },
        }))
    }
    // ANCHOR_END: initialize
}

impl Server {
    /// What this server offers, the same in both eras. Empty objects: "I
    /// have tools, resources and prompts", with no change notifications and
    /// no subscriptions. The fixtures offer a few things more.
    fn capabilities(&self, modern: bool) -> Value {
        if self.fixtures {
            return fixtures::capabilities(modern);
        }
        json!({ "tools": {}, "resources": {}, "prompts": {} })
    }
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
