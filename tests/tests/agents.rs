//! Chapter 9's `--check-agents`, driven as a learner or CI would run it,
//! and the proof that subagents of one reply run at the same time. The
//! transcripts (tests/transcripts/ch09) pin whole outputs; these tests pin
//! the contract: exit statuses, one line per file, the book's example
//! agent valid, and `# together:` failing a host that runs them in turn.

use std::path::PathBuf;
use std::time::Duration;

use assert_cmd::Command;
use predicates::prelude::*;
use wire_tests::course::{self, Chapter};
use wire_tests::run::client_runner;
use wire_tests::run::target::{self, Target};
use wire_tests::run::transcript::Transcript;

/// A stuck binary fails its test instead of hanging the suite.
const LIMIT: Duration = Duration::from_secs(60);

fn chapter() -> Chapter {
    Chapter::find("09").expect("chapter 09 exists")
}

/// The chapter's reference solution, run from the course root.
fn ch09() -> Command {
    let path = target::build(&chapter().solution_package()).unwrap_or_else(|err| panic!("{err}"));
    let mut command = Command::new(path);
    command.current_dir(course::root()).timeout(LIMIT);
    command
}

/// A fresh, empty folder for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wire-agents-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn the_chapters_example_agents_are_valid() {
    ch09()
        .args([
            "--check-agents",
            "--agents",
            "solutions/09-subagents/agents",
        ])
        .assert()
        .success()
        .stdout("ok arithmetic-checker\nok mcp-debugger\n");
}

#[test]
fn one_invalid_file_makes_exit_status_1_and_names_the_file_and_reason() {
    let dir = scratch("one-invalid");
    std::fs::write(
        dir.join("good.md"),
        "---\nname: good\ndescription: Fine.\n---\nBody.\n",
    )
    .unwrap();
    std::fs::write(dir.join("bad.md"), "---\nname: bad\n---\nBody.\n").unwrap();
    let bad = dir.join("bad.md").display().to_string();
    ch09()
        .args(["--check-agents", "--agents"])
        .arg(&dir)
        .assert()
        .code(1)
        .stdout(format!(
            "invalid {bad}: description: missing (Claude Code skips such a file)\nok good\n"
        ));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_name_may_hold_digits_as_in_claude_codes_example() {
    let dir = scratch("digits");
    std::fs::write(
        dir.join("reviewer-v2.md"),
        "---\nname: reviewer-v2\ndescription: Reviews.\n---\nBody.\n",
    )
    .unwrap();
    ch09()
        .args(["--check-agents", "--agents"])
        .arg(&dir)
        .assert()
        .success()
        .stdout("ok reviewer-v2\n");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn files_in_subfolders_load_and_other_files_are_not_agents() {
    let dir = scratch("subfolders");
    std::fs::create_dir_all(dir.join("team")).unwrap();
    std::fs::write(
        dir.join("team/reviewer.md"),
        "---\nname: reviewer\ndescription: Reviews.\ntools:\n  - Skill\n  - mcp__add__add\n---\nBody.\n",
    )
    .unwrap();
    std::fs::write(dir.join("README.txt"), "not an agent").unwrap();
    std::fs::write(dir.join(".hidden.md"), "not read").unwrap();
    ch09()
        .args(["--check-agents", "--agents"])
        .arg(&dir)
        .assert()
        .success()
        .stdout("ok reviewer\n");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_missing_folder_is_a_usage_error() {
    ch09()
        .args(["--check-agents", "--agents", "no/such/folder"])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains(
            "--agents no/such/folder: no such folder",
        ));
}

#[test]
fn max_concurrent_zero_is_a_usage_error() {
    ch09()
        .args(["--max-concurrent", "0", "hello"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--max-concurrent 0"));
}

/// The tour with `--max-concurrent 1`: the second subagent waits for the
/// first to finish, so the stub model, which answers neither first request
/// until both have arrived, fails the run. The same transcript passes with
/// the default bound (`ch09::tour`): the two runs did overlap. The stub's
/// wait is short here: this host cannot send the second request while the
/// first is unanswered, however long the stub waits, so the 20 s hang guard
/// would only be waited out in full.
#[test]
fn together_fails_a_host_that_runs_subagents_one_after_the_other() {
    let path = course::root().join("tests/transcripts/ch09/tour.wire");
    let mut transcript = Transcript::load(&path).unwrap();
    transcript
        .args
        .splice(0..0, ["--max-concurrent".into(), "1".into()]);
    let solution = Target::solution(&chapter()).unwrap();
    let wait = Duration::from_secs(2);
    let report = client_runner::check_waiting(&transcript, &solution, wait).unwrap_err();
    assert!(
        report.contains("never were in flight at the same time"),
        "{report}"
    );
}

/// Chapter 3's server, built, as a `--server` argument.
fn add_server() -> String {
    let server = target::build(&Chapter::find("03").unwrap().solution_package()).unwrap();
    format!("add={}", server.display())
}

#[test]
fn the_demo_delegates_two_tasks_and_labels_each_contexts_turns() {
    // The demo starts chapter 3's server with `cargo run`: build it first.
    let _no_builds_meanwhile =
        target::build_for_cargo_run(&Chapter::find("03").unwrap().solution_package()).unwrap();
    let output = ch09()
        .env_remove("WIRE_MODEL")
        .env_remove("ANTHROPIC_API_KEY")
        .env("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")
        .current_dir(std::env::temp_dir())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the demo failed:\n{stdout}\n{stderr}"
    );
    // Each subagent's lines come as one block, labelled, before the
    // result its parent prints for the call, and in the order asked.
    let lines: Vec<&str> = stdout.lines().collect();
    let at = |text: &str| lines.iter().position(|line| line.starts_with(text));
    let order = [
        at("  [toolu_01] subagent arithmetic-checker"),
        at("  [toolu_01] answer: 2 + 3 = 5"),
        at("  tool Agent {\"description\":\"Check 2 + 3\""),
        at("  [toolu_02] subagent arithmetic-checker"),
        at("  [toolu_02] answer: 10 + 20 = 30"),
        at("  tool Agent {\"description\":\"Check 10 + 20\""),
        at("answer: 2 + 3 = 5 and 10 + 20 = 30"),
    ];
    assert!(
        order.iter().all(Option::is_some) && order.is_sorted(),
        "unexpected demo output:\n{stdout}"
    );
}

/// Chapter 7's and chapter 8's scripts (one list of replies, no
/// `subagents`) still drive chapter 9's loop: the main context's queue.
#[test]
fn chapter_7_and_8_scripts_still_load() {
    for (script, skills, answer) in [
        (
            "solutions/07-agent-loop/scripts/add.json",
            "solutions/08-skills/skills",
            "answer: 2 + 3 = 5, and 10 + 20 = 30.",
        ),
        (
            "solutions/08-skills/scripts/skills.json",
            "solutions/08-skills/skills",
            "answer: -32602 is Invalid params",
        ),
    ] {
        ch09()
            .args(["--server", &add_server(), "--script", script])
            .args(["--skills", skills])
            .assert()
            .success()
            .stdout(predicate::str::contains(answer));
    }
}

/// Issue 19: an agent file whose `tools` named nothing that exists was
/// "ok". Each unknown name is now a warning under its `ok` line, naming the
/// file and the name, and so is a list that leaves the agent no tool at
/// all; the agent still loads (exit 0), as Claude Code would load it.
#[test]
fn check_agents_warns_of_tools_that_do_not_exist() {
    let dir = scratch("unknown-tools");
    std::fs::write(
        dir.join("porter.md"),
        "---\nname: porter\ndescription: Ported from Claude Code.\n\
         tools: Read, Grep, mcp__add__add\n---\nBody.\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("stranded.md"),
        "---\nname: stranded\ndescription: Nothing it lists exists.\n\
         tools: mcp__notes__search_notes\n---\nBody.\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("fine.md"),
        "---\nname: fine\ndescription: Every name exists.\n\
         tools: Agent(fine), Task, Skill, read_skill_file, mcp__add, mcp__add__*\n---\nBody.\n",
    )
    .unwrap();
    let has = "(it has Skill, read_skill_file, ReadMcpResourceTool, Agent, and \
               mcp__SERVER__TOOL for its servers: add)";
    let porter = dir.join("porter.md").display().to_string();
    let stranded = dir.join("stranded.md").display().to_string();
    ch09()
        .args(["--check-agents", "--server", &add_server(), "--agents"])
        .arg(&dir)
        .assert()
        .success()
        .stdout(format!(
            "ok fine\n\
             ok porter\n\
             warning {porter}: tools: \"Read\" is no tool of this harness {has}\n\
             warning {porter}: tools: \"Grep\" is no tool of this harness {has}\n\
             ok stranded\n\
             warning {stranded}: tools: \"mcp__notes__search_notes\" is no tool of this harness {has}\n\
             warning {stranded}: tools: none of them is a tool here, so it has no tool at all\n"
        ));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 19: nothing bounded the subagents one prompt starts in all
/// (`--max-concurrent` bounds those of one reply running at once). One
/// reply asks for MAX_SUBAGENTS + 1 = 33: the first 32 run and answer, the
/// 33rd gets an error result that says why, and no request of its own.
#[test]
fn one_prompt_starts_at_most_32_subagents() {
    let dir = scratch("total");
    let agents = dir.join("agents");
    std::fs::create_dir_all(&agents).unwrap();
    std::fs::write(
        agents.join("worker.md"),
        "---\nname: worker\ndescription: Does one small task.\ntools: mcp__add__add\n---\nWork.\n",
    )
    .unwrap();
    let id = |n: usize| format!("toolu_{n:02}");
    let calls: Vec<serde_json::Value> = (1..=33)
        .map(|n| {
            serde_json::json!({"type": "tool_use", "id": id(n), "name": "Agent", "input": {
                "description": format!("Task {n}"), "prompt": format!("Do task {n}."),
                "subagent_type": "worker"}})
        })
        .collect();
    let answer = |text: String| serde_json::json!({"content": [{"type": "text", "text": text}], "stop_reason": "end_turn"});
    let subagents: serde_json::Map<String, serde_json::Value> = (1..=33)
        .map(|n| (id(n), serde_json::json!([answer(format!("done {n}"))])))
        .collect();
    let script = serde_json::json!({"prompt": "Do 33 tasks.", "replies": [
        {"content": calls, "stop_reason": "tool_use"}, answer("All done.".into())],
        "subagents": subagents});
    std::fs::write(dir.join("script.json"), script.to_string()).unwrap();
    let output = ch09()
        .args(["--server", &add_server(), "--agents"])
        .arg(&agents)
        .arg("--script")
        .arg(dir.join("script.json"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    for n in 1..=32 {
        assert!(
            stdout.contains(&format!("  [{}] answer: done {n}\n", id(n))),
            "{stdout}"
        );
    }
    assert!(!stdout.contains("[toolu_33]"), "{stdout}");
    let refused = "  error Agent {\"description\":\"Task 33\",\"prompt\":\"Do task 33.\",\
                   \"subagent_type\":\"worker\"} -> this prompt has started 32 subagents, the \
                   most one prompt may start at every depth together: finish the task with the \
                   results you have\n";
    assert!(stdout.contains(refused), "{stdout}");
    assert!(stdout.ends_with("answer: All done.\n"), "{stdout}");
    let _ = std::fs::remove_dir_all(&dir);
}
