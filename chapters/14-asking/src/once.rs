//! The stretch `ch14/spent-once` (`main.rs` declares it, `rounds.rs` calls it).

// STRETCH(ch14/spent-once): `spend(seal, call, state)`, for a state just
// verified: one of publish_draft carries the user's consent, which is given
// once. Record its payload as spent (`seal.spent.first_time`); the second
// time, -32602 "requestState refused: it was used already; call again
// without it". The other tools' replays repeat nothing that needs consent.
// END(ch14/spent-once)
