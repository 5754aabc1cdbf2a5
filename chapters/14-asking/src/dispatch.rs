//! Chapter 12's server, with three tools that ask. Everything else goes to
//! chapter 12's `Server` unchanged; a call of one of the new tools is run
//! here, with the asker its era gives it: the transport (2025-11-25) or
//! the rounds of an input-required result (2026-07-28).

use serde_json::Value;

use crate::ask::Ask;
use crate::asking::{Unable, outcome};
use crate::asking_tools::{our_call, with_definitions};
use crate::http::{Answer, Asker, Handler};
use crate::jsonrpc::RpcError;
use crate::request_state::Seal;
use crate::rounds;
use crate::server::{Era, Server};
use crate::tools;

pub struct Asking {
    pub server: Server,
    pub seal: Seal,
}

impl Asking {
    // ANCHOR: request
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
            ("tools/list", _, era) => self
                .server
                .handle_request(method, params, era)
                .map(with_definitions),
            ("tools/call", Some((name, arguments)), Era::Modern) => {
                let run = |asker: &mut dyn Ask| tools::call(&self.server, &name, &arguments, asker);
                rounds::round(&self.seal, (method, &name), &arguments, params, run)
            }
            // Before initialize, chapter 12's server refuses every call.
            ("tools/call", Some((name, arguments)), Era::Legacy(handshake))
                if handshake.protocol_version.is_some() =>
            {
                let mut unable = Unable;
                let asker = asker.unwrap_or(&mut unable);
                outcome(tools::call(&self.server, &name, &arguments, asker))
            }
            (_, _, era) => self.server.handle_request(method, params, era),
        }
    }
    // ANCHOR_END: request
}

/// What HTTP serves: nothing to say before a reply; our tools may ask.
impl Handler for Asking {
    fn request(&self, method: &str, params: Option<Value>, era: Era, asker: Asker) -> Answer {
        (Vec::new(), self.request(method, params, era, asker))
    }
    fn may_ask(&self, method: &str, params: Option<&Value>) -> bool {
        method == "tools/call" && params.and_then(our_call).is_some()
    }
    fn notification(&self, method: &str) {
        self.server.handle_notification(method);
    }
}
