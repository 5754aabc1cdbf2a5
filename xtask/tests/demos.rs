//! Every chapter's demo, run as the README says: `cargo xtask run NN` (a
//! real nested `cargo xtask`, so the alias, xtask's own argument handling
//! and the chapter's build are all on the path), and checked for the facts
//! the demo exists to show. A demo that stops showing its lesson (chapter
//! 10 with no hook, say) fails here, not in front of a room.

use std::process::Command;

use wire_tests::course::{self, Chapter};
use wire_tests::run::tools::{self, Tool};

/// What each chapter's demo must show, in its own closing lines: text that
/// stdout or stderr must contain. One row per chapter; a new chapter adds
/// its row (the last test says which are missing). Facts are lines the
/// program or the tooling prints itself, never a scripted model's words:
/// a scripted answer can claim anything.
const DEMOS: &[(&str, &[&str])] = &[
    ("01", &[SERVER_EXITED]),
    ("02", &[SERVER_EXITED]),
    ("03", &[SERVER_EXITED, r#""text": "{\"sum\":5}""#]),
    ("04", &[SERVER_EXITED]),
    ("05", &[SERVER_EXITED]),
    // The client lists the tools of the chapter 3 server it started.
    ("06", &["server add: ch03-add-tool", "tools (1):"]),
    // The agent loop ends its run with the model's answer, after tool calls.
    (
        "07",
        &["stop_reason tool_use", "stop_reason end_turn", "answer: "],
    ),
    ("08", &["stop_reason end_turn", "answer: "]),
    ("09", &["stop_reason end_turn", "answer: "]),
    // The hooks chapter: the harness's own log line shows the hook's block,
    // the call did not run, and the harness (not the model) reports that
    // the working folder survived.
    (
        "10",
        &[
            "exit 2: Blocked: rm commands are not allowed",
            "a PreToolUse hook blocked this call",
            "working folder: still there, notes.md intact",
        ],
    ),
    // The hooks around the loop: the Stop hook's refusal sends the model
    // back, the PostToolUse hook logged both calls, and the second Stop
    // lets the run end.
    (
        "11",
        &[
            "hook SessionStart",
            "hook Stop \"$CLAUDE_PROJECT_DIR\"/.claude/hooks/stop-check.sh: exit 2: Not yet",
            "hook Stop \"$CLAUDE_PROJECT_DIR\"/.claude/hooks/stop-check.sh: exit 0",
            "audit log: 2 Bash call(s) recorded by the PostToolUse hook",
        ],
    ),
    ("12", &[SERVER_EXITED]),
    (
        "13",
        &[
            "the server listens on http://127.0.0.1:",
            "← HTTP/1.1 200 OK",
            "requests sent; the server was stopped.",
        ],
    ),
    (
        "14",
        &[
            "\"resultType\": \"input_required\"",
            "Published draft-1, \\\"Release notes\\\", for everyone.",
            SERVER_EXITED,
        ],
    ),
    // The host answers: chapter 14's server, started with --listen and
    // reached over HTTP, asks for confirmation in an input-required
    // result, the scripted answer declines, and the server publishes
    // nothing (its own words, in the tool's result); at the end the host
    // stops the server it started (its goodbye on SIGTERM).
    (
        "15",
        &[
            "era drafts: 2026-07-28 (server/discover)",
            "elicitation from drafts: Publish draft-1, \"Release notes\"? Choose who may read it. -> {\"action\":\"decline\"} (scripted)",
            "tool mcp__drafts__publish_draft {\"draft\":\"draft-1\"} -> Not published: the user declined.",
            "ch14-asking: terminated, bye",
        ],
    ),
    // Long work: the server reports progress on the token the call
    // carried, before the result that ends the call; the tool made
    // available by the work (search_index) then answers from its index.
    (
        "16",
        &[
            r#""progressToken": "reindex-1""#,
            r#""message": "Indexed note://utf8""#,
            r#""text": "Indexed 8 notes, 97 words; search_index looks a word up.""#,
            r#""text": "\"retry\" is in note://backoff, note://idempotency.""#,
            SERVER_EXITED,
        ],
    ),
    // Tasks: the call answers with a handle at once, the work goes on,
    // and the cancel is a status the next tasks/get shows.
    (
        "17",
        &[
            r#""resultType": "task""#,
            r#""status": "working""#,
            r#""status": "cancelled""#,
            SERVER_EXITED,
        ],
    ),
    // Skills over MCP: the extension declared, an entry's manifest with
    // its digests, and a supporting file read by its skill:// URI.
    (
        "18",
        &[
            r#""directoryRead": true"#,
            r#""digest": "sha256:"#,
            r#""uri": "skill://pdf-processing/scripts/extract.py""#,
            SERVER_EXITED,
        ],
    ),
    // Tool search: the harness defers the server's tools, its own
    // ToolSearch finds one (the result is the harness's, not the script's),
    // and the found tool's call reaches the server, which answers.
    (
        "19",
        &[
            "tool search (ENABLE_TOOL_SEARCH=true): 8 of 12 tools deferred",
            r#"tool ToolSearch {"query":"search notes"} -> Found 1; the definitions are in your tools from the next turn: mcp__drafts__search_notes"#,
            r#"tool mcp__drafts__search_notes {"query":"retry"} -> 2 notes contain "retry":"#,
            "ch14-asking: terminated, bye",
        ],
    ),
    // The cached prefix: the scripted model's figures are computed from
    // each request (the script says "{cache}"): the first writes the
    // prefix, the second reads it back and writes only what is new.
    (
        "20",
        &[
            "cache: wrote 1583, read 0, uncached 0, output 0",
            "cache: wrote 155, read 1583, uncached 0, output 0",
            "session input: 2665.9 base tokens with the cache, 5188 without (49% saved)",
            "ch14-asking: terminated, bye",
        ],
    ),
    // The layered prompt: the demo's project memory loads, import first
    // (a learner's own ~/.claude/CLAUDE.md may add a line), and the served
    // skill is read only when the model activates it, and checked.
    (
        "21",
        &[
            "memory: project docs/commits.md (1 line)",
            "memory: project CLAUDE.md (4 lines)",
            "memory: local CLAUDE.local.md (1 line)",
            "tool Skill {\"skill\":\"git-workflow\"} -> ",
            "ch18-skills-server: terminated, bye",
        ],
    ),
    // The long session: the scripted 529 is retried after a backoff, the
    // session outgrows the demo's budget and is compacted, and the run
    // ends with the model's answer.
    (
        "22",
        &[
            "the model API answered 529 overloaded_error: retry 1 of 10 (backoff, up to 0.5 s)",
            "compacting: messages 2 to 5 of 7 into a summary",
            "stop_reason end_turn",
            "ch14-asking: terminated, bye",
        ],
    ),
    // Permission rules: the demo's deny rule stops the curl pipeline, its
    // ask rule (with no terminal) the publication; the allowed calls run.
    (
        "23",
        &[
            "-> a deny rule refuses this call: it did not run",
            "-> an ask rule asks about this call, and there was no terminal to ask on: it did not run",
            r#"tool Bash {"command":"mkdir -p build"} -> exit status 0"#,
            "ch14-asking: terminated, bye",
        ],
    ),
    // The sandbox: the harness's own line says it holds, and the kernel
    // refuses the write outside the working folder, not a rule or a hook.
    (
        "24",
        &[
            "sandbox: on (bubblewrap): writes to the working folder only; hidden: ~/.ssh; network: none",
            "touch: cannot touch '../escaped': Read-only file system",
            r#"tool Bash {"command":"mkdir -p build && touch build/ok && ls build"} -> ok"#,
        ],
    ),
    // Trace context: a new trace, the skill's script run in the sandbox
    // (its output, not its source), and chapter 14's log lines naming the
    // requests' trace.
    (
        "25",
        &[
            "trace: a new one",
            "added 3, the newest: Chapter 25 sends a trace context in every request's _meta",
            "ch14-asking: tools/call 3 traceparent=00-",
            "answer: The notes are in draft-1",
        ],
    ),
];

/// The demos that run a program outside Rust: without it they cannot
/// show their lesson, and are skipped with what to install (under `CI`,
/// they fail). Chapter 10's demo hook reads its input with jq (without it
/// the hook fails closed and blocks every command); chapter 11's hooks
/// too; chapters 24 and 25 run Bash in the sandbox.
const NEEDS: &[(&str, &[&Tool])] = &[
    ("10", &[&tools::JQ]),
    ("11", &[&tools::JQ]),
    ("24", &[&tools::BWRAP]),
    ("25", &[&tools::BWRAP]),
];

/// The last line of every stdio server's tour.
const SERVER_EXITED: &str = "stdin closed; the server exited with exit status: 0.";

/// `cargo xtask run NN`, in the workspace root, as a learner types it.
fn run_demo(number: &str) -> (bool, String) {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let output = Command::new(cargo)
        .args(["xtask", "run", number])
        .current_dir(course::root())
        // A learner's shell has none of the test harness's settings.
        .env_remove("MCP_BIN")
        .env_remove("MCP_TARGET")
        .output()
        .expect("cargo runs");
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.success(), text)
}

#[test]
fn every_demo_shows_what_it_is_for() {
    let mut problems = Vec::new();
    for (number, facts) in DEMOS {
        let needs = NEEDS
            .iter()
            .find(|(row, _)| row == number)
            .map_or(&[][..], |(_, needs)| *needs);
        if !tools::ready(needs, &format!("`cargo xtask run {number}`")) {
            continue;
        }
        let (success, text) = run_demo(number);
        let missing: Vec<&&str> = facts.iter().filter(|fact| !text.contains(**fact)).collect();
        if !success || !missing.is_empty() {
            let tail: Vec<&str> = text.lines().rev().take(15).collect();
            let tail: Vec<&str> = tail.into_iter().rev().collect();
            problems.push(format!(
                "`cargo xtask run {number}` {}; missing: {missing:?}\n  last lines:\n    {}",
                if success { "succeeded" } else { "failed" },
                tail.join("\n    ")
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

#[test]
fn every_chapter_has_a_row() {
    let missing: Vec<String> = Chapter::all()
        .into_iter()
        .map(|chapter| format!("{:02}", chapter.number))
        .filter(|number| !DEMOS.iter().any(|(row, _)| row == number))
        .collect();
    assert!(
        missing.is_empty(),
        "add a row to DEMOS in xtask/tests/demos.rs for chapter(s) {missing:?}: \
         the facts its `cargo xtask run NN` must show"
    );
}
