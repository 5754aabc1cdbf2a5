//! The stretch `ch22/threshold` (`main.rs` declares it, `compaction.rs`
//! calls it).

// STRETCH(ch22/threshold): `lowered(budget)`: the share of the budget that
// CLAUDE_AUTOCOMPACT_PCT_OVERRIDE names (a whole number of percent, 1 to
// 99), else the budget itself: a value that would not lower it (100 and
// above, 0, not a number) is ignored.
// END(ch22/threshold)
