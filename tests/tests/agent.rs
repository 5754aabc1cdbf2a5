//! Chapter 7's promises that transcripts cannot check: the loop stays
//! short enough to read at a glance, and the demo runs with nothing but
//! this workspace (no key, no network, nothing built first).

use std::fs;

use wire_tests::course::{self, Chapter};
use wire_tests::markers;
use wire_tests::run::target;

/// The most lines of code the agent loop may have.
const MAX_LOOP_LINES: usize = 20;

#[test]
fn the_agent_loop_is_at_most_20_lines() {
    let path = course::root().join("solutions/07-agent-loop/src/agent.rs");
    let text = fs::read_to_string(&path).unwrap();
    let anchored = markers::anchored(&text, "agent_loop")
        .expect("agent.rs has `ANCHOR: agent_loop` and `ANCHOR_END: agent_loop` lines");
    // Comment lines (the gap's markers and instructions) are not the loop.
    let code: Vec<&str> = anchored
        .iter()
        .filter(|line| !line.trim().is_empty() && !line.trim().starts_with("//"))
        .copied()
        .collect();
    assert!(
        code.len() <= MAX_LOOP_LINES,
        "the agent loop has {} lines of code, more than {MAX_LOOP_LINES}:\n{}",
        code.len(),
        code.join("\n")
    );
}

#[test]
fn the_demo_runs_with_no_arguments_and_no_network() {
    let chapter = Chapter::find("07").unwrap();
    let bin = target::build(&chapter.solution_package()).unwrap();
    // The demo starts chapter 3's server with `cargo run`: build it first, so
    // the demo finds it built and never waits on a compiler.
    let _no_builds_meanwhile =
        target::build_for_cargo_run(&Chapter::find("03").unwrap().solution_package()).unwrap();
    let output = std::process::Command::new(bin)
        // Whatever the developer's shell holds, the demo must not use it.
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
    assert!(
        stdout.contains("turn 2: sending 3 messages")
            && stdout
                .trim_end()
                .ends_with("answer: 2 + 3 = 5, and 10 + 20 = 30."),
        "unexpected demo output:\n{stdout}\n{stderr}"
    );
}
