//! The book teaches before it tells: every gap has hints in three tiers,
//! the pages include the generated listings and exercises, and those are
//! up to date. (`cargo xtask book-check` checks the built book itself.)

use std::fs;

use wire_tests::course::Chapter;
use wire_tests::{exercises, hints};

#[test]
fn every_gap_has_hints_in_three_tiers() {
    let problems: Vec<String> = Chapter::all().iter().flat_map(hints::problems).collect();
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}
