//! The learner's command line: exit 0 when everything passes, 1 when
//! something fails, 2 for a usage error, which always says what exists.

use assert_cmd::Command;
use predicates::prelude::*;

fn xtask() -> Command {
    Command::cargo_bin("xtask").unwrap()
}

#[test]
fn an_unknown_chapter_is_a_usage_error_that_lists_the_chapters() {
    xtask()
        .args(["check", "99"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("there is no chapter 99"))
        .stderr(predicate::str::contains("01-echo, 02-handshake"));
    xtask()
        .args(["watch", "ch99"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("01-echo"));
    xtask()
        .args(["check"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("name a chapter"));
}

#[test]
fn a_filter_that_matches_nothing_is_a_usage_error() {
    xtask()
        .args(["check", "01", "no_such_scenario"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no scenario of ch01 matches"))
        .stderr(predicate::str::contains("tour"));
}

#[test]
fn other_usage_errors_exit_2() {
    xtask()
        .args(["check", "01", "--frobnicate"])
        .assert()
        .code(2);
    xtask().args(["reset"]).assert().code(2);
    xtask().args(["progress", "01"]).assert().code(2);
}

#[test]
fn the_reference_passes_its_own_chapter() {
    xtask()
        .args(["check", "ch01", "--solution"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("[x] ch01/echo-line  written"))
        .stdout(predicate::str::contains("scenarios: 6 of 6 pass"))
        .stdout(predicate::str::contains("chapter 01 is done"));
}

#[test]
fn the_starter_fails_and_leads_with_its_unwritten_gap() {
    // The generated starter is what a clean checkout holds: its gap is not
    // written, so the report names the gap and the section that teaches it.
    let edited = wire_tests::generate::starters::edited_chapters().unwrap();
    if edited.iter().any(|chapter| chapter.number == 1) {
        return; // Your own chapter 01 is checked by `cargo xtask check 01`.
    }
    xtask()
        .args(["check", "1", "tour"])
        // Whatever the environment asks, a report never holds a backtrace.
        .env("RUST_BACKTRACE", "1")
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "[ ] ch01/echo-line  not written yet",
        ))
        .stdout(predicate::str::contains(
            "gap ch01/echo-line is not written yet",
        ))
        .stdout(predicate::str::contains(
            "book/src/01-echo-tour.md, section #one-line-in-one-line-out",
        ))
        .stdout(predicate::str::contains("stack backtrace").not());
}

#[test]
fn check_and_watch_print_their_usage_when_asked() {
    for command in ["check", "watch"] {
        xtask()
            .args([command, "08", "--help"])
            .assert()
            .code(0)
            .stdout(predicate::str::contains("usage: cargo xtask check NN"))
            .stdout(predicate::str::contains("--solution"));
    }
}

#[cfg(unix)]
#[test]
fn a_missing_program_is_named_not_a_gap() {
    // A PATH with every program but jq. Chapter 10's scenarios that run a
    // hook are not run; the others run and pass against the solution; the
    // report names jq and how to install it, and blames no gap.
    let dir = wire_tests::scratch::Scratch::new("cli", "no-jq");
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let path = std::env::var_os("PATH").unwrap_or_default();
    for folder in std::env::split_paths(&path) {
        for entry in std::fs::read_dir(&folder).into_iter().flatten().flatten() {
            let name = entry.file_name();
            if name != "jq" && !bin.join(&name).exists() {
                std::os::unix::fs::symlink(entry.path(), bin.join(&name)).unwrap();
            }
        }
    }
    xtask()
        .args(["check", "10", "--solution"])
        .env("PATH", &bin)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "not run: ask_without_terminal, block_rm",
        ))
        .stdout(predicate::str::contains(
            "jq is not installed: sudo apt-get install jq (Debian/Ubuntu)",
        ))
        .stdout(predicate::str::contains("failing").not())
        .stdout(predicate::str::contains("your gaps are not to blame"))
        .stdout(predicate::str::contains("next: gap").not());
}
