//! The `Bash` tool: a command run with `sh -c` in the working folder, so
//! the fence of this chapter has something to fence. Its output is
//! bounded, its exit status reported, and at its timeout the command is
//! killed with every process it started (its process group).

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::AsyncReadExt;
use tokio::process::Command;

/// The tool's name, as Claude Code calls it.
pub const BASH: &str = "Bash";
/// How long a command may run unless its input says otherwise (ms).
const DEFAULT_TIMEOUT_MS: u64 = 120_000;
/// The longest timeout a call may ask for (ms).
const MAX_TIMEOUT_MS: u64 = 600_000;
/// The most bytes of output kept: the model's context is not a log file.
pub const MAX_OUTPUT: usize = 30_000;

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

/// What a bounded run gave back: stdout and stderr (each cut at
/// MAX_OUTPUT), and the status, or `None` when it was killed at its timeout.
pub struct Output {
    pub status: Option<std::process::ExitStatus>,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub cut: bool,
}

impl Output {
    /// stdout then stderr as text, with a note when either was cut.
    pub fn text(&self) -> String {
        let mut text = String::from_utf8_lossy(&self.stdout).into_owned();
        text += &String::from_utf8_lossy(&self.stderr);
        if self.cut {
            text += &format!("\n[output truncated after {MAX_OUTPUT} bytes]");
        }
        text.trim_end().to_string()
    }
}

// ANCHOR: run_bounded
/// Starts `command` in a process group of its own, writes `stdin` to it,
/// reads at most MAX_OUTPUT bytes of each stream, and at `timeout` kills
/// the whole group: a shell's children die with it.
pub async fn run_bounded(
    mut command: Command,
    stdin: Option<Vec<u8>>,
    timeout: Duration,
) -> std::io::Result<Output> {
    #[cfg(unix)]
    command.process_group(0);
    command.kill_on_drop(true);
    if stdin.is_some() {
        command.stdin(Stdio::piped());
    }
    let mut child = command.spawn()?;
    let pid = child.id();
    if let (Some(bytes), Some(mut pipe)) = (stdin, child.stdin.take()) {
        // A child that exits without reading gives a broken pipe: not ours
        // to report. Written on its own task, so a full pipe never blocks.
        tokio::spawn(async move {
            use tokio::io::AsyncWriteExt;
            let _ = pipe.write_all(&bytes).await;
        });
    }
    let stdout = child
        .stdout
        .take()
        .map(|pipe| tokio::spawn(read_bounded(pipe)));
    let stderr = child
        .stderr
        .take()
        .map(|pipe| tokio::spawn(read_bounded(pipe)));
    let status = match tokio::time::timeout(timeout, child.wait()).await {
        Ok(status) => Some(status?),
        Err(_) => {
            kill_group(pid);
            let _ = child.kill().await;
            None
        }
    };
    let (stdout, cut_out) = join_read(stdout).await;
    let (stderr, cut_err) = join_read(stderr).await;
    Ok(Output {
        status,
        stdout,
        stderr,
        cut: cut_out || cut_err,
    })
}
// ANCHOR_END: run_bounded

/// SIGKILL to the process group `pid` leads (the child made it its own).
fn kill_group(pid: Option<u32>) {
    #[cfg(unix)]
    if let Some(pid) = pid.and_then(|pid| i32::try_from(pid).ok()) {
        // SAFETY: kill(2) with a negative pid signals that process group;
        // it touches no memory of ours.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
    #[cfg(not(unix))]
    let _ = pid;
}

type Reading = tokio::task::JoinHandle<(Vec<u8>, bool)>;

async fn join_read(reading: Option<Reading>) -> (Vec<u8>, bool) {
    match reading {
        Some(task) => task.await.unwrap_or_default(),
        None => (Vec::new(), false),
    }
}

/// Reads a pipe to its end, keeping the first MAX_OUTPUT bytes: the rest
/// is read and dropped, so the writer never blocks on a full pipe.
async fn read_bounded(mut pipe: impl tokio::io::AsyncRead + Unpin) -> (Vec<u8>, bool) {
    let mut kept = Vec::new();
    let mut cut = false;
    let mut buffer = [0u8; 8192];
    while let Ok(n) = pipe.read(&mut buffer).await {
        if n == 0 {
            break;
        }
        let room = MAX_OUTPUT.saturating_sub(kept.len());
        kept.extend_from_slice(&buffer[..n.min(room)]);
        cut |= n > room;
    }
    (kept, cut)
}
