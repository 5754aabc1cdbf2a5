//! The `Agent` tool: the parent model hands a self-contained task to a
//! subagent, which runs the same loop in a fresh context (its own system
//! prompt, its own messages list, only the tools its definition allows)
//! and returns only its final text. The subagent's tool calls never reach
//! the parent's context.
//!
//! This module calls the loop (`agent::run`); the loop calls back through
//! `start`, the function the harness hands it.

use serde_json::Value;
use tokio::sync::Semaphore;
use wire_host::join::Run;
use wire_host::messages::ToolUse;
use wire_host::show;

use crate::agent;
use crate::agents::{self, Agent};
use crate::harness::{AGENT, Context, Delegated, Harness, Log};
use crate::skill_tools;
use crate::skills;

/// What the harness hands the loop as its `delegate`: `run`, boxed. The
/// loop calls this function, which calls the loop: a future that holds
/// itself needs a box.
pub fn start<'a>(
    harness: &'a Harness,
    parent: &'a Context,
    call: &'a ToolUse,
    slots: &'a Semaphore,
) -> Run<'a, Delegated> {
    Box::pin(run(harness, parent, call, slots))
}

// ANCHOR: run
/// Runs the subagent one `Agent` call asks for. Returns its final text
/// (or why there is none) and its lines, labelled with the call's id.
pub async fn run(
    harness: &Harness,
    parent: &Context,
    call: &ToolUse,
    slots: &Semaphore,
) -> Delegated {
    let id = call.id.as_str();
    let offered: Vec<&Agent> = harness.agents.iter().collect();
    let (agent, prompt) = match agents::requested(&offered, &call.input) {
        Ok(found) => found,
        Err(refusal) => return (Err(refusal), vec![]),
    };
    // One prompt starts at most agents::MAX_SUBAGENTS, at every depth.
    if let Err(refusal) = harness.started.one_more() {
        return (Err(refusal), vec![]);
    }
    // At most max_concurrent subagents of one reply run at once; the others
    // wait here for a slot. The semaphore is never closed.
    let _slot = slots.acquire().await;
    let context = subagent_context(harness, parent, agent, id);
    let mut log = Log {
        lines: Some(Vec::new()),
    };
    let tools = show::tool_names(&context.tools);
    log.say(format!("subagent {}, tools: {tools}", agent.name));
    let outcome = agent::run(harness, &context, prompt, &mut log).await;
    match &outcome {
        Ok(answer) => log.say(format!("answer: {answer}")),
        Err(err) => log.say(format!("failed: {err}")),
    }
    let outcome = outcome.map_err(|err| format!("subagent {} failed: {err}", agent.name));
    (outcome, log.labelled(id))
}
// ANCHOR_END: run

// ANCHOR: subagent_context
/// The subagent's fresh context: the agent's body as its system prompt
/// (with its preloaded skills, and the catalogue when it may use Skill),
/// the parent's tools that the agent allows, and no `Agent` tool at the
/// depth limit.
pub fn subagent_context(harness: &Harness, parent: &Context, agent: &Agent, id: &str) -> Context {
    let depth = parent.depth + 1;
    let tools: Vec<Value> = parent
        .tools
        .iter()
        .filter(|tool| {
            let name = tool["name"].as_str().unwrap_or_default();
            agents::allows(agent, name) && (name != AGENT || depth < harness.max_depth)
        })
        .cloned()
        .collect();
    let mut system = agent.prompt.clone();
    for skill in harness
        .skills
        .iter()
        .filter(|s| agent.skills.contains(&s.name))
    {
        system += &format!("\n\n{}", skill_tools::activate(skill));
    }
    if tools.iter().any(|tool| tool["name"] == skill_tools::SKILL) {
        system += &format!("\n\n{}", skills::catalogue(&harness.skills));
    }
    let model = agent.model.clone().unwrap_or_else(|| parent.model.clone());
    let cap = agent.max_turns.unwrap_or(harness.max_turns);
    Context {
        key: id.to_string(),
        depth,
        model,
        system,
        tools,
        cap,
        agent_type: Some(agent.name.clone()),
        transcript: harness
            .hooks
            .session
            .folder
            .join(format!("agent-{id}.jsonl")),
    }
}
// ANCHOR_END: subagent_context
