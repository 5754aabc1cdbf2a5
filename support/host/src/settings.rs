//! Claude Code's `settings.json`, the part a harness reads: `hooks`, which
//! maps an event to matcher groups, each with its handlers. Reading the
//! file is format plumbing, no chapter's lesson: chapter 10 teaches what a
//! matcher means (it hands `load` its own parser) and what a hook's answer
//! means; chapter 17 adds the file's permissions and sandbox.
//!
//! A handler field this harness does not implement is never ignored in
//! silence: it is either refused (the settings are invalid, the harness
//! does not start) or skipped with a line that says what happens instead.

use std::fmt::Display;
use std::path::Path;
use std::process::Stdio;

use serde_json::Value;
use tokio::process::Command;

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
    }))
}

impl Handler {
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
        let placeholder = |text: &str| text.replace("${CLAUDE_PROJECT_DIR}", &folder);
        let mut command = match &self.args {
            Some(args) => {
                let mut command = Command::new(placeholder(&self.command));
                command.args(args.iter().map(|arg| placeholder(arg)));
                command
            }
            None => {
                let mut command = Command::new("sh");
                command.arg("-c").arg(&self.command);
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
