//! Compaction: a conversation grows by every turn, and every request
//! carries all of it. Past a budget (`--context-budget TOKENS`, the
//! course's option; Claude Code compacts near the end of the model's
//! window), the harness asks the model for a summary of the older turns
//! and goes on with less: the task, the summary, and the last turn, whose
//! tool calls may still have their results to read. `PreCompact` hooks
//! hear of it first (Claude Code's event), and may refuse: then the
//! session goes on uncompacted, over its budget.

use async_trait::async_trait;
use serde_json::{Value, json};
use wire_host::agent::request_body;
use wire_host::messages::Reply;
use wire_host::seams::{Context, Extension, Harness};
use wire_host::session::Fire;
use wire_host::show::Log;
use wire_host::tokens;

use wire_host::events::Event;

/// The hook events this harness fires: chapter 15's, and PreCompact.
pub const EVENTS: &[&str] = &[
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "Stop",
    "SubagentStop",
    "Elicitation",
    "ElicitationResult",
    "PreCompact",
];
/// The longest reply a summary may be.
const SUMMARY_TOKENS: u32 = 1024;
/// What the model is asked, with the older turns after it.
const SUMMARIZE: &str = "Summarize the conversation below for the assistant that will continue \
     it: what the user asked for, what was found and decided, which tool calls ran and what \
     they returned, and what is left to do. Keep names, numbers and file paths exactly.";

/// Compaction, as an extension of the harness: before each request.
pub struct Compaction<'a> {
    /// `--context-budget`: the most tokens one request may carry; none, no
    /// limit.
    pub budget: Option<usize>,
    /// The PreCompact hooks.
    pub hooks: &'a dyn Fire,
}

// ANCHOR: prepare
#[async_trait(?Send)]
impl Extension for Compaction<'_> {
    /// The next request, compacted first when it would carry more than the
    /// budget (unless a hook refuses), and refused when even compacted it
    /// would.
    async fn prepare(
        &self,
        harness: &Harness<'_>,
        context: &Context,
        messages: &mut Vec<Value>,
        turn: u32,
        log: &mut Log,
    ) -> Result<(), String> {
        let next = |messages: &[Value]| {
            let mut request = request_body(context, messages);
            harness.carry(context, messages, turn, &mut request);
            request
        };
        if over_budget(self.budget, &next(messages))
            && compact(self, harness, context, messages, log).await?
            && over_budget(self.budget, &next(messages))
        {
            let size = size(&next(messages));
            return Err(format!(
                "even compacted, the next request is {size} tokens, over the --context-budget"
            ));
        }
        Ok(())
    }
}
// ANCHOR_END: prepare

/// The request's size as the harness counts it: chapter 7's count of its
/// JSON (cl100k_base; Claude's own count differs).
pub fn size(request: &Value) -> usize {
    tokens::count(&request.to_string())
}

// ANCHOR: over_budget
/// Whether `request` would carry more tokens than `budget` allows.
pub fn over_budget(budget: Option<usize>, request: &Value) -> bool {
    // STRETCH(ch22/threshold): compaction starts at the lowered budget,
    // `crate::threshold::lowered`.
    // END(ch22/threshold)
    // TODO(ch22/trigger): true when there is a budget and the request's
    // size() is above it.
    let _ = (budget, size(request));
    false
    // END(ch22/trigger)
}
// ANCHOR_END: over_budget

// ANCHOR: cut
/// Where the part that stays begins: the last assistant message, so that
/// the model keeps what it did last, and every `tool_result` after it
/// keeps its `tool_use`. What lies between the first message (the task)
/// and that one is summarized; `None` when nothing lies there.
pub fn cut(messages: &[Value]) -> Option<usize> {
    // TODO(ch22/cut): the index of the last message whose "role" is
    // "assistant", if it is 2 or more (the first message is the task,
    // and at least one message must lie between).
    let _ = messages;
    None
    // END(ch22/cut)
}
// ANCHOR_END: cut

// ANCHOR: compact
/// Replaces the messages between the task and the last turn with the
/// model's summary of them, added to the task's message; `false` when a
/// `PreCompact` hook refused, and the conversation goes on uncompacted.
pub async fn compact(
    compaction: &Compaction<'_>,
    harness: &Harness<'_>,
    context: &Context,
    messages: &mut Vec<Value>,
    log: &mut Log,
) -> Result<bool, String> {
    let over = "the conversation is over its --context-budget";
    let at = cut(messages).ok_or(format!("{over}, and there is nothing to summarize"))?;
    let event = Event::PreCompact {
        trigger: "auto",
        custom_instructions: "",
    };
    let (outcome, said) = compaction.hooks.fire(&event, context.inside()).await;
    said.into_iter().for_each(|line| log.say(line));
    // A block skips it, as in Claude Code ahead of the model's limit (a
    // PreCompact hook's `continue` is ignored there, and here).
    if let Some(reason) = outcome.block {
        log.say(format!(
            "  not compacted: a PreCompact hook refused: {reason}"
        ));
        return Ok(false);
    }
    log.say(format!(
        "  compacting: messages 2 to {at} of {} into a summary",
        messages.len()
    ));
    let request = summary_request(&context.model, &messages[1..at]);
    let body = harness.send(&context.key, &request, log).await?;
    let summary = Reply::read(&body)?.text();
    let mut task = messages[0].clone();
    task["content"] = match task["content"].take() {
        Value::String(text) => json!([{ "type": "text", "text": text }]),
        blocks => blocks,
    };
    let text = format!("<conversation-summary>\n{summary}\n</conversation-summary>");
    if let Some(blocks) = task["content"].as_array_mut() {
        blocks.push(json!({ "type": "text", "text": text }));
    }
    messages.splice(0..at, [task]);
    Ok(true)
}
// ANCHOR_END: compact

/// The request that asks for the summary: no tools, one user message with
/// the instruction and the turns to summarize, each a line of JSON.
fn summary_request(model: &str, turns: &[Value]) -> Value {
    let lines: Vec<String> = turns.iter().map(Value::to_string).collect();
    let text = format!(
        "{SUMMARIZE}\n\n<conversation>\n{}\n</conversation>",
        lines.join("\n")
    );
    json!({
        "model": model,
        "max_tokens": SUMMARY_TOKENS,
        "messages": [{ "role": "user", "content": text }],
    })
}
