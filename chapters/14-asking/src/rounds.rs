//! 2026-07-28: no request from the server, ever. A tool that needs an
//! answer ends its call with an input-required result: the questions
//! (`inputRequests`, by key) and a `requestState`. The client answers and
//! calls again (a new id, `inputResponses`, the state unchanged); the tool
//! runs again from the start and finds its answers. Only the state the
//! client carries links the rounds, so any instance can serve any round,
//! and it is sealed (`request_state.rs`, given): the client could change it.

use serde_json::{Map, Value, json};

use crate::ask::{Ask, InputRequest, Stop};
use crate::asking::{client_capabilities, declares, missing_capability, outcome, retry};
use crate::jsonrpc::RpcError;
use crate::modern;
use crate::request_state::{Payload, Seal, now_secs};

/// One round of one call: the answers it has, and the questions it adds.
pub struct Rounds {
    /// What the request's `_meta` says the client can answer.
    capabilities: Map<String, Value>,
    /// What the next state will hold: this call, and the answers so far.
    state: Payload,
    /// The questions this round adds, by key.
    asked: Map<String, Value>,
}

impl Rounds {
    /// The round a request opens: the first, or the one after its state.
    pub fn open(
        seal: &Seal,
        call: String,
        arguments: &Map<String, Value>,
        params: &Map<String, Value>,
    ) -> Result<Rounds, RpcError> {
        let first = Payload::first(call, arguments, params);
        let state = match retry(params)? {
            None => first, // A first call: any answers it brings are in `first`.
            Some((sealed, responses)) => {
                let last = verify(seal, sealed, &first.call, &first.arguments)?;
                // STRETCH(ch14/spent-once): `once::spend` it, before a tool acts on it.
                // END(ch14/spent-once)
                Payload::after(last, &responses)
            }
        };
        let capabilities = client_capabilities(params);
        Ok(Rounds {
            capabilities,
            state,
            asked: Map::new(),
        })
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

impl Ask for Rounds {
    fn can(&self, capability: &str) -> bool {
        declares(&self.capabilities, capability)
    }

    /// Every answer that is here, or else every question that is not:
    /// all of them go out together in one input-required result. A
    /// capability the client did not list is -32021: it could not answer.
    fn ask_each(&mut self, requests: Vec<(&str, InputRequest)>) -> Result<Vec<Value>, Stop> {
        let mut answers = Vec::new();
        for (key, request) in requests {
            if !self.can(request.capability()) {
                return Err(Stop::Error(missing_capability(request.capability())));
            }
            match self.state.answers.get(key) {
                Some(answer) => answers.push(answer.clone()),
                None => drop(self.asked.insert(key.to_string(), request.to_json())),
            }
        }
        if self.asked.is_empty() {
            Ok(answers)
        } else {
            Err(Stop::Input)
        }
    }
}

impl Rounds {
    // ANCHOR: input_required
    /// The result that ends this round: the questions asked, and the state
    /// of the next round, sealed.
    pub fn input_required(self, seal: &Seal) -> Value {
        // TODO(ch14/input-required): the next state is `self.state` one
        // round on (`round + 1`), expiring `seal.ttl_secs` from `now_secs()`,
        // with the keys of `self.asked` as `asked`. Sealed
        // (`seal.sealer.seal` of its JSON bytes), it is the `requestState`
        // beside `"resultType": "input_required"` and `"inputRequests"`:
        // `self.asked`.
        let _ = (seal, self.state, self.asked, now_secs());
        json!({ "resultType": "complete", "content": [] })
        // END(ch14/input-required)
    }
    // ANCHOR_END: input_required
}

/// One round of a 2026-07-28 call (`tools/call` and a tool, or another
/// method that may ask) of `tool`: its result, complete or input-required.
pub fn round(
    seal: &Seal,
    (method, name): (&str, &str),
    arguments: &Map<String, Value>,
    params: Option<Value>,
    tool: impl FnOnce(&mut dyn Ask) -> Result<Value, Stop>,
) -> Result<Value, RpcError> {
    modern::check_meta(params.as_ref())?;
    let params = params.and_then(|params| params.as_object().cloned());
    let params = params.unwrap_or_default();
    let mut rounds = Rounds::open(seal, format!("{method} {name}"), arguments, &params)?;
    match tool(&mut rounds) {
        Err(Stop::Input) => {
            let mut asking = rounds.input_required(seal);
            // Who answered, as on every modern result.
            asking["_meta"] = modern::complete(method, json!({}))["_meta"].take();
            Ok(asking)
        }
        done => outcome(done).map(|result| modern::complete(method, result)),
    }
}
