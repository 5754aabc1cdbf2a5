//! Chapter 14's plumbing for a server that asks: given code, as chapter 12's
//! state folder is. What a question is (`InputRequest`), why a tool stopped
//! (`Stop`), and the stdio connection of 2025-11-25, which carries the
//! server's own requests and the client's responses beside the client's
//! requests. The chapter's `Ask` trait, and the three ways of asking
//! through it, are the lesson; they use what is here.

use std::collections::VecDeque;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::process::ExitCode;
use std::time::Duration;

use serde_json::{Map, Value, json};

use crate::SERVER_NAME;
use crate::flags::take_flag;
use crate::jsonrpc::{self, Frame, Message, Reply, RpcError};
use crate::modern;
use crate::server::{Era, Handshake, Server};

/// One question for the client: a request the client's side answers.
pub struct InputRequest {
    pub method: &'static str,
    pub params: Value,
}

impl InputRequest {
    /// A form for the user (`elicitation/create`, mode "form").
    pub fn elicit(message: &str, requested_schema: Value) -> InputRequest {
        let params =
            json!({ "mode": "form", "message": message, "requestedSchema": requested_schema });
        InputRequest {
            method: "elicitation/create",
            params,
        }
    }

    /// A completion from the client's model (`sampling/createMessage`).
    pub fn sample(params: Value) -> InputRequest {
        InputRequest {
            method: "sampling/createMessage",
            params,
        }
    }

    /// The folders the user lets the server work in (`roots/list`).
    pub fn roots() -> InputRequest {
        InputRequest {
            method: "roots/list",
            params: json!({}),
        }
    }

    /// The client capability without which nobody would answer.
    pub fn capability(&self) -> &'static str {
        match self.method {
            "elicitation/create" => "elicitation",
            "sampling/createMessage" => "sampling",
            _ => "roots",
        }
    }

    /// As it travels in 2026-07-28's `inputRequests`: method and params.
    pub fn to_json(&self) -> Value {
        json!({ "method": self.method, "params": self.params })
    }
}

/// Why a tool stopped before its result.
pub enum Stop {
    /// 2026-07-28: answers are missing; the call ends input-required.
    Input,
    /// The request fails with this JSON-RPC error.
    Error(RpcError),
    /// The tool cannot go on, for a reason the model should read (a tool
    /// error): a capability the client never declared, a question refused.
    Refused(String),
}

impl From<RpcError> for Stop {
    fn from(error: RpcError) -> Stop {
        Stop::Error(error)
    }
}

/// -32021 (2026-07-28): the call needs a capability that the request's
/// `_meta` did not list; `data.requiredCapabilities` names it.
pub fn missing_capability(capability: &str) -> RpcError {
    let message = format!("Server requires the {capability} capability for this request");
    RpcError::new(-32021, message).with_data(json!({ "requiredCapabilities": { capability: {} } }))
}

/// A retry's state, as sent, and its answers by key.
pub type Retry<'a> = (&'a str, Map<String, Value>);

/// What a 2026-07-28 retry carries: the state it echoes and the answers
/// (`inputResponses`, none if absent); `None` for a first call, whatever
/// else it holds. A state that is not a string, or answers that are not an
/// object, are -32602.
pub fn retry(params: &Map<String, Value>) -> Result<Option<Retry<'_>>, RpcError> {
    let state = match params.get("requestState") {
        None => return Ok(None),
        Some(Value::String(state)) => state,
        Some(_) => return Err(RpcError::invalid_params("requestState must be a string")),
    };
    match params.get("inputResponses") {
        None => Ok(Some((state, Map::new()))),
        Some(Value::Object(responses)) => Ok(Some((state, responses.clone()))),
        Some(_) => Err(RpcError::invalid_params("inputResponses must be an object")),
    }
}

/// What a 2026-07-28 request's `_meta` says the client can answer.
pub fn client_capabilities(params: &Map<String, Value>) -> Map<String, Value> {
    let meta = params
        .get("_meta")
        .and_then(|meta| meta.get(CAPABILITIES_KEY));
    meta.and_then(Value::as_object).cloned().unwrap_or_default()
}

const CAPABILITIES_KEY: &str = "io.modelcontextprotocol/clientCapabilities";

/// Whether `capabilities` (an `initialize`'s, or a request's `_meta`) let
/// us ask a `capability` question. Our forms are elicitation's form mode,
/// which `"elicitation": {}` means too; a client that lists only `url`
/// mode cannot show one, and is not asked.
pub fn declares(capabilities: &Map<String, Value>, capability: &str) -> bool {
    match (capability, capabilities.get(capability)) {
        ("elicitation", Some(Value::Object(modes))) => {
            modes.is_empty() || modes.contains_key("form")
        }
        (_, declared) => declared.is_some(),
    }
}

/// A tool's outcome as a JSON-RPC one: a refusal is a tool error, for the
/// model to read; an error stays an error. `Stop::Input` is 2026-07-28's,
/// which the caller turns into an input-required result first.
pub fn outcome(outcome: Result<Value, Stop>) -> Result<Value, RpcError> {
    match outcome {
        Ok(result) => Ok(result),
        Err(Stop::Refused(advice)) => Ok(crate::draft_tools::tool_error(&advice)),
        Err(Stop::Error(error)) => Err(error),
        Err(Stop::Input) => Err(RpcError::internal("no answer")),
    }
}

/// The asker of a request that cannot ask (over HTTP, a call that is not
/// on an event stream): nothing is declared, nothing can be sent.
pub struct Unable;

impl Transport for Unable {
    fn declared(&self, _capability: &str) -> bool {
        false
    }

    fn request(&mut self, _request: &InputRequest) -> Result<Value, Stop> {
        Err(Stop::Refused("this request cannot ask the client".into()))
    }
}

/// A number of seconds from the command line (`flag` in messages): at
/// most `max`; `default` when the flag was not given.
pub fn seconds(
    value: Option<String>,
    flag: &str,
    default: f64,
    max: f64,
) -> Result<Duration, String> {
    let Some(value) = value else {
        return Ok(Duration::from_secs_f64(default));
    };
    match value.parse() {
        Ok(secs) if (0.0..=max).contains(&secs) => Ok(Duration::from_secs_f64(secs)),
        _ => Err(format!("{flag} needs 0 to {max} seconds, not {value:?}")),
    }
}

/// How long a requestState stays good, unless `--input-ttl` says.
const INPUT_TTL_SECS: f64 = 600.0;

/// How long an HTTP call of 2025-11-25 waits for each answer, at most and
/// unless `--answer-wait` says: under the 30 s after which a connection
/// that reads nothing is closed (`http_util::IDLE_TIMEOUT`).
const ANSWER_WAIT_SECS: f64 = 20.0;

/// Chapter 14's two flags, taken out of the arguments before chapter
/// 13's options read the rest: the lifetime of a requestState, and how long
/// an HTTP call waits for an answer.
pub fn timing(args: &mut Vec<String>) -> Result<(Duration, Duration), String> {
    let ttl = take_flag(args, "--input-ttl")?;
    let wait = take_flag(args, "--answer-wait")?;
    let ttl = seconds(ttl, "--input-ttl", INPUT_TTL_SECS, 86_400.0)?;
    Ok((
        ttl,
        seconds(wait, "--answer-wait", ANSWER_WAIT_SECS, ANSWER_WAIT_SECS)?,
    ))
}

/// -32603 for a failure of ours, such as a closed stdin.
fn internal(why: String) -> Stop {
    Stop::Error(RpcError::internal(why))
}

/// Where a 2025-11-25 server sends its own requests: the stdio
/// connection, or the event stream of an HTTP call. The chapter asks
/// through either the same way (its `Ask` for every `Transport`).
pub trait Transport {
    /// Whether the client declared `capability` ("elicitation", …).
    fn declared(&self, capability: &str) -> bool;
    /// Sends `request` under a new id of ours and waits for the client's
    /// response to it, which holds a `result` or an `error`.
    fn request(&mut self, request: &InputRequest) -> Result<Value, Stop>;
}

impl<R: Read, W: Write> Transport for Connection<R, W> {
    fn declared(&self, capability: &str) -> bool {
        declares(&self.capabilities, capability)
    }

    fn request(&mut self, request: &InputRequest) -> Result<Value, Stop> {
        let id = self.send(request)?;
        self.wait_for(id)
    }
}

/// One stdio connection: its two ends, what its `initialize` declared, and
/// the frames that came while a call waited for an answer. While a call
/// waits, the reader keeps reading: the response it waits for goes to the
/// call, and everything else is queued, to be served in order once the
/// call is done, so replies still leave in the order their requests came.
pub struct Connection<R, W> {
    input: BufReader<R>,
    output: W,
    queued: VecDeque<Frame>,
    /// The client's capabilities, as its `initialize` declared them.
    pub capabilities: Map<String, Value>,
    /// The id of the next request we send: ours are numbered apart from
    /// the client's, which may use the same numbers for its own.
    next_id: u64,
}

impl<R: Read, W: Write> Connection<R, W> {
    pub fn new(input: R, output: W) -> Connection<R, W> {
        Connection {
            input: BufReader::new(input),
            output,
            queued: VecDeque::new(),
            capabilities: Map::new(),
            next_id: 1,
        }
    }

    /// The next frame to serve: a queued one first, in the order it came.
    fn next_frame(&mut self) -> io::Result<Frame> {
        match self.queued.pop_front() {
            Some(frame) => Ok(frame),
            None => jsonrpc::read_frame(&mut self.input),
        }
    }

    /// Flushes unless another frame is already here, whose reply can then
    /// go out in the same write (as chapter 5's loop does). `buffer()` is
    /// what has arrived and is not read yet; looking never waits.
    fn flush_unless_more(&mut self) -> io::Result<()> {
        let more = !self.queued.is_empty() || self.input.buffer().contains(&b'\n');
        if more { Ok(()) } else { self.output.flush() }
    }

    /// Sends `request` under a new id of ours and returns the id; an error
    /// writing stdout is -32603.
    fn send(&mut self, request: &InputRequest) -> Result<u64, Stop> {
        let id = self.next_id;
        self.next_id += 1;
        let (method, params) = (json!(request.method), &request.params);
        // Written as every JSON-RPC frame of ours is: "jsonrpc" and "id" first.
        writeln!(
            self.output,
            r#"{{"jsonrpc":"2.0","id":{id},"method":{method},"params":{params}}}"#
        )
        .and_then(|()| self.output.flush()) // The client cannot answer what it has not got.
        .map_err(|err| internal(format!("cannot write stdout: {err}")))?;
        eprintln!("{SERVER_NAME}: sent {} as request {id}", request.method);
        Ok(id)
    }

    /// Reads until the response to our request `id` arrives, and returns
    /// it (with `result` or `error`); any other frame is queued for later.
    fn wait_for(&mut self, id: u64) -> Result<Value, Stop> {
        loop {
            let line = match jsonrpc::read_frame(&mut self.input) {
                Ok(Frame::Line(line)) => line,
                Ok(Frame::Eof) => {
                    return Err(internal("stdin closed while the tool waited".into()));
                }
                Ok(frame) => {
                    self.queued.push_back(frame);
                    continue;
                }
                Err(err) => return Err(internal(format!("cannot read stdin: {err}"))),
            };
            let response = match serde_json::from_slice::<Value>(&line) {
                Ok(Value::Object(message)) if !message.contains_key("method") => message,
                // A request or notification of the client's, or a broken line.
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

/// The stdio connection of the process.
pub type Stdio = Connection<io::StdinLock<'static>, BufWriter<io::StdoutLock<'static>>>;

/// Chapter 12's stdio loop on a connection that can also carry our own
/// requests: `answer` gets each request (its method and params) in its era
/// and the connection (to ask through), and returns its outcome; the rest
/// (notifications, responses to no one) is `server`'s, as in chapter 12.
pub fn serve_stdio(
    server: &Server,
    mut answer: impl FnMut(&str, Option<Value>, Era, &mut Stdio) -> Result<Value, RpcError>,
) -> ExitCode {
    let output = BufWriter::new(io::stdout().lock());
    let mut connection = Connection::new(io::stdin().lock(), output);
    let mut handshake = Handshake::default();
    loop {
        let reply = match connection.next_frame() {
            Ok(Frame::Eof) => break,
            Ok(Frame::Line(line)) if line.iter().all(u8::is_ascii_whitespace) => None,
            Ok(Frame::Line(line)) => {
                crate::trace::log(&line);
                match jsonrpc::parse(&line) {
                    Err(reply) => Some(handshake.for_revision(reply)),
                    Ok(message) => {
                        remember_capabilities(&message, &handshake, &mut connection);
                        let era = handshake.era(&message);
                        match message {
                            Message::Request { id, method, params } => Some(Reply::new(
                                id,
                                answer(&method, params, era, &mut connection),
                            )),
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

/// The capabilities a legacy `initialize` declares, kept for as long as
/// the connection lasts: only they may be asked for. A second `initialize`
/// is refused, and changes nothing here either.
fn remember_capabilities<R, W>(
    message: &Message,
    handshake: &Handshake,
    connection: &mut Connection<R, W>,
) {
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
    fn a_form_is_asked_only_of_a_client_that_can_show_one() {
        let caps = |value: Value| value.as_object().cloned().unwrap();
        assert!(declares(&caps(json!({ "elicitation": {} })), "elicitation"));
        assert!(declares(
            &caps(json!({ "elicitation": { "form": {} } })),
            "elicitation"
        ));
        assert!(!declares(
            &caps(json!({ "elicitation": { "url": {} } })),
            "elicitation"
        ));
        assert!(!declares(&caps(json!({ "sampling": {} })), "elicitation"));
        assert!(declares(&caps(json!({ "sampling": {} })), "sampling"));
        assert!(!declares(&caps(json!({})), "roots"));
    }
}
