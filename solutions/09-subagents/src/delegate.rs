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
use wire_host::messages::ToolUse;
use wire_host::show;

use crate::agent::{self, tool_definitions};
use crate::agents::{self, Agent};
use crate::harness::{AGENT, Context, Delegated, Harness, Log};
use crate::join::Run;
use crate::skill_tools;
use crate::skills;

impl Harness {
    /// The main conversation: every tool, the skill catalogue, and the
    /// `Agent` tool when there are agents and subagents are allowed.
    pub fn main_context(&self) -> Context {
        let mut tools = tool_definitions(&self.host, &self.skills);
        if self.max_depth > 0 {
            tools.extend(agents::tool_definition(&self.agents));
        }
        Context {
            key: crate::model::MAIN.to_string(),
            depth: 0,
            model: self.model.name().to_string(),
            system: agent::system_prompt(&self.skills),
            tools,
            cap: self.max_turns,
        }
    }
}

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
    // STRETCH(ch09/spawn-allowlist): only the types that the parent's Agent
    // tool offers (offered_types) may run: to the parent, the others do not
    // exist, and a call for one is refused as an unknown type is.
    #[cfg(feature = "stretch")]
    let offered: Vec<&Agent> = {
        let types = offered_types(parent);
        let offers = |agent: &&Agent| types.contains(&agent.name.as_str());
        offered.into_iter().filter(offers).collect()
    };
    // END(ch09/spawn-allowlist)
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
    // GAP(ch09/tools): keep the parent's tools that agents::allows lets
    // this agent use, and drop Agent when depth has reached max_depth.
    // starter: let tools: Vec<Value> = parent.tools.clone();
    let tools: Vec<Value> = parent
        .tools
        .iter()
        .filter(|tool| {
            let name = tool["name"].as_str().unwrap_or_default();
            agents::allows(agent, name) && (name != AGENT || depth < harness.max_depth)
        })
        .cloned()
        .collect();
    // END(ch09/tools)
    // STRETCH(ch09/spawn-allowlist): a subagent's Agent tool offers every
    // type, whatever its parent's offered: Claude Code ignores the list in
    // a subagent's file.
    #[cfg(feature = "stretch")]
    let tools: Vec<Value> = tools
        .into_iter()
        .map(|tool| match tool["name"] == AGENT {
            true => agents::tool_definition(&harness.agents).unwrap_or(tool),
            false => tool,
        })
        .collect();
    // END(ch09/spawn-allowlist)
    // GAP(ch09/fresh-context): the subagent's own system prompt: the
    // agent file's body (agent.prompt), then skill_tools::activate of each
    // skill it preloads (agent.skills), then skills::catalogue when its
    // tools include Skill; its model (the agent's, else the parent's) and
    // its turn cap (maxTurns, else the harness's).
    // starter: let _ = (agent.prompt.as_str(), &agent.model, agent.max_turns);
    // starter: let system = parent.system.clone();
    // starter: let (model, cap) = (parent.model.clone(), parent.cap);
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
    // END(ch09/fresh-context)
    Context {
        key: id.to_string(),
        depth,
        model,
        system,
        tools,
        cap,
    }
}
// ANCHOR_END: subagent_context

// STRETCH(ch09/spawn-allowlist): main_thread_context, the main
// conversation run as `agent`: the context a subagent of it would get, at
// depth 0, with an Agent tool that offers only the types it may spawn; and
// offered_types, the types a context's Agent tool offers.
/// The main conversation run as `agent` (`--agent NAME`): its prompt,
/// model and turn cap, the main tools it allows, and Agent, while
/// `--max-depth` is above 0, offering only the types it may spawn.
#[cfg(feature = "stretch")]
pub fn main_thread_context(harness: &Harness, main: &Context, agent: &Agent) -> Context {
    let mut context = subagent_context(harness, main, agent, &main.key);
    context.depth = 0;
    context.tools.retain(|tool| tool["name"] != AGENT);
    if harness.max_depth > 0 && agents::allows(agent, AGENT) {
        let types = agents::spawnable(agent);
        let allowed = |a: &&Agent| types.as_ref().is_none_or(|types| types.contains(&a.name));
        let offered: Vec<Agent> = harness.agents.iter().filter(allowed).cloned().collect();
        context.tools.extend(agents::tool_definition(&offered));
    }
    context
}

/// The agent types the Agent tool of `context` offers: its enum.
#[cfg(feature = "stretch")]
fn offered_types(context: &Context) -> Vec<&str> {
    let agent_tool = context.tools.iter().find(|tool| tool["name"] == AGENT);
    let types = agent_tool.map(|tool| &tool["input_schema"]["properties"]["subagent_type"]["enum"]);
    let types = types.and_then(Value::as_array).into_iter().flatten();
    types.filter_map(Value::as_str).collect()
}
// END(ch09/spawn-allowlist)
