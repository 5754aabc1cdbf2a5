//! Claude Code's `settings.json`, the part a harness reads: `hooks`, which
//! maps an event to matcher groups, each with its handlers. Reading the
//! file, starting a handler as a process (the shell form or the exec
//! form, bounded by `process.rs`) and keeping its script out of the
//! model's reach are plumbing, no chapter's lesson: chapter 10 teaches
//! what a matcher means (it hands `load` its own parser) and what a hook's
//! answer means; chapter 17 adds the file's permissions and sandbox.
//!
//! A handler field this harness does not implement is never ignored in
//! silence: it is either refused (the settings are invalid, the harness
//! does not start) or skipped with a line that says what happens instead.

use std::fmt::Display;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use serde_json::Value;
use tokio::process::Command;

use crate::events::capped;
use crate::join::{Run, join_all};
use crate::process::run_bounded;

/// The events whose handlers may set `if` (Claude Code's tool events):
/// on any other event, a handler with `if` never runs.
const TOOL_EVENTS: &[&str] = &[
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PermissionRequest",
    "PermissionDenied",
];

/// One command of a matcher group.
#[derive(Clone, Debug, PartialEq)]
pub struct Handler {
    /// The shell command (`sh -c`), or with `args` the program itself.
    pub command: String,
    /// The exec form: `command` run directly with these arguments, no shell.
    pub args: Option<Vec<String>>,
    /// Seconds.
    pub timeout: Option<u64>,
    /// `onFailure: "block"`: a hook that cannot start, times out or exits
    /// unexpectedly blocks, instead of giving no decision.
    pub fail_closed: bool,
    /// Scripts of the project copied at start-up (`Settings::snapshot`):
    /// each text of `command` and `args` that names one, and its copy.
    pub copies: Vec<(String, PathBuf)>,
}

/// `{ "matcher": ..., "hooks": [...] }` under an event, its matcher read by
/// the parser `load` was given (`M`).
#[derive(Debug)]
pub struct Group<M> {
    pub matcher: M,
    pub handlers: Vec<Handler>,
}

/// The `hooks` of a settings file, per event, and what was left out.
#[derive(Debug)]
pub struct Settings<M> {
    pub events: Vec<(String, Vec<Group<M>>)>,
    /// One line per event or handler left out, and why: for stderr.
    pub skipped: Vec<String>,
}

impl<M> Default for Settings<M> {
    fn default() -> Self {
        Settings {
            events: Vec::new(),
            skipped: Vec::new(),
        }
    }
}

/// A settings file, read as JSON, in the words every reader of it uses:
/// the hooks (chapter 10), the permission rules (23), the sandbox (24).
pub fn read(path: &Path) -> Result<Value, String> {
    let where_ = path.display();
    let text =
        std::fs::read_to_string(path).map_err(|err| format!("cannot read {where_}: {err}"))?;
    serde_json::from_str(&text).map_err(|err| format!("{where_}: not JSON: {err}"))
}

// ANCHOR: load
/// Reads the `hooks` object of a settings file. `fired` names the events
/// the harness fires; `parse` reads a matcher (no matcher is `""`). An
/// unknown event, a handler type other than `command` and a background
/// handler are skipped, each with a line in `skipped`; a file that is not
/// the right shape, a matcher `parse` refuses and a field this harness
/// cannot honour are errors.
pub fn load<M, E: Display>(
    path: &Path,
    fired: &[&str],
    parse: impl Fn(&str) -> Result<M, E>,
) -> Result<Settings<M>, String> {
    let where_ = path.display();
    let value = read(path)?;
    let mut settings = Settings::default();
    let Some(hooks) = value.get("hooks") else {
        return Ok(settings);
    };
    let hooks = hooks
        .as_object()
        .ok_or(format!("{where_}: \"hooks\" must map event names to lists"))?;
    for (event, groups) in hooks {
        if !fired.contains(&event.as_str()) {
            let line = format!("{where_}: skipped event {event:?}: not one this harness fires");
            settings.skipped.push(line);
            continue;
        }
        let groups = groups.as_array().ok_or(format!(
            "{where_}: hooks.{event} must be a list of matcher groups"
        ))?;
        let mut read = Vec::new();
        for group in groups {
            let group = read_group(group, event, &parse, &mut settings.skipped);
            read.push(group.map_err(|err| format!("{where_}: {err}"))?);
        }
        settings.events.push((event.clone(), read));
    }
    Ok(settings)
}
// ANCHOR_END: load

fn read_group<M, E: Display>(
    group: &Value,
    event: &str,
    parse: impl Fn(&str) -> Result<M, E>,
    skipped: &mut Vec<String>,
) -> Result<Group<M>, String> {
    let matcher = match &group["matcher"] {
        Value::Null => "",
        Value::String(text) => text,
        _ => return Err(format!("hooks.{event}: a \"matcher\" is a string")),
    };
    // A matcher that does not compile would never match: a fence with a
    // hole nobody sees. It makes the settings invalid instead.
    let matcher = parse(matcher).map_err(|err| {
        format!("hooks.{event}: matcher {matcher:?} is not a valid regular expression: {err}")
    })?;
    let list = group["hooks"]
        .as_array()
        .ok_or(format!("hooks.{event}: each group needs a \"hooks\" list"))?;
    let mut handlers = Vec::new();
    for handler in list {
        handlers.extend(read_handler(handler, event, skipped)?);
    }
    Ok(Group { matcher, handlers })
}

/// One handler: `Some` to run, `None` when it is skipped (with a line in
/// `notes`), `Err` when the settings ask for what this harness cannot do.
fn read_handler(
    handler: &Value,
    event: &str,
    notes: &mut Vec<String>,
) -> Result<Option<Handler>, String> {
    let invalid = |what: &str| Err(format!("hooks.{event}: {what}"));
    let mut skip = |why: String| {
        notes.push(format!("hooks.{event}: skipped a handler {why}"));
        Ok(None)
    };
    if handler["type"] != "command" {
        let kind = &handler["type"];
        return skip(format!("of type {kind}: only \"command\" runs here"));
    }
    // A background hook cannot block in Claude Code either; running it
    // here in the foreground would let it decide what it cannot there.
    if handler["async"] == true || handler["asyncRewake"] == true {
        return skip("with \"async\": background hooks do not run here".into());
    }
    if handler.get("if").is_some() {
        if !TOOL_EVENTS.contains(&event) {
            return skip(
                "with \"if\" on an event without a tool: Claude Code never runs it".into(),
            );
        }
        // Permission-rule syntax is not read here. Running the handler on
        // every call its matcher matches is what Claude Code does with an
        // `if` it cannot parse: more runs, never a hole in the fence.
        notes.push(format!(
            "hooks.{event}: \"if\" is not read here: the handler runs on every call its matcher matches"
        ));
    }
    let Some(command) = handler["command"].as_str() else {
        return invalid("a command handler needs a \"command\" string");
    };
    let args = match &handler["args"] {
        Value::Null => None,
        Value::Array(args) => match args.iter().map(Value::as_str).collect::<Option<Vec<_>>>() {
            Some(args) => Some(args.into_iter().map(str::to_string).collect()),
            None => return invalid("\"args\" must be a list of strings"),
        },
        _ => return invalid("\"args\" must be a list of strings"),
    };
    // Claude Code ignores `shell` in the exec form; here sh is bash's stand-in,
    // and a PowerShell command run by sh would fail, and fail open.
    if args.is_none() && !matches!(handler["shell"].as_str(), None | Some("bash")) {
        return invalid("only \"shell\": \"bash\" runs here (with sh -c)");
    }
    let fail_closed = match handler["onFailure"].as_str() {
        None | Some("continue") => false,
        Some("block") => true,
        Some(_) => return invalid("\"onFailure\" is \"block\" or \"continue\""),
    };
    Ok(Some(Handler {
        command: command.to_string(),
        args,
        timeout: handler["timeout"].as_u64(),
        fail_closed,
        copies: Vec::new(),
    }))
}

/// How one hook run ended.
pub enum Ran {
    CannotStart(String),
    /// Killed at its timeout (seconds), with every process it started.
    TimedOut(u64),
    /// `code` is `None` when a signal ended it.
    Exited {
        code: Option<i32>,
        stdout: String,
        stderr: String,
    },
}

impl Handler {
    /// Runs the handler in the project folder with `stdin` as its input,
    /// for at most its timeout (`default` seconds unless it sets one);
    /// at the deadline its whole process group is killed.
    pub async fn run(&self, project: &Path, stdin: Vec<u8>, default: u64) -> Ran {
        let seconds = self.timeout.unwrap_or(default);
        let command = self.command(project);
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

    /// The handler as the harness's lines name it: its command, and in the
    /// exec form its arguments, as a JSON list.
    pub fn label(&self) -> String {
        match &self.args {
            Some(args) => format!("{} {}", self.command, serde_json::json!(args)),
            None => self.command.clone(),
        }
    }

    /// The handler as a process: `sh -c COMMAND` (the shell form), or
    /// COMMAND with its `args` and no shell (the exec form, where
    /// `${CLAUDE_PROJECT_DIR}` is replaced as plain text, as Claude Code
    /// does); in the project folder, with CLAUDE_PROJECT_DIR set, its
    /// output piped.
    pub fn command(&self, project: &Path) -> Command {
        let folder = project.display().to_string();
        let placeholder =
            |text: &str| with_copies(text, &self.copies).replace("${CLAUDE_PROJECT_DIR}", &folder);
        let mut command = match &self.args {
            Some(args) => {
                let mut command = Command::new(placeholder(&self.command));
                command.args(args.iter().map(|arg| placeholder(arg)));
                command
            }
            None => {
                let mut command = Command::new("sh");
                command
                    .arg("-c")
                    .arg(with_copies(&self.command, &self.copies));
                command
            }
        };
        command
            .current_dir(project)
            .env("CLAUDE_PROJECT_DIR", project)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    }
}

/// `text` with each script it names replaced by its copy (in the shell
/// form, the shell itself expands CLAUDE_PROJECT_DIR, from the environment).
fn with_copies(text: &str, copies: &[(String, PathBuf)]) -> String {
    copies.iter().fold(text.to_string(), |text, (named, copy)| {
        text.replace(named, &copy.display().to_string())
    })
}

impl<M> Settings<M> {
    /// The handlers of every group under `event` whose matcher `matches`
    /// says yes to, in the settings' order. Two groups that name the same
    /// command (and `args`) run it once, whatever their timeouts (Claude
    /// Code dedupes identical handlers); if either copy says `onFailure:
    /// "block"`, the one run does (a copy must not open what another
    /// closes).
    pub fn handlers(&self, event: &str, matches: impl Fn(&M) -> bool) -> Vec<Handler> {
        let mut handlers: Vec<Handler> = Vec::new();
        let groups = self.events.iter().filter(|(name, _)| name == event);
        for group in groups.flat_map(|(_, groups)| groups) {
            if !matches(&group.matcher) {
                continue;
            }
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
        handlers
    }
}

/// Runs every handler of one event at the same time (Claude Code runs an
/// event's matching hooks in parallel), each with the event's `input` as
/// JSON on stdin; the runs come back in the handlers' order.
pub async fn run_all(
    handlers: &[Handler],
    project: &Path,
    input: &Value,
    default: u64,
) -> Vec<Ran> {
    let stdin = input.to_string().into_bytes();
    let runs: Vec<Run<'_, Ran>> = handlers
        .iter()
        .map(|handler| Box::pin(handler.run(project, stdin.clone(), default)) as Run<'_, Ran>)
        .collect();
    join_all(runs).await
}

impl Handler {
    /// Reads one run of this handler for `event`: the hook's line for the
    /// user, and the reason it blocks with when it failed under
    /// `onFailure: "block"`. A run that exited with a code goes to
    /// `exited`, the chapter's reading of exit codes, with its stdout and
    /// its stderr (trimmed, and cut at Claude Code's cap, as are the line
    /// and the reason: `events::capped`); its `Err` is a failure (a code
    /// that means nothing). A run that could not start, outlived its
    /// timeout or died of a signal failed too. A failure decides nothing,
    /// unless the handler says `onFailure: "block"`: a fence that fails
    /// closed in Claude Code must not fail open here.
    pub fn read(
        &self,
        event: &str,
        ran: Ran,
        exited: impl FnOnce(i32, &str, &str) -> Result<String, String>,
    ) -> (String, Option<String>) {
        let said = |line: &str| format!("  hook {event} {}: {}", self.label(), capped(line.into()));
        let failed = match ran {
            Ran::Exited {
                code: Some(code),
                stdout,
                stderr,
            } => match exited(code, &stdout, &capped(stderr.trim().to_string())) {
                Ok(line) => return (said(&line), None),
                Err(line) => line,
            },
            other => other.failure().unwrap_or_default(),
        };
        if !self.fail_closed {
            return (said(&failed), None);
        }
        let failed = failed.trim_end_matches("; no decision");
        let reason = format!("the hook failed, and its onFailure is \"block\" ({failed})");
        let line = format!("failed ({failed}); its onFailure is \"block\": blocked");
        (said(&line), Some(capped(reason)))
    }
}

impl Ran {
    /// The line for a run that gave no answer to read: it could not start,
    /// outlived its timeout, or died of a signal. `None` when it exited
    /// with a code, whose meaning is the chapter's to read.
    pub fn failure(&self) -> Option<String> {
        match self {
            Ran::CannotStart(err) => Some(format!("cannot start: {err}; no decision")),
            Ran::TimedOut(seconds) => Some(format!(
                "timed out after {seconds} s and was killed; no decision"
            )),
            Ran::Exited { code: None, .. } => Some("killed by a signal; no decision".into()),
            Ran::Exited { code: Some(_), .. } => None,
        }
    }
}

// ANCHOR: snapshot
impl<M> Settings<M> {
    /// Copies each hook script that lives in the project folder into
    /// `into` (a folder of the session's, outside the project), and runs
    /// the handler from the copy. The model's commands can write the
    /// project: without this, `chmod -x` on the script (or rewriting it)
    /// would switch the fence off for every later call. Claude Code
    /// snapshots the hook configuration at start-up, not the scripts; this
    /// harness snapshots both. A script is found where a command names it
    /// as Claude Code's documentation does: a path right after
    /// `$CLAUDE_PROJECT_DIR` or `${CLAUDE_PROJECT_DIR}`, quoted or not.
    /// Returns one line per copy, for the user.
    pub fn snapshot(&mut self, project: &Path, into: &Path) -> Result<Vec<String>, String> {
        let mut lines = Vec::new();
        let handlers = self.events.iter_mut().flat_map(|(_, groups)| groups);
        for handler in handlers.flat_map(|group| &mut group.handlers) {
            // The exec form replaces only `${CLAUDE_PROJECT_DIR}`; the shell
            // expands both spellings.
            let exec = handler.args.is_some();
            let texts = std::iter::once(&handler.command).chain(handler.args.iter().flatten());
            let named: Vec<_> = texts.flat_map(|text| scripts_named(text, exec)).collect();
            for (span, relative) in named {
                let script = project.join(relative.trim_start_matches('/'));
                if !script.is_file() || handler.copies.iter().any(|(seen, _)| *seen == span) {
                    continue;
                }
                let copy = into.join(format!("hook-{}-{}", lines.len() + 1, file_name(&script)));
                // The copy's path goes into a shell command unquoted.
                let plain = |c: char| c.is_ascii_alphanumeric() || "/._-".contains(c);
                if !copy.to_string_lossy().chars().all(plain) {
                    return Err(format!(
                        "cannot copy hook scripts to {}: its path is not plain",
                        into.display()
                    ));
                }
                copy_script(&script, &copy)?;
                lines.push(format!(
                    "hook script {} runs from a copy made now",
                    script.display()
                ));
                handler.copies.push((span, copy));
            }
        }
        Ok(lines)
    }
}
// ANCHOR_END: snapshot

/// The places `text` names a file under the project folder: each span
/// (the variable, with its quotes when they close right after it, and the
/// path) and the path, which starts with `/`.
fn scripts_named(text: &str, exec: bool) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let variables: &[&str] = match exec {
        true => &["${CLAUDE_PROJECT_DIR}"],
        false => &["${CLAUDE_PROJECT_DIR}", "$CLAUDE_PROJECT_DIR"],
    };
    for variable in variables {
        let mut from = 0;
        while let Some(at) = text[from..].find(variable).map(|at| at + from) {
            let quoted = text[..at].ends_with('"') && text[at + variable.len()..].starts_with('"');
            let start = if quoted { at - 1 } else { at };
            let after = at + variable.len() + usize::from(quoted);
            let path: String = text[after..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || "/._-".contains(*c))
                .collect();
            from = after;
            // `$CLAUDE_PROJECT_DIR_OTHER` is another variable; a path starts with `/`.
            if path.starts_with('/') && path.len() > 1 {
                found.push((text[start..after + path.len()].to_string(), path));
            }
        }
    }
    found
}

fn file_name(path: &Path) -> String {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || ".-_".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// A copy that keeps the script's permissions (its executable bit).
fn copy_script(script: &Path, copy: &Path) -> Result<(), String> {
    let failed = |err: std::io::Error| format!("cannot copy the hook {}: {err}", script.display());
    if let Some(folder) = copy.parent() {
        std::fs::create_dir_all(folder).map_err(failed)?;
    }
    std::fs::copy(script, copy).map_err(failed)?;
    Ok(())
}
