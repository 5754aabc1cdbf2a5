//! The test machinery of Wire by Wire.
//!
//! A chapter's behaviour is pinned by *transcripts*: files under
//! `tests/transcripts/chNN/` that list the frames crossing the wire, in
//! order, with their direction. The same files are included in the book, so
//! every frame a reader sees is a frame a test checks.
//!
//! - [`transcript`] reads the format;
//! - [`target`] decides which binary is under test (solution, starter, or any
//!   binary named by `MCP_BIN`) and builds it;
//! - [`runner`] drives a server binary through a transcript and explains the
//!   first difference;
//! - [`client_runner`] drives a client or an agent (chapters 6 on): the
//!   `replay-server` binary plays its servers, a stub HTTP server its model;
//! - [`gaps`] turns the marked solutions into starter crates, and
//!   [`starters`] writes them without ever losing a learner's edits;
//! - [`support`] generates the support crates' settled code from the
//!   chapters that teach it;
//! - [`learner`] sums a chapter up per gap for `cargo xtask check`;
//! - [`book`] finds the section that explains a scenario or a gap;
//! - [`budgets`] measures a chapter against the small-lessons budgets;
//! - [`tools`] checks the programs outside Rust a chapter needs (`jq`);
//! - [`generated`] writes every generated file (the book's pages, the
//!   support crates' files, the workshop schedule); only the starters have a
//!   writer of their own, which keeps a learner's edits;
//! - [`course`] knows the layout; [`jsondiff`] and [`textdiff`] explain differences;
//! - [`workshop`] reads the minutes in the book's speaker notes and writes the
//!   workshop schedules.

pub mod book;
pub mod budgets;
pub mod capture;
pub mod client_runner;
pub mod course;
pub mod diagrams;
pub mod exercises;
pub mod gaps;
pub mod generated;
pub mod hints;
pub mod http_runner;
pub mod jsondiff;
pub mod learner;
pub mod runner;
pub mod starters;
pub mod support;
pub mod target;
pub mod textdiff;
pub mod tools;
pub mod transcript;
pub mod views;
pub mod workshop;

/// Runs one scenario against the binary chosen by the environment and panics
/// with a readable report if it differs. Each generated `#[test]` calls this.
pub fn check(chapter: &str, scenario: &str) {
    check_built(chapter, scenario, false);
}

/// Runs one stretch scenario (`tests/transcripts/chNN/stretch/NAME.wire`)
/// against the chosen binary built with the chapter's `stretch` feature.
pub fn check_stretch(chapter: &str, name: &str) {
    check_built(chapter, &format!("{}{name}", course::STRETCH), true);
}

fn check_built(chapter: &str, scenario: &str, stretch: bool) {
    let chapter = course::Chapter::find(chapter).unwrap_or_else(|err| panic!("{err}"));
    let transcript = transcript::Transcript::load(&chapter.transcript_path(scenario))
        .unwrap_or_else(|err| panic!("{err}"));
    if !tools::ready_for(&chapter) {
        return; // Skipped on a learner's machine, with what to install.
    }
    let target = target::Target::from_env(&chapter, stretch).unwrap_or_else(|err| panic!("{err}"));
    if let Err(report) = runner::check(&transcript, &target) {
        panic!("\n{report}");
    }
}
