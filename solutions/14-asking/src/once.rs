//! The stretch `ch14/spent-once` (`main.rs` declares it, `rounds.rs` calls it).

// STRETCH(ch14/spent-once): `spend(seal, call, state)`, for a state just
// verified: one of publish_draft carries the user's consent, which is given
// once. Record its payload as spent (`seal.spent.first_time`); the second
// time, -32602 "requestState refused: it was used already; call again
// without it". The other tools' replays repeat nothing that needs consent.
use crate::jsonrpc::RpcError;
use crate::request_state::Seal;

pub fn spend(seal: &Seal, call: &str, state: &str) -> Result<(), RpcError> {
    // The payload, not the text: base64url can spell one state several ways.
    let payload = seal.sealer.open(state).unwrap_or_default();
    if call == "tools/call publish_draft" && !seal.spent.first_time(&payload)? {
        let why = "requestState refused: it was used already; call again without it";
        return Err(RpcError::invalid_params(why));
    }
    Ok(())
}
// END(ch14/spent-once)
