//! Chapter 12's server, with three tools that ask. Everything else goes to
//! chapter 12's `Server` unchanged; a call of one of the new tools is run
//! here, with the asker its era gives it: the connection (2025-11-25) or
//! the rounds of an input-required result (2026-07-28).

use std::io::{Read, Write};

use serde_json::{Map, Value, json};

use crate::ask::{Ask, InputRequest, Stop};
use crate::asking_tools::{NAMES, definitions};
use crate::draft_tools::tool_error;
use crate::jsonrpc::{self, Message, Reply, RpcError};
use crate::legacy::Connection;
use crate::modern;
use crate::rounds::{Rounds, Seal};
use crate::server::{Era, Handshake, Server};
use crate::tools;

/// The `_meta` key under which a 2026-07-28 request lists what the client can do.
const CAPABILITIES_KEY: &str = "io.modelcontextprotocol/clientCapabilities";

pub struct Asking {
    pub server: Server,
    pub seal: Seal,
}

impl Asking {
    /// One line from a stdio connection, in its era; the connection asks
    /// for the tools that ask.
    pub fn handle_line<R: Read, W: Write>(
        &self,
        line: &[u8],
        handshake: &mut Handshake,
        connection: &mut Connection<R, W>,
    ) -> Option<Reply> {
        if line.iter().all(u8::is_ascii_whitespace) {
            return None; // A blank line carries no message.
        }
        let message = match jsonrpc::parse(line) {
            Err(reply) => return Some(handshake.for_revision(reply)),
            Ok(message) => message,
        };
        let Message::Request { id, method, params } = message else {
            let era = handshake.era(&message);
            return self.server.handle(message, era);
        };
        // Chapter 12's rule (`Handshake::era`), read before the request moves.
        let modern = modern::is_modern(params.as_ref()) || method == "server/discover";
        if !modern && method == "initialize" && handshake.protocol_version.is_none() {
            // What the client can answer, for as long as the connection lasts.
            let declared = params
                .as_ref()
                .and_then(|params| params["capabilities"].as_object());
            connection.capabilities = declared.cloned().unwrap_or_default();
        }
        let outcome = if modern {
            self.request(&method, params, Era::Modern, None)
        } else {
            self.request(&method, params, Era::Legacy(handshake), Some(connection))
        };
        Some(Reply::new(id, outcome))
    }

    /// One request in the era its transport decided; `asker` is how a
    /// 2025-11-25 tool may ask (none: it cannot, over this transport).
    pub fn request(
        &self,
        method: &str,
        params: Option<Value>,
        era: Era,
        asker: Option<&mut dyn Ask>,
    ) -> Result<Value, RpcError> {
        let call = params.as_ref().and_then(our_call);
        match (method, call, era) {
            ("tools/list", _, era) => {
                let mut result = self.server.handle_request(method, params, era)?;
                if let Some(Value::Array(tools)) = result.get_mut("tools") {
                    tools.extend(definitions());
                }
                Ok(result)
            }
            ("tools/call", Some((name, arguments)), Era::Modern) => {
                self.call_modern(&name, &arguments, params.unwrap_or_default())
            }
            ("tools/call", Some((name, arguments)), Era::Legacy(handshake))
                if handshake.protocol_version.is_some() =>
            {
                let mut unable = NoAsking;
                let asker = asker.unwrap_or(&mut unable);
                match tools::call(&self.server, &name, &arguments, asker) {
                    Ok(result) => Ok(result),
                    Err(Stop::Refused(advice)) => Ok(tool_error(&advice)),
                    Err(Stop::Error(error)) => Err(error),
                    Err(Stop::Input) => {
                        Err(RpcError::new(-32603, "Internal error: no answer".into()))
                    }
                }
            }
            (_, _, era) => self.server.handle_request(method, params, era),
        }
    }

    /// 2026-07-28: one round of a call; its result is complete, or asks.
    fn call_modern(
        &self,
        name: &str,
        arguments: &Map<String, Value>,
        params: Value,
    ) -> Result<Value, RpcError> {
        modern::check_meta(Some(&params))?;
        let empty = Map::new();
        let capabilities = params["_meta"][CAPABILITIES_KEY]
            .as_object()
            .unwrap_or(&empty);
        let params = params.as_object().cloned().unwrap_or_default();
        let arguments = Value::Object(arguments.clone());
        let call = format!("tools/call {name}");
        let mut rounds = Rounds::open(&self.seal, capabilities, call, &arguments, &params)?;
        let arguments = arguments.as_object().cloned().unwrap_or_default();
        let outcome = tools::call(&self.server, name, &arguments, &mut rounds);
        let result = match outcome {
            Ok(result) => result,
            Err(Stop::Refused(advice)) => tool_error(&advice),
            Err(Stop::Error(error)) => return Err(error),
            Err(Stop::Input) => {
                let mut asking = rounds.input_required(&self.seal);
                // Who answered, as on every modern result.
                asking["_meta"] = modern::complete("tools/call", json!({}))["_meta"].take();
                return Ok(asking);
            }
        };
        Ok(modern::complete("tools/call", result))
    }
}

/// A call of one of our tools: its name and arguments. Anything else,
/// a broken call included, is chapter 12's to answer.
fn our_call(params: &Value) -> Option<(String, Map<String, Value>)> {
    let name = params
        .get("name")?
        .as_str()
        .filter(|name| NAMES.contains(name))?;
    let arguments = match params.get("arguments") {
        None => Map::new(),
        Some(Value::Object(arguments)) => arguments.clone(),
        Some(_) => return None,
    };
    Some((name.to_string(), arguments))
}

/// The asker of a transport that cannot ask.
struct NoAsking;

impl Ask for NoAsking {
    fn can(&self, _: &str) -> bool {
        false
    }
    fn ask_each(&mut self, _: Vec<(&str, InputRequest)>) -> Result<Vec<Value>, Stop> {
        Err(Stop::Refused("this transport cannot ask the client".into()))
    }
}
