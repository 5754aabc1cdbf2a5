//! 2025-11-25 on stdio: the server asks with a JSON-RPC request of its own,
//! on the connection the call came in on, and waits for the response. The
//! client may send other messages meanwhile, so while a call waits this
//! reader keeps reading: the response it waits for goes to the call, and
//! everything else is queued, to be served in order once the call is done.
//! Replies thus still leave in the order their requests came.

use std::collections::VecDeque;
use std::io::{self, BufReader, Read, Write};

use serde_json::{Map, Value, json};

use crate::SERVER_NAME;
use crate::ask::{Ask, InputRequest, Stop};
use crate::jsonrpc::{self, Frame, Reply, RpcError};

/// One stdio connection: its two ends, what its `initialize` declared, and
/// the frames that came while a call waited for an answer.
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
    pub fn next_frame(&mut self) -> io::Result<Frame> {
        match self.queued.pop_front() {
            Some(frame) => Ok(frame),
            None => jsonrpc::read_frame(&mut self.input),
        }
    }

    /// Writes a reply; flushes unless another frame is already here, whose
    /// reply can then go out in the same write (as chapter 5's loop does).
    pub fn reply(&mut self, reply: &Reply) -> io::Result<()> {
        jsonrpc::write_frame(&mut self.output, reply)?;
        self.flush_unless_more()
    }

    pub fn flush_unless_more(&mut self) -> io::Result<()> {
        // `buffer()`: what has arrived and is not read yet; it never waits.
        let more = !self.queued.is_empty() || self.input.buffer().contains(&b'\n');
        if more { Ok(()) } else { self.output.flush() }
    }

    /// Sends `request` under a new id of ours and returns its id.
    fn send(&mut self, request: &InputRequest) -> io::Result<u64> {
        let id = self.next_id;
        self.next_id += 1;
        let (method, params) = (json!(request.method), &request.params);
        // Written as every JSON-RPC frame of ours is: "jsonrpc" and "id" first.
        writeln!(
            self.output,
            r#"{{"jsonrpc":"2.0","id":{id},"method":{method},"params":{params}}}"#
        )?;
        self.output.flush()?; // The client cannot answer what it has not got.
        Ok(id)
    }

    /// Reads until the response to our request `id` arrives, and returns
    /// it (`result` or `error`); any other frame is queued for later.
    fn wait_for(&mut self, id: u64) -> Result<Value, Stop> {
        let lost =
            |why: String| Stop::Error(RpcError::new(-32603, format!("Internal error: {why}")));
        loop {
            let line = match jsonrpc::read_frame(&mut self.input) {
                Ok(Frame::Line(line)) => line,
                Ok(Frame::Eof) => return Err(lost("stdin closed while the tool waited".into())),
                Ok(frame) => {
                    self.queued.push_back(frame);
                    continue;
                }
                Err(err) => return Err(lost(format!("cannot read stdin: {err}"))),
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

// ANCHOR: ask
impl<R: Read, W: Write> Ask for Connection<R, W> {
    fn can(&self, capability: &str) -> bool {
        self.capabilities.contains_key(capability)
    }

    /// One request after another, each waited for: 2025-11-25 has no way
    /// to ask two things in one message.
    fn ask_each(&mut self, requests: Vec<(&str, InputRequest)>) -> Result<Vec<Value>, Stop> {
        let mut answers = Vec::new();
        for (key, request) in requests {
            // GAP(ch14/legacy-request): a capability the client did not
            // declare (`self.can(request.capability())`) is a
            // Stop::Refused naming it and `initialize`: nobody would answer.
            // Else `self.send(&request)` (an io error: Stop::Error of
            // -32603), then `self.wait_for(id)`: its "result" is the answer
            // to push; an "error" is a Stop::Refused saying the client
            // refused `request.method` and the error's "message".
            // starter: let _ = (key, request, &mut answers);
            // starter: return Err(Stop::Refused("TODO(ch14/legacy-request)".into()));
            let capability = request.capability();
            if !self.can(capability) {
                return Err(Stop::Refused(format!(
                    "this tool needs the client's {capability} capability, which it did not \
                     declare in initialize"
                )));
            }
            let id = self.send(&request).map_err(|err| {
                Stop::Error(RpcError::new(
                    -32603,
                    format!("Internal error: cannot write stdout: {err}"),
                ))
            })?;
            eprintln!(
                "{SERVER_NAME}: asked {} for {key} (request {id})",
                request.method
            );
            let response = self.wait_for(id)?;
            match response.get("result") {
                Some(result) => answers.push(result.clone()),
                None => {
                    let message = response["error"]["message"]
                        .as_str()
                        .unwrap_or("no reason given");
                    return Err(Stop::Refused(format!(
                        "the client refused {}: {message}",
                        request.method
                    )));
                }
            }
            // END(ch14/legacy-request)
        }
        Ok(answers)
    }
}
// ANCHOR_END: ask
