//! Each chapter binary's command line: `--help`, a usage error, and (for
//! servers) the end of input. The transcripts pin the frames; these pin the
//! conventions every chapter shares, so a new chapter keeps them too:
//!
//! - `--help` prints the usage on stdout and exits 0;
//! - an unknown flag is a usage error: exit status 2, a message on stderr
//!   that names the flag, nothing on stdout;
//! - a server whose stdin closes before any frame exits 0 with nothing on
//!   stdout.

use std::time::Duration;

use assert_cmd::Command;
use predicates::prelude::*;
use wire_tests::course::Chapter;
use wire_tests::run::target;
use wire_tests::run::transcript::{Runner, Transcript};

/// A stuck binary fails its test instead of hanging the suite.
const LIMIT: Duration = Duration::from_secs(30);

/// The chapter's reference solution, built, ready to run.
fn solution(chapter: &Chapter) -> Command {
    let path = target::build(&chapter.solution_package()).unwrap_or_else(|err| panic!("{err}"));
    let mut command = Command::new(path);
    command.timeout(LIMIT);
    command
}

/// The chapters whose binary is a server: their tour is played against a
/// server (hosts, from chapter 6, are played against by their transcripts).
fn servers() -> Vec<Chapter> {
    Chapter::all()
        .into_iter()
        .filter(|chapter| {
            Transcript::load(&chapter.transcript_path("tour"))
                .is_ok_and(|tour| tour.runner == Runner::Server)
        })
        .collect()
}

#[test]
fn help_prints_the_usage_on_stdout() {
    for chapter in Chapter::all() {
        // The usage names the learner's binary, `ch03-add-tool`.
        let usage = format!("Usage: {}", chapter.starter_package());
        solution(&chapter)
            .arg("--help")
            .assert()
            .code(0)
            .stdout(predicate::str::contains(usage))
            .stderr(predicate::str::is_empty());
    }
}

#[test]
fn an_unknown_flag_is_a_usage_error() {
    for chapter in Chapter::all() {
        let name = chapter.starter_package();
        solution(&chapter)
            .arg("--no-such-flag")
            .write_stdin("")
            .assert()
            .code(2)
            .stdout(predicate::str::is_empty())
            .stderr(
                predicate::str::starts_with(format!("{name}: "))
                    .and(predicate::str::contains("\"--no-such-flag\"")),
            );
    }
}

#[test]
fn a_server_exits_0_when_stdin_closes_before_any_frame() {
    let servers = servers();
    assert!(!servers.is_empty(), "no chapter builds a server?");
    for chapter in servers {
        solution(&chapter)
            .write_stdin("")
            .assert()
            .code(0)
            .stdout(predicate::str::is_empty());
    }
}

#[test]
fn notes_dir_without_a_folder_is_a_usage_error() {
    // Chapters 4 and 5 take `--notes-dir DIR`; the flag alone is incomplete.
    let takes_notes = |chapter: &Chapter| {
        let output = solution(chapter).arg("--help").output().unwrap();
        String::from_utf8_lossy(&output.stdout).contains("--notes-dir DIR")
    };
    let chapters: Vec<Chapter> = servers().into_iter().filter(takes_notes).collect();
    assert!(
        !chapters.is_empty(),
        "no server takes --notes-dir any more?"
    );
    for chapter in chapters {
        solution(&chapter)
            .arg("--notes-dir")
            .write_stdin("")
            .assert()
            .code(2)
            .stdout(predicate::str::is_empty())
            .stderr(predicate::str::contains("--notes-dir needs a folder"));
    }
}
