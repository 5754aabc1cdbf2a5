//! Running a command with bounds: what chapter 10's `Bash` tool and its
//! hooks both need, and neither chapter's lesson. A command runs in a
//! process group of its own, its output is kept up to a limit, and at its
//! deadline the whole group is killed: a shell's children die with it.
//! The deadline holds for the pipes too, so a child that the command left
//! running in the background (`sleep 60 &`) cannot keep the harness
//! waiting for an end of file.

use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::Command;
use tokio::time::{Instant, timeout_at};

/// The most bytes of each stream kept: the model's context is not a log file.
pub const MAX_OUTPUT: usize = 30_000;

/// What a bounded run gave back: stdout and stderr (each cut at
/// MAX_OUTPUT), and the status, or `None` when it was killed at its
/// deadline (the command, or what it left holding its pipes, ran too long).
pub struct Output {
    pub status: Option<ExitStatus>,
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
/// the whole group, whether the command itself is still running or only
/// something it started still holds its pipes.
pub async fn run_bounded(
    mut command: Command,
    stdin: Option<Vec<u8>>,
    timeout: Duration,
) -> std::io::Result<Output> {
    let deadline = Instant::now() + timeout;
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
            let _ = pipe.write_all(&bytes).await;
        });
    }
    // Each stream is read into a buffer of its own, so what arrived before
    // the deadline is kept even when the reads never end.
    let (out, err) = (Kept::default(), Kept::default());
    let (stdout, stderr) = (child.stdout.take(), child.stderr.take());
    // The pipes are read while the command runs: a full pipe would stop it.
    let finished = async {
        let (status, (), ()) = tokio::join!(
            child.wait(),
            read_bounded(stdout, out.clone()),
            read_bounded(stderr, err.clone())
        );
        status
    };
    let status = match timeout_at(deadline, finished).await {
        Ok(status) => Some(status?),
        Err(_) => {
            kill_group(pid);
            let _ = child.kill().await;
            None
        }
    };
    let ((stdout, cut_out), (stderr, cut_err)) = (out.take(), err.take());
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

/// The bytes of one stream read so far, and whether some were dropped.
#[derive(Clone, Default)]
struct Kept(Arc<Mutex<(Vec<u8>, bool)>>);

impl Kept {
    fn take(&self) -> (Vec<u8>, bool) {
        let mut kept = self
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        std::mem::take(&mut *kept)
    }
}

/// Reads a pipe to its end, keeping the first MAX_OUTPUT bytes: the rest
/// is read and dropped, so the writer never blocks on a full pipe.
async fn read_bounded(pipe: Option<impl AsyncRead + Unpin>, kept: Kept) {
    let Some(mut pipe) = pipe else {
        return;
    };
    let mut buffer = [0u8; 8192];
    while let Ok(n) = pipe.read(&mut buffer).await {
        if n == 0 {
            break;
        }
        let mut kept = kept
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let room = MAX_OUTPUT.saturating_sub(kept.0.len());
        kept.0.extend_from_slice(&buffer[..n.min(room)]);
        kept.1 |= n > room;
    }
}
