//! The runner drives a server like a real client: one frame, then wait for
//! the reply. A server that keeps its replies in a buffer must fail, with a
//! report that says so and names the section on flushing.

#![cfg(unix)] // The fixture servers are shell scripts.

use std::path::Path;
use std::time::Duration;

use wire_tests::course;
use wire_tests::run::runner::{self, FLUSH_SECTION};
use wire_tests::run::target::Target;
use wire_tests::run::transcript::Transcript;

fn server(name: &str) -> Target {
    Target::binary(course::root().join("tests/fixtures/servers").join(name), "")
}

fn transcript(text: &str) -> Transcript {
    Transcript::parse(Path::new("lockstep.wire"), text).unwrap()
}

const TWO_LINES: &str =
    "# book: 01-echo-shutdown.md#end-of-input-means-shut-down\n-> one\n<- one\n-> two\n<- two\n";

#[test]
fn a_buffering_server_fails_with_a_report_on_flushing() {
    let report = runner::check_waiting(
        &transcript(TWO_LINES),
        &server("buffered-echo.sh"),
        Duration::from_millis(500),
    )
    .unwrap_err();
    assert!(
        report.contains("server frame 1 of 2 never came while stdin was open: it was buffered"),
        "{report}"
    );
    assert!(report.contains(&format!(
        "section #{}",
        FLUSH_SECTION.split_once('#').unwrap().1
    )));
    assert!(report.contains("book/src/01-echo-tour.md"), "{report}");
}

#[test]
fn a_server_that_answers_at_once_passes_in_lockstep() {
    runner::check_waiting(
        &transcript(TWO_LINES),
        &server("echo.sh"),
        Duration::from_secs(30),
    )
    .unwrap();
}

#[test]
fn a_pipelined_scenario_sends_everything_first() {
    let text = format!("# pipelined: yes\n{TWO_LINES}");
    runner::check_waiting(
        &transcript(&text),
        &server("buffered-echo.sh"),
        Duration::from_millis(500),
    )
    .unwrap();
}

#[test]
fn the_reply_to_an_unfinished_line_is_awaited_at_end_of_input() {
    // The last line has no newline: a server can only answer it at EOF,
    // so that reply is not a buffered one.
    let last = "-> one\n<- one\n->! \"two\"\n<- two\n";
    // A line finished by a later frame is answered as soon as it is whole.
    let split = "-> one\n<- one\n->! \"tw\"\n->! \"o\\n\"\n<- two\n";
    for text in [last, split] {
        runner::check_waiting(
            &transcript(text),
            &server("echo.sh"),
            Duration::from_secs(30),
        )
        .unwrap();
    }
}

/// `# bless: lockstep` rewrites each server line from one run in lockstep,
/// keeps the lines that did not change, and keeps the comments.
#[test]
fn a_lockstep_bless_rewrites_the_lines_in_place() {
    let text = "# bless: lockstep\n-> one\n<- stale\n-> two\n<- two\n";
    let bin = server("echo.sh").path;
    let blessed = runner::bless(&transcript(text), text, &bin).unwrap();
    assert_eq!(
        blessed,
        "# bless: lockstep\n-> one\n<- one\n-> two\n<- two\n"
    );
}

/// The line counts are the transcript's: a solution that writes more lines
/// than it holds is reported, never blessed into the wrong place.
#[test]
fn a_lockstep_bless_reports_a_line_the_transcript_lacks() {
    let text = "# bless: lockstep\n-> one\n-> two\n<- two\n";
    let bin = server("echo.sh").path;
    let error = runner::bless(&transcript(text), text, &bin).unwrap_err();
    assert!(
        error.contains("the solution wrote 2 server lines, the transcript holds 1"),
        "{error}"
    );
}

/// A step whose output did not change keeps its lines in place, with the
/// comments between them; a changed one is written after its client frame.
#[test]
fn bless_keeps_the_comments_between_the_frames_of_an_unchanged_step() {
    let text = "-> one\n# book: a.md#one\n<- one\n# book: a.md#two\n-> two\n<- stale\n";
    let bin = server("echo.sh").path;
    let blessed = runner::bless(&transcript(text), text, &bin).unwrap();
    assert_eq!(
        blessed,
        "-> one\n# book: a.md#one\n<- one\n# book: a.md#two\n-> two\n<- two\n"
    );
}
