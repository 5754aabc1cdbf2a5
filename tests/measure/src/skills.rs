//! `skills`: what skills cost, in tokens, on a turn where the model uses
//! none of them (an idle turn). N synthetic skills (N = 1, 10, 100) are
//! written as skill folders and chapter 8's binary runs with `--skills` on
//! them: its first request carries the catalogue (tier 1, with the two
//! skill tools). The same skills pasted whole into the system prompt, the
//! way a harness without skills would do it, are counted on the request the
//! binary sends with no skills, its system prompt extended.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use wire_host::tokens;

use crate::run;

/// A description of the usual length: what the skill does, and when.
const DESCRIPTION: &str = "Reviews a Rust pull request for error handling, panics and \
    unsafe code, and writes the findings as review comments. Use when asked to review \
    Rust code or a diff.";

/// One paragraph of instructions; a synthetic body is twelve of them,
/// about the size of chapter 8's example skills.
const PARAGRAPH: &str = "Read the diff file by file. For each function that returns a \
    Result, check that every error carries what the caller needs to act: the path, the \
    value, the rule. Flag unwrap and expect outside tests, and say what input makes them \
    panic. Quote the line, then suggest the smallest change that fixes it.";

/// The name of synthetic skill number `index`.
fn name(index: usize) -> String {
    format!("review-rust-{index:03}")
}

/// The body of every synthetic skill (SKILL.md after its frontmatter).
fn body() -> String {
    [PARAGRAPH; 12].join("\n\n")
}

// ANCHOR: measure
/// Prints the table: an idle turn with N skills in the catalogue versus
/// the same skills pasted inline, for N = 1, 10, 100; then tiers 2 and 3.
/// `listed` is how many the catalogue holds: it stops at its budget
/// (`wire_host::entries::MAX_CATALOGUE_CHARS`).
pub fn print_table(bin: &Path, servers: &[String]) -> Result<(), String> {
    let scratch = Scratch::create()?;
    let none = idle_turn(bin, servers, &scratch.skills(0)?, false)?;
    println!(
        "An idle turn with no skills: {} tokens (cl100k_base).",
        none.tokens
    );
    println!();
    println!("| skills | listed | catalogue (tier 1) | pasted inline | inline / catalogue |");
    println!("| ---: | ---: | ---: | ---: | ---: |");
    let mut activation = None;
    for count in [1, 10, 100] {
        let turn = idle_turn(bin, servers, &scratch.skills(count)?, true)?;
        activation = activation.or(turn.activation);
        let pasted: Vec<String> = (1..=count)
            .map(|index| format!("# Skill {}\n\n{}", name(index), body()))
            .collect();
        let mut request = none.request.clone();
        let system = request["system"].as_str().unwrap_or_default().to_string();
        request["system"] = json!(format!("{system}\n\n{}", pasted.join("\n\n")));
        let inline = tokens::count(&request.to_string());
        let ratio = inline as f64 / turn.tokens as f64;
        let listed = turn.request["system"].as_str().unwrap_or_default();
        let listed = listed.matches("<skill>").count();
        println!(
            "| {count} | {listed} | {} | {inline} | {ratio:.1} |",
            turn.tokens
        );
    }
    let activation = activation.ok_or("no run activated a skill")?;
    println!();
    println!("Tier 2, activating one skill (Skill): {activation} tokens, once, when it is used.");
    println!("Tier 3, read_skill_file: the file's own size, only when the skill asks for it.");
    Ok(())
}
// ANCHOR_END: measure

/// What one run of the binary showed: its first request (the idle turn),
/// in tokens and as sent, and what activating a skill cost, when it did.
struct Turn {
    tokens: usize,
    request: Value,
    activation: Option<usize>,
}

/// Runs the binary on the skills folder `dir` (from inside its parent, so
/// the model sees `skills/NAME`, as a learner's `--skills skills` shows it).
/// With `activate`, the script's first reply loads the first skill.
fn idle_turn(bin: &Path, servers: &[String], dir: &Path, activate: bool) -> Result<Turn, String> {
    let script = dir.with_extension("json");
    std::fs::write(&script, script_text(activate).to_string())
        .map_err(|err| format!("cannot write {}: {err}", script.display()))?;
    let mut args = vec!["--trace".to_string(), "--script".to_string()];
    args.extend([script.display().to_string(), "--skills".to_string()]);
    args.push("skills".to_string());
    for server in servers {
        args.extend(["--server".to_string(), server.clone()]);
    }
    let parent = dir.parent().ok_or("a skills folder has a parent")?;
    let output = run::chapter(bin, parent, &args)?;
    let tokens = *run::requests(&output.stdout)
        .parent
        .first()
        .ok_or("the run printed no `turn 1:` line")?;
    let traced = run::traced_requests(&output.stderr);
    let first = traced
        .first()
        .ok_or("--trace showed no request (`=> ...`)")?;
    let request: Value = serde_json::from_str(first).map_err(|err| err.to_string())?;
    // The body read back must be the one the loop counted: then extending
    // its system prompt is the only difference in the inline column.
    if tokens::count(&request.to_string()) != tokens {
        return Err(format!(
            "the traced request is {} tokens, the loop counted {tokens}",
            tokens::count(&request.to_string())
        ));
    }
    let activation = output.stdout.lines().find_map(activation_tokens);
    Ok(Turn {
        tokens,
        request,
        activation,
    })
}

/// The tokens of a skill the loop loaded, from its tool line
/// (`  tool Skill {"skill":"…"} -> 822 tokens (cl100k_base)`).
fn activation_tokens(line: &str) -> Option<usize> {
    let rest = line.strip_prefix("  tool Skill ")?;
    let (_, shown) = rest.rsplit_once(" -> ")?;
    shown.strip_suffix(" tokens (cl100k_base)")?.parse().ok()
}

/// A model script: "Hello", then (with `activate`) a call of the Skill
/// tool for the first skill, then a short answer.
fn script_text(activate: bool) -> Value {
    let reply = |content: Value, stop: &str| json!({ "type": "message", "role": "assistant", "content": content, "stop_reason": stop });
    let call = json!([{ "type": "tool_use", "id": "toolu_01", "name": "Skill",
                        "input": { "skill": name(1) } }]);
    let answer = reply(json!([{ "type": "text", "text": "Hello." }]), "end_turn");
    let replies = match activate {
        true => vec![reply(call, "tool_use"), answer],
        false => vec![answer],
    };
    json!({ "prompt": "Hello", "replies": replies })
}

/// A temporary folder for the synthetic skills, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn create() -> Result<Scratch, String> {
        let dir = std::env::temp_dir().join(format!("wire-measure-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).map_err(|err| format!("{}: {err}", dir.display()))?;
        Ok(Scratch(dir))
    }

    /// `N/skills/`, holding synthetic skills 1 to `count`.
    fn skills(&self, count: usize) -> Result<PathBuf, String> {
        let dir = self.0.join(count.to_string()).join("skills");
        for index in 1..=count {
            let folder = dir.join(name(index));
            std::fs::create_dir_all(&folder).map_err(|err| err.to_string())?;
            let text = format!(
                "---\nname: {}\ndescription: {DESCRIPTION}\n---\n{}\n",
                name(index),
                body()
            );
            std::fs::write(folder.join("SKILL.md"), text).map_err(|err| err.to_string())?;
        }
        std::fs::create_dir_all(&dir).map_err(|err| err.to_string())?;
        Ok(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
