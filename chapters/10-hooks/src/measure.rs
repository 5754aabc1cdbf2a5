//! `--measure-skills`: what skills cost, in tokens, on a turn where the
//! model uses none of them (an idle turn). N synthetic skills either sit in
//! the catalogue (tier 1, with the two skill tools) or are pasted whole
//! into the system prompt, the way a harness without skills would do it.
//!
//! `--measure-agents`: a question that needs several notes, answered by
//! this chapter's loop twice, with a scripted model: once reading the notes
//! in the main context, once handing the reading to a subagent. The token
//! counts are the loop's own, read back from the line it writes for each
//! request.

use std::path::{Path, PathBuf};

use serde_json::json;

use crate::agent::{self, Harness, Log};
use crate::agents;
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

/// The two model scripts: the same question and the same answer, the
/// notes read in the main context or by the note-reader subagent.
const IN_PLACE: (&str, &str) = (
    "scripts/read-in-place.json",
    include_str!("../scripts/read-in-place.json"),
);
const DELEGATED: (&str, &str) = (
    "scripts/read-delegated.json",
    include_str!("../scripts/read-delegated.json"),
);
/// The agent the second script delegates to, an agent file beside the
/// scripts (it loads in Claude Code too).
const NOTE_READER: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/note-reader.md");
/// The tool the scripts search with: a server named `notes` must have it.
const SEARCH: &str = "mcp__notes__search_notes";

/// The tokens of every request one run sent, in order: the main
/// context's, and its subagents'.
struct Requests {
    parent: Vec<usize>,
    subagents: Vec<usize>,
}

/// Runs the question in place and delegated, with this harness (its
/// servers, skills and agents, plus note-reader), and prints each request
/// in tokens, turn by turn: the parent's in both runs and the subagent's;
/// then the totals.
pub async fn print_delegation(harness: &mut Harness) -> Result<(), String> {
    if !harness
        .host
        .tools()
        .iter()
        .any(|tool| tool.qualified == SEARCH)
    {
        return Err(format!(
            "--measure-agents reads notes with {SEARCH}: start chapter 5's server as \
             notes (the default when no --server is given)"
        ));
    }
    let reader = agents::read_agent(Path::new(NOTE_READER), &[])
        .map_err(|problem| format!("{NOTE_READER}: {problem}"))?;
    harness.agents.retain(|agent| agent.name != reader.name);
    harness.agents.push(reader);
    let in_place = run_script(harness, IN_PLACE).await?;
    let delegated = run_script(harness, DELEGATED).await?;
    println!(
        "In place ({}): the main context sent {} requests.",
        IN_PLACE.0,
        in_place.parent.len()
    );
    println!(
        "Delegated ({}): the main context sent {}, the note-reader subagent {}.",
        DELEGATED.0,
        delegated.parent.len(),
        delegated.subagents.len()
    );
    println!();
    println!("| turn | in place: parent | delegated: parent | delegated: subagent |");
    println!("| ---: | ---: | ---: | ---: |");
    let turns = in_place.parent.len().max(delegated.subagents.len());
    for turn in 0..turns {
        let cell = |sizes: &[usize]| sizes.get(turn).map_or("-".into(), usize::to_string);
        let (main, parent) = (cell(&in_place.parent), cell(&delegated.parent));
        let subagent = cell(&delegated.subagents);
        println!("| {} | {main} | {parent} | {subagent} |", turn + 1);
    }
    let sum = |sizes: &[usize]| sizes.iter().sum::<usize>();
    let (main_total, parent_total) = (sum(&in_place.parent), sum(&delegated.parent));
    let sub_total = sum(&delegated.subagents);
    println!();
    println!(
        "Last parent request: {} tokens in place, {} delegated.",
        in_place.parent.last().unwrap_or(&0),
        delegated.parent.last().unwrap_or(&0)
    );
    println!(
        "All requests: {} tokens in place; delegated {} \
         (parent {parent_total} + subagent {sub_total}).",
        main_total + sum(&in_place.subagents),
        parent_total + sub_total
    );
    Ok(())
}

// ANCHOR: measure_agents
/// One run of the loop with the model `script` plays, in a fresh main
/// context; its lines are kept, and its requests' tokens read back.
async fn run_script(
    harness: &mut Harness,
    (name, script): (&str, &str),
) -> Result<Requests, String> {
    let (mut model, prompt) = crate::cli::scripted(name, script)?;
    model.trace = harness.model.trace;
    harness.model = model;
    let context = harness.main_context();
    let mut log = Log {
        lines: Some(Vec::new()),
    };
    agent::run(harness, &context, &prompt, &mut log).await?;
    let mut requests = Requests {
        parent: Vec::new(),
        subagents: Vec::new(),
    };
    for line in log.lines.unwrap_or_default() {
        match request_tokens(&line) {
            Some((false, tokens)) => requests.parent.push(tokens),
            Some((true, tokens)) => requests.subagents.push(tokens),
            None => {}
        }
    }
    Ok(requests)
}

/// The tokens of one request, from the line the loop writes for it
/// (`turn 2: sending 3 messages, 2829 bytes: 655 tokens ...`), and whether
/// a subagent sent it: its lines come back labelled, `  [toolu_01] turn 1`.
fn request_tokens(line: &str) -> Option<(bool, usize)> {
    let subagent = line.starts_with("  [");
    let rest = if subagent {
        line.rsplit_once("] ")?.1
    } else {
        line
    };
    let (_, count) = rest.strip_prefix("turn ")?.split_once(" bytes: ")?;
    let tokens = count.split_once(" tokens")?.0.parse().ok()?;
    Some((subagent, tokens))
}
// ANCHOR_END: measure_agents

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_tokens_of_each_request_line() {
        let main = "turn 2: sending 3 messages, 2829 bytes: 655 tokens (cl100k_base), ~708 by \
                    the 4-characters rule";
        assert_eq!(request_tokens(main), Some((false, 655)));
        let subagent = "  [toolu_01] turn 1: sending 1 messages, 548 bytes: 133 tokens (x)";
        assert_eq!(request_tokens(subagent), Some((true, 133)));
        let nested = "  [toolu_01]   [toolu_02] turn 1: sending 1 messages, 9 bytes: 4 tokens";
        assert_eq!(request_tokens(nested), Some((true, 4)));
        assert_eq!(request_tokens("  [toolu_01]   model: turn 1"), None);
        assert_eq!(
            request_tokens("  stop_reason end_turn, 0 tool call(s)"),
            None
        );
    }
}
