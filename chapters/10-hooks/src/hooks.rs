//! Hooks in Claude Code's format: commands the harness runs at fixed
//! points of the loop, whatever the model says. `settings.json` maps an
//! event to matcher groups, each with its commands; a command gets the
//! event as JSON on stdin and answers with its exit status, stderr, and
//! (optionally) JSON on stdout.
//!
//! No hook can take the harness down: one that cannot start, crashes,
//! outlives its timeout or prints malformed JSON is reported and gives no
//! decision.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Map, Value, json};
use tokio::process::Command;
use wire_host::join::{Run, join_all};
use wire_host::process::run_bounded;

use crate::events::{EVENTS, Event};

/// A command hook's timeout unless it sets one (seconds).
const DEFAULT_TIMEOUT_S: u64 = 600;
/// UserPromptSubmit hooks hold up the user, so theirs is shorter.
const PROMPT_TIMEOUT_S: u64 = 30;

/// One command of a matcher group.
#[derive(Clone, Debug, PartialEq)]
pub struct Handler {
    pub command: String,
    /// Seconds.
    pub timeout: Option<u64>,
}

/// `{ "matcher": ..., "hooks": [...] }` under an event.
#[derive(Debug)]
struct Group {
    matcher: Matcher,
    handlers: Vec<Handler>,
}

/// The `hooks` of a settings file, per event.
#[derive(Debug, Default)]
pub struct Settings {
    events: Vec<(String, Vec<Group>)>,
}

// ANCHOR: load
/// Reads the `hooks` object of a settings file. An unknown event or a
/// handler type other than `command` is reported and skipped; a file that
/// is not the right shape is an error.
pub fn load(path: &Path) -> Result<Settings, String> {
    let where_ = path.display();
    let text =
        std::fs::read_to_string(path).map_err(|err| format!("cannot read {where_}: {err}"))?;
    let value: Value =
        serde_json::from_str(&text).map_err(|err| format!("{where_}: not JSON: {err}"))?;
    let mut settings = Settings::default();
    let Some(hooks) = value.get("hooks") else {
        return Ok(settings);
    };
    let hooks = hooks
        .as_object()
        .ok_or(format!("{where_}: \"hooks\" must map event names to lists"))?;
    for (event, groups) in hooks {
        if !EVENTS.contains(&event.as_str()) {
            eprintln!(
                "{}: {where_}: skipped event {event:?}: not one this harness fires",
                crate::PROGRAM
            );
            continue;
        }
        let groups = groups.as_array().ok_or(format!(
            "{where_}: hooks.{event} must be a list of matcher groups"
        ))?;
        let mut read = Vec::new();
        for group in groups {
            read.push(read_group(group, event).map_err(|err| format!("{where_}: {err}"))?);
        }
        settings.events.push((event.clone(), read));
    }
    Ok(settings)
}

fn read_group(group: &Value, event: &str) -> Result<Group, String> {
    let matcher = match &group["matcher"] {
        Value::Null => Matcher::All,
        // A matcher that does not compile would never match: a fence with a
        // hole nobody sees. It makes the settings invalid instead.
        Value::String(text) => Matcher::parse(text).map_err(|err| {
            format!("hooks.{event}: matcher {text:?} is not a valid regular expression: {err}")
        })?,
        _ => return Err(format!("hooks.{event}: a \"matcher\" is a string")),
    };
    let list = group["hooks"]
        .as_array()
        .ok_or(format!("hooks.{event}: each group needs a \"hooks\" list"))?;
    let mut handlers = Vec::new();
    for handler in list {
        if handler["type"] != "command" {
            eprintln!(
                "{}: hooks.{event}: skipped a handler of type {}: only \"command\" runs here",
                crate::PROGRAM,
                handler["type"]
            );
            continue;
        }
        let command = handler["command"].as_str().ok_or(format!(
            "hooks.{event}: a command handler needs a \"command\" string"
        ))?;
        handlers.push(Handler {
            command: command.to_string(),
            timeout: handler["timeout"].as_u64(),
        });
    }
    Ok(Group { matcher, handlers })
}
// ANCHOR_END: load

// ANCHOR: matches
/// A group's matcher, read once, when the settings are loaded.
#[derive(Debug)]
pub enum Matcher {
    /// Empty, `*`, or no matcher at all.
    All,
    /// Exact names: `Bash`, `Bash|Read`, `Read, Write`.
    Names(Vec<String>),
    /// A regular expression, found anywhere in the name.
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
    /// The fields every event's input carries.
    fn common(&self) -> Map<String, Value> {
        let mut input = Map::new();
        input.insert("session_id".into(), json!(self.session_id));
        input.insert("transcript_path".into(), json!(self.transcript_path));
        input.insert("cwd".into(), json!(self.workdir));
        input.insert("permission_mode".into(), json!("default"));
        input
    }

    // ANCHOR: fire
    /// Runs every handler of `event` whose matcher matches its target (a
    /// tool name, SessionStart's source, SubagentStop's agent type; events
    /// without matchers have none), all at the same time; `inside` is the
    /// subagent's id and type when one fires it. Two groups that name the
    /// same command run it once (Claude Code dedupes command hooks by their
    /// command string). Returns what they decided, and one line per hook
    /// for the user.
    pub async fn fire(
        &self,
        event: &Event<'_>,
        inside: Option<(&str, &str)>,
    ) -> (Outcome, Vec<String>) {
        let name = event.name();
        let mut handlers: Vec<&Handler> = Vec::new();
        let groups = self.settings.events.iter().filter(|(n, _)| n == name);
        for group in groups.flat_map(|(_, groups)| groups) {
            if event
                .target()
                .is_none_or(|target| group.matcher.matches(target))
            {
                for handler in &group.handlers {
                    if !handlers.iter().any(|seen| seen.command == handler.command) {
                        handlers.push(handler);
                    }
                }
            }
        }
        let stdin = event.input(self.common(), inside).to_string().into_bytes();
        let runs: Vec<Run<'_, Ran>> = handlers
            .iter()
            .map(|handler| Box::pin(self.run_one(name, handler, stdin.clone())) as Run<'_, Ran>)
            .collect();
        let results = join_all(runs).await;
        let mut outcome = Outcome::default();
        let mut lines = Vec::new();
        for (handler, result) in handlers.iter().zip(results) {
            let line = apply(event, result, &mut outcome);
            lines.push(format!("  hook {name} {}: {line}", handler.command));
        }
        (outcome, lines)
    }
    // ANCHOR_END: fire

    /// Runs one handler: `sh -c COMMAND` in the working folder, with
    /// CLAUDE_PROJECT_DIR set, the input on stdin, and its timeout.
    async fn run_one(&self, event: &str, handler: &Handler, stdin: Vec<u8>) -> Ran {
        let default = if event == "UserPromptSubmit" {
            PROMPT_TIMEOUT_S
        } else {
            DEFAULT_TIMEOUT_S
        };
        let seconds = handler.timeout.unwrap_or(default);
        let mut command = Command::new("sh");
        command
            .arg("-c")
            .arg(&handler.command)
            .current_dir(&self.workdir)
            .env("CLAUDE_PROJECT_DIR", &self.workdir)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        match run_bounded(command, Some(stdin), Duration::from_secs(seconds)).await {
            Err(err) => Ran::CannotStart(err.to_string()),
            Ok(output) => match output.status {
                None => Ran::TimedOut(seconds),
                Some(status) => Ran::Exited {
                    code: status.code(),
                    stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
                    stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
                },
            },
        }
    }
}

/// How one hook run ended.
enum Ran {
    CannotStart(String),
    TimedOut(u64),
    /// `code` is `None` when a signal ended it.
    Exited {
        code: Option<i32>,
        stdout: String,
        stderr: String,
    },
}

/// Folds one hook's run into the event's outcome, and says in one line
/// what it did: a hook that cannot start, outlives its timeout or dies of
/// a signal decides nothing.
fn apply(event: &Event<'_>, ran: Ran, outcome: &mut Outcome) -> String {
    match ran {
        Ran::CannotStart(err) => format!("cannot start: {err}; no decision"),
        Ran::TimedOut(seconds) => {
            format!("timed out after {seconds} s and was killed; no decision")
        }
        Ran::Exited { code: None, .. } => "killed by a signal; no decision".into(),
        Ran::Exited {
            code: Some(code),
            stdout,
            stderr,
        } => exited(event, code, &stdout, &stderr, outcome),
    }
}

// ANCHOR: exited
/// What a hook's exit status means. Exit 0: JSON on stdout when it starts
/// with `{` and parses, else plain text (context for the prompt and
/// session events). Exit 2: block, with stderr as the reason. Anything
/// else: an error that blocks nothing.
fn exited(
    event: &Event<'_>,
    code: i32,
    stdout: &str,
    stderr: &str,
    outcome: &mut Outcome,
) -> String {
    let json = stdout
        .trim_start()
        .starts_with('{')
        .then(|| serde_json::from_str::<Value>(stdout));
    let plain_is_context = matches!(
        event,
        Event::UserPromptSubmit { .. } | Event::SessionStart { .. }
    );
    // TODO(ch10/exit-codes): exit 2 blocks with stderr (trimmed) as the
    // reason: outcome.block, or outcome.context when the event is
    // after_the_fact, nothing for SessionStart; a JSON object (on any
    // other code) is read_json's; plain stdout of exit 0 is context where
    // plain_is_context; every other code blocks nothing. Each arm returns
    // the hook's line, as the transcripts show it.
    let _ = (
        json,
        plain_is_context,
        outcome,
        read_json,
        stderr,
        first_line,
    );
    format!("exit {code}; TODO(ch10/exit-codes): no decision")
    // END(ch10/exit-codes)
}
// ANCHOR_END: exited

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
        if event.after_the_fact() {
            outcome.context.push(reason);
        } else {
            outcome.block = Some(reason);
        }
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
