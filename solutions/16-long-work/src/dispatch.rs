//! Chapter 14's server, with long work. Everything else goes to chapter
//! 14's tools and chapter 12's `Server` unchanged; `reindex_notes` runs
//! here, with the `Work` its transport gives it, and what it changes is
//! told to the subscriptions that asked (`subscriptions.rs`).

use std::time::Duration;

use serde_json::{Value, json};

use crate::ask::Ask;
use crate::asking::{Unable, outcome};
use crate::asking_calls as tools;
use crate::asking_tools::{our_call, with_definitions};
use crate::draft_tools::tool_error;
use crate::http::{Answer, Asker, Finished, Handler};
use crate::jsonrpc::RpcError;
use crate::long_work::{self, Work, calls, dressed, ready};
use crate::long_work::{Change, Subscription};
use crate::reindex;
use crate::request_state::Seal;
use crate::resources::Notes;
use crate::rounds;
use crate::server::{Era, Server};
use crate::state::State;
use crate::subscriptions;
use crate::watched::{Call, Incoming, Watched};

pub struct Asking {
    pub server: Server,
    pub seal: Seal,
    /// The notes and the state folder again, for `reindex_notes`.
    pub notes: Notes,
    pub state: State,
    /// `--step`: the pause between two steps of long work.
    pub pause: Duration,
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
        let search = calls(method, params.as_ref(), "search_index");
        match (method, call, era) {
            ("tools/list", _, era) => self
                .server
                .handle_request(method, params, era)
                .map(|result| long_work::with_definitions(with_definitions(result), &self.state)),
            ("tools/call", _, era) if search && ready(params.as_ref(), &era) => {
                let result = long_work::search(&self.state, params.as_ref());
                Ok(dressed(matches!(era, Era::Modern), result))
            }
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

impl Asking {
    // ANCHOR: long
    /// `reindex_notes`, reporting to `work`: `None` when it was cancelled
    /// (no reply is sent for it), else its outcome and what it changed.
    pub fn long_call(&self, params: Option<Value>, era: Era, work: &mut dyn Work) -> Finished {
        if !ready(params.as_ref(), &era) {
            return Some((
                self.server.handle_request("tools/call", params, era),
                Vec::new(),
            ));
        }
        let modern = matches!(era, Era::Modern);
        let token = params
            .as_ref()
            .and_then(|params| params["_meta"].get("progressToken"));
        let done = match reindex::reindex((&self.notes, &self.state), token, self.pause, work) {
            Ok(None) => return None,
            Err(why) => return Some((Ok(dressed(modern, tool_error(&why))), Vec::new())),
            Ok(Some(done)) => done,
        };
        let tools = done.created.then_some(Change::Tools); // search_index is new
        let edited = done.edited.into_iter().map(Change::Updated);
        let changes = tools.into_iter().chain(edited).collect();
        Some((Ok(dressed(modern, done.result)), changes))
    }
    // ANCHOR_END: long

    // ANCHOR: stdio
    /// One request on stdio, where this connection's `subscriptions` live:
    /// `None` for no reply (a cancelled call, a listen that stays open).
    pub fn stdio(
        &self,
        incoming: Incoming,
        era: Era,
        connection: &mut Watched,
        subscriptions: &mut Vec<Subscription>,
    ) -> Option<Result<Value, RpcError>> {
        let request = match incoming {
            Incoming::Request(request) => request,
            Incoming::Cancelled(id) => {
                // No call works: a listen's id ends that subscription; others are ignored.
                subscriptions.retain(|subscription| subscription.id.as_ref() != Some(&id));
                eprintln!(
                    "{}: cancel of {id}: no call of that id works",
                    crate::SERVER_NAME
                );
                return None;
            }
        };
        let (id, method, params) = (request.id, request.method, request.params);
        match (method, &era) {
            ("subscriptions/listen", Era::Modern) => {
                let (subscription, ack) = match subscriptions::listen(id, params.as_ref()) {
                    Ok(opened) => opened,
                    Err(error) => return Some(Err(error)),
                };
                let _ = connection.send(&ack); // The acknowledgment first, always.
                subscriptions.push(subscription);
                return None; // It stays open: its reply would end it.
            }
            ("resources/subscribe" | "resources/unsubscribe", Era::Legacy(_)) => {
                // Once initialized, the connection has its subscription.
                let legacy = subscriptions.iter_mut().find(|known| known.id.is_none());
                if let Some(legacy) = legacy {
                    return Some(subscriptions::subscribe(legacy, method, params.as_ref()));
                }
            }
            _ => {}
        }
        if !calls(method, params.as_ref(), "reindex_notes") {
            let mut outcome = self.request(method, params, era, Some(connection));
            if let Ok(result) = &mut outcome {
                declare(method, result);
                if method == "initialize" {
                    subscriptions.push(subscriptions::legacy()); // 2025-11-25 hears list_changed
                }
            }
            return Some(outcome);
        }
        let mut work = Call { connection, id };
        let (outcome, changes) = self.long_call(params, era, &mut work)?;
        for notification in subscriptions::for_all(subscriptions.iter(), &changes) {
            let _ = work.connection.send(&notification);
        }
        Some(outcome)
    }
    // ANCHOR_END: stdio
}

// ANCHOR: declare
/// What this server can tell, where it can tell it: its tool list changes
/// (`listChanged`) and its notes can be subscribed to (`subscribe`). Said
/// in `initialize` on stdio and in `server/discover`; never over 2025-11-25
/// HTTP, where this server keeps no stream to send them on.
pub fn declare(method: &str, result: &mut Value) {
    if matches!(method, "initialize" | "server/discover") && result.get("capabilities").is_some() {
        result["capabilities"]["tools"] = json!({ "listChanged": true });
        result["capabilities"]["resources"] = json!({ "subscribe": true });
    }
}
// ANCHOR_END: declare

/// What HTTP serves: nothing to say before a reply; our tools may ask.
impl Handler for Asking {
    fn request(&self, method: &str, params: Option<Value>, era: Era, asker: Asker) -> Answer {
        let modern = matches!(era, Era::Modern);
        let mut outcome = self.request(method, params, era, asker);
        if let Ok(result) = &mut outcome
            && modern
        {
            declare(method, result);
        }
        (Vec::new(), outcome)
    }
    fn may_ask(&self, method: &str, params: Option<&Value>) -> bool {
        method == "tools/call" && params.and_then(our_call).is_some()
    }
    fn notification(&self, method: &str) {
        self.server.handle_notification(method);
    }
    fn is_long(&self, method: &str, params: Option<&Value>) -> bool {
        calls(method, params, "reindex_notes")
    }
    fn long_call(&self, params: Option<Value>, era: Era, work: &mut dyn Work) -> Finished {
        self.long_call(params, era, work)
    }
}
