//! Chapters 10 and 11's command line, driven as a learner would run it. The
//! transcripts (tests/transcripts/ch10, ch11) pin the hooks' frames; these tests
//! pin the contract around them: `--settings FILE` and `--workdir DIR`
//! checked before anything starts, commands run in the working folder,
//! bad settings refused, and the demo's hook failing closed without jq.

use std::path::{Path, PathBuf};
use std::time::Duration;

use assert_cmd::Command;
use predicates::prelude::*;
use wire_tests::course::{self, Chapter};
use wire_tests::run::{target, tools};
use wire_tests::scratch::Scratch;

/// A stuck binary fails its test instead of hanging the suite.
const LIMIT: Duration = Duration::from_secs(60);

/// Chapter 10's reference solution (the fence), run from the course root.
fn ch10() -> Command {
    solution("10")
}

/// Chapter 11's (the hooks around the loop), for the events only it fires.
fn ch11() -> Command {
    solution("11")
}

fn solution(number: &str) -> Command {
    let chapter = Chapter::find(number).expect("the chapter exists");
    let path = target::build(&chapter.solution_package()).unwrap_or_else(|err| panic!("{err}"));
    let mut command = Command::new(path);
    command.current_dir(course::root()).timeout(LIMIT);
    command
}

/// Whether the hooks these tests run can: they read their input with `jq`
/// (the `record` wrapper, `allowlist.sh`, a command that calls it). On a
/// learner's machine without it the test is skipped with the install line;
/// under `CI` it fails.
fn jq_ready(who: &str) -> bool {
    tools::ready(&[&tools::JQ], &format!("hooks::{who}"))
}

/// A fresh, empty folder for one test, removed at its end.
fn scratch(name: &str) -> Scratch {
    Scratch::new("hooks", name)
}

/// A model script: one Bash call, then a final answer.
fn one_bash_call(dir: &Path, command: &str) -> PathBuf {
    bash_call(dir, serde_json::json!({ "command": command }))
}

/// A model script: one Bash call with this input, then a final answer.
fn bash_call(dir: &Path, input: serde_json::Value) -> PathBuf {
    let reply = |content: serde_json::Value, stop: &str| {
        serde_json::json!({"id": "msg", "type": "message", "role": "assistant", "model": "scripted",
            "content": content, "stop_reason": stop, "stop_sequence": null,
            "usage": {"input_tokens": 0, "output_tokens": 0}})
    };
    let script = serde_json::json!({
        "prompt": "Run it.",
        "replies": [
            reply(serde_json::json!([{"type": "tool_use", "id": "toolu_01", "name": "Bash",
                                      "input": input}]), "tool_use"),
            reply(serde_json::json!([{"type": "text", "text": "Done."}]), "end_turn"),
        ],
    });
    let path = dir.join("script.json");
    std::fs::write(&path, script.to_string()).unwrap();
    path
}

#[test]
fn a_settings_file_that_does_not_exist_is_a_usage_error() {
    ch10()
        .args(["--settings", "no/such/settings.json", "hello"])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains(
            "--settings no/such/settings.json: no such file",
        ));
}

#[test]
fn a_workdir_that_does_not_exist_is_a_usage_error() {
    ch10()
        .args(["--workdir", "no/such/folder", "hello"])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains(
            "--workdir no/such/folder: no such folder",
        ));
}

#[test]
fn settings_that_are_not_json_stop_the_run_with_the_reason() {
    let dir = scratch("bad-settings");
    let settings = dir.join("settings.json");
    std::fs::write(&settings, "{ \"hooks\": ").unwrap();
    let script = one_bash_call(&dir, "echo hi");
    ch10()
        .arg("--settings")
        .arg(&settings)
        .arg("--script")
        .arg(&script)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("settings.json: not JSON"));
}

/// Runs chapter 10's harness with these settings (a JSON text) and one
/// Bash call.
fn with_settings(name: &str, settings: &str) -> assert_cmd::assert::Assert {
    with_settings_on(ch10(), name, settings)
}

/// The same, on chapter 11's harness: settings that name the events only
/// it fires.
fn with_settings_on(
    mut harness: Command,
    name: &str,
    settings: &str,
) -> assert_cmd::assert::Assert {
    let dir = scratch(name);
    let path = dir.join("settings.json");
    std::fs::write(&path, settings).unwrap();
    let script = one_bash_call(&dir, "echo ran");
    harness
        .arg("--settings")
        .arg(&path)
        .arg("--workdir")
        .arg(&dir)
        .arg("--script")
        .arg(&script)
        .assert()
}

#[test]
fn a_handler_field_the_harness_cannot_honour_makes_the_settings_invalid() {
    // A PowerShell command run by sh would fail, and fail open; an
    // onFailure this harness does not know might have meant "block".
    for (field, error) in [
        (
            r#""shell":"powershell""#,
            r#"only "shell": "bash" runs here"#,
        ),
        (
            r#""onFailure":"deny""#,
            r#""onFailure" is "block" or "continue""#,
        ),
        (r#""args":"-c""#, r#""args" must be a list of strings"#),
    ] {
        let settings = format!(
            r#"{{"hooks":{{"PreToolUse":[{{"matcher":"Bash","hooks":[
            {{"type":"command","command":"exit 2",{field}}}]}}]}}}}"#
        );
        with_settings("invalid-field", &settings)
            .code(1)
            .stdout(predicate::str::contains("turn 1").not())
            .stderr(predicate::str::contains(format!(
                "hooks.PreToolUse: {error}"
            )));
    }
}

#[test]
fn a_matcher_with_lookaround_is_refused_not_read_as_never_matching() {
    // Claude Code's matchers are JavaScript regular expressions; the regex
    // crate has no lookaround, so this one cannot be read here at all.
    let settings = r#"{"hooks":{"PreToolUse":[{"matcher":"^(?!Read).*","hooks":[
        {"type":"command","command":"exit 2"}]}]}}"#;
    with_settings("lookaround", settings)
        .code(1)
        .stdout(predicate::str::contains("turn 1").not())
        .stderr(predicate::str::contains(
            r#"matcher "^(?!Read).*" is not a valid regular expression"#,
        ));
}

#[test]
fn handlers_the_harness_does_not_run_as_written_are_reported() {
    // `async` cannot block in Claude Code: skipped, and said. `if` is not
    // read: the handler runs on every call its matcher matches (here it
    // blocks), which is more runs, never a hole.
    let settings = r#"{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[
        {"type":"command","command":"echo async >&2; exit 2","async":true},
        {"type":"command","command":"echo gated >&2; exit 2","if":"Bash(rm *)"}]}],
        "Stop":[{"hooks":[{"type":"command","command":"exit 2","if":"Bash(rm *)"}]}]}}"#;
    with_settings_on(ch11(), "skipped-fields", settings)
        .success()
        .stderr(predicate::str::contains(
            r#"hooks.PreToolUse: skipped a handler with "async": background hooks do not run here"#,
        ))
        .stderr(predicate::str::contains(
            r#"hooks.PreToolUse: "if" is not read here: the handler runs on every call its matcher matches"#,
        ))
        .stderr(predicate::str::contains(
            r#"hooks.Stop: skipped a handler with "if" on an event without a tool"#,
        ))
        .stdout(predicate::str::contains("exit 2: gated"))
        .stdout(predicate::str::contains("exit 2: async").not())
        .stdout(predicate::str::contains("ran\nexit status").not());
}

#[test]
fn hook_text_past_ten_thousand_characters_is_cut_with_a_note() {
    // Claude Code caps each string a hook adds (context, a reason, plain
    // stdout) at 10,000 characters. Unbounded, this prompt hook would put
    // 50,000 characters in every request.
    let settings = r#"{"hooks":{"UserPromptSubmit":[{"hooks":[
        {"type":"command","command":"head -c 50000 /dev/zero | tr '\\0' x"}]}]}}"#;
    let output = with_settings_on(ch11(), "cap", settings)
        .success()
        .get_output()
        .clone();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("[hook output cut after 10000 characters]"),
        "{stdout}"
    );
    let turn = stdout
        .lines()
        .find(|line| line.starts_with("turn 1: sending 1 messages, "))
        .unwrap_or_else(|| panic!("no first turn in {stdout}"));
    let bytes: usize = turn["turn 1: sending 1 messages, ".len()..]
        .split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no byte count in {turn}"));
    assert!((10_000..20_000).contains(&bytes), "{turn}");
}

#[test]
fn a_hook_script_the_model_can_write_cannot_switch_the_fence_off() {
    // The demo's setup: the rm blocker in the project's .claude/hooks,
    // which the model's Bash can write. Its first call (not an rm, so
    // allowed) makes the script let everything through and takes its
    // executable bit; its second deletes a file. The harness runs the hook
    // from the copy it made at start-up, so the second call is blocked.
    if !jq_ready("a_hook_script_the_model_can_write_cannot_switch_the_fence_off") {
        return;
    }
    let dir = scratch("snapshot");
    let work = dir.join("work");
    std::fs::create_dir_all(work.join(".claude/hooks")).unwrap();
    let work = std::fs::canonicalize(&work).unwrap();
    let hook = work.join(".claude/hooks/block-rm.sh");
    std::fs::copy(
        course::root().join("solutions/10-hooks/scripts/block-rm.sh"),
        &hook,
    )
    .unwrap();
    std::fs::write(work.join("keep.txt"), "kept").unwrap();
    let settings = dir.join("settings.json");
    std::fs::copy(
        course::root().join("solutions/10-hooks/scripts/settings.json"),
        &settings,
    )
    .unwrap();
    let call = |id: &str, command: &str| {
        serde_json::json!({"id": "msg", "type": "message", "role": "assistant", "model": "scripted",
            "content": [{"type": "tool_use", "id": id, "name": "Bash", "input": {"command": command}}],
            "stop_reason": "tool_use", "stop_sequence": null,
            "usage": {"input_tokens": 0, "output_tokens": 0}})
    };
    let mut done = call("toolu_03", "");
    done["content"] = serde_json::json!([{"type": "text", "text": "Done."}]);
    done["stop_reason"] = serde_json::json!("end_turn");
    let script = serde_json::json!({"prompt": "Tidy up.", "replies": [
        call("toolu_01", "printf 'exit 0' > .claude/hooks/block-rm.sh && chmod -x .claude/hooks/block-rm.sh"),
        call("toolu_02", "rm keep.txt"),
        done,
    ]});
    let script_path = dir.join("script.json");
    std::fs::write(&script_path, script.to_string()).unwrap();
    ch10()
        .arg("--settings")
        .arg(&settings)
        .arg("--workdir")
        .arg(&work)
        .arg("--script")
        .arg(&script_path)
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "block-rm.sh runs from a copy made now",
        ))
        .stdout(predicate::str::contains(
            "a PreToolUse hook blocked this call: Blocked: rm commands are not allowed",
        ));
    assert_eq!(
        std::fs::read_to_string(&hook).unwrap(),
        "exit 0",
        "the attack ran"
    );
    assert!(work.join("keep.txt").exists(), "the fence was switched off");
}

#[test]
fn bash_runs_in_the_workdir_and_reports_the_exit_status() {
    let dir = scratch("workdir");
    let work = dir.join("work");
    std::fs::create_dir_all(&work).unwrap();
    let script = one_bash_call(&dir, "echo made > made.txt; exit 3");
    ch10()
        .arg("--workdir")
        .arg(&work)
        .arg("--script")
        .arg(&script)
        .assert()
        .success()
        .stdout(predicate::str::contains("exit status 3"));
    let made = std::fs::read_to_string(work.join("made.txt")).unwrap();
    assert_eq!(made, "made\n");
}

#[test]
fn bash_output_is_cut_with_a_note() {
    let dir = scratch("long-output");
    let script = one_bash_call(&dir, "yes x | head -c 100000");
    ch10()
        .arg("--script")
        .arg(&script)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "[output truncated after 30000 bytes]",
        ));
}

#[test]
fn a_hook_that_crashes_never_takes_the_harness_down() {
    let dir = scratch("crash");
    let settings = dir.join("settings.json");
    let hook = r#"{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[
        {"type":"command","command":"kill -SEGV $$"}]}]}}"#;
    std::fs::write(&settings, hook).unwrap();
    let script = one_bash_call(&dir, "echo still here");
    ch10()
        .arg("--settings")
        .arg(&settings)
        .arg("--script")
        .arg(&script)
        .assert()
        .success()
        .stdout(predicate::str::contains("killed by a signal; no decision"))
        .stdout(predicate::str::contains("still here"));
}

#[test]
fn a_hook_timeout_holds_when_a_child_keeps_the_pipes_open() {
    let dir = scratch("hook-pipes");
    let marker = dir.join("late");
    // The hook answers at once, but leaves a child holding its stdout and
    // stderr, which marks a file once it is done. Unless the deadline
    // covers the pipes too (and kills the group), the harness waits for
    // that child: the marker would be there when the harness returns.
    let command = format!("(sleep 5; touch '{}') & exit 0", marker.display());
    let hook = serde_json::json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": command, "timeout": 1}]}]}});
    let settings = dir.join("settings.json");
    std::fs::write(&settings, hook.to_string()).unwrap();
    let script = one_bash_call(&dir, "echo ran");
    ch10()
        .arg("--settings")
        .arg(&settings)
        .arg("--script")
        .arg(&script)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "timed out after 1 s and was killed; no decision",
        ))
        .stdout(predicate::str::contains(
            "tool Bash {\"command\":\"echo ran\"} -> ran",
        ));
    assert!(
        !marker.exists(),
        "the harness returned after the hook's child was done: its timeout did not hold"
    );
}

/// A folder of links to the programs the demo needs, and no jq.
#[cfg(unix)]
fn path_without_jq(dir: &Path) -> PathBuf {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    for program in ["sh", "bash", "cat", "rm"] {
        let found = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
            .map(|folder| folder.join(program))
            .find(|path| path.is_file())
            .unwrap_or_else(|| panic!("{program} is not on the PATH"));
        std::os::unix::fs::symlink(found, bin.join(program)).unwrap();
    }
    bin
}

#[cfg(unix)]
#[test]
fn the_demos_hook_fails_closed_without_jq() {
    let dir = scratch("no-jq");
    let bin = path_without_jq(&dir);
    ch10()
        .env("PATH", &bin)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "a PreToolUse hook blocked this call: Blocked: jq is not installed",
        ))
        .stdout(predicate::str::contains(
            "working folder: still there, notes.md intact",
        ));
}

#[test]
fn hooks_get_the_project_dir_and_can_read_the_transcript_file() {
    if !jq_ready("hooks_get_the_project_dir_and_can_read_the_transcript_file") {
        return;
    }
    let dir = scratch("transcript");
    let work = dir.join("work");
    std::fs::create_dir_all(&work).unwrap();
    let work = std::fs::canonicalize(&work).unwrap();
    let settings = dir.join("settings.json");
    let hook = r#"{"hooks":{"Stop":[{"hooks":[{"type":"command","command":
        "jq -r .transcript_path | xargs cat > seen.jsonl; echo \"$CLAUDE_PROJECT_DIR\" > dir.txt"}]}]}}"#;
    std::fs::write(&settings, hook).unwrap();
    let script = one_bash_call(&dir, "echo hi");
    ch11()
        .arg("--settings")
        .arg(&settings)
        .arg("--workdir")
        .arg(&work)
        .arg("--script")
        .arg(&script)
        .assert()
        .success();
    let project = std::fs::read_to_string(work.join("dir.txt")).unwrap();
    assert_eq!(project, format!("{}\n", work.display()));
    // One JSON line per message, in order: the prompt, the call, its
    // result, and the final answer the Stop hook was asked about.
    let seen = std::fs::read_to_string(work.join("seen.jsonl")).unwrap();
    let lines: Vec<serde_json::Value> = seen
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let types: Vec<&str> = lines.iter().map(|l| l["type"].as_str().unwrap()).collect();
    assert_eq!(types, ["user", "assistant", "user", "assistant"]);
    assert_eq!(lines[0]["message"]["content"], "Run it.");
    assert_eq!(lines[3]["message"]["content"][0]["text"], "Done.");
}

#[test]
fn a_command_past_its_timeout_is_killed_with_its_children() {
    let dir = scratch("bash-timeout");
    // The background sleep holds the output pipe: unless the whole process
    // group is killed, the harness would wait for it (and the test's guard
    // would fail it).
    let input = serde_json::json!({ "command": "sleep 300 & sleep 300", "timeout": 200 });
    let script = bash_call(&dir, input);
    ch10()
        .arg("--script")
        .arg(&script)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "the command ran past its timeout of 200 ms and was killed",
        ));
}

#[test]
fn a_stop_hook_that_always_refuses_is_overruled_after_eight_refusals() {
    let dir = scratch("stop-cap");
    let settings = dir.join("settings.json");
    let hook = r#"{"hooks":{"Stop":[{"hooks":[{"type":"command",
        "command":"cat >/dev/null; echo never >&2; exit 2"}]}]}}"#;
    std::fs::write(&settings, hook).unwrap();
    let answer = |n: usize| {
        serde_json::json!({"id": format!("msg_{n}"), "type": "message", "role": "assistant",
            "model": "scripted", "content": [{"type": "text", "text": format!("Done {n}.")}],
            "stop_reason": "end_turn", "stop_sequence": null,
            "usage": {"input_tokens": 0, "output_tokens": 0}})
    };
    let replies: Vec<serde_json::Value> = (1..=9).map(answer).collect();
    let script = dir.join("script.json");
    let text = serde_json::json!({ "prompt": "Finish.", "replies": replies });
    std::fs::write(&script, text.to_string()).unwrap();
    let output = ch11()
        .arg("--settings")
        .arg(&settings)
        .arg("--script")
        .arg(&script)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "stop hooks refused 8 times in a row: ending anyway",
        ))
        .stdout(predicate::str::contains("answer: Done 9."))
        .get_output()
        .stdout
        .clone();
    let refusals = String::from_utf8_lossy(&output)
        .matches("exit 2: never")
        .count();
    assert_eq!(refusals, 9, "eight refusals obeyed, the ninth overruled");
}

/// The book's allowlist hook, given one Bash command as Claude Code would.
fn allowlist(command: &str) -> assert_cmd::assert::Assert {
    let input = serde_json::json!({ "hook_event_name": "PreToolUse", "tool_name": "Bash",
                                    "tool_input": { "command": command } });
    Command::new(course::root().join("tests/fixtures/hooks/allowlist.sh"))
        .write_stdin(input.to_string())
        .timeout(LIMIT)
        .assert()
}

#[cfg(unix)]
#[test]
fn the_allowlist_hook_blocks_the_spellings_the_rm_hook_misses() {
    if !jq_ready("the_allowlist_hook_blocks_the_spellings_the_rm_hook_misses") {
        return;
    }
    allowlist("ls -la").code(0);
    allowlist("find . -delete")
        .code(2)
        .stderr("Blocked: find is not on the allowlist\n");
    allowlist("python3 -c 'import os'")
        .code(2)
        .stderr("Blocked: python3 is not on the allowlist\n");
    allowlist("ls; rm -rf .")
        .code(2)
        .stderr("Blocked: no lists, pipes, substitutions or redirections\n");
}

#[test]
fn the_allowlist_hook_refuses_a_command_of_several_lines() {
    if !jq_ready("the_allowlist_hook_refuses_a_command_of_several_lines") {
        return;
    }
    // The shell runs the second line too; the hook would read only `ls`.
    for command in ["ls\nrm -rf .", "ls\r\nrm -rf .", "ls -la\n\nrm -rf ."] {
        allowlist(command)
            .code(2)
            .stderr("Blocked: one line only: a newline starts another command\n");
    }
}

/// What an `ask` looks like from a terminal: the harness runs under a
/// pseudo-terminal, its stdout sent to a file as a program reading it would
/// get it, and `typed` is the user's answer. The hook asks about `rm
/// notes.md`. Checks that the question went to the terminal only; returns
/// what stdout got, and whether notes.md is still there.
fn ask_on_a_terminal(name: &str, typed: &str) -> Option<(String, bool)> {
    if !tools::ready(
        &[&tools::JQ, &tools::SCRIPT],
        &format!("hooks::ask_on_a_terminal ({name})"),
    ) {
        return None;
    }
    let mut script = Command::new("script");
    let chapter = Chapter::find("10").expect("chapter 10 exists");
    let binary = target::build(&chapter.solution_package()).unwrap_or_else(|err| panic!("{err}"));
    let dir = scratch(name);
    let work = dir.join("work");
    std::fs::create_dir_all(&work).unwrap();
    std::fs::write(work.join("notes.md"), "keep me\n").unwrap();
    let stdout = dir.join("stdout.txt");
    let quote = |path: &Path| format!("'{}'", path.display().to_string().replace('\'', r"'\''"));
    let hooks = course::root().join("tests/fixtures/hooks");
    let command = format!(
        "{} --settings {} --workdir {} --session-id s1 --skills {} --agents {} --script {} > {}",
        quote(&binary),
        quote(&hooks.join("settings/ask_without_terminal.json")),
        quote(&work),
        quote(&hooks.join("none")),
        quote(&hooks.join("agents")),
        quote(&hooks.join("scripts/ask_without_terminal.json")),
        quote(&stdout),
    );
    let terminal = script
        .args(["--quiet", "--return", "--command", &command, "/dev/null"])
        .current_dir(course::root())
        .env("WIRE_HOOKS", &hooks)
        .env("WIRE_HOOK_LOG", dir.join("hooks.log"))
        .write_stdin(typed)
        .timeout(LIMIT)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let terminal = String::from_utf8_lossy(&terminal).replace("\r\n", "\n");
    let stdout = std::fs::read_to_string(&stdout).unwrap();
    // The hook ran once, whatever the answer; the question went to the
    // terminal, and never to stdout.
    let log = std::fs::read_to_string(dir.join("hooks.log")).unwrap();
    assert_eq!(log.matches("~> ").count(), 1, "{log}");
    assert!(
        terminal.contains(QUESTION),
        "the terminal showed:\n{terminal}"
    );
    assert!(
        !stdout.contains("a hook asks"),
        "the question went to stdout:\n{stdout}"
    );
    Some((stdout, work.join("notes.md").exists()))
}

const QUESTION: &str = "ch10-hooks: a hook asks: rm needs a human\n  \
                        Bash {\"command\":\"rm notes.md\"}\nRun this tool call? [y/N] ";

#[test]
fn ask_on_a_terminal_runs_the_call_when_the_user_says_yes() {
    let Some((stdout, kept)) = ask_on_a_terminal("ask-yes", "y\n") else {
        return;
    };
    assert!(
        stdout.contains("\n  the user allowed the call\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("\n  tool Bash {\"command\":\"rm notes.md\"} -> exit status 0\n"),
        "{stdout}"
    );
    assert!(!kept, "the call ran: notes.md is gone");
}

#[test]
fn ask_on_a_terminal_denies_the_call_when_the_user_says_no() {
    let Some((stdout, kept)) = ask_on_a_terminal("ask-no", "n\n") else {
        return;
    };
    assert!(
        stdout.contains(
            "\n  error Bash {\"command\":\"rm notes.md\"} -> a PreToolUse hook asked the user to \
             approve this call, and the user said no: it did not run\n"
        ),
        "{stdout}"
    );
    assert!(kept, "the call did not run: notes.md is still there");
}
