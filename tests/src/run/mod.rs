//! Running: a binary driven through a transcript, its frames compared with
//! the transcript's, the first difference explained.
//!
//! - [`transcript`] reads the format;
//! - [`target`] decides which binary is under test (solution, starter, or any
//!   binary named by `MCP_BIN`) and builds it;
//! - [`runner`] drives a server binary through a transcript and explains the
//!   first difference; [`jsondiff`] says where two frames differ;
//! - [`client_runner`] drives a client or an agent (chapters 6 on): the
//!   `replay-server` binary plays its servers, a stub HTTP server its model;
//! - [`http_runner`] drives a server over HTTP (`# runner: http`);
//! - [`capture`] binds an opaque value a server sends (`{state}`) for the
//!   frames that send it back;
//! - [`tools`] checks the programs outside Rust a scenario needs (`# needs: jq`);
//! - [`unprivileged`] runs a sandbox scenario as user nobody when the tests
//!   run as root.
//!
//! [`check`] and [`check_stretch`] are what each generated `#[test]` of
//! `tests/tests/scenarios.rs` calls (`tests/build.rs` writes them).

pub mod capture;
pub mod client_runner;
pub mod http_runner;
pub mod jsondiff;
pub mod runner;
pub mod target;
pub mod tools;
pub mod transcript;
pub mod unprivileged;

use crate::course;

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
    let who = format!("{}/{scenario}", chapter.id());
    if !tools::ready(&transcript.needs, &who) {
        return; // Skipped on a learner's machine, with what to install.
    }
    let target = target::Target::from_env(&chapter, stretch).unwrap_or_else(|err| panic!("{err}"));
    if let Err(report) = runner::check(&transcript, &target) {
        panic!("\n{report}");
    }
}
