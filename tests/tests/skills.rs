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
use wire_tests::run::{target, tools};
use wire_tests::scratch::Scratch;

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

/// A fresh, empty folder for one test, removed at its end.
fn scratch(name: &str) -> Scratch {
    Scratch::new("skills", name)
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

#[test]
fn check_skills_agrees_with_skills_ref() {
    // 0.1.1 installs the validator as `agentskills`; later releases and
    // the docs call it `skills-ref`.
    let who = "skills::check_skills_agrees_with_skills_ref";
    if !tools::ready(&[&tools::SKILLS_REF], who) {
        return;
    }
    let validator = tools::SKILLS_REF.command().expect("found just now");
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
    let _no_builds_meanwhile =
        target::build_for_cargo_run(&Chapter::find("03").unwrap().solution_package()).unwrap();
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

/// A skill folder `name` under `dir` whose SKILL.md holds `body`.
fn write_skill(dir: &Path, name: &str, description: &str, body: &str) {
    std::fs::create_dir_all(dir.join(name)).unwrap();
    let text = format!("---\nname: {name}\ndescription: {description}\n---\n{body}");
    std::fs::write(dir.join(name).join("SKILL.md"), text).unwrap();
}

/// Runs chapter 8 on `skills` with a scripted model making `calls` (one
/// tool call a turn, then an answer) and `--trace`: its stdout, and the
/// request bodies it sent, from the trace on stderr.
fn run_traced(dir: &Path, skills: &Path, calls: &[serde_json::Value]) -> (String, String) {
    let mut replies: Vec<serde_json::Value> = calls
        .iter()
        .enumerate()
        .map(|(n, input)| {
            let call = serde_json::json!({"type": "tool_use", "id": format!("toolu_{n:02}"),
                "name": input["tool"], "input": input["input"]});
            serde_json::json!({"content": [call], "stop_reason": "tool_use"})
        })
        .collect();
    replies.push(
        serde_json::json!({"content": [{"type": "text", "text": "done"}],
        "stop_reason": "end_turn"}),
    );
    let script = dir.join("script.json");
    let text = serde_json::json!({"prompt": "go", "replies": replies});
    std::fs::write(&script, text.to_string()).unwrap();
    let server = target::build(&Chapter::find("03").unwrap().solution_package()).unwrap();
    let output = ch08()
        .arg("--trace")
        .arg("--server")
        .arg(format!("add={}", server.display()))
        .arg("--skills")
        .arg(skills)
        .arg("--script")
        .arg(&script)
        .output()
        .unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(output.status.success(), "{stdout}");
    (stdout, String::from_utf8(output.stderr).unwrap())
}

/// The requests of a trace, in order (`=> {json}` lines).
fn requests(trace: &str) -> Vec<serde_json::Value> {
    let bodies = trace.lines().filter_map(|line| line.strip_prefix("=> "));
    bodies
        .map(|body| serde_json::from_str(body).unwrap())
        .collect()
}

/// The text of the last tool_result a request carries.
fn last_result(request: &serde_json::Value) -> String {
    let messages = request["messages"].as_array().unwrap();
    let content = &messages.last().unwrap()["content"][0]["content"];
    content
        .as_str()
        .unwrap_or_else(|| content[0]["text"].as_str().unwrap())
        .to_string()
}

/// Issue 19: a SKILL.md over files::MAX_TEXT (256 KiB) made its skill
/// unusable. Now it loads from its first 256 KiB (the frontmatter is at the
/// start), `Skill` returns that part with a line that says where it was cut,
/// and `read_skill_file` with that `offset` reads on, line for line.
#[test]
fn a_huge_skill_md_is_cut_and_read_on_with_an_offset() {
    let dir = scratch("huge");
    let skills = dir.join("skills");
    // 8 MB of numbered lines, 64 bytes each.
    let body: String = (1..=131_072)
        .map(|n| format!("{:<63}\n", format!("body line {n}")))
        .collect();
    write_skill(&skills, "huge", "A huge skill.", &body);
    let file = std::fs::read_to_string(skills.join("huge/SKILL.md")).unwrap();
    // The cut: the last line end within the first 256 KiB.
    let kept = file[..256 * 1024].rfind('\n').unwrap() + 1;
    let last = file[..kept].matches('\n').count();
    let next_line = file.lines().nth(last).unwrap();
    let calls = [
        serde_json::json!({"tool": "Skill", "input": {"skill": "huge"}}),
        serde_json::json!({"tool": "read_skill_file",
            "input": {"skill": "huge", "path": "SKILL.md", "offset": last + 1}}),
        serde_json::json!({"tool": "read_skill_file",
            "input": {"skill": "huge", "path": "SKILL.md", "offset": 10_000_000}}),
        serde_json::json!({"tool": "read_skill_file",
            "input": {"skill": "huge", "path": "SKILL.md", "offset": "two"}}),
    ];
    let (stdout, trace) = run_traced(&dir, &skills, &calls);
    let sent = requests(&trace);
    let skill = last_result(&sent[1]);
    let note = format!(
        "\n[cut: SKILL.md is {} bytes, more than the 262144 bytes one answer holds; these are \
         its lines 1 to {last}. To read on, call read_skill_file with \"path\": \"SKILL.md\" \
         and \"offset\": {}]\n\nSkill directory: ",
        file.len(),
        last + 1
    );
    assert!(skill.contains(&note), "{}", &skill[skill.len() - 600..]);
    let part = last_result(&sent[2]);
    assert!(
        part.starts_with(&format!("{next_line}\n")),
        "{}",
        &part[..200]
    );
    assert!(part.len() <= 256 * 1024 + 400 && part.contains("\"offset\": "));
    assert!(
        stdout.contains(
            "-> \"SKILL.md\" has only 131076 lines: give an \"offset\" of 131076 or less\n"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "-> \"offset\": \"two\" is not a line number: give 1 or more, or leave it out\n"
        ),
        "{stdout}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 19: a folder of 10,000 skills put a 1.6 MB catalogue in every
/// request. The catalogue stops at wire_host::entries::MAX_CATALOGUE_CHARS
/// (8,000 characters), the first skills winning; --check-skills marks each
/// one left out, and a run says so on stderr once.
#[test]
fn a_catalogue_past_its_budget_leaves_the_later_skills_out_and_says_so_once() {
    let dir = scratch("many");
    let skills = dir.join("skills");
    for n in 0..10_000 {
        let description = format!("Skill number {n}, one of a great many, for the budget test.");
        write_skill(&skills, &format!("skill-{n:05}"), &description, "Body.\n");
    }
    let output = ch08()
        .args(["--check-skills", "--skills"])
        .arg(&skills)
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let stdout = String::from_utf8(output).unwrap();
    let ok = stdout
        .lines()
        .filter(|line| line.starts_with("ok "))
        .count();
    let left_out: Vec<&str> = stdout
        .lines()
        .filter(|line| line.starts_with("left out "))
        .collect();
    assert!(ok > 10 && ok < 200, "{ok} skills kept");
    assert_eq!(ok + left_out.len(), 10_000);
    let first = skills.join(format!("skill-{ok:05}"));
    let reason = format!(
        "catalogue: full after {ok} skills (8000 characters at most, \
         wire_host::entries::MAX_CATALOGUE_CHARS), so {} are left out",
        10_000 - ok
    );
    assert_eq!(
        left_out[0],
        format!("left out {}: {reason}", first.display())
    );

    let (_, trace) = run_traced(&dir, &skills, &[]);
    let system = requests(&trace)[0]["system"].as_str().unwrap().to_string();
    let catalogue = &system[system.find("The skills below").unwrap()..];
    assert!(
        catalogue.chars().count() <= 8000,
        "{} characters",
        catalogue.len()
    );
    assert!(catalogue.contains(&format!("<name>skill-{:05}</name>", ok - 1)));
    assert!(!catalogue.contains(&format!("<name>skill-{ok:05}</name>")));
    let said: Vec<&str> = trace
        .lines()
        .filter(|line| line.contains("left out"))
        .collect();
    assert_eq!(
        said,
        [format!(
            "ch08-skills: left out from {}: {reason}",
            first.display()
        )]
    );
    let _ = std::fs::remove_dir_all(&dir);
}
