//! The fence's decision: what the PreToolUse hooks allow. Every tool call
//! of the loop passes them before it runs, whatever the model says
//! (`run_tool`, in `agent.rs`); a call they refuse never runs.

use crate::PROGRAM;
use crate::events::Permission;
use crate::hooks::Outcome;
use wire_host::show::ask_user;

// ANCHOR: permitted
/// What the PreToolUse hooks allow: exit 2 or `deny` blocks with the
/// reason the model will read; `ask` asks the user about `call` when there
/// is a terminal, and is a no when there is none. An `ask`'s reason is for
/// the user, not the model (Claude Code's rule).
pub fn permitted(before: &Outcome, call: &str, lines: &mut Vec<String>) -> Result<(), String> {
    // GAP(ch10/permitted): a block (exit 2) or a `deny` is an Err with the
    // reason; `ask` is Ok only when ask_user says yes, else an Err with why
    // not; anything else is Ok.
    // starter: let _ = (before, call, lines, ask_user, Permission::Deny);
    // starter: Ok(())
    if let Some(reason) = &before.block {
        return Err(format!("a PreToolUse hook blocked this call: {reason}"));
    }
    match &before.permission {
        Some((Permission::Deny, reason)) => {
            Err(format!("a PreToolUse hook denied this call: {reason}"))
        }
        Some((Permission::Ask, reason)) => match ask_user(PROGRAM, call, reason) {
            Ok(()) => {
                lines.push("  the user allowed the call".into());
                Ok(())
            }
            Err(why) => Err(format!(
                "a PreToolUse hook asked the user to approve this call, and {why}: it did not run"
            )),
        },
        _ => Ok(()),
    }
    // END(ch10/permitted)
}

// ANCHOR_END: permitted
