//! The stretch `ch22/threshold` (`main.rs` declares it, `compaction.rs`
//! calls it).

// STRETCH(ch22/threshold): `lowered(budget)`: the share of the budget that
// CLAUDE_AUTOCOMPACT_PCT_OVERRIDE names (a whole number of percent, 1 to
// 99), else the budget itself: a value that would not lower it (100 and
// above, 0, not a number) is ignored.
/// Claude Code's variable: the percentage of the window at which
/// compaction starts. It "can't raise the threshold", so a value above the
/// default (all of the budget, here) is ignored.
pub const PERCENT: &str = "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE";

pub fn lowered(budget: usize) -> usize {
    let percent = std::env::var(PERCENT).ok();
    match percent.and_then(|value| value.trim().parse::<usize>().ok()) {
        Some(percent @ 1..=99) => budget * percent / 100,
        _ => budget,
    }
}
// END(ch22/threshold)
