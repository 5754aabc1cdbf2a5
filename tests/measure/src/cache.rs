//! `cache`: what prompt caching saves, and what breaks it (chapter 20).
//! Chapter 20's binary plays one scripted session of several turns
//! against made-up tools this program serves (`serve-tools`), five times:
//! as built, then with each thing that breaks the cached prefix. Its
//! scripted model computes each reply's `usage` from the request it got
//! (`wire_host::stub_cache`), and every figure here is read from the line
//! the loop prints for that turn, so the table is what the run measured.

use std::path::Path;

use serde_json::{Value, json};

use crate::run;

/// The question of every session.
const QUESTION: &str = "What do the blog's posts say about retries?";
/// The made-up tools the sessions call, in order.
const CALLS: [&str; 3] = [
    "mcp__made__search_blog_01",
    "mcp__made__search_blog_02",
    "mcp__made__search_blog_03",
];

/// One session: its row label, its environment, and whether its model
/// searches for the tools first (tool search on).
const SESSIONS: [(&str, &str, &str, bool); 5] = [
    ("as built", "WIRE_CACHE_BREAKER", "", false),
    (
        "a timestamp in the system prompt",
        "WIRE_CACHE_BREAKER",
        "timestamp",
        false,
    ),
    (
        "the catalogue reordered",
        "WIRE_CACHE_BREAKER",
        "reorder",
        false,
    ),
    (
        "a tool definition changed",
        "WIRE_CACHE_BREAKER",
        "change",
        false,
    ),
    (
        "tool search loading definitions",
        "ENABLE_TOOL_SEARCH",
        "true",
        true,
    ),
];

// ANCHOR: measure
/// Prints the per-turn table, then each session's input cost.
pub fn print_table(bin: &Path) -> Result<(), String> {
    let me = std::env::current_exe().map_err(|err| format!("where am I: {err}"))?;
    let server = format!("made={} serve-tools 10 5", me.display());
    let mut totals = Vec::new();
    println!("| session | turn | written | read | uncached | input, base tokens |");
    println!("| --- | ---: | ---: | ---: | ---: | ---: |");
    for (label, name, value, search) in SESSIONS {
        let stdout = session(bin, &server, (name, value), search)?;
        for (turn, line) in stdout.lines().filter_map(turn_figures).enumerate() {
            let (written, read, uncached, cost) = line;
            println!(
                "| {label} | {} | {written} | {read} | {uncached} | {cost} |",
                turn + 1
            );
        }
        let total = stdout
            .lines()
            .find_map(|line| line.strip_prefix("session input: "))
            .ok_or("the run printed no `session input:` line")?;
        totals.push((label, total.to_string()));
    }
    println!();
    println!("| session | the session's input |");
    println!("| --- | --- |");
    for (label, total) in totals {
        println!("| {label} | {total} |");
    }
    Ok(())
}
// ANCHOR_END: measure

/// A turn's figures from its line (`  cache: wrote 1038, read 0,
/// uncached 0, output 0: input 1297.5 base tokens (...)`).
fn turn_figures(line: &str) -> Option<(String, String, String, String)> {
    let rest = line.strip_prefix("  cache: wrote ")?;
    let (written, rest) = rest.split_once(", read ")?;
    let (read, rest) = rest.split_once(", uncached ")?;
    let (uncached, rest) = rest.split_once(", output ")?;
    let (_, rest) = rest.split_once(": input ")?;
    let (cost, _) = rest.split_once(" base tokens")?;
    let owned = |text: &str| text.to_string();
    Some((owned(written), owned(read), owned(uncached), owned(cost)))
}

/// One session's stdout: the binary with the made-up server, no skills or
/// agents, and the scripted model.
fn session(bin: &Path, server: &str, env: (&str, &str), search: bool) -> Result<String, String> {
    let scratch = std::env::temp_dir().join(format!("wire-measure-cache-{}", std::process::id()));
    let empty = scratch.join("empty");
    std::fs::create_dir_all(&empty).map_err(|err| format!("{}: {err}", empty.display()))?;
    let script = scratch.join("session.json");
    std::fs::write(&script, script_text(search).to_string())
        .map_err(|err| format!("cannot write {}: {err}", script.display()))?;
    let mut args: Vec<String> = ["--max-depth", "0", "--script"].map(String::from).into();
    args.push(script.display().to_string());
    for option in ["--skills", "--agents"] {
        args.extend([option.to_string(), empty.display().to_string()]);
    }
    args.extend(["--server".to_string(), server.to_string()]);
    let output = run::chapter_with(bin, &scratch, &args, &[env]);
    let _ = std::fs::remove_dir_all(&scratch);
    Ok(output?.stdout)
}

/// The script: (with tool search, a `ToolSearch` for the three tools
/// first,) a call of each tool, then the answer; every `usage` left to
/// the stand-in's cache.
fn script_text(search: bool) -> Value {
    let reply = |content: Value, stop: &str| {
        json!({ "type": "message", "role": "assistant", "stop_reason": stop,
                "content": content, "usage": wire_host::stub_cache::MARKER })
    };
    let call = |id: usize, name: &str, input: Value| {
        let text = json!({ "type": "text", "text": "Searching." });
        let call = json!({ "type": "tool_use", "id": format!("toolu_{id:02}"), "name": name, "input": input });
        reply(json!([text, call]), "tool_use")
    };
    let mut replies = Vec::new();
    if search {
        let query = format!("select:{}", CALLS.join(","));
        replies.push(call(0, "ToolSearch", json!({ "query": query })));
    }
    for (at, name) in CALLS.iter().enumerate() {
        replies.push(call(at + 1, name, json!({ "query": "retry" })));
    }
    let answer = json!([{ "type": "text", "text": "Retry after 100, 200, then 400 ms." }]);
    replies.push(reply(answer, "end_turn"));
    json!({ "prompt": QUESTION, "replies": replies })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_turns_cache_line() {
        let line = "  cache: wrote 1038, read 0, uncached 0, output 0: input 1297.5 base tokens \
                    (1038 without the cache)";
        let figures = turn_figures(line).unwrap();
        assert_eq!(
            figures,
            ("1038".into(), "0".into(), "0".into(), "1297.5".into())
        );
        assert_eq!(turn_figures("turn 1: sending"), None);
    }
}
