//! Hooks in Claude Code's format: commands the harness runs at fixed
//! points of the loop, whatever the model says. `settings.json` maps an
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
use wire_host::events::{Answer, Outcome, Said, capped, first_line};
use wire_host::session::{Fire, Session};
use wire_host::settings::{Settings, run_all};

use crate::events::{Event, Permission};
use crate::matcher::Matcher;

/// A command hook's timeout unless it sets one (seconds), Claude Code's.
const DEFAULT_TIMEOUT_S: u64 = 600;
/// A UserPromptSubmit hook's (seconds).
const PROMPT_TIMEOUT_S: u64 = 30;

/// The events this harness fires: the ones a settings file may name here
/// (Claude Code has more; the others are reported and skipped).
pub const EVENTS: &[&str] = &[
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    // STRETCH(ch11/post_tool_failure): the settings may name
    // PostToolUseFailure (its variant of `Event`, with `error` and
    // `is_interrupt` instead of `tool_response`, is in wire-host).
    #[cfg(feature = "stretch")]
    "PostToolUseFailure",
    // END(ch11/post_tool_failure)
    "Stop",
    "SubagentStop",
];

/// How one hook's answer folds into what the hooks of an event decided
/// together (`Outcome`, in wire-host).
trait Fold {
    fn decide(&mut self, permission: Permission, reason: String);
    fn refuse(&mut self, event: &Event<'_>, reason: String);
    fn fold(&mut self, event: &Event<'_>, said: Said) -> String;
}

impl Fold for Outcome {
    // ANCHOR: decide
    /// One hook's permission decision, folded in: when several hooks
    /// decide, the strictest wins (deny, then ask, then allow), with its
    /// reason; of two equal ones, the first in the settings' order.
    fn decide(&mut self, permission: Permission, reason: String) {
        if self
            .permission
            .as_ref()
            .is_none_or(|(kept, _)| permission > *kept)
        {
            self.permission = Some((permission, reason));
        }
    }
    // ANCHOR_END: decide

    /// A block (exit 2, `decision: "block"`, a failure under `onFailure:
    /// "block"`), folded in as the event allows: before the action it
    /// blocks; after it (the tool ran, it cannot be unrun) the reason goes
    /// to the model, once; SessionStart cannot be blocked.
    fn refuse(&mut self, event: &Event<'_>, reason: String) {
        // GAP(ch11/after-the-fact): after the fact (event.after_the_fact())
        // the reason joins the context, unless it is there already; any
        // other event but SessionStart is blocked.
        // starter: let _ = event;
        // starter: self.block = Some(reason);
        if event.after_the_fact() {
            if !self.context.contains(&reason) {
                self.context.push(reason);
            }
        } else if !matches!(event, Event::SessionStart { .. }) {
            self.block = Some(reason);
        }
        // END(ch11/after-the-fact)
    }

    // ANCHOR: fold
    /// One hook's JSON answer (read by wire-host's `Answer::said`), folded
    /// in: a decision by `decide`, a block by `refuse`; a later hook's stop
    /// or new input replaces an earlier one's. Returns the hook's line.
    fn fold(&mut self, event: &Event<'_>, said: Said) -> String {
        self.stop = said.stop.or(self.stop.take());
        if let Some((permission, reason)) = said.permission {
            self.decide(permission, reason);
        }
        if let Some(reason) = said.block {
            self.refuse(event, reason);
        }
        self.updated_input = said.updated_input.or(self.updated_input.take());
        self.context.extend(said.context);
        said.line
    }
    // ANCHOR_END: fold
}

/// Everything a hook needs besides its event: the hooks of the settings
/// file, each group's matcher read by `Matcher::parse` (chapter 10's, in
/// wire-host), and the session, whose fields every event's input carries.
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
        // UserPromptSubmit hooks hold up the user, so their default is shorter.
        let default = match event {
            Event::UserPromptSubmit { .. } => PROMPT_TIMEOUT_S,
            _ => DEFAULT_TIMEOUT_S,
        };
        let results = run_all(&handlers, &self.session.workdir, &input, default).await;
        let mut outcome = Outcome::default();
        let mut lines = Vec::new();
        for (handler, ran) in handlers.iter().zip(results) {
            // A failure blocks only when its handler says onFailure: "block".
            let read = |code, stdout: &str, stderr: &str| {
                exited(event, code, stdout, stderr, &mut outcome)
            };
            let (line, failed_closed) = handler.read(name, ran, read);
            if let Some(reason) = failed_closed {
                outcome.refuse(event, reason);
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
/// gives one, else stderr. Exit 0 without JSON: plain text (context for
/// the prompt and session events). `Err` is a failure: any other code
/// without JSON, which decides nothing (unless `onFailure` says block:
/// `Handler::read`'s part, in wire-host).
fn exited(
    event: &Event<'_>,
    code: i32,
    stdout: &str,
    stderr: &str,
    outcome: &mut Outcome,
) -> Result<String, String> {
    let json = Answer::read(stdout);
    let plain_is_context = matches!(
        event,
        Event::UserPromptSubmit { .. } | Event::SessionStart { .. }
    );
    match (code, json) {
        (2, json) => {
            let answer = json.and_then(Result::ok);
            let reason = answer.as_ref().and_then(Answer::block_reason);
            let reason = reason.unwrap_or_else(|| stderr.trim().to_string());
            let mut line = format!("exit 2: {reason}");
            if let Some(answer) = answer {
                line = format!("{line}; {}", outcome.fold(event, answer.said(event)));
            }
            outcome.refuse(event, reason);
            Ok(line)
        }
        (_, Some(Ok(answer))) => Ok(outcome.fold(event, answer.said(event))),
        // Plain text, a `{` that does not parse included: context here only.
        (0, _) if plain_is_context => {
            let text = stdout.trim();
            if text.is_empty() {
                return Ok("exit 0".into());
            }
            // Cut at Claude Code's cap, as wire-host cuts what it reads.
            outcome.context.push(capped(text.to_string()));
            Ok(format!("exit 0, context: {text}"))
        }
        (0, Some(Err(first))) => Ok(format!(
            "exit 0, stdout is not a JSON object; ignored: {first}"
        )),
        (0, None) => Ok("exit 0".into()),
        // The shell's own codes for a command it could not run.
        (126, _) => Err("exit 126: the command is not executable; no decision".into()),
        (127, _) => Err("exit 127: the command was not found; no decision".into()),
        (code, _) => Err(format!("exit {code}, non-blocking: {}", first_line(stderr))),
    }
}
// ANCHOR_END: exited
