//! Hooks in Claude Code's format: commands the harness runs at fixed
//! points of the loop, whatever the model says (here, before every tool
//! call: PreToolUse; chapter 11 adds the loop's other points). `settings.json` maps an
//! event to matcher groups, each with its commands; a command gets the
//! event as JSON on stdin and answers with its exit status, stderr, and
//! (optionally) JSON on stdout.
//!
//! No hook can take the harness down: one that cannot start, crashes,
//! outlives its timeout or prints malformed JSON is reported and gives no
//! decision, unless its handler says `onFailure: "block"`. The settings,
//! the handlers' runs, the events' input and one hook's JSON answer are
//! read in wire-host (`settings.rs`, `events.rs`); what an exit code
//! means, and which of several answers wins, are this module's.

use async_trait::async_trait;
use wire_host::events::{Answer, Outcome, Said, first_line};
use wire_host::session::{Fire, Session};
use wire_host::settings::{Settings, run_all};

use crate::events::{Event, Permission};
use crate::matcher::Matcher;

/// A command hook's timeout unless it sets one (seconds), Claude Code's.
const DEFAULT_TIMEOUT_S: u64 = 600;

/// The events this harness fires: the ones a settings file may name here.
/// Chapter 10 fires only PreToolUse, the fence; chapter 11 adds the others
/// (Claude Code has more; any other is reported and skipped).
pub const EVENTS: &[&str] = &["PreToolUse"];

/// How one hook's answer folds into what the hooks of an event decided
/// together (`Outcome`, in wire-host).
trait Fold {
    fn decide(&mut self, permission: Permission, reason: String);
    fn refuse(&mut self, reason: String);
    fn fold(&mut self, said: Said) -> String;
}

impl Fold for Outcome {
    // ANCHOR: decide
    /// One hook's permission decision, folded in: when several hooks
    /// decide, the strictest wins (deny, then ask, then allow), with its
    /// reason; of two equal ones, the first in the settings' order.
    fn decide(&mut self, permission: Permission, reason: String) {
        // TODO(ch10/precedence): keep `permission` and its reason only when
        // there is none yet or it is stricter than the one kept
        // (Permission's order is Allow < Ask < Deny).
        self.permission = Some((permission, reason));
        // END(ch10/precedence)
    }
    // ANCHOR_END: decide

    /// A block (exit 2, `decision: "block"`, a failure under `onFailure:
    /// "block"`): the call does not run, and the reason is the model's.
    fn refuse(&mut self, reason: String) {
        self.block = Some(reason);
    }

    // ANCHOR: fold
    /// One hook's JSON answer (read by wire-host's `Answer::said`), folded
    /// in: a decision by `decide`, a block by `refuse`; a later hook's stop
    /// or new input replaces an earlier one's. Returns the hook's line.
    fn fold(&mut self, said: Said) -> String {
        self.stop = said.stop.or(self.stop.take());
        if let Some((permission, reason)) = said.permission {
            self.decide(permission, reason);
        }
        if let Some(reason) = said.block {
            self.refuse(reason);
        }
        self.updated_input = said.updated_input.or(self.updated_input.take());
        self.context.extend(said.context);
        said.line
    }
    // ANCHOR_END: fold
}

/// Everything a hook needs besides its event: the hooks of the settings
/// file, each group's matcher read by `Matcher::parse` (`matcher.rs`), and
/// the session, whose fields every event's input carries.
pub struct Hooks {
    pub settings: Settings<Matcher>,
    pub session: Session,
}

#[async_trait(?Send)]
impl Fire for Hooks {
    fn session(&self) -> &Session {
        &self.session
    }

    // ANCHOR: fire
    /// Runs every handler of `event` whose matcher matches its target (a
    /// tool name, SessionStart's source, SubagentStop's agent type; events
    /// without matchers have none), all at the same time; `inside` is the
    /// subagent's id and type when one fires it. Two groups that name the
    /// same command run it once (Claude Code dedupes identical handlers;
    /// see `Settings::handlers` in wire-host). Returns what they decided,
    /// and one line per hook for the user.
    async fn fire(
        &self,
        event: &Event<'_>,
        inside: Option<(&str, &str)>,
    ) -> (Outcome, Vec<String>) {
        let name = event.name();
        let target = event.target();
        let matches = |matcher: &Matcher| target.is_none_or(|target| matcher.matches(target));
        let handlers = self.settings.handlers(name, matches);
        let input = event.input(self.session.common_fields(), inside);
        let results = run_all(&handlers, &self.session.workdir, &input, DEFAULT_TIMEOUT_S).await;
        let mut outcome = Outcome::default();
        let mut lines = Vec::new();
        for (handler, ran) in handlers.iter().zip(results) {
            // A failure blocks only when its handler says onFailure: "block".
            let read = |code, stdout: &str, stderr: &str| {
                exited(event, code, stdout, stderr, &mut outcome)
            };
            let (line, failed_closed) = handler.read(name, ran, read);
            if let Some(reason) = failed_closed {
                outcome.refuse(reason);
            }
            lines.push(line);
        }
        (outcome, lines)
    }
    // ANCHOR_END: fire
}

// ANCHOR: exited
/// What a hook's exit status means. Its stdout is JSON when it starts with
/// `{` and parses (`Answer::read`, in wire-host), and Claude Code reads it
/// on every exit code. Exit 2 blocks, with the JSON's blocking reason if it
/// gives one, else stderr. Exit 0 without JSON decides nothing. `Err` is a
/// failure: any other code without JSON, which decides nothing (unless
/// `onFailure` says block: `Handler::read`'s part, in wire-host).
fn exited(
    event: &Event<'_>,
    code: i32,
    stdout: &str,
    stderr: &str,
    outcome: &mut Outcome,
) -> Result<String, String> {
    let json = Answer::read(stdout);
    // TODO(ch10/exit-codes): exit 2 refuses (outcome.refuse) with the JSON's
    // own reason (Answer::block_reason) or else stderr trimmed, and folds
    // a JSON answer in too; on any other code a JSON answer is
    // outcome.fold's, of what answer.said(event) reads; exit 0
    // decides nothing (say when its stdout is not a JSON object); any other
    // code is an Err. Each arm gives the hook's line, as the transcripts
    // show it.
    let _ = (json, outcome, event, stderr, first_line);
    Ok(format!("exit {code}; TODO(ch10/exit-codes): no decision"))
    // END(ch10/exit-codes)
}
// ANCHOR_END: exited
