//! One client connection to one MCP server, over stdio (`--server
//! NAME=COMMAND`) or Streamable HTTP (`--server NAME=URL`), for chapter 15.
//! Support-own plumbing, no chapter's lesson: the chapter decides what to
//! send and how to answer; this module moves the frames.
//!
//! A request sent is a `Call`: its messages arrive one by one (`Call::next`),
//! the server's own requests first (elicitation, sampling, roots, on the
//! connection or in the POST's event stream), the reply last. Over stdio a
//! server request goes to the call with the lowest id still waiting (the
//! course's choice: the spec ties a 2025-11-25 server request to no call on
//! stdio); over HTTP it goes to the call whose stream carried it.
//!
//! HTTP: every message is a POST of its own (one TCP connection each, no
//! pool); the reply is JSON or an event stream (`text/event-stream`) read
//! as it comes. `Mcp-Session-Id` is kept from the first response that
//! names one and sent on every later request; a stream that ends before
//! its reply is resumed with a GET and `Last-Event-ID`, after the `retry:`
//! the server set. 2025-11-25 requests after initialize carry
//! `MCP-Protocol-Version`; a 2026-07-28 request (its `_meta` names the
//! revision) carries that version. Every message with a method carries
//! `Mcp-Method` and, for `tools/call`, `prompts/get` and `resources/read`,
//! `Mcp-Name` (base64-encoded when a header cannot carry it plainly:
//! Streamable HTTP, "Value Encoding"); 2026-07-28 asks for them, a
//! 2025-11-25 server ignores them. At
//! shutdown a 2025-11-25 session is ended with a DELETE.

use std::collections::HashMap;
use std::process::Stdio as Piped;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::header::{self, HeaderValue};
use hyper::{Request, Response, StatusCode, Uri};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::mpsc;

use crate::connection::METHOD_NOT_FOUND;

/// The revision whose requests carry their own `_meta` (no initialize).
pub const MODERN: &str = "2026-07-28";
/// JSON-RPC 2.0's codes for a request that is not valid, and for a fault of
/// the receiver's own (a method it lacks is `connection::METHOD_NOT_FOUND`).
pub const INVALID_REQUEST: i64 = -32600;
pub const INTERNAL_ERROR: i64 = -32603;
/// The largest message this client reads (a JSON body, one event's data).
pub const MAX_MESSAGE_BYTES: usize = 8 * 1024 * 1024;
/// How often a stream that ends before its reply is resumed.
const MAX_RESUMES: usize = 3;
/// A call's overall deadline, in timeouts: progress notifications reset
/// the timeout, never past this.
const OVERALL_TIMEOUTS: u32 = 10;
/// How long a server may take to exit once its stdin is closed.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(2);

/// What the harness adds to every request's params before a link sends
/// it, after the rest of its `_meta` is in place (chapter 25: a trace
/// context): the transport's seam.
pub type Stamp = Arc<dyn Fn(&mut Value) + Send + Sync>;

/// What arrives for one call.
#[derive(Debug)]
pub enum Message {
    /// The reply: its `result`, or its `error` object.
    Reply(Result<Value, Value>),
    /// A request of the server's, to answer with `Link::answer`.
    Request {
        id: Value,
        method: String,
        params: Value,
    },
    /// The connection failed before the reply: why.
    Broken(String),
}

/// What travels to a call: a message, or `notifications/progress` for it
/// (its `progressToken` is the call's id), which `Call::next` shows and
/// waits on, the timeout reset.
enum Delivery {
    Message(Message),
    Progress(Value),
}

type Sender = mpsc::UnboundedSender<Delivery>;
/// Calls sent and not yet answered: id → where their messages go.
type Waiting = Arc<Mutex<HashMap<u64, Sender>>>;

/// A frame read, sorted.
#[derive(Debug)]
enum Frame {
    Reply(u64, Result<Value, Value>),
    Request(Value, String, Value),
    Notification(String, Value),
}

/// Sorts one frame, or says precisely why it is none.
fn classify(text: &str) -> Result<Frame, String> {
    let value: Value =
        serde_json::from_str(text).map_err(|err| format!("not JSON ({err}): {}", cut(text)))?;
    let Some(object) = value.as_object() else {
        return Err(format!("not a JSON-RPC object: {}", cut(text)));
    };
    if object.get("jsonrpc") != Some(&json!("2.0")) {
        return Err(format!("no \"jsonrpc\":\"2.0\": {}", cut(text)));
    }
    let params = object.get("params").cloned().unwrap_or(Value::Null);
    match (object.get("id"), object.get("method")) {
        (Some(id), Some(Value::String(method))) => {
            Ok(Frame::Request(id.clone(), method.clone(), params))
        }
        (None, Some(Value::String(method))) => Ok(Frame::Notification(method.clone(), params)),
        (Some(id), None) => {
            let id = id
                .as_u64()
                .ok_or(format!("a reply to an id this client never sent: {id}"))?;
            match (object.get("result"), object.get("error")) {
                (Some(result), None) => Ok(Frame::Reply(id, Ok(result.clone()))),
                (None, Some(error)) if error.get("code").is_some_and(Value::is_i64) => {
                    Ok(Frame::Reply(id, Err(error.clone())))
                }
                _ => Err(format!(
                    "a reply needs a result or an error with a code, not both: {}",
                    cut(text)
                )),
            }
        }
        _ => Err(format!(
            "neither a request, a notification nor a reply: {}",
            cut(text)
        )),
    }
}

/// At most 200 characters of `text`, for an error message.
fn cut(text: &str) -> String {
    let mut shown: String = text.chars().take(200).collect();
    if shown.len() < text.len() {
        shown.push('…');
    }
    shown
}

/// One connection: to a child process, or to a URL.
pub struct Link {
    pub name: String,
    /// How long a call waits for its next message.
    pub timeout: Duration,
    /// Print every frame, both ways, on stderr.
    pub trace: bool,
    next_id: AtomicU64,
    waiting: Waiting,
    /// The 2025-era revision agreed in initialize, for the HTTP header.
    version: Mutex<Option<String>>,
    /// Set by `notifications/tools/list_changed`, taken by `tools_changed`.
    changed: Arc<AtomicBool>,
    /// 2026-07-28: the capabilities `server/discover` named, and whether
    /// a `subscriptions/listen` for a changed tool list is open.
    discovered: Mutex<Option<Value>>,
    subscribed: AtomicBool,
    /// Run on every request's params, listings and the handshake included
    /// (set it before the handshake); none, nothing is added.
    pub stamp: Option<Stamp>,
    kind: Kind,
}

enum Kind {
    Stdio {
        stdin: Arc<tokio::sync::Mutex<Option<ChildStdin>>>,
        child: Box<tokio::sync::Mutex<Child>>,
    },
    Http(Arc<Http>),
}

struct Http {
    uri: Uri,
    session: Mutex<Option<String>>,
    /// The 2025-era revision agreed in initialize, for a resuming GET.
    agreed: Mutex<Option<String>>,
    /// Per tool, the arguments its schema mirrors into headers
    /// (`x-mcp-header`): (property, header name).
    params: Mutex<HashMap<String, Vec<(String, String)>>>,
    /// The server process, when this link started it (`--listen`), and
    /// the task that passes its stderr through.
    child: Mutex<Option<(Child, tokio::task::JoinHandle<()>)>>,
}

/// A request sent: its messages, as they come.
pub struct Call {
    pub id: u64,
    receiver: mpsc::UnboundedReceiver<Delivery>,
    waiting: Waiting,
    timeout: Duration,
    deadline: tokio::time::Instant,
    what: String,
}

impl Call {
    /// The next message of this call: a server request, then the reply.
    /// Progress is shown (on stderr) and resets the timeout, up to the
    /// call's overall deadline.
    pub async fn next(&mut self) -> Result<Message, String> {
        loop {
            let until = (tokio::time::Instant::now() + self.timeout).min(self.deadline);
            match tokio::time::timeout_at(until, self.receiver.recv()).await {
                Ok(Some(Delivery::Progress(params))) => {
                    let (done, total) = (&params["progress"], &params["total"]);
                    let message = params["message"].as_str().unwrap_or_default();
                    eprintln!("{}: progress {done}/{total} {message}", self.what);
                }
                Ok(Some(Delivery::Message(Message::Broken(why)))) => {
                    return Err(format!("{}: {why}", self.what));
                }
                Ok(Some(Delivery::Message(message))) => return Ok(message),
                Ok(None) => {
                    return Err(format!(
                        "{}: the connection closed before the reply",
                        self.what
                    ));
                }
                Err(_) => {
                    self.waiting.lock().unwrap().remove(&self.id);
                    let ms = self.timeout.as_millis();
                    let overall = tokio::time::Instant::now() >= self.deadline;
                    let what = if overall {
                        "past the call's overall deadline"
                    } else {
                        "no reply or progress"
                    };
                    return Err(format!("{}: {what} within {ms} ms", self.what));
                }
            }
        }
    }
}

impl Link {
    /// Starts the server: a URL (`http://…`) is reached over Streamable
    /// HTTP; a command that ends in `--listen ADDR` (the course's HTTP
    /// servers) is started and reached over HTTP at the URL it prints;
    /// anything else is a command started with its three pipes.
    pub async fn open(
        name: &str,
        command: &[String],
        timeout: Duration,
        trace: bool,
    ) -> Result<Link, String> {
        let kind = match command {
            [.., flag, _] if flag == "--listen" => {
                let (uri, child) = listening(name, command, timeout * OVERALL_TIMEOUTS).await?;
                Kind::Http(Arc::new(Http {
                    uri,
                    session: Mutex::new(None),
                    agreed: Mutex::new(None),
                    params: Mutex::default(),
                    child: Mutex::new(Some(child)),
                }))
            }
            [url] if url.starts_with("https://") => {
                return Err(format!(
                    "server {name}: {url}: this client speaks plain http:// only"
                ));
            }
            [url] if url.starts_with("http://") => {
                let uri: Uri = url
                    .parse()
                    .map_err(|err| format!("server {name}: {url}: {err}"))?;
                Kind::Http(Arc::new(Http {
                    uri,
                    session: Mutex::new(None),
                    agreed: Mutex::new(None),
                    params: Mutex::default(),
                    child: Mutex::new(None),
                }))
            }
            _ => spawn(name, command)?,
        };
        let link = Link {
            name: name.to_string(),
            timeout,
            trace,
            next_id: AtomicU64::new(1),
            waiting: Waiting::default(),
            version: Mutex::new(None),
            changed: Arc::default(),
            discovered: Mutex::new(None),
            subscribed: AtomicBool::new(false),
            stamp: None,
            kind,
        };
        if let Kind::Stdio { child, stdin } = &link.kind {
            let stdout = child
                .try_lock()
                .ok()
                .and_then(|mut child| child.stdout.take());
            let reader = link.reader(Arc::clone(stdin));
            tokio::spawn(reader.stdio(stdout));
        }
        Ok(link)
    }

    fn reader(&self, stdin: Arc<tokio::sync::Mutex<Option<ChildStdin>>>) -> Reader {
        let http = match &self.kind {
            Kind::Http(http) => Some(Arc::clone(http)),
            Kind::Stdio { .. } => None,
        };
        Reader {
            name: self.name.clone(),
            trace: self.trace,
            waiting: Arc::clone(&self.waiting),
            changed: Arc::clone(&self.changed),
            stdin,
            http,
        }
    }

    /// Whether the server said its tools changed since this was last asked.
    pub fn tools_changed(&self) -> bool {
        self.changed.swap(false, Ordering::Relaxed)
    }

    /// 2026-07-28: a change notification comes only on a subscription.
    /// When `server/discover` said the tool list can change
    /// (`tools.listChanged`), opens one for it, once, with `meta`; its
    /// acknowledgment and notifications arrive like any others. The
    /// request stays open and no call waits on it, so a server request can
    /// never be routed to it; its reply would only mean the server ended it.
    pub async fn subscribe_to_tools(&self, meta: &Value) -> Result<(), String> {
        let can_change = self
            .discovered
            .lock()
            .unwrap()
            .as_ref()
            .is_some_and(|capabilities| capabilities["tools"]["listChanged"] == true);
        if !can_change || self.subscribed.swap(true, Ordering::Relaxed) {
            return Ok(());
        }
        let params = json!({ "_meta": meta, "notifications": { "toolsListChanged": true } });
        let call = self.send("subscriptions/listen", Some(params)).await?;
        self.waiting.lock().unwrap().remove(&call.id);
        Ok(())
    }

    /// The arguments of `tool` that its calls mirror into `Mcp-Param-NAME`
    /// headers (SEP-2243's `x-mcp-header`), over HTTP.
    pub fn mirror_params(&self, tool: &str, params: Vec<(String, String)>) {
        if let Kind::Http(http) = &self.kind {
            http.params.lock().unwrap().insert(tool.to_string(), params);
        }
    }

    /// 2026-07-28: the capabilities `server/discover` named (chapter 21
    /// reads the extensions there); `None` for a 2025-era server.
    pub fn discovered(&self) -> Option<Value> {
        self.discovered.lock().unwrap().clone()
    }

    /// Whether this link is Streamable HTTP.
    pub fn is_http(&self) -> bool {
        matches!(self.kind, Kind::Http(_))
    }

    /// The revision initialize agreed on: later 2025-era HTTP requests name it.
    pub fn agreed(&self, version: &str) {
        *self.version.lock().unwrap() = Some(version.to_string());
        if let Kind::Http(http) = &self.kind {
            *http.agreed.lock().unwrap() = Some(version.to_string());
        }
    }

    /// Sends a request; its messages come through the `Call`.
    pub async fn send(&self, method: &str, params: Option<Value>) -> Result<Call, String> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (sender, receiver) = mpsc::unbounded_channel();
        self.waiting.lock().unwrap().insert(id, sender);
        let mut frame = json!({ "jsonrpc": "2.0", "id": id, "method": method });
        if let Some(params) = params {
            frame["params"] = params;
        }
        if method == "tools/call" {
            // A tool may take long: its progress names the call's id.
            frame["params"]["_meta"]["progressToken"] = json!(id);
        }
        if let Some(stamp) = &self.stamp {
            stamp(&mut frame["params"]);
        }
        let what = format!("server {}: {method}", self.name);
        let deadline = tokio::time::Instant::now() + self.timeout * OVERALL_TIMEOUTS;
        let waiting = Arc::clone(&self.waiting);
        let call = Call {
            id,
            receiver,
            waiting,
            timeout: self.timeout,
            deadline,
            what,
        };
        if let Err(err) = self.write(&frame).await {
            self.waiting.lock().unwrap().remove(&id);
            return Err(err);
        }
        Ok(call)
    }

    /// A request whose server requests are all refused (the handshake,
    /// the listings): its result, or the error object as text.
    pub async fn request(&self, method: &str, params: Option<Value>) -> Result<Value, String> {
        self.request_raw(method, params)
            .await?
            .map_err(|error| format!("server {} answered {method} with {error}", self.name))
    }

    /// As `request`, the error object kept: the caller reads its code.
    pub async fn request_raw(
        &self,
        method: &str,
        params: Option<Value>,
    ) -> Result<Result<Value, Value>, String> {
        let mut call = self.send(method, params).await?;
        loop {
            match call.next().await? {
                Message::Reply(reply) => {
                    if method == "server/discover"
                        && let Ok(result) = &reply
                    {
                        *self.discovered.lock().unwrap() = Some(result["capabilities"].clone());
                    }
                    return Ok(reply);
                }
                Message::Request {
                    id, method: asked, ..
                } => {
                    let why = format!("{asked} is not answered during {method}");
                    self.answer(&id, Err((METHOD_NOT_FOUND, why))).await?;
                }
                Message::Broken(why) => return Err(why),
            }
        }
    }

    /// Answers the server's request `id`: a result, or an error.
    pub async fn answer(
        &self,
        id: &Value,
        outcome: Result<Value, (i64, String)>,
    ) -> Result<(), String> {
        let frame = match outcome {
            Ok(result) => json!({ "jsonrpc": "2.0", "id": id, "result": result }),
            Err((code, message)) => {
                json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } })
            }
        };
        self.write(&frame).await
    }

    /// Sends a notification: no id, no reply.
    pub async fn notify(&self, method: &str, params: Option<Value>) -> Result<(), String> {
        let mut frame = json!({ "jsonrpc": "2.0", "method": method });
        if let Some(params) = params {
            frame["params"] = params;
        }
        self.write(&frame).await
    }

    async fn write(&self, frame: &Value) -> Result<(), String> {
        let line = frame.to_string();
        if self.trace {
            eprintln!("[{}] -> {line}", self.name);
        }
        match &self.kind {
            Kind::Stdio { stdin, .. } => {
                let mut stdin = stdin.lock().await;
                let pipe = stdin
                    .as_mut()
                    .ok_or(format!("server {}: stdin is closed", self.name))?;
                let write = async {
                    pipe.write_all(format!("{line}\n").as_bytes()).await?;
                    pipe.flush().await
                };
                write
                    .await
                    .map_err(|err| format!("server {} stopped reading its stdin: {err}", self.name))
            }
            Kind::Http(http) => {
                let version = self.version.lock().unwrap().clone();
                let request = http.post(frame, version.as_deref())?;
                let reader = self.reader(Arc::default());
                let id = frame
                    .get("method")
                    .and(frame.get("id"))
                    .and_then(Value::as_u64);
                let response = exchange(&http.uri, request).await;
                let response = response.map_err(|err| format!("server {}: {err}", self.name))?;
                http.keep_session(&response);
                match id {
                    Some(id) => {
                        tokio::spawn(reader.http(Arc::clone(http), id, response));
                        Ok(())
                    }
                    None => {
                        accepted(&self.name, response).await?;
                        // The session is open: listen to the server too.
                        // The GET is answered before the next request is
                        // sent, so what arrives on it is never a reply to
                        // a call that raced it; a server that does not
                        // answer it within the timeout is not listened to.
                        let opening = async {
                            let get = http.listen().ok()?;
                            let answer = exchange(&http.uri, get);
                            tokio::time::timeout(self.timeout, answer).await.ok()?.ok()
                        };
                        if frame["method"] == "notifications/initialized"
                            && let Some(stream) = opening.await
                        {
                            tokio::spawn(reader.listen(stream));
                        }
                        Ok(())
                    }
                }
            }
        }
    }

    /// Ends the connection: closes stdin and waits (then kills), or ends
    /// a 2025-11-25 HTTP session with a DELETE.
    pub async fn shutdown(self) {
        match self.kind {
            Kind::Stdio { stdin, child } => {
                stdin.lock().await.take();
                let mut child = child.into_inner();
                if tokio::time::timeout(SHUTDOWN_GRACE, child.wait())
                    .await
                    .is_err()
                {
                    eprintln!(
                        "[{}] still running after stdin closed; killing it",
                        self.name
                    );
                    let _ = child.kill().await;
                }
            }
            Kind::Http(http) => {
                let session = http.session.lock().unwrap().clone();
                if let Some(session) = session {
                    let request = Request::delete(http.uri.clone())
                        .header(header::HOST, authority(&http.uri))
                        .header("Mcp-Session-Id", session)
                        .body(Full::new(Bytes::new()));
                    if let Ok(request) = request {
                        let _ = exchange(&http.uri, request).await;
                    }
                }
                let child = http.child.lock().unwrap().take();
                if let Some(child) = child {
                    stop(&self.name, child).await;
                }
            }
        }
    }
}

/// A course server started with `--listen ADDR`: it serves HTTP, and
/// says where in a `listening on http://…` line on stderr, which this
/// waits for (cargo may build the server first). The rest of its stderr
/// passes through to ours.
async fn listening(
    name: &str,
    command: &[String],
    wait: Duration,
) -> Result<(Uri, (Child, tokio::task::JoinHandle<()>)), String> {
    let (program, args) = command
        .split_first()
        .ok_or_else(|| format!("server {name}: the command is empty"))?;
    let mut child = Command::new(program)
        .args(args)
        .stdin(Piped::null())
        .stdout(Piped::null())
        .stderr(Piped::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|err| format!("server {name}: cannot start {program}: {err}"))?;
    let stderr = child.stderr.take();
    let mut lines = BufReader::new(stderr.ok_or(format!("server {name}: no stderr"))?).lines();
    let found = tokio::time::timeout(wait, async {
        while let Ok(Some(line)) = lines.next_line().await {
            match line.strip_prefix("listening on ") {
                Some(url) => return Some(url.trim().to_string()),
                None => eprintln!("{line}"),
            }
        }
        None
    });
    let url = match found.await {
        Ok(Some(url)) => url,
        Ok(None) => {
            return Err(format!(
                "server {name} exited before it said where it listens"
            ));
        }
        Err(_) => {
            let seconds = wait.as_secs();
            return Err(format!(
                "server {name}: no \"listening on\" line within {seconds} s"
            ));
        }
    };
    let passing = tokio::spawn(async move {
        while let Ok(Some(line)) = lines.next_line().await {
            eprintln!("{line}");
        }
    });
    let uri = url
        .parse()
        .map_err(|err| format!("server {name} listens on {url:?}: {err}"))?;
    Ok((uri, (child, passing)))
}

/// Stops a server this link started: SIGTERM, as a user's Ctrl-C would
/// (the course's servers then say goodbye and exit), then SIGKILL after a
/// grace period. Its last words on stderr are passed on before this
/// returns.
async fn stop(name: &str, (mut child, passing): (Child, tokio::task::JoinHandle<()>)) {
    #[cfg(unix)]
    if let Some(pid) = child.id().and_then(|pid| i32::try_from(pid).ok()) {
        // SAFETY: kill(2) on our own child's pid; no memory is touched.
        unsafe { libc::kill(pid, libc::SIGTERM) };
    }
    if tokio::time::timeout(SHUTDOWN_GRACE, child.wait())
        .await
        .is_err()
    {
        eprintln!("[{name}] still running after SIGTERM; killing it");
        let _ = child.kill().await;
    }
    let _ = tokio::time::timeout(SHUTDOWN_GRACE, passing).await;
}

fn spawn(name: &str, command: &[String]) -> Result<Kind, String> {
    let (program, args) = command
        .split_first()
        .ok_or_else(|| format!("server {name}: the command is empty"))?;
    let mut child = Command::new(program)
        .args(args)
        .stdin(Piped::piped())
        .stdout(Piped::piped())
        .stderr(Piped::inherit())
        .kill_on_drop(true)
        .spawn()
        .map_err(|err| format!("server {name}: cannot start {program:?}: {err}"))?;
    let stdin = Arc::new(tokio::sync::Mutex::new(child.stdin.take()));
    Ok(Kind::Stdio {
        stdin,
        child: Box::new(tokio::sync::Mutex::new(child)),
    })
}

/// Reads frames and hands each to the call it belongs to.
struct Reader {
    name: String,
    trace: bool,
    waiting: Waiting,
    changed: Arc<AtomicBool>,
    /// Over stdio, where a request for no waiting call is refused.
    stdin: Arc<tokio::sync::Mutex<Option<ChildStdin>>>,
    /// Over HTTP, where such a refusal is POSTed.
    http: Option<Arc<Http>>,
}

impl Reader {
    /// One frame, delivered; `Some(id)` when it was the reply to `id`.
    async fn deliver(&self, text: &str, own: Option<u64>) -> Option<u64> {
        let name = &self.name;
        if self.trace {
            eprintln!("[{name}] <- {text}");
        }
        let frame = match classify(text) {
            Ok(frame) => frame,
            Err(why) => {
                eprintln!("[{name}] ignoring a frame: {why}");
                return None;
            }
        };
        match frame {
            Frame::Reply(id, reply) => {
                match self.waiting.lock().unwrap().remove(&id) {
                    Some(sender) => drop(sender.send(Delivery::Message(Message::Reply(reply)))),
                    None => {
                        eprintln!("[{name}] dropping a late reply to request {id}: nobody waits")
                    }
                }
                Some(id)
            }
            Frame::Request(id, method, params) => {
                let sender = {
                    let waiting = self.waiting.lock().unwrap();
                    let target = own.or_else(|| waiting.keys().min().copied());
                    target.and_then(|target| waiting.get(&target).cloned())
                };
                match sender {
                    Some(sender) => drop(sender.send(Delivery::Message(Message::Request {
                        id,
                        method,
                        params,
                    }))),
                    None => self.refuse(id, &method).await,
                }
                None
            }
            Frame::Notification(method, params) => {
                self.notified(&method, params);
                None
            }
        }
    }

    /// A notification: progress goes to its call, a changed tool list is
    /// remembered; the rest is only shown.
    fn notified(&self, method: &str, params: Value) {
        let name = &self.name;
        match method {
            "notifications/progress" => {
                let token = params["progressToken"].as_u64();
                let waiting = self.waiting.lock().unwrap();
                match token.and_then(|token| waiting.get(&token)) {
                    Some(sender) => drop(sender.send(Delivery::Progress(params))),
                    None => eprintln!("[{name}] dropping progress for no waiting call: {params}"),
                }
            }
            "notifications/tools/list_changed" => {
                eprintln!("[{name}] notification {method}: the tools will be listed again");
                self.changed.store(true, Ordering::Relaxed);
            }
            "notifications/subscriptions/acknowledged" => {
                let filter = &params["notifications"];
                eprintln!("[{name}] subscription acknowledged: {filter}");
            }
            _ => eprintln!("[{name}] notification {method}"),
        }
    }

    /// A server request while no call waits: nothing to ask about.
    async fn refuse(&self, id: Value, method: &str) {
        let message =
            format!("{method}: this client answers server requests only during a call of its own");
        let frame = json!({ "jsonrpc": "2.0", "id": id, "error": { "code": INTERNAL_ERROR, "message": message } });
        if let Some(http) = &self.http {
            let agreed = http.agreed.lock().unwrap().clone();
            if let Ok(request) = http.post(&frame, agreed.as_deref()) {
                let _ = exchange(&http.uri, request).await;
            }
        } else if let Some(pipe) = self.stdin.lock().await.as_mut() {
            let _ = pipe.write_all(format!("{frame}\n").as_bytes()).await;
            let _ = pipe.flush().await;
        }
    }

    /// 2025-11-25: the server's own event stream (a GET), where a server
    /// sends what belongs to no POST of ours: a request made outside any
    /// call's stream (the TypeScript SDK's `server.request`), a
    /// notification. A server without one answers 405; then there is
    /// nothing to read. Read until the server ends it.
    async fn listen(self, response: Response<Incoming>) {
        if response.status() != StatusCode::OK || content_type(&response) != "text/event-stream" {
            return;
        }
        let mut stream = Stream::default();
        if let Err(why) = stream.read(&self, None, response.into_body()).await {
            eprintln!("[{}] the server's event stream: {why}", self.name);
        }
    }

    /// Owns the child's stdout: one frame per line.
    async fn stdio(self, stdout: Option<tokio::process::ChildStdout>) {
        let Some(stdout) = stdout else { return };
        let mut lines = BufReader::new(stdout).lines();
        loop {
            match lines.next_line().await {
                Ok(Some(line)) if line.len() > MAX_MESSAGE_BYTES => {
                    eprintln!("[{}] ignoring a frame of {} bytes", self.name, line.len());
                }
                Ok(Some(line)) => drop(self.deliver(&line, None).await),
                Ok(None) => break,
                Err(err) => {
                    eprintln!("[{}] stdout is not UTF-8 lines: {err}", self.name);
                    break;
                }
            }
        }
        self.fail_all("the server exited before answering");
    }

    fn fail_all(&self, why: &str) {
        for (_, sender) in self.waiting.lock().unwrap().drain() {
            let _ = sender.send(Delivery::Message(Message::Broken(why.to_string())));
        }
    }

    fn fail(&self, id: u64, why: String) {
        if let Some(sender) = self.waiting.lock().unwrap().remove(&id) {
            let _ = sender.send(Delivery::Message(Message::Broken(why)));
        }
    }

    /// The response to POST of request `id`: JSON, or an event stream,
    /// resumed with `Last-Event-ID` if it ends before the reply.
    async fn http(self, http: Arc<Http>, id: u64, mut response: Response<Incoming>) {
        let mut stream = Stream::default();
        for _ in 0..=MAX_RESUMES {
            let status = response.status();
            let kind = content_type(&response);
            if status == StatusCode::ACCEPTED {
                return self.fail(id, "the server answered a request with 202 Accepted".into());
            }
            if kind != "text/event-stream" {
                let body = match read_all(response.into_body()).await {
                    Ok(body) => body,
                    Err(why) => return self.fail(id, why),
                };
                return self.json(id, status, &body).await;
            }
            match stream.read(&self, Some(id), response.into_body()).await {
                Ok(true) => return,
                Ok(false) => {}
                Err(why) => return self.fail(id, why),
            }
            let Some(last) = stream.last_id.clone() else {
                return self.fail(id, "the event stream ended before the reply".into());
            };
            tokio::time::sleep(stream.retry).await;
            let resumed = http.resume(&last);
            response = match async { exchange(&http.uri, resumed?).await }.await {
                Ok(response) => response,
                Err(why) => return self.fail(id, format!("resuming after event {last}: {why}")),
            };
        }
        self.fail(
            id,
            format!("the event stream ended {MAX_RESUMES} times before the reply"),
        );
    }

    /// A JSON body: the reply, or an HTTP error said as a JSON-RPC error
    /// (`data.httpStatus`), so that a caller can tell 404 from 400.
    async fn json(&self, id: u64, status: StatusCode, body: &[u8]) {
        let text = String::from_utf8_lossy(body);
        if self.deliver(&text, Some(id)).await == Some(id) {
            return;
        }
        let code = if status == StatusCode::NOT_FOUND {
            METHOD_NOT_FOUND
        } else {
            INVALID_REQUEST
        };
        let message = format!("HTTP {status}: {}", cut(text.trim()));
        let error =
            json!({ "code": code, "message": message, "data": { "httpStatus": status.as_u16() } });
        if let Some(sender) = self.waiting.lock().unwrap().remove(&id) {
            let _ = sender.send(Delivery::Message(Message::Reply(Err(error))));
        }
    }
}

/// An event stream being read: the last event id and the retry delay.
struct Stream {
    last_id: Option<String>,
    retry: Duration,
}

impl Default for Stream {
    fn default() -> Stream {
        Stream {
            last_id: None,
            retry: Duration::from_millis(1000),
        }
    }
}

impl Stream {
    /// Reads events until the reply to `own` (true) or the end (false).
    async fn read(
        &mut self,
        reader: &Reader,
        own: Option<u64>,
        mut body: Incoming,
    ) -> Result<bool, String> {
        let mut buffer: Vec<u8> = Vec::new();
        loop {
            while let Some(end) = event_end(&buffer) {
                let event: Vec<u8> = buffer.drain(..end).collect();
                let text = String::from_utf8(event)
                    .map_err(|_| "an event that is not UTF-8".to_string())?;
                let Some(data) = self.event(&text) else {
                    continue;
                };
                let delivered = reader.deliver(&data, own).await;
                if own.is_some() && delivered == own {
                    return Ok(true);
                }
            }
            if buffer.len() > MAX_MESSAGE_BYTES {
                return Err(format!("an event over {MAX_MESSAGE_BYTES} bytes"));
            }
            match body.frame().await {
                Some(Ok(frame)) => buffer.extend(frame.into_data().unwrap_or_default()),
                Some(Err(err)) => {
                    eprintln!("[{}] the event stream broke: {err}", reader.name);
                    return Ok(false);
                }
                None => return Ok(false),
            }
        }
    }

    /// One event's fields: keeps `id:` and `retry:`, returns the data.
    fn event(&mut self, text: &str) -> Option<String> {
        let mut data: Vec<&str> = Vec::new();
        for line in text.lines() {
            let (field, value) = line.split_once(':').unwrap_or((line, ""));
            let value = value.strip_prefix(' ').unwrap_or(value);
            match field {
                "data" => data.push(value),
                "id" => self.last_id = Some(value.to_string()),
                "retry" => {
                    if let Ok(ms) = value.trim().parse() {
                        self.retry = Duration::from_millis(ms);
                    }
                }
                _ => {}
            }
        }
        let data = data.join("\n");
        (!data.trim().is_empty()).then_some(data)
    }
}

/// Where the first event in `buffer` ends (after its blank line).
fn event_end(buffer: &[u8]) -> Option<usize> {
    let lf = buffer
        .windows(2)
        .position(|w| w == b"\n\n")
        .map(|at| at + 2);
    let crlf = buffer
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map(|at| at + 4);
    match (lf, crlf) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

impl Http {
    /// A POST of `frame`, with the headers its era needs.
    fn post(&self, frame: &Value, agreed: Option<&str>) -> Result<Request<Full<Bytes>>, String> {
        let mut request = Request::post(self.uri.clone())
            .header(header::HOST, authority(&self.uri))
            .header(header::CONTENT_TYPE, "application/json")
            .header(header::ACCEPT, "application/json, text/event-stream");
        if let Some(session) = self.session.lock().unwrap().clone() {
            request = request.header("Mcp-Session-Id", session);
        }
        // Mcp-Method and Mcp-Name on every message that has them (2026-07-28
        // asks for them on all requests and notifications; a 2025-11-25
        // server ignores them); the version: the body's, or the agreed one.
        let method = frame["method"].as_str();
        let params = &frame["params"];
        if let Some(method) = method {
            request = request.header("Mcp-Method", method);
        }
        let name = match method {
            Some("tools/call" | "prompts/get") => params["name"].as_str(),
            Some("resources/read") => params["uri"].as_str(),
            _ => None,
        };
        if let Some(name) = name {
            request = request.header("Mcp-Name", header_name(name));
        }
        let mirrored = match (method, name) {
            (Some("tools/call"), Some(tool)) => self.params.lock().unwrap().get(tool).cloned(),
            _ => None,
        };
        for (property, header) in mirrored.unwrap_or_default() {
            // An argument that is absent or null sends no header.
            let value = match &params["arguments"][&property] {
                Value::String(text) => header_name(text),
                Value::Number(number) => number.to_string(),
                Value::Bool(flag) => flag.to_string(),
                _ => continue,
            };
            request = request.header(format!("Mcp-Param-{header}"), value);
        }
        let modern = params["_meta"]["io.modelcontextprotocol/protocolVersion"].as_str();
        match (modern, agreed) {
            (Some(version), _) => request = request.header("MCP-Protocol-Version", version),
            (None, Some(version)) if method != Some("initialize") => {
                request = request.header("MCP-Protocol-Version", version);
            }
            _ => {}
        }
        let body = Full::new(Bytes::from(frame.to_string()));
        request.body(body).map_err(|err| err.to_string())
    }

    /// A GET that resumes the stream after event `last`.
    fn resume(&self, last: &str) -> Result<Request<Full<Bytes>>, String> {
        self.get(Some(last))
    }

    /// A GET that opens the server's own event stream.
    fn listen(&self) -> Result<Request<Full<Bytes>>, String> {
        self.get(None)
    }

    fn get(&self, last: Option<&str>) -> Result<Request<Full<Bytes>>, String> {
        let mut request = Request::get(self.uri.clone())
            .header(header::HOST, authority(&self.uri))
            .header(header::ACCEPT, "text/event-stream");
        if let Some(last) = last {
            request = request.header("Last-Event-ID", last);
        }
        if let Some(session) = self.session.lock().unwrap().clone() {
            request = request.header("Mcp-Session-Id", session);
        }
        if let Some(version) = self.agreed.lock().unwrap().clone() {
            request = request.header("MCP-Protocol-Version", version);
        }
        request
            .body(Full::new(Bytes::new()))
            .map_err(|err| err.to_string())
    }

    fn keep_session(&self, response: &Response<Incoming>) {
        let session = response
            .headers()
            .get("mcp-session-id")
            .and_then(|value| value.to_str().ok());
        if let Some(session) = session {
            *self.session.lock().unwrap() = Some(session.to_string());
        }
    }
}

/// `Mcp-Name`'s value: the name itself when a header can carry it
/// plainly (visible ASCII and inner spaces; a tab is encoded, as the
/// conformance suite expects; not looking like the encoding), else
/// `=?base64?…?=` around the standard base64 of its UTF-8.
pub fn header_name(name: &str) -> String {
    let plain = name.bytes().all(|byte| (0x20..0x7f).contains(&byte))
        && name.trim() == name
        && !name.starts_with("=?base64?");
    if plain {
        return name.to_string();
    }
    format!("=?base64?{}?=", base64(name.as_bytes()))
}

/// Standard, padded base64 (RFC 4648).
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut text = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | (u32::from(b) << (16 - 8 * i)));
        for i in 0..4 {
            let sextet = (n >> (18 - 6 * i)) & 63;
            text.push(if i <= chunk.len() {
                char::from(ALPHABET[sextet as usize])
            } else {
                '='
            });
        }
    }
    text
}

fn authority(uri: &Uri) -> String {
    uri.authority()
        .map(|authority| authority.to_string())
        .unwrap_or_default()
}

fn content_type(response: &Response<Incoming>) -> String {
    let value = response.headers().get(header::CONTENT_TYPE);
    let value = value
        .and_then(|value: &HeaderValue| value.to_str().ok())
        .unwrap_or_default();
    value
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase()
}

/// A notification or an answer POSTed: 202 (or 200) is the only good news.
async fn accepted(name: &str, response: Response<Incoming>) -> Result<(), String> {
    let status = response.status();
    if status.is_success() {
        return Ok(());
    }
    let body = read_all(response.into_body()).await.unwrap_or_default();
    let body = String::from_utf8_lossy(&body);
    Err(format!(
        "server {name} refused a message with HTTP {status}: {}",
        cut(body.trim())
    ))
}

async fn read_all(mut body: Incoming) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|err| format!("the body broke off: {err}"))?;
        bytes.extend(frame.into_data().unwrap_or_default());
        if bytes.len() > MAX_MESSAGE_BYTES {
            return Err(format!("a body over {MAX_MESSAGE_BYTES} bytes"));
        }
    }
    Ok(bytes)
}

/// One HTTP/1.1 exchange on a TCP connection of its own.
async fn exchange(uri: &Uri, request: Request<Full<Bytes>>) -> Result<Response<Incoming>, String> {
    let host = uri.host().ok_or(format!("{uri}: no host"))?;
    let port = uri.port_u16().unwrap_or(80);
    let stream = tokio::net::TcpStream::connect((host, port))
        .await
        .map_err(|err| format!("cannot reach {uri}: {err}"))?;
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|err| format!("{uri}: {err}"))?;
    tokio::spawn(async move {
        let _ = connection.await;
    });
    let method = request.method().clone();
    sender
        .send_request(request)
        .await
        .map_err(|err| format!("{method} {uri}: {err}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_encoded_as_the_spec_shows() {
        assert_eq!(header_name("get_weather"), "get_weather");
        assert_eq!(
            header_name("Hello, 世界"),
            "=?base64?SGVsbG8sIOS4lueVjA==?="
        );
        assert_eq!(header_name(" padded "), "=?base64?IHBhZGRlZCA=?=");
        assert_eq!(header_name("line1\nline2"), "=?base64?bGluZTEKbGluZTI=?=");
        assert_eq!(
            header_name("=?base64?literal?="),
            "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="
        );
    }

    #[test]
    fn bad_frames_are_named() {
        assert!(classify("{").unwrap_err().starts_with("not JSON"));
        assert!(
            classify("[]")
                .unwrap_err()
                .starts_with("not a JSON-RPC object")
        );
        assert!(
            classify(r#"{"id":1,"result":{}}"#)
                .unwrap_err()
                .contains("jsonrpc")
        );
        let both = r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1}}"#;
        assert!(classify(both).unwrap_err().contains("not both"));
    }
}
