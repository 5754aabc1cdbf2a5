//! `--measure-skills`: what skills cost, in tokens, on a turn where the
//! model uses none of them (an idle turn). N synthetic skills either sit in
//! the catalogue (tier 1, with the two skill tools) or are pasted whole
//! into the system prompt, the way a harness without skills would do it.
//!
//! `--measure-agents`: the parent's context, turn by turn, for a task that
//! reads several notes, done in the main context and through a subagent.

use std::path::PathBuf;

use serde_json::{Value, json};

use crate::agent;
use crate::agents::Agent;
use crate::delegate;
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

/// How many notes the read-heavy task reads, one search per turn.
const NOTES_READ: usize = 5;

/// What the model asks in the read-heavy task.
const QUESTION: &str =
    "Which of our notes say how to retry a failed call, and what do they advise?";

/// The summary the subagent returns: what the parent keeps of the reading.
const SUMMARY: &str = "Three notes cover retries: on-call.md (retry idempotent calls up to \
    3 times with backoff), runbooks/deploy.md (never retry a deploy; roll back) and \
    shared/http.md (retry 429 and 503 after Retry-After). The other two do not mention it.";

/// The notes server's search tool, as the model sees it.
fn search_tool() -> Value {
    json!({
        "name": "mcp__notes__search_notes",
        "description": "Finds the notes whose text contains a word or phrase, ignoring case.",
        "input_schema": { "type": "object", "properties": { "query": { "type": "string" } },
                          "required": ["query"] },
    })
}

/// One assistant turn that calls `name` with `input`, and the user turn
/// that answers it with `result`.
fn exchange(id: usize, name: &str, input: Value, result: &str) -> [Value; 2] {
    let call = json!({ "type": "tool_use", "id": format!("toolu_{id:02}"), "name": name,
                       "input": input });
    let answer = json!({ "type": "tool_result", "tool_use_id": format!("toolu_{id:02}"),
                         "content": result });
    [
        json!({ "role": "assistant", "content": [call] }),
        json!({ "role": "user", "content": [answer] }),
    ]
}

/// The tokens of each request of one context that reads the notes, one
/// search per turn, and then answers: NOTES_READ + 1 requests.
fn reading(system: &str, tools: &[Value], first: usize) -> Vec<usize> {
    let mut messages = vec![json!({ "role": "user", "content": QUESTION })];
    let mut sizes = Vec::new();
    for note in 0..=NOTES_READ {
        let request = agent::request_body("claude-sonnet-4-5", system, tools, &messages);
        sizes.push(tokens::count(&request.to_string()));
        let note_text = [PARAGRAPH; 6].join("\n\n");
        let input = json!({ "query": format!("retry {note}") });
        messages.extend(exchange(
            first + note,
            "mcp__notes__search_notes",
            input,
            &note_text,
        ));
    }
    sizes
}

// ANCHOR: measure_agents
/// Prints the parent's request tokens per turn for the read-heavy task,
/// done in the main context and delegated to a subagent, then the totals.
pub fn print_delegation() {
    let reader = Agent {
        name: "note-reader".into(),
        description: "Reads the notes a question needs and answers with a short summary.".into(),
        tools: Some(vec!["mcp__notes__search_notes".into()]),
        disallowed: Vec::new(),
        skills: Vec::new(),
        model: None,
        max_turns: None,
        prompt: "You read notes and answer with a summary of at most five lines.".into(),
    };
    let system = agent::system_prompt(&[]);
    let in_place = reading(&system, &[search_tool()], 1);
    // Delegated: the parent asks once, gets the summary, and answers.
    let parent_tools = [
        search_tool(),
        delegate::definition(std::slice::from_ref(&reader)).unwrap_or_default(),
    ];
    let input = json!({ "description": "Read the retry notes", "prompt": QUESTION,
                        "subagent_type": reader.name });
    let mut messages = vec![json!({ "role": "user", "content": QUESTION })];
    let mut delegated = Vec::new();
    for turn in 0..2 {
        let request = agent::request_body("claude-sonnet-4-5", &system, &parent_tools, &messages);
        delegated.push(tokens::count(&request.to_string()));
        if turn == 0 {
            messages.extend(exchange(1, delegate::AGENT, input.clone(), SUMMARY));
        }
    }
    let subagent = reading(&reader.prompt, &[search_tool()], 2);
    let note = tokens::count(&[PARAGRAPH; 6].join("\n\n"));
    println!("A question that reads {NOTES_READ} notes (each about {note} tokens).");
    println!();
    println!("| turn | main context: parent's request | delegated: parent's request |");
    println!("| ---: | ---: | ---: |");
    for (turn, main) in in_place.iter().enumerate() {
        let parent = delegated.get(turn).map_or("-".into(), usize::to_string);
        println!("| {} | {main} | {parent} |", turn + 1);
    }
    let main_total: usize = in_place.iter().sum();
    let parent_total: usize = delegated.iter().sum();
    let sub_total: usize = subagent.iter().sum();
    println!();
    println!(
        "Last parent request: {} tokens in place, {} delegated.",
        in_place.last().unwrap_or(&0),
        delegated.last().unwrap_or(&0)
    );
    println!(
        "All requests: {main_total} tokens in place; delegated {} \
         (parent {parent_total} + subagent {sub_total}).",
        parent_total + sub_total
    );
}
// ANCHOR_END: measure_agents
