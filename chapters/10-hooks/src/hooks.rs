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

use serde_json::{Map, Value};
use wire_host::events::{capped, common_fields};
use wire_host::join::{Run, join_all};
use wire_host::settings::{self, Handler, Ran};

use crate::PROGRAM;
use crate::events::Event;

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
    // STRETCH(ch10/post_tool_failure): the settings may name
    // PostToolUseFailure (its variant of `Event`, with `error` and
    // `is_interrupt` instead of `tool_response`, is in wire-host).
    // END(ch10/post_tool_failure)
    "Stop",
    "SubagentStop",
];

/// The hooks of a settings file, each group's matcher read by
/// `Matcher::parse` (wire-host's `settings` reads the file).
pub type Settings = settings::Settings<Matcher>;

/// Reads the hooks of a settings file, and says on stderr what it skipped.
pub fn load(path: &Path) -> Result<Settings, String> {
    let settings = settings::load(path, EVENTS, Matcher::parse)?;
    for line in &settings.skipped {
        eprintln!("{PROGRAM}: {line}");
    }
    Ok(settings)
}

// ANCHOR: matches
/// A group's matcher, read once, when the settings are loaded.
#[derive(Debug)]
pub enum Matcher {
    /// Empty, `*`, or no matcher at all.
    All,
    /// Exact names: `Bash`, `Bash|Read`, `Read, Write`.
    Names(Vec<String>),
    /// A regular expression, found anywhere in the name. Claude Code's are
    /// JavaScript's; the `regex` crate has no lookaround and no
    /// backreferences, so a matcher that uses them is refused here.
    Pattern(regex::Regex),
}

impl Matcher {
    /// Claude Code's rules: empty or `*` matches everything; only letters,
    /// digits, `_`, `-`, spaces, `|` and `,` is an exact name or a list of
    /// names; anything else is a regular expression, unanchored (so
    /// `mcp__notes__.*` matches every tool of the server `notes`).
    pub fn parse(text: &str) -> Result<Matcher, regex::Error> {
        // TODO(ch10/matches): empty or `*` is All; a matcher of only
        // letters, digits, `_`, `-`, spaces, `|` and `,` is Names (split
        // on `|` and `,`, each name trimmed); anything else is a Pattern,
        // a regex::Regex as written: is_match finds it anywhere in the name.
        let _ = (text, Matcher::Names(vec![]), regex::Regex::new(text));
        Ok(Matcher::All)
        // END(ch10/matches)
    }

    pub fn matches(&self, name: &str) -> bool {
        match self {
            Matcher::All => true,
            Matcher::Names(names) => names.iter().any(|listed| listed == name),
            Matcher::Pattern(pattern) => pattern.is_match(name),
        }
    }
}
// ANCHOR_END: matches

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
        // TODO(ch10/precedence): keep `permission` and its reason only when
        // there is none yet or it is stricter than the one kept
        // (Permission's order is Allow < Ask < Deny).
        self.permission = Some((permission, reason));
        // END(ch10/precedence)
    }
    // ANCHOR_END: decide

    /// A block (exit 2, `decision: "block"`, a failure under `onFailure:
    /// "block"`), folded in as the event allows: before the action it
    /// blocks; after it (the tool ran, it cannot be unrun) the reason goes
    /// to the model, once; SessionStart cannot be blocked.
    pub fn refuse(&mut self, event: &Event<'_>, reason: String) {
        if event.after_the_fact() {
            if !self.context.contains(&reason) {
                self.context.push(reason);
            }
        } else if !matches!(event, Event::SessionStart { .. }) {
            self.block = Some(reason);
        }
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
    /// see `matching`). Returns what they decided, and one line per hook
    /// for the user.
    pub async fn fire(
        &self,
        event: &Event<'_>,
        inside: Option<(&str, &str)>,
    ) -> (Outcome, Vec<String>) {
        let name = event.name();
        let handlers = self.matching(event);
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

    /// The handlers of every group whose matcher matches the event's
    /// target, in the settings' order. Two groups that name the same
    /// command (and `args`) run it once, whatever their timeouts; if either
    /// copy says `onFailure: "block"`, the one run does (a copy must not
    /// open what another closes).
    fn matching(&self, event: &Event<'_>) -> Vec<Handler> {
        let mut handlers: Vec<Handler> = Vec::new();
        let groups = self
            .settings
            .events
            .iter()
            .filter(|(n, _)| n == event.name());
        for group in groups.flat_map(|(_, groups)| groups) {
            if event
                .target()
                .is_none_or(|target| group.matcher.matches(target))
            {
                for handler in &group.handlers {
                    let same = |seen: &&mut Handler| {
                        seen.command == handler.command && seen.args == handler.args
                    };
                    match handlers.iter_mut().find(same) {
                        Some(seen) => seen.fail_closed |= handler.fail_closed,
                        None => handlers.push(handler.clone()),
                    }
                }
            }
        }
        handlers
    }
}

/// Folds one hook's run into the event's outcome, and says in one line
/// what it did. A hook that cannot start, outlives its timeout, dies of a
/// signal or exits with a code that means nothing decides nothing, unless
/// its handler says `onFailure: "block"`: then its failure blocks.
fn apply(event: &Event<'_>, ran: Ran, fail_closed: bool, outcome: &mut Outcome) -> String {
    let failed = match ran {
        Ran::CannotStart(err) => format!("cannot start: {err}; no decision"),
        Ran::TimedOut(seconds) => {
            format!("timed out after {seconds} s and was killed; no decision")
        }
        Ran::Exited { code: None, .. } => "killed by a signal; no decision".into(),
        Ran::Exited {
            code: Some(code),
            stdout,
            stderr,
        } => match exited(event, code, &stdout, &stderr, outcome) {
            Ok(line) => return line,
            Err(line) => line,
        },
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
/// `{` and parses, and Claude Code reads it on every exit code. Exit 2
/// blocks, with the JSON's blocking reason if it gives one, else stderr.
/// Exit 0 without JSON: plain text (context for the prompt and session
/// events). `Err` is a failure: any other code without JSON, which decides
/// nothing (unless `onFailure` says block: `apply`'s part).
fn exited(
    event: &Event<'_>,
    code: i32,
    stdout: &str,
    stderr: &str,
    outcome: &mut Outcome,
) -> Result<String, String> {
    let json = stdout
        .trim_start()
        .starts_with('{')
        .then(|| serde_json::from_str::<Value>(stdout));
    let plain_is_context = matches!(
        event,
        Event::UserPromptSubmit { .. } | Event::SessionStart { .. }
    );
    // TODO(ch10/exit-codes): exit 2 refuses (outcome.refuse) with the JSON's
    // own reason (json_reason) or else stderr trimmed, and reads any JSON
    // object too; on any other code a JSON object is read_json's; plain
    // stdout of exit 0 is context where plain_is_context; any other code
    // is an Err. Each arm gives the hook's line, as the transcripts show it.
    let _ = (
        json,
        plain_is_context,
        outcome,
        read_json,
        json_reason,
        stderr,
        first_line,
    );
    Ok(format!("exit {code}; TODO(ch10/exit-codes): no decision"))
    // END(ch10/exit-codes)
}
// ANCHOR_END: exited

/// The reason a JSON answer gives for a block it makes itself, if it makes
/// one: `decision: "block"` (PreToolUse's old spelling included) or a
/// PreToolUse `deny`.
fn json_reason(output: &Map<String, Value>) -> Option<String> {
    let specific = output.get("hookSpecificOutput").unwrap_or(&Value::Null);
    let reason = match specific["permissionDecision"].as_str() {
        Some("deny") => specific["permissionDecisionReason"].as_str(),
        _ if output.get("decision").and_then(Value::as_str) == Some("block") => None,
        _ => return None,
    };
    let reason = reason.or(output.get("reason").and_then(Value::as_str));
    reason.filter(|text| !text.is_empty()).map(str::to_string)
}

fn first_line(text: &str) -> &str {
    text.trim().lines().next().unwrap_or_default()
}

// ANCHOR: read_json
/// The JSON answer: `continue`/`stopReason`, `systemMessage`,
/// `decision`/`reason`, and `hookSpecificOutput`.
fn read_json(event: &Event<'_>, output: &Map<String, Value>, outcome: &mut Outcome) -> String {
    let mut said = vec!["json".to_string()];
    let text = |key: &str| output.get(key).and_then(Value::as_str).unwrap_or_default();
    if output.get("continue") == Some(&Value::Bool(false)) {
        outcome.stop = Some(text("stopReason").to_string());
        said.push(format!("stop: {}", text("stopReason")));
    }
    if !text("systemMessage").is_empty() {
        said.push(format!("message: {}", text("systemMessage")));
    }
    let specific = output
        .get("hookSpecificOutput")
        .cloned()
        .unwrap_or_default();
    // PreToolUse's old top-level decision: approve and block.
    let before = matches!(event, Event::PreToolUse { .. });
    let permission = match (specific["permissionDecision"].as_str(), text("decision")) {
        (Some("allow"), _) | (None, "approve") if before => Some(Permission::Allow),
        (Some("ask"), _) => Some(Permission::Ask),
        (Some("deny"), _) | (None, "block") if before => Some(Permission::Deny),
        _ => None,
    };
    if let Some(permission) = permission {
        let reason = specific["permissionDecisionReason"]
            .as_str()
            .unwrap_or(text("reason"))
            .to_string();
        let word = format!("{permission:?}").to_lowercase();
        said.push(if reason.is_empty() {
            word
        } else {
            format!("{word}: {reason}")
        });
        outcome.decide(permission, reason);
    } else if text("decision") == "block" {
        let reason = text("reason").to_string();
        said.push(match reason.is_empty() {
            true => "block, with no reason".to_string(),
            false => format!("block: {reason}"),
        });
        outcome.refuse(event, reason);
    }
    if let Some(input) = specific.get("updatedInput").filter(|v| v.is_object()) {
        said.push(format!("updated input: {input}"));
        outcome.updated_input = Some(input.clone());
    }
    if let Some(context) = specific["additionalContext"].as_str() {
        said.push(format!("context: {context}"));
        outcome.context.push(context.to_string());
    }
    said.join(", ")
}
// ANCHOR_END: read_json
