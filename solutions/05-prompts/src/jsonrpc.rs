//! JSON-RPC 2.0 over newline-delimited stdio: reading frames, telling
//! requests from notifications, and turning errors into reply frames.

use std::io::{self, BufRead, Read, Write};

use serde::Serialize;
use serde_json::Value;

// ANCHOR: limits
/// The largest frame the server will read. A client that sends more gets an
/// error instead of making the server buffer without limit.
pub const MAX_FRAME_BYTES: usize = 1024 * 1024;
// ANCHOR_END: limits

// ANCHOR: read_frame
pub enum Frame {
    /// One line, without its `\n` (and without a `\r` before it).
    Line(Vec<u8>),
    /// A line longer than `MAX_FRAME_BYTES`; it was read and thrown away.
    TooLarge,
    /// stdin is closed: time to shut down.
    Eof,
}

pub fn read_frame(mut input: impl BufRead) -> io::Result<Frame> {
    let mut line = Vec::new();
    // Read at most one byte past the limit, so a huge line cannot eat memory.
    let limit = MAX_FRAME_BYTES as u64 + 1;
    if input.by_ref().take(limit).read_until(b'\n', &mut line)? == 0 {
        return Ok(Frame::Eof);
    }
    if line.ends_with(b"\n") {
        line.pop();
        if line.ends_with(b"\r") {
            line.pop(); // Tolerate CRLF line endings.
        }
    } else if line.len() > MAX_FRAME_BYTES {
        input.skip_until(b'\n')?; // Drop the rest of the oversized line.
        return Ok(Frame::TooLarge);
    }
    Ok(Frame::Line(line))
}
// ANCHOR_END: read_frame

// ANCHOR: write_frame
/// Writes one reply into `output`'s buffer. It does not flush: the loop in
/// main.rs flushes when no further frame is at hand.
pub fn write_frame(output: &mut impl Write, reply: &Reply) -> io::Result<()> {
    // serde_json never writes a raw newline: newlines inside strings are
    // escaped as `\n`, so one message always stays on one line.
    serde_json::to_writer(&mut *output, reply)?;
    output.write_all(b"\n")
}
// ANCHOR_END: write_frame

// ANCHOR: reply
/// A response frame: `{"jsonrpc":"2.0","id":…,"result":…}` or `…"error":…}`.
#[derive(Serialize)]
pub struct Reply {
    jsonrpc: &'static str,
    /// Absent when the request's id could not be read (MCP 2025-11-25);
    /// `null` then under 2025-06-18, which follows JSON-RPC 2.0.
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<Value>,
    #[serde(flatten)]
    outcome: Outcome,
}

#[derive(Serialize)]
#[serde(rename_all = "lowercase")]
enum Outcome {
    Result(Value),
    Error(RpcError),
}

impl Reply {
    pub fn new(id: Value, outcome: Result<Value, RpcError>) -> Reply {
        let outcome = match outcome {
            Ok(result) => Outcome::Result(result),
            Err(error) => Outcome::Error(error),
        };
        Reply {
            jsonrpc: "2.0",
            id: Some(id),
            outcome,
        }
    }

    /// An error about a message whose id we could not read.
    pub fn without_id(error: RpcError) -> Reply {
        Reply {
            jsonrpc: "2.0",
            id: None,
            outcome: Outcome::Error(error),
        }
    }

    /// The same reply with `"id": null` where it has no id: how plain
    /// JSON-RPC 2.0 says "I could not read your id".
    pub fn with_null_id(mut self) -> Reply {
        self.id.get_or_insert(Value::Null);
        self
    }
}
// ANCHOR_END: reply

// ANCHOR: errors
/// JSON-RPC 2.0's code for a method the server does not have.
pub const METHOD_NOT_FOUND: i64 = -32601;
/// JSON-RPC 2.0's code for a fault of the server's own, not the request's.
pub const INTERNAL_ERROR: i64 = -32603;

#[derive(Debug, Serialize)]
pub struct RpcError {
    code: i64,
    message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    data: Option<Value>,
}

impl RpcError {
    pub fn parse_error(detail: impl std::fmt::Display) -> RpcError {
        RpcError::new(-32700, format!("Parse error: {detail}"))
    }
    pub fn invalid_request(detail: impl std::fmt::Display) -> RpcError {
        RpcError::new(-32600, format!("Invalid Request: {detail}"))
    }
    pub fn method_not_found(method: &str) -> RpcError {
        RpcError::new(METHOD_NOT_FOUND, format!("Method not found: {method}"))
    }
    pub fn invalid_params(detail: impl std::fmt::Display) -> RpcError {
        RpcError::new(-32602, format!("Invalid params: {detail}"))
    }
    pub fn internal(detail: impl std::fmt::Display) -> RpcError {
        RpcError::new(INTERNAL_ERROR, format!("Internal error: {detail}"))
    }
    pub fn new(code: i64, message: String) -> RpcError {
        RpcError {
            code,
            message,
            data: None,
        }
    }
    /// Adds details a program can read, such as the `uri` that was not found.
    pub fn with_data(mut self, data: Value) -> RpcError {
        self.data = Some(data);
        self
    }
}
// ANCHOR_END: errors

pub fn frame_too_large() -> Reply {
    let detail = format!("a frame may be at most {MAX_FRAME_BYTES} bytes");
    Reply::without_id(RpcError::invalid_request(detail))
}

// ANCHOR: message
/// What one well-formed line turned out to be.
pub enum Message {
    /// Has an id: the sender waits for exactly one reply.
    Request {
        id: Value,
        method: String,
        params: Option<Value>,
    },
    /// Has no id: the sender expects no reply, not even an error.
    Notification { method: String },
    /// A reply from the other side. This server sends no requests, so it
    /// only logs these.
    Response,
}
// ANCHOR_END: message

// ANCHOR: parse
/// Checks one line against the JSON-RPC 2.0 rules. An `Err` is the error
/// reply to send back.
pub fn parse(line: &[u8]) -> Result<Message, Reply> {
    let text = std::str::from_utf8(line).map_err(|err| {
        let detail = format!(
            "frame is not valid UTF-8 (bad byte at offset {})",
            err.valid_up_to()
        );
        Reply::without_id(RpcError::parse_error(detail))
    })?;
    let value: Value =
        serde_json::from_str(text).map_err(|err| Reply::without_id(RpcError::parse_error(err)))?;

    let Value::Object(mut object) = value else {
        let detail = if value.is_array() {
            "batches (JSON arrays) are not part of MCP since 2025-06-18; send one object per line"
        } else {
            "a message must be a JSON object"
        };
        return Err(Reply::without_id(RpcError::invalid_request(detail)));
    };

    // Read the id first, so every later error can carry it back.
    let id = match object.remove("id") {
        None => None,
        Some(id) if is_valid_id(&id) => Some(id),
        Some(_) => {
            let detail =
                "id must be a string or an integer (not null, a fraction, an array or an object)";
            return Err(Reply::without_id(RpcError::invalid_request(detail)));
        }
    };
    let invalid = |detail: &str| {
        let error = RpcError::invalid_request(detail);
        match &id {
            Some(id) => Reply::new(id.clone(), Err(error)),
            None => Reply::without_id(error),
        }
    };

    if object.get("jsonrpc") != Some(&Value::from("2.0")) {
        return Err(invalid(r#"jsonrpc must be exactly "2.0""#));
    }
    if object.contains_key("result") || object.contains_key("error") {
        return Ok(Message::Response);
    }
    let method = match object.remove("method") {
        Some(Value::String(method)) => method,
        Some(_) => return Err(invalid("method must be a string")),
        None => return Err(invalid("a request needs a method")),
    };
    let Some(id) = id else {
        return Ok(Message::Notification { method });
    };
    let params = object.remove("params");
    let error = match &params {
        None | Some(Value::Object(_)) => None,
        // JSON-RPC allows params by position, in an array; MCP names them.
        Some(Value::Array(_)) => Some(RpcError::invalid_params("params must be an object")),
        // A string or a number is not params at all: a broken request.
        Some(_) => Some(RpcError::invalid_request("params must be an object")),
    };
    if let Some(error) = error {
        return Err(Reply::new(id, Err(error)));
    }
    Ok(Message::Request { id, method, params })
}

/// MCP ids are strings or integers, never null (unlike plain JSON-RPC).
fn is_valid_id(id: &Value) -> bool {
    match id {
        Value::String(_) => true,
        Value::Number(number) => number.is_i64() || number.is_u64(),
        _ => false,
    }
}
// ANCHOR_END: parse
