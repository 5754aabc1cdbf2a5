//! 2026-07-28: no request from the server, ever. A tool that needs an
//! answer ends its call with an input-required result: the questions
//! (`inputRequests`, each under a key) and a `requestState`. The client
//! answers them and calls again, under a new id, with `inputResponses` and
//! the state unchanged; the tool runs again from the start, and this time
//! finds its answers. Nothing is kept between the rounds but the state the
//! client carries, so any instance can serve any round, and the state is
//! sealed (`request_state.rs`) because the client could change it.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::ask::{Ask, InputRequest, Stop};
use crate::jsonrpc::RpcError;
use crate::request_state::{Sealer, digest, now_secs};

/// The key and the lifetime of every state this instance seals.
pub struct Seal {
    pub sealer: Sealer,
    /// `--input-ttl`: seconds a state stays good for a retry.
    pub ttl_secs: u64,
}

/// What a sealed state holds: which call it belongs to, how far it got,
/// when it lapses, and what the client answered in earlier rounds, so a
/// third round needs nothing stored.
#[derive(Serialize, Deserialize)]
struct Payload {
    /// The method and the tool: `tools/call publish_draft`.
    call: String,
    /// `request_state::digest` of the arguments.
    arguments: String,
    /// 1 for the state of the first input-required result.
    round: u32,
    /// Seconds since 1970 after which the state is refused.
    expires: u64,
    /// Every answer gathered so far, by key.
    answers: Map<String, Value>,
    /// The keys the last round asked: the only responses read from the retry.
    asked: Vec<String>,
}

/// One round of one call: the answers it has, and the questions it adds.
pub struct Rounds<'a> {
    capabilities: &'a Map<String, Value>,
    call: String,
    arguments: String,
    round: u32,
    answers: Map<String, Value>,
    asked: Map<String, Value>,
}

impl<'a> Rounds<'a> {
    /// The round a request opens: the first, or the one after its state.
    pub fn open(
        seal: &Seal,
        capabilities: &'a Map<String, Value>,
        call: String,
        arguments: &Value,
        params: &Map<String, Value>,
    ) -> Result<Rounds<'a>, RpcError> {
        let arguments = digest(arguments);
        let mut rounds = Rounds {
            capabilities,
            call,
            arguments,
            round: 0,
            answers: Map::new(),
            asked: Map::new(),
        };
        let Some(state) = params.get("requestState") else {
            return Ok(rounds); // A first call: whatever else it carries is not for us.
        };
        let Value::String(state) = state else {
            return Err(RpcError::invalid_params("requestState must be a string"));
        };
        let payload = verify(seal, state, &rounds.call, &rounds.arguments)?;
        let responses = match params.get("inputResponses") {
            None => Map::new(),
            Some(Value::Object(responses)) => responses.clone(),
            Some(_) => return Err(RpcError::invalid_params("inputResponses must be an object")),
        };
        rounds.round = payload.round;
        rounds.answers = payload.answers;
        // Only the answers to what we asked; anything else is ignored.
        for key in payload.asked {
            if let Some(answer) = responses.get(&key) {
                rounds.answers.insert(key, answer.clone());
            }
        }
        Ok(rounds)
    }
}

// ANCHOR: verify
/// The payload of a state this server sealed for this very call, still
/// good; else -32602, saying why (the state is the client's to discard).
fn verify(seal: &Seal, state: &str, call: &str, arguments: &str) -> Result<Payload, RpcError> {
    let refused = |why: &str| RpcError::invalid_params(format!("requestState refused: {why}"));
    // TODO(ch14/verify): `seal.sealer.open(state)` gives the payload's bytes
    // only if the tag matches: else refused("it was not sealed by this
    // server, or it was changed"). Parse them as a `Payload` (unreadable:
    // refused("unreadable")). Another `call` or `arguments` than this
    // request's: refused("it belongs to another request"). `now_secs()` at
    // or past `expires`: refused("it has expired; call again without it").
    let _ = (seal, state, call, arguments, refused, now_secs());
    Err(RpcError::new(-32603, "TODO(ch14/verify)".into()))
    // END(ch14/verify)
}
// ANCHOR_END: verify

impl Ask for Rounds<'_> {
    fn can(&self, capability: &str) -> bool {
        self.capabilities.contains_key(capability)
    }

    /// Every answer that is here, or else every question that is not:
    /// all of them go out together in one input-required result.
    fn ask_each(&mut self, requests: Vec<(&str, InputRequest)>) -> Result<Vec<Value>, Stop> {
        let mut answers = Vec::new();
        for (key, request) in requests {
            let capability = request.capability();
            if !self.can(capability) {
                return Err(Stop::Error(missing_capability(capability)));
            }
            match self.answers.get(key) {
                Some(answer) => answers.push(answer.clone()),
                None => {
                    self.asked.insert(key.to_string(), request.to_json());
                }
            }
        }
        if self.asked.is_empty() {
            Ok(answers)
        } else {
            Err(Stop::Input)
        }
    }
}

/// -32021: the call needs a capability the request's `_meta` did not list.
fn missing_capability(capability: &str) -> RpcError {
    let message = format!("Server requires the {capability} capability for this request");
    RpcError::new(-32021, message).with_data(json!({ "requiredCapabilities": { capability: {} } }))
}

impl Rounds<'_> {
    // ANCHOR: input_required
    /// The result that ends this round: the questions asked, and the state
    /// of the next round, sealed.
    pub fn input_required(self, seal: &Seal) -> Value {
        // TODO(ch14/input-required): a `Payload` for round `self.round + 1`,
        // expiring `seal.ttl_secs` from `now_secs()`, with this call's
        // `call`, `arguments` and `answers`, and the keys of `self.asked`.
        // Sealed (`seal.sealer.seal` of its JSON bytes), it is the
        // `requestState` beside `"resultType": "input_required"` and
        // `"inputRequests"`: `self.asked`.
        let _ = (
            seal,
            self.call,
            self.arguments,
            self.round,
            self.answers,
            self.asked,
        );
        json!({ "resultType": "complete", "content": [] })
        // END(ch14/input-required)
    }
    // ANCHOR_END: input_required
}
