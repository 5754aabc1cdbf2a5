//! The `Agent` tool: the parent model hands a self-contained task to a
//! subagent, which runs the same loop in a fresh context (its own system
//! prompt, its own messages list, only the tools its definition allows)
//! and returns only its final text. The subagent's tool calls never reach
//! the parent's context.
//!
//! `Subagents` is an extension of the harness: it adds the `Agent` tool to
//! the main conversation's tools, and runs an `Agent` call by running
//! chapter 7's loop (`wire_host::agent::run`) again, on the same harness.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use async_trait::async_trait;
use serde_json::{Value, json};
use tokio::sync::Semaphore;
use wire_host::agent;
use wire_host::seams::{Call, Context, Extension, Harness, Outcome};
use wire_host::show::{self, Log};

use crate::agents::{self, AGENT, Agent, Started};
use crate::skill_tools;
use crate::skills::{self, Skill};

/// The agents, and the limits on the subagents they run.
pub struct Subagents {
    pub agents: Vec<Agent>,
    /// The skills, for the ones an agent preloads and for the catalogue.
    pub skills: Vec<Skill>,
    /// How many levels of subagents may run below the main conversation.
    pub max_depth: u32,
    /// How many subagents of one reply may run at the same time.
    pub max_concurrent: usize,
    /// The subagents this prompt has started, at every depth.
    pub started: Started,
    /// Each conversation's slots for the subagents of its replies: a
    /// reply's calls are all done before its next reply, so one semaphore
    /// per conversation bounds each reply's subagents.
    pub slots: RefCell<HashMap<String, Rc<Semaphore>>>,
}

impl Subagents {
    pub fn new(
        agents: Vec<Agent>,
        skills: Vec<Skill>,
        max_depth: u32,
        max_concurrent: usize,
    ) -> Self {
        Subagents {
            agents,
            skills,
            max_depth,
            max_concurrent,
            started: Started::default(),
            slots: RefCell::new(HashMap::new()),
        }
    }

    /// The semaphore that bounds the subagents of `parent`'s replies.
    fn slots_of(&self, parent: &Context) -> Rc<Semaphore> {
        let mut slots = self.slots.borrow_mut();
        let made = || Rc::new(Semaphore::new(self.max_concurrent));
        Rc::clone(slots.entry(parent.key.clone()).or_insert_with(made))
    }
}

// ANCHOR: extension
#[async_trait(?Send)]
impl Extension for Subagents {
    /// The main conversation gets the `Agent` tool when there are agents
    /// and subagents are allowed.
    fn tools(&self, tools: &mut Vec<Value>) {
        if self.max_depth > 0 {
            tools.extend(agents::tool_definition(&self.agents));
        }
    }

    async fn run(
        &self,
        harness: &Harness<'_>,
        parent: &Context,
        call: &mut Call,
    ) -> Option<Outcome> {
        if call.name() != AGENT {
            return None;
        }
        let outcome = run(self, harness, parent, call).await;
        Some(outcome.map(|text| json!({ "content": [{ "type": "text", "text": text }] })))
    }
}
// ANCHOR_END: extension

// ANCHOR: run
/// Runs the subagent one `Agent` call asks for: its final text (or why
/// there is none); its lines go to the call's, labelled with its id.
pub async fn run(
    subagents: &Subagents,
    harness: &Harness<'_>,
    parent: &Context,
    call: &mut Call,
) -> Result<String, String> {
    let id = call.tool_use.id.clone();
    let offered: Vec<&Agent> = subagents.agents.iter().collect();
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
    let (agent, prompt) = agents::requested(&offered, &call.tool_use.input)?;
    // One prompt starts at most agents::MAX_SUBAGENTS, at every depth.
    subagents.started.one_more()?;
    // At most max_concurrent subagents of one reply run at once; the others
    // wait here for a slot. The semaphore is never closed.
    let slots = subagents.slots_of(parent);
    let _slot = slots.acquire().await;
    let context = subagent_context(subagents, harness, parent, agent, &id);
    let mut log = Log::kept();
    let tools = show::tool_names(&context.tools);
    log.say(format!("subagent {}, tools: {tools}", agent.name));
    let outcome = agent::run(harness, context, prompt, &mut log).await;
    match &outcome {
        Ok(answer) => log.say(format!("answer: {answer}")),
        Err(err) => log.say(format!("failed: {err}")),
    }
    call.lines.extend(log.labelled(&id));
    outcome.map_err(|err| format!("subagent {} failed: {err}", agent.name))
}
// ANCHOR_END: run

// ANCHOR: subagent_context
/// The subagent's fresh context: the agent's body as its system prompt
/// (with its preloaded skills, and the catalogue when it may use Skill),
/// the parent's tools that the agent allows, and no `Agent` tool at the
/// depth limit.
pub fn subagent_context(
    subagents: &Subagents,
    harness: &Harness<'_>,
    parent: &Context,
    agent: &Agent,
    id: &str,
) -> Context {
    let depth = parent.depth + 1;
    // GAP(ch09/tools): keep the parent's tools that agents::allows lets
    // this agent use, and drop Agent when depth has reached max_depth.
    // starter: let tools: Vec<Value> = parent.tools.clone();
    let tools: Vec<Value> = parent
        .tools
        .iter()
        .filter(|tool| {
            let name = tool["name"].as_str().unwrap_or_default();
            agents::allows(agent, name) && (name != AGENT || depth < subagents.max_depth)
        })
        .cloned()
        .collect();
    // END(ch09/tools)
    // STRETCH(ch09/spawn-allowlist): a subagent's Agent tool offers every
    // type, whatever its parent's offered: Claude Code ignores the list in
    // a subagent's file.
    #[cfg(feature = "stretch")]
    let tools = every_type(subagents, tools);
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
    let preloaded = subagents
        .skills
        .iter()
        .filter(|s| agent.skills.contains(&s.name));
    preloaded.for_each(|skill| system += &format!("\n\n{}", skill_tools::activate(skill)));
    if tools.iter().any(|tool| tool["name"] == skill_tools::SKILL) {
        system += &format!("\n\n{}", skills::catalogue(&subagents.skills));
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
        agent_type: Some(agent.name.clone()),
    }
}
// ANCHOR_END: subagent_context

// STRETCH(ch09/spawn-allowlist): main_thread_context, the main
// conversation run as `agent`: the context a subagent of it would get, at
// depth 0, with an Agent tool that offers only the types it may spawn;
// every_type, a subagent's Agent tool offering every type; and
// offered_types, the types a context's Agent tool offers.
/// The main conversation run as `agent` (`--agent NAME`): its prompt,
/// model and turn cap, the main tools it allows, and Agent, while
/// `--max-depth` is above 0, offering only the types it may spawn.
#[cfg(feature = "stretch")]
pub fn main_thread_context(
    subagents: &Subagents,
    harness: &Harness<'_>,
    main: &Context,
    agent: &Agent,
) -> Context {
    let mut context = subagent_context(subagents, harness, main, agent, &main.key);
    context.depth = 0;
    context.agent_type = None;
    context.tools.retain(|tool| tool["name"] != AGENT);
    if subagents.max_depth > 0 && agents::allows(agent, AGENT) {
        let types = agents::spawnable(agent);
        let allowed = |a: &&Agent| types.as_ref().is_none_or(|types| types.contains(&a.name));
        let offered: Vec<Agent> = subagents.agents.iter().filter(allowed).cloned().collect();
        context.tools.extend(agents::tool_definition(&offered));
    }
    context
}

/// `tools` with an Agent tool that offers every agent type.
#[cfg(feature = "stretch")]
fn every_type(subagents: &Subagents, tools: Vec<Value>) -> Vec<Value> {
    let every = |tool: Value| match tool["name"] == AGENT {
        true => agents::tool_definition(&subagents.agents).unwrap_or(tool),
        false => tool,
    };
    tools.into_iter().map(every).collect()
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
