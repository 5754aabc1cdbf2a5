//! Chapter 16's stdio connection: given code, as chapter 14's `Connection`
//! is. A long call must hear its cancel while it works, and stdin cannot be
//! read "for at most 50 ms" portably; so a thread of its own reads stdin and
//! hands each frame over a channel, which can be waited on with a timeout.
//! While a call works or waits, what arrives is queued and served after it,
//! in order, as chapter 14 does; a `notifications/cancelled` naming the call
//! is the one frame it takes for itself. Everything else is chapter 14's:
//! the server's own requests (`Transport`), the capabilities `initialize`
//! declared, replies in the order their requests came.

use std::collections::VecDeque;
use std::io::{self, BufReader, BufWriter, Write};
use std::process::ExitCode;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

use crate::SERVER_NAME;
use crate::asking::{InputRequest, Stop, Transport, declares};
use crate::jsonrpc::{self, Frame, Message, Reply, RpcError};
use crate::long_work::{Notification, Work};
use crate::modern;
use crate::server::{Era, Handshake, Server};

/// The stdio connection, its stdin read by a thread of its own.
pub struct Watched {
    frames: Receiver<io::Result<Frame>>,
    queued: VecDeque<Frame>,
    output: BufWriter<io::Stdout>,
    /// The client's capabilities, as its `initialize` declared them.
    pub capabilities: Map<String, Value>,
    next_id: u64,
}

impl Watched {
    /// Starts the reader: it ends after stdin's end or an error, which it
    /// hands over too.
    pub fn stdio() -> Watched {
        let (sender, frames) = mpsc::channel();
        std::thread::spawn(move || {
            let mut input = BufReader::new(io::stdin().lock());
            loop {
                let frame = jsonrpc::read_frame(&mut input);
                let last = !matches!(frame, Ok(Frame::Line(_) | Frame::TooLarge));
                if sender.send(frame).is_err() || last {
                    return;
                }
            }
        });
        Watched {
            frames,
            queued: VecDeque::new(),
            output: BufWriter::new(io::stdout()),
            capabilities: Map::new(),
            next_id: 1,
        }
    }

    /// The next frame to serve: a queued one first, in the order it came.
    fn next_frame(&mut self) -> io::Result<Frame> {
        match self.queued.pop_front() {
            Some(frame) => Ok(frame),
            None => self.frames.recv().unwrap_or(Ok(Frame::Eof)),
        }
    }

    /// Writes one message of ours (a notification, a request) at once.
    pub fn send(&mut self, message: &impl serde::Serialize) -> io::Result<()> {
        serde_json::to_writer(&mut self.output, message)?;
        self.output.write_all(b"\n")?;
        self.output.flush()
    }

    /// Waits `pause`, queueing what arrives: `true` as soon as a
    /// `notifications/cancelled` naming request `id` does (it is not
    /// queued: it has found its call). A cancel of another request, or of
    /// none, is queued like any notification, and ignored when served.
    pub fn cancelled_within(&mut self, id: &Value, pause: Duration) -> bool {
        let until = Instant::now() + pause;
        loop {
            let left = until.saturating_duration_since(Instant::now());
            let frame = match self.frames.recv_timeout(left) {
                Ok(Ok(frame)) => frame,
                Ok(Err(_)) | Err(RecvTimeoutError::Disconnected) => {
                    // Stdin is gone, but stdout may still be read: the work
                    // goes on, and the loop ends once it is done.
                    if !matches!(self.queued.back(), Some(Frame::Eof)) {
                        self.queued.push_back(Frame::Eof);
                    }
                    std::thread::sleep(left);
                    return false;
                }
                Err(RecvTimeoutError::Timeout) => return false,
            };
            if let Frame::Line(line) = &frame
                && cancel_target(line).as_ref() == Some(id)
            {
                return true;
            }
            self.queued.push_back(frame);
        }
    }

    /// Flushes unless another frame is already here, whose reply can then
    /// go out in the same write (as chapter 5's loop does).
    fn flush_unless_more(&mut self) -> io::Result<()> {
        if self.queued.is_empty()
            && let Ok(frame) = self.frames.try_recv()
        {
            self.queued.push_back(frame.unwrap_or(Frame::Eof));
        }
        if self.queued.is_empty() {
            self.output.flush()
        } else {
            Ok(())
        }
    }

    /// Reads until the response to our request `id` arrives (chapter 14's
    /// `wait_for`, from the channel); any other frame is queued.
    fn wait_for(&mut self, id: u64) -> Result<Value, Stop> {
        let internal = |why: &str| Stop::Error(RpcError::internal(why));
        loop {
            let line = match self.frames.recv() {
                Ok(Ok(Frame::Line(line))) => line,
                Ok(Ok(frame)) if !matches!(frame, Frame::Eof) => {
                    self.queued.push_back(frame);
                    continue;
                }
                _ => return Err(internal("stdin closed while the tool waited")),
            };
            let response = match serde_json::from_slice::<Value>(&line) {
                Ok(Value::Object(message)) if !message.contains_key("method") => message,
                _ => {
                    self.queued.push_back(Frame::Line(line));
                    continue;
                }
            };
            if response.get("id") == Some(&json!(id)) {
                return Ok(Value::Object(response));
            }
            eprintln!("{SERVER_NAME}: ignoring a response to no request of ours");
        }
    }
}

/// Long work on stdio, for request `id`: its notifications go out on the
/// connection at once, and its cancel is heard while it pauses.
pub struct Call<'a> {
    pub connection: &'a mut Watched,
    pub id: &'a Value,
}

impl Work for Call<'_> {
    fn notify(&mut self, notification: &Notification) {
        let _ = self.connection.send(notification);
    }

    fn cancelled(&mut self, pause: Duration) -> bool {
        let cancelled = self.connection.cancelled_within(self.id, pause);
        if cancelled {
            eprintln!(
                "{SERVER_NAME}: request {} cancelled; nothing written",
                self.id
            );
        }
        cancelled
    }
}

/// The request a `notifications/cancelled` line names (`params.requestId`),
/// if the line is one.
pub fn cancel_target(line: &[u8]) -> Option<Value> {
    let message: Value = serde_json::from_slice(line).ok()?;
    if message["method"] != "notifications/cancelled" || message.get("id").is_some() {
        return None;
    }
    message["params"].get("requestId").cloned()
}

impl Transport for Watched {
    fn declared(&self, capability: &str) -> bool {
        declares(&self.capabilities, capability)
    }

    fn request(&mut self, request: &InputRequest) -> Result<Value, Stop> {
        let id = self.next_id;
        self.next_id += 1;
        let frame = json!({ "jsonrpc": "2.0", "id": id, "method": request.method, "params": request.params });
        self.send(&frame).map_err(|err| {
            Stop::Error(RpcError::internal(format!("cannot write stdout: {err}")))
        })?;
        eprintln!("{SERVER_NAME}: sent {} as request {id}", request.method);
        self.wait_for(id)
    }
}

/// One request, as the loop hands it over.
pub struct Request<'a> {
    pub id: &'a Value,
    pub method: &'a str,
    pub params: Option<Value>,
}

/// What the loop hands over: a request, or a `notifications/cancelled`
/// that found no call working (it may name a subscription that is open,
/// or nothing at all).
pub enum Incoming<'a> {
    Request(Request<'a>),
    Cancelled(Value),
}

/// Chapter 14's stdio loop on a watched connection: `answer` gets each
/// request in its era, with the connection, and returns its outcome, or
/// `None` for no reply at all (a cancelled call; a subscription that
/// stays open); and each cancel that no working call took. The rest is
/// `server`'s, as in chapter 12.
pub fn serve(
    server: &Server,
    mut answer: impl FnMut(Incoming, Era, &mut Watched) -> Option<Result<Value, RpcError>>,
) -> ExitCode {
    let mut connection = Watched::stdio();
    let mut handshake = Handshake::default();
    loop {
        let reply = match connection.next_frame() {
            Ok(Frame::Eof) => break,
            Ok(Frame::Line(line)) if line.iter().all(u8::is_ascii_whitespace) => None,
            Ok(Frame::Line(line)) if cancel_target(&line).is_some() => {
                let target = cancel_target(&line).unwrap_or_default();
                let era = Era::Legacy(&mut handshake);
                let _ = answer(Incoming::Cancelled(target), era, &mut connection);
                None // A notification never gets a reply.
            }
            Ok(Frame::Line(line)) => {
                crate::trace::log(&line);
                match jsonrpc::parse(&line) {
                    Err(reply) => Some(handshake.for_revision(reply)),
                    Ok(message) => {
                        remember_capabilities(&message, &handshake, &mut connection);
                        let era = handshake.era(&message);
                        match message {
                            Message::Request { id, method, params } => {
                                let request = Request {
                                    id: &id,
                                    method: &method,
                                    params,
                                };
                                let outcome =
                                    answer(Incoming::Request(request), era, &mut connection);
                                outcome.map(|outcome| Reply::new(id, outcome))
                            }
                            other => server.handle(other, era),
                        }
                    }
                }
            }
            Ok(_) => Some(handshake.for_revision(jsonrpc::frame_too_large())),
            Err(err) => {
                eprintln!("{SERVER_NAME}: cannot read stdin: {err}");
                return ExitCode::FAILURE;
            }
        };
        let written = match reply {
            Some(reply) => jsonrpc::write_frame(&mut connection.output, &reply),
            None => Ok(()),
        };
        if let Err(err) = written.and_then(|()| connection.flush_unless_more()) {
            eprintln!("{SERVER_NAME}: cannot write stdout: {err}");
            return ExitCode::FAILURE;
        }
    }
    eprintln!("{SERVER_NAME}: stdin closed, bye");
    ExitCode::SUCCESS
}

/// The capabilities a legacy `initialize` declares (chapter 14's rule).
fn remember_capabilities(message: &Message, handshake: &Handshake, connection: &mut Watched) {
    let Message::Request { method, params, .. } = message else {
        return;
    };
    if method == "initialize"
        && !modern::is_modern(params.as_ref())
        && handshake.protocol_version.is_none()
    {
        let declared = params
            .as_ref()
            .and_then(|params| params["capabilities"].as_object());
        connection.capabilities = declared.cloned().unwrap_or_default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_cancel_names_a_target() {
        let cancel =
            br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}"#;
        assert_eq!(cancel_target(cancel), Some(json!(7)));
        let request = br#"{"jsonrpc":"2.0","id":1,"method":"notifications/cancelled","params":{"requestId":7}}"#;
        assert_eq!(cancel_target(request), None);
        assert_eq!(cancel_target(br#"{"jsonrpc":"2.0","method":"ping"}"#), None);
        assert_eq!(cancel_target(b"not json"), None);
    }
}
