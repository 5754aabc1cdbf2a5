//! Hooks in Claude Code's format: commands the harness runs at fixed
//! points of the loop, whatever the model says. `settings.json` maps an
//! event to matcher groups, each with its commands; a command gets the
//! event as JSON on stdin and answers with its exit status, stderr, and
//! (optionally) JSON on stdout.
//!
//! No hook can take the harness down: one that cannot start, crashes,
//! outlives its timeout or prints malformed JSON is reported and gives no
//! decision, unless its handler says `onFailure: "block"`. Reading the
//! settings file, starting a handler and the events' input are given, in
//! wire-host (`settings.rs`, `events.rs`).

use std::path::{Path, PathBuf};

use serde_json::Value;
use wire_host::events::{Answer, capped, common_fields};
use wire_host::join::{Run, join_all};
use wire_host::settings::{self, Ran};

use crate::PROGRAM;
use crate::events::Event;
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

/// The hooks of a settings file, each group's matcher read by
/// `Matcher::parse` (chapter 10's, in wire-host; wire-host's `settings`
/// reads the file).
pub type Settings = settings::Settings<Matcher>;

/// Reads the hooks of a settings file, and says on stderr what it skipped.
pub fn load(path: &Path) -> Result<Settings, String> {
    let settings = settings::load(path, EVENTS, Matcher::parse)?;
    for line in &settings.skipped {
        eprintln!("{PROGRAM}: {line}");
    }
    Ok(settings)
}

/// What a `PreToolUse` hook decided about the call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Permission {
    Allow,
    Ask,
    Deny,
}

/// What the hooks of one event decided, together.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Exit 2 or `decision: "block"`: the reason.
    pub block: Option<String>,
    /// `continue: false`: stop the whole run, with `stopReason`.
    pub stop: Option<String>,
    /// The strongest `permissionDecision` (deny > ask > allow) and its reason.
    pub permission: Option<(Permission, String)>,
    /// `updatedInput`: the tool's whole new input.
    pub updated_input: Option<Value>,
    /// Text for the model: `additionalContext`, plain stdout where it counts.
    pub context: Vec<String>,
}

impl Outcome {
    // ANCHOR: decide
    /// One hook's permission decision, folded in: when several hooks
    /// decide, the strictest wins (deny, then ask, then allow), with its
    /// reason; of two equal ones, the first in the settings' order.
    pub fn decide(&mut self, permission: Permission, reason: String) {
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
    pub fn refuse(&mut self, event: &Event<'_>, reason: String) {
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

    /// Claude Code's cap on each string a hook adds (10,000 characters).
    fn cap(&mut self) {
        self.block = self.block.take().map(capped);
        self.context = std::mem::take(&mut self.context)
            .into_iter()
            .map(capped)
            .collect();
        if let Some((_, reason)) = &mut self.permission {
            *reason = capped(std::mem::take(reason));
        }
    }
}

/// Everything a hook needs besides its event: the settings, and the
/// session's common input fields.
pub struct Hooks {
    pub settings: Settings,
    pub session_id: String,
    pub transcript_path: PathBuf,
    pub workdir: PathBuf,
}

impl Hooks {
    // ANCHOR: fire
    /// Runs every handler of `event` whose matcher matches its target (a
    /// tool name, SessionStart's source, SubagentStop's agent type; events
    /// without matchers have none), all at the same time; `inside` is the
    /// subagent's id and type when one fires it. Two groups that name the
    /// same command run it once (Claude Code dedupes identical handlers;
    /// see `Settings::handlers` in wire-host). Returns what they decided,
    /// and one line per hook for the user.
    pub async fn fire(
        &self,
        event: &Event<'_>,
        inside: Option<(&str, &str)>,
    ) -> (Outcome, Vec<String>) {
        let name = event.name();
        let target = event.target();
        let matches = |matcher: &Matcher| target.is_none_or(|target| matcher.matches(target));
        let handlers = self.settings.handlers(name, matches);
        let common = common_fields(&self.session_id, &self.transcript_path, &self.workdir);
        let stdin = event.input(common, inside).to_string().into_bytes();
        // UserPromptSubmit hooks hold up the user, so their default is shorter.
        let default = match event {
            Event::UserPromptSubmit { .. } => PROMPT_TIMEOUT_S,
            _ => DEFAULT_TIMEOUT_S,
        };
        let runs: Vec<Run<'_, Ran>> = handlers
            .iter()
            .map(|handler| {
                Box::pin(handler.run(&self.workdir, stdin.clone(), default)) as Run<'_, Ran>
            })
            .collect();
        let results = join_all(runs).await;
        let mut outcome = Outcome::default();
        let mut lines = Vec::new();
        for (handler, result) in handlers.iter().zip(results) {
            let line = capped(apply(event, result, handler.fail_closed, &mut outcome));
            lines.push(format!("  hook {name} {}: {line}", handler.label()));
        }
        outcome.cap();
        (outcome, lines)
    }
    // ANCHOR_END: fire
}

/// Folds one hook's run into the event's outcome, and says in one line
/// what it did. A hook that cannot start, outlives its timeout, dies of a
/// signal or exits with a code that means nothing decides nothing, unless
/// its handler says `onFailure: "block"`: then its failure blocks.
fn apply(event: &Event<'_>, ran: Ran, fail_closed: bool, outcome: &mut Outcome) -> String {
    let failed = match ran {
        Ran::Exited {
            code: Some(code),
            stdout,
            stderr,
        } => match exited(event, code, &stdout, &stderr, outcome) {
            Ok(line) => return line,
            Err(line) => line,
        },
        // It could not start, outlived its timeout or died of a signal.
        other => other.failure().unwrap_or_default(),
    };
    if !fail_closed {
        return failed;
    }
    // A fence that fails closed in Claude Code must not fail open here.
    let failed = failed.trim_end_matches("; no decision");
    let reason = format!("the hook failed, and its onFailure is \"block\" ({failed})");
    outcome.refuse(event, reason);
    format!("failed ({failed}); its onFailure is \"block\": blocked")
}

// ANCHOR: exited
/// What a hook's exit status means. Its stdout is JSON when it starts with
/// `{` and parses (`Answer::read`, in wire-host), and Claude Code reads it
/// on every exit code. Exit 2 blocks, with the JSON's blocking reason if it
/// gives one, else stderr. Exit 0 without JSON: plain text (context for
/// the prompt and session events). `Err` is a failure: any other code
/// without JSON, which decides nothing (unless `onFailure` says block:
/// `apply`'s part).
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
                line = format!("{line}; {}", read_json(event, &answer, outcome));
            }
            outcome.refuse(event, reason);
            Ok(line)
        }
        (_, Some(Ok(answer))) => Ok(read_json(event, &answer, outcome)),
        // Plain text, a `{` that does not parse included: context here only.
        (0, _) if plain_is_context => {
            let text = stdout.trim();
            if text.is_empty() {
                return Ok("exit 0".into());
            }
            outcome.context.push(text.to_string());
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

fn first_line(text: &str) -> &str {
    text.trim().lines().next().unwrap_or_default()
}

// ANCHOR: read_json
/// The JSON answer: `continue`/`stopReason`, `systemMessage`,
/// `decision`/`reason`, and `hookSpecificOutput`.
fn read_json(event: &Event<'_>, answer: &Answer, outcome: &mut Outcome) -> String {
    let mut said = vec!["json".to_string()];
    if answer.keep_going == Some(false) {
        let reason = answer.stop_reason.clone().unwrap_or_default();
        said.push(format!("stop: {reason}"));
        outcome.stop = Some(reason);
    }
    if let Some(message) = answer.system_message.as_ref().filter(|m| !m.is_empty()) {
        said.push(format!("message: {message}"));
    }
    let specific = answer.specific();
    // PreToolUse's old top-level decision: approve and block.
    let before = matches!(event, Event::PreToolUse { .. });
    let decision = answer.decision.as_deref().unwrap_or_default();
    let permission = match (specific.permission_decision.as_deref(), decision) {
        (Some("allow"), _) | (None, "approve") if before => Some(Permission::Allow),
        (Some("ask"), _) => Some(Permission::Ask),
        (Some("deny"), _) | (None, "block") if before => Some(Permission::Deny),
        _ => None,
    };
    if let Some(permission) = permission {
        let reason = specific.permission_decision_reason.as_ref();
        let reason = reason
            .or(answer.reason.as_ref())
            .cloned()
            .unwrap_or_default();
        let word = format!("{permission:?}").to_lowercase();
        said.push(if reason.is_empty() {
            word
        } else {
            format!("{word}: {reason}")
        });
        outcome.decide(permission, reason);
    } else if decision == "block" {
        let reason = answer.reason.clone().unwrap_or_default();
        said.push(match reason.is_empty() {
            true => "block, with no reason".to_string(),
            false => format!("block: {reason}"),
        });
        outcome.refuse(event, reason);
    }
    if let Some(input) = &specific.updated_input {
        let input = Value::Object(input.clone());
        said.push(format!("updated input: {input}"));
        outcome.updated_input = Some(input);
    }
    if let Some(context) = &specific.additional_context {
        said.push(format!("context: {context}"));
        outcome.context.push(context.clone());
    }
    said.join(", ")
}
// ANCHOR_END: read_json
