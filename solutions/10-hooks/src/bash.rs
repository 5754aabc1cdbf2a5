//! The `Bash` tool: a command run with `sh -c` in the working folder, so
//! the fence of this chapter has something to fence. Its output is
//! bounded, its exit status reported, and at its timeout the command is
//! killed with every process it started (its process group): that
//! protective part is `wire_host::process`, shared with the hooks.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::process::Command;
use wire_host::process::run_bounded;

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

// ANCHOR: run
/// Runs one call. `Ok` holds the tool's result: the text for the model
/// (output, then the exit status), and, as `structuredContent`, the fields
/// Claude Code gives PostToolUse hooks as `tool_response`. `Err` is a call
/// that could not run or ran out of time.
pub async fn run(input: &Value, workdir: &Path) -> Result<Value, String> {
    let command = input["command"]
        .as_str()
        .filter(|c| !c.trim().is_empty())
        .ok_or("give \"command\": the shell command to run, as text")?;
    let timeout_ms = input["timeout"]
        .as_u64()
        .unwrap_or(DEFAULT_TIMEOUT_MS)
        .min(MAX_TIMEOUT_MS);
    let mut shell = Command::new("sh");
    shell
        .arg("-c")
        .arg(command)
        .current_dir(workdir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let output = run_bounded(shell, None, Duration::from_millis(timeout_ms))
        .await
        .map_err(|err| format!("cannot run sh: {err}"))?;
    let Some(status) = output.status else {
        return Err(format!(
            "the command ran past its timeout of {timeout_ms} ms and was killed{}",
            with_output(&output.text())
        ));
    };
    let text = output.text();
    // STRETCH(ch10/post_tool_failure): a command that exits non-zero has
    // failed, as Claude Code counts it: an Err that reads `Exit code N`,
    // then the output.
    #[cfg(feature = "stretch")]
    if let Some(code) = status.code()
        && code != 0
    {
        return Err(format!("Exit code {code}\n{text}").trim_end().to_string());
    }
    // END(ch10/post_tool_failure)
    let code = status
        .code()
        .map_or("a signal".to_string(), |c| c.to_string());
    let text = format!(
        "{text}{}exit status {code}",
        if text.is_empty() { "" } else { "\n" }
    );
    Ok(json!({
        "content": [{ "type": "text", "text": text }],
        "structuredContent": {
            "stdout": String::from_utf8_lossy(&output.stdout),
            "stderr": String::from_utf8_lossy(&output.stderr),
            "interrupted": false,
            "isImage": false,
        },
    }))
}
// ANCHOR_END: run

fn with_output(text: &str) -> String {
    if text.is_empty() {
        String::new()
    } else {
        format!("; its output:\n{text}")
    }
}
