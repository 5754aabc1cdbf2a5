//! The stretch `ch16/throttle` (`main.rs` declares it, `reindex.rs` calls it).

// STRETCH(ch16/throttle): a `Throttle` that remembers when it last let a
// notification through; `due(last_step)`: the first, the last, and any
// `EVERY` after the one sent before it.
// END(ch16/throttle)
