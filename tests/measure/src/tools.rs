//! `tools`: what tool definitions cost, in tokens, on the first request of
//! a session. The harness chapter's binary runs once with no MCP server
//! and once per catalogue: a made-up tool of one parameter, one of five,
//! fifty of five, and the course's own servers. Each row is what that
//! catalogue adds to the first request, as the loop counts it; the bare
//! question is the no-server request, traced, with its `tools` emptied.
//! The made-up catalogues are served by this same program
//! (`wire-measure serve-tools COUNT PARAMS`, see `serve.rs`). Last, the
//! fifty again with `ENABLE_TOOL_SEARCH=true` (chapter 19's tool search):
//! the same first request, with names instead of definitions.

use std::path::Path;

use serde_json::{Value, json};
use wire_host::tokens;

use crate::run;

/// The question every run asks; the script answers it at once (an idle
/// turn: the model calls nothing, so only the first request counts).
const QUESTION: &str = "Which of our notes say when to retry a failed call?";

/// The harness document's figures (`../shared/seeds/003_...`, Qwen2.5's
/// tokenizer, a chat template around the question): the bare question,
/// then what each catalogue adds.
const THEIRS: [(&str, &str); 4] = [
    ("the question alone", "37"),
    ("+ one tool of 1 parameter", "+156"),
    ("+ one tool of 5 parameters", "+263"),
    ("+ 50 tools of 5 parameters", "+9,377"),
];

// ANCHOR: measure
/// Prints the table: the bare question, then what each catalogue adds to
/// the first request, beside the harness document's figures; then the
/// course's servers, whose catalogues the document does not have.
pub fn print_table(bin: &Path, servers: &[String]) -> Result<(), String> {
    let me = std::env::current_exe().map_err(|err| format!("where am I: {err}"))?;
    let made_up =
        |count: usize, params: usize| format!("made={} serve-tools {count} {params}", me.display());
    let none = first_request(bin, &[], OFF)?;
    let mut bare = none.request.clone();
    bare["tools"] = json!([]);
    let bare = tokens::count(&bare.to_string());
    let harness_own = none.tokens - bare;
    println!("| first request | ours (cl100k_base) | the harness document's (Qwen2.5) |");
    println!("| --- | ---: | ---: |");
    println!("| {} | {bare} | {} |", THEIRS[0].0, THEIRS[0].1);
    println!("| + the harness's own tools (Bash) | +{harness_own} | - |");
    for (row, (count, params)) in [(1, 1), (1, 5), (50, 5)].into_iter().enumerate() {
        let with = first_request(bin, &[made_up(count, params)], OFF)?;
        let (label, theirs) = THEIRS[row + 1];
        println!("| {label} | +{} | {theirs} |", with.tokens - none.tokens);
    }
    let searched = first_request(bin, &[made_up(50, 5)], ON)?;
    let found = tool_count(&searched) - tool_count(&none);
    println!(
        "| + the same 50, ENABLE_TOOL_SEARCH=true ({found} tool sent: ToolSearch) | +{} | - |",
        searched.tokens - none.tokens
    );
    println!();
    println!("The course's servers, each alone beside the harness's own tools:");
    println!();
    println!("| server | tools | + first request |");
    println!("| --- | ---: | ---: |");
    let course = match servers.is_empty() {
        true => course_servers(),
        false => servers.to_vec(),
    };
    for server in course {
        let with = first_request(bin, std::slice::from_ref(&server), OFF)?;
        let name = server
            .split_once('=')
            .map_or(server.as_str(), |(name, _)| name);
        let count = tool_count(&with) - tool_count(&none);
        println!("| {name} | {count} | +{} |", with.tokens - none.tokens);
    }
    Ok(())
}
// ANCHOR_END: measure

/// Tool search off (chapter 19 defers nothing) and on; a chapter before
/// 19 ignores the variable, and its two rows are the same.
const OFF: (&str, &str) = ("ENABLE_TOOL_SEARCH", "false");
const ON: (&str, &str) = ("ENABLE_TOOL_SEARCH", "true");

/// The tools of a request.
fn tool_count(turn: &Turn) -> usize {
    turn.request["tools"].as_array().map_or(0, Vec::len)
}

/// The first request of one run: its tokens as the loop counted them, and
/// the body as `--trace` showed it.
struct Turn {
    tokens: usize,
    request: Value,
}

/// Runs the binary with `servers` (NAME=COMMAND each), no skills and no
/// agents (empty folders), so the catalogue is the only difference, and
/// tool search as `search` sets it.
fn first_request(bin: &Path, servers: &[String], search: (&str, &str)) -> Result<Turn, String> {
    let scratch = std::env::temp_dir().join(format!("wire-measure-tools-{}", std::process::id()));
    let empty = scratch.join("empty");
    std::fs::create_dir_all(&empty).map_err(|err| format!("{}: {err}", empty.display()))?;
    let script = scratch.join("idle.json");
    std::fs::write(&script, script_text().to_string())
        .map_err(|err| format!("cannot write {}: {err}", script.display()))?;
    let mut args: Vec<String> = ["--trace", "--max-depth", "0", "--script"]
        .map(String::from)
        .into();
    args.push(script.display().to_string());
    for option in ["--skills", "--agents"] {
        args.extend([option.to_string(), empty.display().to_string()]);
    }
    for server in servers {
        args.extend(["--server".to_string(), server.clone()]);
    }
    let output = run::chapter_with(bin, &scratch, &args, &[search]);
    let _ = std::fs::remove_dir_all(&scratch);
    let output = output?;
    let tokens = *run::requests(&output.stdout)
        .parent
        .first()
        .ok_or("the run printed no `turn 1:` line")?;
    let traced = run::traced_requests(&output.stderr);
    let first = traced
        .first()
        .ok_or("--trace showed no request (`=> ...`)")?;
    let request: Value = serde_json::from_str(first).map_err(|err| err.to_string())?;
    Ok(Turn { tokens, request })
}

/// A model script: the question, answered at once.
fn script_text() -> Value {
    let answer = json!({ "type": "message", "role": "assistant", "stop_reason": "end_turn",
                         "content": [{ "type": "text", "text": "None." }] });
    json!({ "prompt": QUESTION, "replies": [answer] })
}

/// Chapter 3's add server and chapter 5's notes server (over this tool's
/// notes), started through cargo from this workspace.
fn course_servers() -> Vec<String> {
    let notes = run::data("notes").display().to_string();
    let add = wire_host::cli::chapter_server("add", "ch03-add-tool-solution", &[]);
    let notes =
        wire_host::cli::chapter_server("notes", "ch05-prompts-solution", &["--notes-dir", &notes]);
    [add, notes]
        .into_iter()
        .map(|server| {
            let quoted: Vec<String> = server
                .command
                .iter()
                .map(|part| match part.contains(char::is_whitespace) {
                    true => format!("\"{part}\""),
                    false => part.clone(),
                })
                .collect();
            format!("{}={}", server.name, quoted.join(" "))
        })
        .collect()
}
