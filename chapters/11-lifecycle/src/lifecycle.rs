//! The hooks around the loop, as an extension of the harness: Claude
//! Code's events at the loop's other fixed points. SessionStart before the
//! first prompt (the harness's `begin`), UserPromptSubmit
//! on the prompt (the conversation's opening), PostToolUse after a call
//! that succeeded, Stop (SubagentStop in a subagent) at a final answer,
//! which may send the model back to work. Chapter 10's fence still fires
//! PreToolUse at the gate.

use std::cell::RefCell;
use std::collections::HashMap;

use async_trait::async_trait;
use serde_json::{Value, json};
use wire_host::fence::transcript;
use wire_host::seams::{Call, Context, Extension, Harness, Outcome};
use wire_host::show::Log;
use wire_host::xml::reminder;

use crate::bash;
use crate::events::Event;
use wire_host::session::Fire;

/// How many times in a row Stop hooks may refuse the end before the
/// harness ends anyway (Claude Code's number): a hook must not loop forever.
const MAX_STOP_REFUSALS: u32 = 8;

/// The hooks, fired around the loop.
pub struct Lifecycle<'a> {
    /// Chapter 11's hooks (`hooks.rs`), or a later chapter's.
    pub hooks: &'a dyn Fire,
    /// What SessionStart hooks added, for the first user message.
    pub session_context: RefCell<Vec<String>>,
    /// Each conversation's Stop refusals so far. An end they allow ends
    /// the conversation, so these are always in a row.
    pub refusals: RefCell<HashMap<String, u32>>,
}

impl<'a> Lifecycle<'a> {
    pub fn new(hooks: &'a dyn Fire) -> Self {
        Lifecycle {
            hooks,
            session_context: RefCell::new(Vec::new()),
            refusals: RefCell::new(HashMap::new()),
        }
    }
}

// ANCHOR: extension
#[async_trait(?Send)]
impl Extension for Lifecycle<'_> {
    // ANCHOR: session_start
    /// Fires SessionStart (source `startup`) once, before the first prompt:
    /// what its hooks add goes into the first user message.
    async fn begin(&self, harness: &Harness<'_>, log: &mut Log) -> Result<(), String> {
        let event = Event::SessionStart {
            model: harness.model.name(),
        };
        let (outcome, said) = self.hooks.fire(&event, None).await;
        said.into_iter().for_each(|line| log.say(line));
        if let Some(reason) = outcome.stop {
            return Err(format!("a SessionStart hook stopped the session: {reason}"));
        }
        *self.session_context.borrow_mut() = outcome.context;
        Ok(())
    }
    // ANCHOR_END: session_start

    /// The main conversation's first message is UserPromptSubmit's; a
    /// subagent's is its task, as the parent wrote it.
    async fn opening(
        &self,
        _: &Harness<'_>,
        context: &Context,
        message: Value,
        log: &mut Log,
    ) -> Result<Value, String> {
        match context.depth {
            0 => submit_prompt(self, message["content"].as_str().unwrap_or(""), log).await,
            _ => Ok(message),
        }
    }

    /// At a final answer: the next message, when a Stop hook refuses the
    /// end, fewer than MAX_STOP_REFUSALS times in a row.
    async fn may_end(
        &self,
        _: &Harness<'_>,
        context: &Context,
        answer: &str,
        log: &mut Log,
    ) -> Result<Option<Value>, String> {
        let refusals = *self.refusals.borrow().get(&context.key).unwrap_or(&0);
        let refused = stop_refused(self.hooks, context, answer, refusals > 0, log).await?;
        match refused {
            Some(content) if refusals < MAX_STOP_REFUSALS => {
                self.refusals
                    .borrow_mut()
                    .insert(context.key.clone(), refusals + 1);
                Ok(Some(json!({ "role": "user", "content": content })))
            }
            Some(_) => {
                log.say(format!(
                    "  stop hooks refused {MAX_STOP_REFUSALS} times in a row: ending anyway"
                ));
                Ok(None)
            }
            None => Ok(None),
        }
    }

    async fn after(
        &self,
        _: &Harness<'_>,
        context: &Context,
        call: &mut Call,
        outcome: Outcome,
    ) -> Outcome {
        after_call(self.hooks, context, call, outcome).await
    }
}
// ANCHOR_END: extension

// ANCHOR: submit_prompt
/// Fires UserPromptSubmit, and returns the first user message: the prompt,
/// then what hooks added as context. A block erases the prompt.
async fn submit_prompt(
    lifecycle: &Lifecycle<'_>,
    prompt: &str,
    log: &mut Log,
) -> Result<Value, String> {
    // TODO(ch11/prompt): fire Event::UserPromptSubmit (no subagent is
    // inside) and say its lines; a stop or a block is an Err naming the
    // reason; else the prompt, with the SessionStart context
    // (lifecycle.session_context) and then this event's as system
    // reminders after it, or the plain prompt when there is none.
    let _ = (
        Event::UserPromptSubmit { prompt },
        &lifecycle.session_context,
        reminder,
        log,
    );
    Ok(json!({ "role": "user", "content": prompt }))
    // END(ch11/prompt)
}
// ANCHOR_END: submit_prompt

// ANCHOR: stop_refused
/// Fires Stop (SubagentStop in a subagent, matched on its agent type) at a
/// final answer. Returns the next user message's content when a hook
/// refuses the end: a block's reason, and any `additionalContext` as a
/// system reminder (non-error feedback that also keeps the run going).
/// `stop_hook_active` tells the hooks the run goes on because of an
/// earlier refusal.
async fn stop_refused(
    hooks: &dyn Fire,
    context: &Context,
    answer: &str,
    active: bool,
    log: &mut Log,
) -> Result<Option<Value>, String> {
    let path = transcript(hooks.session(), context);
    let event = match &context.agent_type {
        Some(agent_type) => Event::SubagentStop {
            active,
            answer,
            agent_type,
            transcript: &path,
        },
        None => Event::Stop { active, answer },
    };
    // TODO(ch11/stop): fire the event (with context.inside()) and say its
    // lines. A stop is an Err "a {event name} hook stopped the run:
    // {reason}". A block's reason, or "A {event name} hook refused the end
    // without giving a reason." when it has none, is the next message:
    // a plain string, or, when hooks added context, text blocks (the
    // reason, then each context as a reminder). No block and no context:
    // None, the run ends.
    let _ = (event, reminder, log);
    Ok(None)
    // END(ch11/stop)
}
// ANCHOR_END: stop_refused

// ANCHOR: after_call
/// The hooks after a call: PostToolUse when it succeeded. An MCP result
/// marked isError is a failure, and fires no PostToolUse (Claude Code's
/// PostToolUseFailure, which the chapter's stretch fires). What the hooks
/// add goes beside the tool's own output; a stop ends the run after it.
pub async fn after_call(
    hooks: &dyn Fire,
    context: &Context,
    call: &mut Call,
    outcome: Outcome,
) -> Outcome {
    // STRETCH(ch11/post_tool_failure): a failure fires its own event.
    // END(ch11/post_tool_failure)
    // TODO(ch11/after-call): a call that failed (an Err, or a result marked
    // isError) fires nothing: its outcome comes back as it is. Else fire
    // Event::PostToolUse (with context.inside()) with the input the call
    // ran with and its response: for Bash its structuredContent (Claude
    // Code's fields), for any other tool the whole result. The hooks'
    // lines, context and stop go on the call.
    let _ = (hooks, context, call, bash::BASH);
    outcome
    // END(ch11/after-call)
}
// ANCHOR_END: after_call

// STRETCH(ch11/post_tool_failure): the module `failure`, which fires
// PostToolUseFailure after a call that ran and failed; after_call calls it
// first. A Bash command that exits non-zero is such a failure, as Claude
// Code counts it: `failure::Bash`, which main.rs offers instead of
// chapter 10's, makes it an Err that reads `Exit code N`, then the output.
// END(ch11/post_tool_failure)
