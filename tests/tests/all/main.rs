//! The files of `tests/tests/` as one test binary, the one `cargo test`
//! runs: one link instead of one per file, and one pool of test threads,
//! so that one file's waits (an idle timeout, a hook's timeout, a subagent
//! that must start beside another) overlap another file's work instead of
//! adding up. Each file is still a test target of its own, for
//! `cargo test -p wire-tests --test NAME` (its `test = false` line in
//! `tests/Cargo.toml` keeps plain `cargo test` from running it twice);
//! here it is the module `NAME`, so `cargo test -- scenarios::ch03::`
//! names the same tests.
//!
//! A new file under `tests/tests/` gets a line here and one in
//! `tests/Cargo.toml`; `every_test_file_runs_once` says so when it lacks
//! either.

#[path = "../agent.rs"]
mod agent;
#[path = "../agents.rs"]
mod agents;
#[path = "../asking.rs"]
mod asking;
#[path = "../book.rs"]
mod book;
#[path = "../budgets.rs"]
mod budgets;
#[path = "../carried.rs"]
mod carried;
#[path = "../chapters.rs"]
mod chapters;
#[path = "../cli.rs"]
mod cli;
#[path = "../course.rs"]
mod course;
#[path = "../generated.rs"]
mod generated;
#[path = "../hooks.rs"]
mod hooks;
#[path = "../host_http.rs"]
mod host_http;
#[path = "../http.rs"]
mod http;
#[path = "../http_limits.rs"]
mod http_limits;
#[path = "../lockstep.rs"]
mod lockstep;
#[path = "../long_session.rs"]
mod long_session;
#[path = "../long_work.rs"]
mod long_work;
#[path = "../memory.rs"]
mod memory;
#[path = "../prompt_cache.rs"]
mod prompt_cache;
#[path = "../recordings.rs"]
mod recordings;
#[path = "../sandbox.rs"]
mod sandbox;
#[path = "../scenarios.rs"]
mod scenarios;
#[path = "../skills.rs"]
mod skills;
#[path = "../skills_server.rs"]
mod skills_server;
#[path = "../state_folder.rs"]
mod state_folder;
#[path = "../stateless.rs"]
mod stateless;
#[path = "../support.rs"]
mod support;
#[path = "../tasks.rs"]
mod tasks;
#[path = "../trace_logs.rs"]
mod trace_logs;
#[path = "../workshop.rs"]
mod workshop;

/// Every file under `tests/tests/` is a module here and a target that plain
/// `cargo test` does not run: none is left out of this binary, and none runs
/// twice.
#[test]
fn every_test_file_runs_once() {
    let root = wire_tests::course::root().join("tests");
    let here = std::fs::read_to_string(root.join("tests/all/main.rs")).unwrap();
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let mut problems = Vec::new();
    for entry in std::fs::read_dir(root.join("tests")).unwrap().flatten() {
        let file = entry.file_name().to_string_lossy().into_owned();
        let Some(name) = file.strip_suffix(".rs") else {
            continue;
        };
        if !here.contains(&format!("#[path = \"../{file}\"]\nmod {name};")) {
            problems.push(format!(
                "tests/tests/all/main.rs has no `mod {name};` for tests/tests/{file}"
            ));
        }
        if !manifest.contains(&format!("[[test]]\nname = \"{name}\"\ntest = false\n")) {
            problems.push(format!(
                "tests/Cargo.toml has no [[test]] for {name} with `test = false`: \
                 plain `cargo test` would run tests/tests/{file} twice"
            ));
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}
