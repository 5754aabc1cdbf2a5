//! `--measure-skills`: what skills cost, in tokens, on a turn where the
//! model uses none of them (an idle turn). N synthetic skills either sit in
//! the catalogue (tier 1, with the two skill tools) or are pasted whole
//! into the system prompt, the way a harness without skills would do it.

use std::path::PathBuf;

use serde_json::json;

use crate::agent;
use crate::skill_tools;
use crate::skills::Skill;
use crate::tokens;

/// A description of the usual length: what the skill does, and when.
const DESCRIPTION: &str = "Reviews a Rust pull request for error handling, panics and \
    unsafe code, and writes the findings as review comments. Use when asked to review \
    Rust code or a diff.";

/// One paragraph of instructions; a synthetic body is twelve of them,
/// about the size of this chapter's example skills.
const PARAGRAPH: &str = "Read the diff file by file. For each function that returns a \
    Result, check that every error carries what the caller needs to act: the path, the \
    value, the rule. Flag unwrap and expect outside tests, and say what input makes them \
    panic. Quote the line, then suggest the smallest change that fixes it.";

/// The synthetic skill number `index`.
fn synthetic(index: usize) -> Skill {
    Skill {
        name: format!("review-rust-{index:03}"),
        description: DESCRIPTION.to_string(),
        dir: PathBuf::from(format!("skills/review-rust-{index:03}")),
        root: PathBuf::from(format!("/skills/review-rust-{index:03}")),
        body: [PARAGRAPH; 12].join("\n\n"),
    }
}

/// Tokens of one idle request: the system prompt, the tools, and "Hello".
fn idle_turn(system: &str, tools: &[serde_json::Value]) -> usize {
    let messages = [json!({ "role": "user", "content": "Hello" })];
    let request = agent::request_body("claude-sonnet-4-5", system, tools, &messages);
    tokens::count(&request.to_string())
}

// ANCHOR: measure
/// Prints the table: an idle turn with N skills in the catalogue versus
/// the same skills pasted inline, for N = 1, 10, 100; then tiers 2 and 3.
pub fn print_table() {
    let none = idle_turn(&agent::system_prompt(&[]), &[]);
    println!("An idle turn with no skills: {none} tokens (cl100k_base).");
    println!();
    println!("| skills | catalogue (tier 1) | pasted inline | inline / catalogue |");
    println!("| ---: | ---: | ---: | ---: |");
    for count in [1, 10, 100] {
        let skills: Vec<Skill> = (1..=count).map(synthetic).collect();
        let tools = skill_tools::definitions(&skills);
        let catalogue = idle_turn(&agent::system_prompt(&skills), &tools);
        let pasted: Vec<String> = skills
            .iter()
            .map(|skill| format!("# Skill {}\n\n{}", skill.name, skill.body))
            .collect();
        let inline = idle_turn(
            &format!("{}\n\n{}", agent::system_prompt(&[]), pasted.join("\n\n")),
            &[],
        );
        let ratio = inline as f64 / catalogue as f64;
        println!("| {count} | {catalogue} | {inline} | {ratio:.1} |");
    }
    let skill = synthetic(1);
    let activation = tokens::count(&skill_tools::activate(&skill));
    println!();
    println!("Tier 2, activating one skill (Skill): {activation} tokens, once, when it is used.");
    println!("Tier 3, read_skill_file: the file's own size, only when the skill asks for it.");
}
// ANCHOR_END: measure
