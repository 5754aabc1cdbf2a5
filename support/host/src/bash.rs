//! The `Bash` tool: a command run with `sh -c` in the working folder, so
//! that chapter 10's fence has something to fence. No chapter teaches it:
//! it is the thing the hooks guard (and chapter 24's sandbox wraps).
//! Its output is bounded, its exit status reported, and at its timeout
//! the command is killed with every process it started (its process
//! group): that protective part is `process.rs`, shared with the hooks.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use async_trait::async_trait;
use serde_json::{Value, json};
use tokio::process::Command;

use crate::process::run_bounded;
use crate::seams::{Call, Context, Extension, Harness, Outcome};

/// The tool, as an extension of the harness (chapter 10 on): offered
/// after the skills' tools, run in the working folder.
pub struct Bash<'a> {
    pub workdir: &'a Path,
}

#[async_trait(?Send)]
impl Extension for Bash<'_> {
    fn tools(&self, tools: &mut Vec<Value>) {
        tools.push(definition());
    }

    async fn run(&self, _: &Harness<'_>, _: &Context, call: &mut Call) -> Option<Outcome> {
        if call.name() != BASH {
            return None;
        }
        let finished = run(&call.tool_use.input, self.workdir).await;
        Some(finished.map(|finished| finished.result()))
    }
}

/// The tool's name, as Claude Code calls it.
pub const BASH: &str = "Bash";
/// How long a command may run unless its input says otherwise (ms).
const DEFAULT_TIMEOUT_MS: u64 = 120_000;
/// The longest timeout a call may ask for (ms).
const MAX_TIMEOUT_MS: u64 = 600_000;

/// The `Bash` tool as the model sees it.
pub fn definition() -> Value {
    json!({
        "name": BASH,
        "description": "Runs a shell command (sh -c) in the working folder and returns its \
                        output and exit status.",
        "input_schema": {
            "type": "object",
            "properties": {
                "command": { "type": "string", "description": "The command to run" },
                "description": { "type": "string", "description": "What it does, in a few words" },
                "timeout": { "type": "number", "description": "Milliseconds, at most 600000" },
            },
            "required": ["command"],
        },
    })
}

/// A command that ran to its end (not past its timeout).
pub struct Finished {
    /// Its exit code; `None` when a signal ended it.
    pub code: Option<i32>,
    /// stdout then stderr, with a note when either was cut.
    pub text: String,
    pub stdout: String,
    pub stderr: String,
}

impl Finished {
    /// A command that exits non-zero has failed, as Claude Code counts it
    /// for PostToolUseFailure (chapter 11's stretch): an Err that reads
    /// `Exit code N`, then its output.
    pub fn failed_unless_zero(self) -> Result<Finished, String> {
        match self.code {
            Some(code) if code != 0 => {
                let text = format!("Exit code {code}\n{}", self.text);
                Err(text.trim_end().to_string())
            }
            _ => Ok(self),
        }
    }

    /// The tool's result: the text for the model (output, then the exit
    /// status), and, as `structuredContent`, the fields Claude Code gives
    /// PostToolUse hooks as `tool_response`. A non-zero exit is reported,
    /// not failed: the model reads the status and decides.
    pub fn result(&self) -> Value {
        let code = self
            .code
            .map_or("a signal".to_string(), |code| code.to_string());
        let newline = if self.text.is_empty() { "" } else { "\n" };
        let text = format!("{}{newline}exit status {code}", self.text);
        json!({
            "content": [{ "type": "text", "text": text }],
            "structuredContent": {
                "stdout": self.stdout,
                "stderr": self.stderr,
                "interrupted": false,
                "isImage": false,
            },
        })
    }
}

// ANCHOR: run
/// Runs one call. `Err` is a call that could not run or ran out of time,
/// with what it wrote before it was killed.
pub async fn run(input: &Value, workdir: &Path) -> Result<Finished, String> {
    run_in(&[], input, workdir).await
}

/// Runs one call inside `wrapper`, a program and its arguments that take
/// the command (`sh -c …`) after them: chapter 24's sandbox. Empty, the
/// command runs as it is.
pub async fn run_in(wrapper: &[String], input: &Value, workdir: &Path) -> Result<Finished, String> {
    let command = input["command"]
        .as_str()
        .filter(|c| !c.trim().is_empty())
        .ok_or("give \"command\": the shell command to run, as text")?;
    let timeout_ms = input["timeout"]
        .as_u64()
        .unwrap_or(DEFAULT_TIMEOUT_MS)
        .min(MAX_TIMEOUT_MS);
    let mut shell = match wrapper.split_first() {
        Some((program, args)) => {
            let mut wrapped = Command::new(program);
            wrapped.args(args).arg("sh");
            wrapped
        }
        None => Command::new("sh"),
    };
    shell
        .arg("-c")
        .arg(command)
        .current_dir(workdir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let output = run_bounded(shell, None, Duration::from_millis(timeout_ms))
        .await
        .map_err(|err| match wrapper.first() {
            Some(program) => format!("cannot run {program}: {err}"),
            None => format!("cannot run sh: {err}"),
        })?;
    let text = output.text();
    let Some(status) = output.status else {
        return Err(format!(
            "the command ran past its timeout of {timeout_ms} ms and was killed{}",
            with_output(&text)
        ));
    };
    Ok(Finished {
        code: status.code(),
        text,
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    })
}
// ANCHOR_END: run

fn with_output(text: &str) -> String {
    if text.is_empty() {
        String::new()
    } else {
        format!("; its output:\n{text}")
    }
}
