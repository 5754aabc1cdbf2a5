//! One connection to one MCP server: the child process, its three pipes, and
//! the requests still waiting for their replies.
//!
//! Three things run at once on a connection: whoever sends requests, a
//! reader task that owns stdout, and a task that passes stderr through.
//! The reader hands each reply to the request that waits for it through a
//! oneshot channel kept in `pending`, keyed by the request id.

use std::collections::HashMap;
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Serialize;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// How long a server may take to exit once its stdin is closed.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(2);

/// JSON-RPC 2.0's code for a method the receiver does not have.
pub const METHOD_NOT_FOUND: i64 = -32601;

#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// How long to wait for any one reply.
    pub timeout: Duration,
    /// Print every frame, both ways, on stderr.
    pub trace: bool,
}

/// What a reply carries: the `result`, or the `error` object.
type Outcome = Result<Value, Value>;
/// Requests sent and not yet answered: id → where to deliver the reply.
type Pending = Arc<Mutex<HashMap<u64, oneshot::Sender<Outcome>>>>;
/// stdin is shared: requests write to it, and so does the reader when it
/// answers a request from the server.
type Stdin = Arc<tokio::sync::Mutex<Option<ChildStdin>>>;

pub struct Connection {
    pub name: String,
    stdin: Stdin,
    pending: Pending,
    /// The id of the next request: 1, 2, 3… per connection. A counter that
    /// many tasks bump at once is what an atomic is for: no lock, and the
    /// `Relaxed` ordering, since each caller only needs a number of its own.
    next_id: AtomicU64,
    options: Options,
    child: Child,
    tasks: Vec<JoinHandle<()>>,
}

// ANCHOR: frames
/// A request frame. A struct, not `json!`, so the fields go out in the
/// order people expect to read them: jsonrpc, id, method, params.
#[derive(Serialize)]
struct Request<'a> {
    jsonrpc: &'static str,
    id: u64,
    method: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    params: Option<Value>,
}

/// A notification: like a request, but without an id and never answered.
#[derive(Serialize)]
struct Notification<'a> {
    jsonrpc: &'static str,
    method: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    params: Option<Value>,
}
// ANCHOR_END: frames

// ANCHOR: spawn
impl Connection {
    /// Starts `command` (a program and its arguments) with all three pipes.
    pub fn spawn(name: &str, command: &[String], options: Options) -> Result<Connection, String> {
        let (program, args) = command
            .split_first()
            .ok_or_else(|| format!("server {name}: the command is empty"))?;
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // If we panic or forget, the child must not outlive us.
            .kill_on_drop(true)
            .spawn()
            .map_err(|err| format!("server {name}: cannot start {program:?}: {err}"))?;
        let stdin: Stdin = Arc::new(tokio::sync::Mutex::new(child.stdin.take()));
        let pending: Pending = Arc::default();
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr = child.stderr.take().expect("stderr is piped");
        let reader = tokio::spawn(read_frames(
            name.to_string(),
            stdout,
            Arc::clone(&pending),
            Arc::clone(&stdin),
            options.trace,
        ));
        // The server's logs are passed through, marked with its name, and
        // never mixed with frames: frames only ever come from stdout.
        let prefix = format!("[{name} stderr]");
        let logs = tokio::spawn(async move {
            let mut lines = BufReader::new(stderr).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                eprintln!("{prefix} {line}");
            }
        });
        Ok(Connection {
            name: name.to_string(),
            stdin,
            pending,
            next_id: AtomicU64::new(1),
            options,
            child,
            tasks: vec![reader, logs],
        })
    }
    // ANCHOR_END: spawn

    // ANCHOR: request
    /// Sends a request and waits for its reply, or for the timeout.
    pub async fn request(&self, method: &str, params: Option<Value>) -> Result<Value, String> {
        let name = &self.name;
        // TODO(ch06/request): take the next id, register a oneshot sender for
        // it in `pending` BEFORE sending (the reply may come back at once),
        // send the request (and forget the entry if the send fails), then
        // wait for the receiver under a timeout. Deliver an error object as
        // Err, and a closed channel as "the server exited". On timeout, go
        // to ch06/cancel.
        todo!(
            "ch06/request: take the next id, register a oneshot sender for it in `pending` BEFORE sending (the reply may come back at once), send the request (and forget the entry if the send fails), then wait for the receiver under a timeout. Deliver an error object as Err, and a closed channel as \"the server exited\". On timeout, go to ch06/cancel."
        )
        // END(ch06/request)
    }

    /// The timeout fired: give up on request `id`, and say so.
    async fn cancel(&self, id: u64, method: &str) -> Result<Value, String> {
        let name = &self.name;
        // TODO(ch06/cancel): forget the pending request, so a late reply
        // finds nobody waiting, and tell the server with
        // notifications/cancelled (requestId and a reason).
        Err(format!("server {name}: {method} timed out"))
        // END(ch06/cancel)
    }
    // ANCHOR_END: request

    /// Sends a notification: no id, and no reply to wait for.
    pub async fn notify(&self, method: &str, params: Option<Value>) -> Result<(), String> {
        let notification = Notification {
            jsonrpc: "2.0",
            method,
            params,
        };
        self.send(&notification).await
    }

    async fn send(&self, frame: &impl Serialize) -> Result<(), String> {
        write_frame(&self.name, &self.stdin, frame, self.options.trace).await
    }

    // ANCHOR: shutdown
    /// There is no shutdown message in MCP. The spec's steps for stdio:
    /// close stdin, the server's signal to exit; wait; send SIGTERM; wait;
    /// send SIGKILL.
    pub async fn shutdown(mut self) {
        let name = &self.name;
        self.stdin.lock().await.take(); // Dropping the pipe closes it.
        let mut exited = tokio::time::timeout(SHUTDOWN_GRACE, self.child.wait()).await;
        if exited.is_err() {
            eprintln!("[{name}] still running after stdin closed; asking it to terminate");
            terminate(&self.child);
            exited = tokio::time::timeout(SHUTDOWN_GRACE, self.child.wait()).await;
        }
        match exited {
            Ok(Ok(status)) if !status.success() => eprintln!("[{name}] exited with {status}"),
            Ok(_) => {}
            Err(_) => {
                eprintln!("[{name}] still running; killing it");
                let _ = self.child.kill().await;
            }
        }
        // The reader and the stderr task end at end-of-file.
        for task in self.tasks {
            let _ = task.await;
        }
    }
    // ANCHOR_END: shutdown
}

// ANCHOR: terminate
/// Sends SIGTERM: "please exit", which a server can catch to clean up.
/// tokio's `Child` can only kill (SIGKILL), so this goes through libc.
#[cfg(unix)]
fn terminate(child: &Child) {
    // `id()` is None once the child has been reaped: nothing to signal.
    if let Some(pid) = child.id().and_then(|id| libc::pid_t::try_from(id).ok()) {
        // SAFETY: kill(2) takes plain integers and touches no memory of
        // ours. The pid is still our child's: it is not reaped until we
        // wait for it, so the number cannot belong to another process.
        unsafe { libc::kill(pid, libc::SIGTERM) };
    }
}

/// Windows has no SIGTERM: the next step, `kill`, is TerminateProcess.
#[cfg(not(unix))]
fn terminate(_child: &Child) {}
// ANCHOR_END: terminate

async fn write_frame(
    name: &str,
    stdin: &Stdin,
    frame: &impl Serialize,
    trace: bool,
) -> Result<(), String> {
    let mut line = serde_json::to_string(frame).map_err(|err| err.to_string())?;
    if trace {
        eprintln!("[{name}] -> {line}");
    }
    line.push('\n');
    let mut stdin = stdin.lock().await;
    let pipe = stdin
        .as_mut()
        .ok_or_else(|| format!("server {name}: stdin is already closed"))?;
    // One write_all per frame, under the lock: frames never interleave.
    // The `?` skips the flush when the write failed.
    let write = async {
        pipe.write_all(line.as_bytes()).await?;
        pipe.flush().await
    };
    write
        .await
        .map_err(|err| format!("server {name} stopped reading its stdin: {err}"))
}

// ANCHOR: reader
/// Owns the server's stdout: reads one frame per line and routes it.
async fn read_frames(
    name: String,
    stdout: ChildStdout,
    pending: Pending,
    stdin: Stdin,
    trace: bool,
) {
    let mut lines = BufReader::new(stdout).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        if trace {
            eprintln!("[{name}] <- {line}");
        }
        let message: Value = match serde_json::from_str(&line) {
            Ok(message) => message,
            Err(err) => {
                eprintln!("[{name}] not a JSON-RPC frame ({err}); stdout is for frames only");
                continue;
            }
        };
        let id = message.get("id").and_then(Value::as_u64);
        match (id, message.get("method")) {
            // A reply: hand it to whoever waits for this id.
            (Some(id), None) => {
                let reply = match message.get("error") {
                    Some(error) => Err(error.clone()),
                    None => Ok(message.get("result").cloned().unwrap_or(Value::Null)),
                };
                match pending.lock().unwrap().remove(&id) {
                    Some(waiting) => {
                        let _ = waiting.send(reply);
                    }
                    // Cancelled after a timeout, or never sent: ignore it.
                    None => eprintln!("[{name}] ignoring a reply to request {id}: nobody waits"),
                }
            }
            // A request from the server. We offered no client capabilities,
            // so only ping gets a real answer.
            (_, Some(method)) if message.get("id").is_some() => {
                let id = &message["id"];
                let not_found = json!({ "code": METHOD_NOT_FOUND, "message": "Method not found" });
                let reply = match method.as_str() {
                    Some("ping") => json!({ "jsonrpc": "2.0", "id": id, "result": {} }),
                    _ => json!({ "jsonrpc": "2.0", "id": id, "error": not_found }),
                };
                let _ = write_frame(&name, &stdin, &reply, trace).await;
            }
            (_, Some(method)) => eprintln!("[{name}] notification {method}"),
            _ => eprintln!("[{name}] a frame that is neither reply nor request: {line}"),
        }
    }
    // End of file: the server is gone. Dropping the senders wakes every
    // request still waiting, with "exited before answering".
    pending.lock().unwrap().clear();
}
// ANCHOR_END: reader

// ANCHOR: split_command
/// Splits `COMMAND` into a program and its arguments at spaces; a part
/// with spaces inside can be put in double quotes.
pub fn split_command(command: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut part = String::new();
    let mut quoted = false;
    let mut started = false;
    for c in command.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                started = true;
            }
            c if c.is_whitespace() && !quoted => {
                if started {
                    parts.push(std::mem::take(&mut part));
                }
                started = false;
            }
            c => {
                part.push(c);
                started = true;
            }
        }
    }
    if started {
        parts.push(part);
    }
    parts
}
// ANCHOR_END: split_command
