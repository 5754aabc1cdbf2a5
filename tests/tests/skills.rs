//! Chapter 8's `--check-skills`, driven as a learner or CI would run it,
//! and compared with the reference validator, skills-ref 0.1.1, folder by
//! folder. The transcripts (tests/transcripts/ch08) pin whole outputs;
//! these tests pin the contract: exit statuses, one line per folder, and
//! agreement with skills-ref on every fixture and example skill.
//!
//! Some cases need the file system at run time (a named pipe, a file
//! nobody may read), so they are built in a temporary folder here.

use std::path::{Path, PathBuf};
use std::process::Command as Process;
use std::time::Duration;

use assert_cmd::Command;
use predicates::prelude::*;
use wire_tests::course::{self, Chapter};
use wire_tests::target;

/// A stuck binary fails its test instead of hanging the suite.
const LIMIT: Duration = Duration::from_secs(60);

fn chapter() -> Chapter {
    Chapter::find("08").expect("chapter 08 exists")
}

/// The chapter's reference solution, run from the course root.
fn ch08() -> Command {
    let path = target::build(&chapter().solution_package()).unwrap_or_else(|err| panic!("{err}"));
    let mut command = Command::new(path);
    command.current_dir(course::root()).timeout(LIMIT);
    command
}

/// The folders `--check-skills` reports on, as paths from the course root.
fn subfolders(folder: &str) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(course::root().join(folder))
        .unwrap()
        .flatten()
        .filter(|entry| !entry.file_name().to_string_lossy().starts_with('.'))
        .map(|entry| Path::new(folder).join(entry.file_name()))
        .collect();
    found.sort();
    found
}

/// A fresh, empty folder for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wire-skills-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn the_chapters_example_skills_are_valid() {
    ch08()
        .args(["--check-skills", "--skills", "solutions/08-skills/skills"])
        .assert()
        .success()
        .stdout(predicate::str::starts_with("ok "))
        .stdout(predicate::str::contains("invalid").not())
        .stdout(predicate::str::is_match(r"\ncatalogue: \d+ tokens \(cl100k_base\)\n$").unwrap());
}

#[test]
fn every_invalid_fixture_is_one_invalid_line_and_exit_1() {
    let folders = subfolders("tests/fixtures/skills/invalid");
    let output = ch08()
        .args([
            "--check-skills",
            "--skills",
            "tests/fixtures/skills/invalid",
        ])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let stdout = String::from_utf8(output).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), folders.len() + 1, "{stdout}");
    for (line, folder) in lines.iter().zip(&folders) {
        let prefix = format!("invalid {}: ", folder.display());
        assert!(
            line.starts_with(&prefix),
            "{line:?} should start with {prefix:?}"
        );
    }
    assert_eq!(lines.last(), Some(&"catalogue: 0 tokens (cl100k_base)"));
}

#[test]
fn a_missing_skills_folder_is_a_usage_error() {
    ch08()
        .args([
            "--check-skills",
            "--skills",
            "tests/fixtures/skills/nowhere",
        ])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains(
            "--skills tests/fixtures/skills/nowhere",
        ));
}

#[test]
fn a_file_given_as_skills_folder_is_a_usage_error() {
    ch08()
        .args([
            "--check-skills",
            "--skills",
            "tests/fixtures/skills/escape/secret.txt",
        ])
        .assert()
        .code(2)
        .stdout("");
}

#[cfg(unix)]
#[test]
fn a_skill_md_nobody_may_read_is_invalid() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch("unreadable");
    let skill = dir.join("locked");
    std::fs::create_dir(&skill).unwrap();
    let file = skill.join("SKILL.md");
    std::fs::write(&file, "---\nname: locked\ndescription: Locked.\n---\n").unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o000)).unwrap();
    if std::fs::read(&file).is_ok() {
        eprintln!("skipped: this user (root?) reads a file with mode 000 anyway");
        return;
    }
    ch08()
        .args(["--check-skills", "--skills"])
        .arg(&dir)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "locked: SKILL.md: cannot read it: ",
        ));
}

#[cfg(unix)]
#[test]
fn named_pipes_are_refused_without_waiting_for_a_writer() {
    let dir = scratch("pipes");
    let skill = dir.join("piped");
    std::fs::create_dir_all(skill.join("references")).unwrap();
    std::fs::write(
        skill.join("SKILL.md"),
        "---\nname: piped\ndescription: Has a named pipe.\n---\nRead references/pipe.\n",
    )
    .unwrap();
    let made = Process::new("mkfifo")
        .arg(skill.join("references/pipe"))
        .status();
    if !made.is_ok_and(|status| status.success()) {
        eprintln!("skipped: mkfifo is not available");
        return;
    }
    // A pipe as SKILL.md: invalid, and --check-skills does not hang.
    let other = dir.join("pipe-skill");
    std::fs::create_dir(&other).unwrap();
    Process::new("mkfifo")
        .arg(other.join("SKILL.md"))
        .status()
        .unwrap();
    ch08()
        .args(["--check-skills", "--skills"])
        .arg(&dir)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("ok piped\n"))
        .stdout(predicate::str::contains(
            "pipe-skill: SKILL.md: not a regular file",
        ));

    // A pipe as a skill's file: read_skill_file refuses it (tier 3).
    let script = dir.join("script.json");
    let call = serde_json::json!({"type": "tool_use", "id": "toolu_01", "name": "read_skill_file",
        "input": {"skill": "piped", "path": "references/pipe"}});
    let replies = [
        serde_json::json!({"content": [call], "stop_reason": "tool_use"}),
        serde_json::json!({"content": [{"type": "text", "text": "done"}], "stop_reason": "end_turn"}),
    ];
    let script_text = serde_json::json!({"prompt": "read the pipe", "replies": replies});
    std::fs::write(&script, script_text.to_string()).unwrap();
    std::fs::remove_dir_all(&other).unwrap();
    let server = target::build(&Chapter::find("03").unwrap().solution_package()).unwrap();
    ch08()
        .arg("--server")
        .arg(format!("add={}", server.display()))
        .arg("--skills")
        .arg(&dir)
        .arg("--script")
        .arg(&script)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "error read_skill_file {\"path\":\"references/pipe\",\"skill\":\"piped\"} -> \
             \"references/pipe\" is not a regular file",
        ));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The validator's command: 0.1.1 installs it as `agentskills`; later
/// releases and the docs call it `skills-ref`.
fn skills_ref() -> Option<&'static str> {
    ["agentskills", "skills-ref"].into_iter().find(|program| {
        Process::new(program)
            .arg("--help")
            .output()
            .is_ok_and(|output| output.status.success())
    })
}

#[test]
fn check_skills_agrees_with_skills_ref() {
    let Some(validator) = skills_ref() else {
        eprintln!(
            "skipped: skills-ref is not installed \
             (python3 -m pip install skills-ref==0.1.1; CI installs it)"
        );
        return;
    };
    for folder in [
        "tests/fixtures/skills/valid",
        "tests/fixtures/skills/invalid",
        "solutions/08-skills/skills",
    ] {
        let output = ch08()
            .args(["--check-skills", "--skills", folder])
            .output()
            .unwrap();
        let stdout = String::from_utf8(output.stdout).unwrap();
        let ours: Vec<&str> = stdout.lines().collect();
        for (skill, line) in subfolders(folder).iter().zip(&ours) {
            let theirs = Process::new(validator)
                .arg("validate")
                .arg(skill)
                .current_dir(course::root())
                .output()
                .unwrap();
            let they_accept = theirs.status.success();
            let we_accept = line.starts_with("ok ");
            assert_eq!(
                we_accept,
                they_accept,
                "{}: we say {line:?}; {validator} says {}{}",
                skill.display(),
                String::from_utf8_lossy(&theirs.stdout),
                String::from_utf8_lossy(&theirs.stderr)
            );
        }
    }
}

#[test]
fn the_demo_activates_a_skill_and_reads_one_of_its_files_offline() {
    // The demo starts chapter 3's server with `cargo run`: build it first.
    target::build(&Chapter::find("03").unwrap().solution_package()).unwrap();
    ch08()
        .env_remove("WIRE_MODEL")
        .env_remove("ANTHROPIC_API_KEY")
        .env("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")
        .current_dir(std::env::temp_dir())
        .assert()
        .success()
        .stdout(predicate::str::contains("skill mcp-debugging\n"))
        .stdout(predicate::str::contains("  tool Skill {\"skill\":\"mcp-debugging\"} -> "))
        .stdout(predicate::str::contains(
            "  tool read_skill_file {\"path\":\"references/error-codes.md\",\"skill\":\"mcp-debugging\"} -> ",
        ))
        .stdout(predicate::str::contains("answer: -32602 is Invalid params"));
}
