//! The fence: the PreToolUse hooks, as an extension of the harness. At the
//! gate every tool call passes before it runs, whatever the model says,
//! it fires the hooks (`hooks.rs`) and turns what they decided into a
//! verdict; a call they refuse never runs. It also keeps each
//! conversation's transcript file, which the hooks may read.

use std::path::PathBuf;

use async_trait::async_trait;
use serde_json::Value;
use wire_host::seams::{Call, Context, Extension, Harness, Verdict};
use wire_host::session::{self, Fire, Session};

use crate::events::{Event, Outcome, Permission};

/// The hooks, fired at the gate.
pub struct Fence<'a> {
    /// The name this program goes by in its messages.
    pub program: &'static str,
    /// Chapter 10's hooks (`hooks.rs`), or a later chapter's.
    pub hooks: &'a dyn Fire,
}

#[async_trait(?Send)]
impl Extension for Fence<'_> {
    /// Every message goes to its conversation's transcript file (JSON
    /// lines), which hooks may read at `transcript_path`.
    fn remember(&self, context: &Context, message: &Value) {
        let path = transcript(self.hooks.session(), context);
        session::record(self.program, &path, message);
    }

    // ANCHOR: gate
    async fn gate(&self, _: &Harness<'_>, context: &Context, call: &mut Call) -> Verdict {
        // TODO(ch10/fence): fire Event::PreToolUse before anything runs
        // (with context.inside()); its lines are the call's. A `stop`
        // (continue: false) beats any decision: the call does not run, the
        // model reads "a PreToolUse hook stopped the run", and the stop
        // reason ends the run. Else the verdict is `permitted`'s; a hook's
        // updated input is the one the call runs with, if it runs, and
        // its context goes beside the result.
        let _ = (
            context,
            Event::PreToolUse {
                call: &call.tool_use,
            },
            permitted,
        );
        Verdict::Pass
        // END(ch10/fence)
    }
    // ANCHOR_END: gate
}

/// The JSON-lines file a conversation is written to: the session's
/// transcript for the main one, `agent-ID.jsonl` beside it for a subagent.
pub fn transcript(session: &Session, context: &Context) -> PathBuf {
    match context.depth {
        0 => session.transcript_path(),
        _ => session.folder.join(format!("agent-{}.jsonl", context.key)),
    }
}

// ANCHOR: permitted
/// What the PreToolUse hooks allow: exit 2 or `deny` refuses with the
/// reason the model will read; `ask` asks the user when there is a
/// terminal, and is a no when there is none. An `ask`'s reason is for the
/// user, not the model (Claude Code's rule).
pub fn permitted(before: &Outcome) -> Verdict {
    // TODO(ch10/permitted): a block (exit 2) or a `deny` is a Deny with
    // the reason, as the block_rm and permission_precedence scenarios show
    // it; `ask` is an Ask whose question is "a hook asks: REASON" and which,
    // refused, reads "a PreToolUse hook asked the user to approve this
    // call"; an `allow` vouches for the call; no decision passes.
    let _ = (before, Permission::Deny);
    Verdict::Pass
    // END(ch10/permitted)
}
// ANCHOR_END: permitted
