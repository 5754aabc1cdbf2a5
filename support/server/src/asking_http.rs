//! Chapter 14's plumbing for asking over Streamable HTTP in 2025-11-25:
//! given code. The server's request travels as an event on the response
//! stream of the client's POST, which stays open while the call waits; the
//! client's answer comes back as a POST of its own, a JSON-RPC response,
//! and has to find the waiting call. So here are a response body fed by a
//! channel (`Streamed`, `Events`), the table of the calls that wait
//! (`Pending`), and the asker that uses both (`StreamAsker`; the chapter
//! makes it an `Ask`).
//!
//! The table lives in this instance's memory: that is the weakness of the
//! design. Behind a load balancer, the answer may reach another instance,
//! whose table does not know it; the chapter's two-instance test shows it,
//! and it is why 2026-07-28 has no server requests at all.

use std::collections::HashMap;
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use http_body_util::Full;
use hyper::body::{Bytes, Frame};
use hyper::header::{self, HeaderValue};
use hyper::{Response, StatusCode};
use serde_json::Value;
use tokio::sync::mpsc as channel;

use crate::SERVER_NAME;
use crate::asking::{InputRequest, Stop, Transport};
use crate::http_util::{Body, accepted, refusal};
use crate::jsonrpc::Reply;
use crate::long_work::{Notification, Work};

/// A response body: whole, or events written while the call runs.
pub enum Streamed {
    Whole(Full<Bytes>),
    Events(channel::UnboundedReceiver<Bytes>),
}

impl From<Body> for Streamed {
    fn from(body: Body) -> Streamed {
        Streamed::Whole(body)
    }
}

impl hyper::body::Body for Streamed {
    type Data = Bytes;
    type Error = Infallible;

    /// A whole body says its length (so it goes out with Content-Length,
    /// as any other reply); a stream does not know it.
    fn size_hint(&self) -> hyper::body::SizeHint {
        match self {
            Streamed::Whole(body) => body.size_hint(),
            Streamed::Events(_) => hyper::body::SizeHint::default(),
        }
    }

    fn is_end_stream(&self) -> bool {
        match self {
            Streamed::Whole(body) => body.is_end_stream(),
            Streamed::Events(_) => false,
        }
    }

    /// An event as soon as it is sent; the end when every sender is gone.
    fn poll_frame(
        self: Pin<&mut Self>,
        context: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        match self.get_mut() {
            Streamed::Whole(body) => Pin::new(body).poll_frame(context),
            Streamed::Events(events) => events
                .poll_recv(context)
                .map(|event| event.map(|bytes| Ok(Frame::data(bytes)))),
        }
    }
}

/// The sending end of an event stream: each message one SSE event.
pub struct Events(channel::UnboundedSender<Bytes>);

impl Events {
    /// Sends one JSON-RPC message; `false` once the client has gone.
    pub fn send(&self, message: &impl serde::Serialize) -> bool {
        let data = serde_json::to_string(message).unwrap_or_default();
        let event = format!("event: message\ndata: {data}\n\n");
        self.0.send(Bytes::from(event)).is_ok()
    }

    /// Whether the client still reads the stream (chapter 16). hyper drops
    /// the receiving end once a write to a closed connection fails, so a
    /// stream that nothing is written to cannot tell: see `keepalive`.
    pub fn is_open(&self) -> bool {
        !self.0.is_closed()
    }

    /// An SSE comment line, which every client skips: written while long
    /// work has nothing to say, so that a closed connection is noticed.
    pub fn keepalive(&self) -> bool {
        self.0.send(Bytes::from_static(b": working\n\n")).is_ok()
    }
}

/// The long calls of this instance that a 2025-11-25 client may cancel
/// with a POSTed `notifications/cancelled` (chapter 16), by request id.
/// Ids are the client's own, so without sessions two clients may use the
/// same one: the cancel then stops both calls (a limit of this design).
#[derive(Default)]
pub struct Running(Mutex<HashMap<String, Arc<std::sync::atomic::AtomicBool>>>);

impl Running {
    /// A call starts: the flag its cancel will set.
    pub fn start(&self, id: &Value) -> Arc<std::sync::atomic::AtomicBool> {
        let flag = Arc::default();
        self.table().insert(id.to_string(), Arc::clone(&flag));
        flag
    }

    /// A call ends: a cancel for it is ignored from now on.
    pub fn finish(&self, id: &Value) {
        self.table().remove(&id.to_string());
    }

    /// A cancel: `true` when it named a call of this instance that works.
    pub fn cancel(&self, id: &Value) -> bool {
        let table = self.table();
        let flag = table.get(&id.to_string());
        flag.inspect(|flag| flag.store(true, Ordering::Relaxed))
            .is_some()
    }

    fn table(
        &self,
    ) -> std::sync::MutexGuard<'_, HashMap<String, Arc<std::sync::atomic::AtomicBool>>> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// A `200` whose body is the events sent through the returned `Events`,
/// written as they come; the stream ends when `Events` is dropped.
pub fn event_stream() -> (Events, Response<Streamed>) {
    let (sender, receiver) = channel::unbounded_channel();
    let mut response = Response::new(Streamed::Events(receiver));
    *response.status_mut() = StatusCode::OK;
    let headers = response.headers_mut();
    let stream = HeaderValue::from_static("text/event-stream");
    headers.insert(header::CONTENT_TYPE, stream);
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    // Asks a proxy such as nginx not to hold the events back.
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    (Events(sender), response)
}

/// 2025-11-25, a call that may ask: its response is an event stream, open
/// while `call` runs on a thread of its own. Each request `call` sends
/// through the asker is an event; its reply is the last, and then the
/// stream ends.
pub fn stream(
    pending: Arc<Pending>,
    wait: Duration,
    call: impl FnOnce(&mut StreamAsker) -> Reply + Send + 'static,
) -> Response<Streamed> {
    let (events, response) = event_stream();
    std::thread::spawn(move || {
        let mut asker = StreamAsker {
            events: &events,
            pending: &pending,
            wait,
        };
        let reply = call(&mut asker);
        events.send(&reply); // The client may have gone: nobody to tell.
    });
    response
}

/// A client's response, POSTed: to the call of this instance that waits
/// for it (202), or refused when none does (400): it may have gone to
/// another instance, whose calls this one cannot know.
pub fn deliver(body: &[u8], pending: &Pending) -> Response<Streamed> {
    let response: Value = serde_json::from_slice(body).unwrap_or_default();
    let id = response["id"].clone();
    if pending.deliver(response) {
        return accepted();
    }
    let problem = format!(
        "no request of this instance waits for the response to {id}; it may have gone to \
         another instance"
    );
    refusal(StatusCode::BAD_REQUEST, &problem)
}

/// The requests of this instance that wait for a response, by id. Ids
/// start with a random number of this instance's, so that an answer meant
/// for another instance never finds a waiting call here by chance.
pub struct Pending {
    instance: u64,
    next: AtomicU64,
    waiting: Mutex<HashMap<String, mpsc::Sender<Value>>>,
}

impl Default for Pending {
    fn default() -> Pending {
        let instance = std::hash::BuildHasher::hash_one(&std::hash::RandomState::new(), 0);
        let (next, waiting) = (AtomicU64::new(1), Mutex::default());
        Pending {
            instance,
            next,
            waiting,
        }
    }
}

impl Pending {
    /// A new id, and where its response will arrive.
    fn open(&self) -> (String, mpsc::Receiver<Value>) {
        let number = self.next.fetch_add(1, Ordering::Relaxed);
        let id = format!("ask-{:016x}-{number}", self.instance);
        let (sender, receiver) = mpsc::channel();
        self.table().insert(id.clone(), sender);
        (id, receiver)
    }

    fn close(&self, id: &str) {
        self.table().remove(id);
    }

    fn table(&self) -> std::sync::MutexGuard<'_, HashMap<String, mpsc::Sender<Value>>> {
        // A panic elsewhere while holding it leaves the table usable.
        self.waiting
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Hands a POSTed response to the call that waits for it: `false`
    /// when no call of this instance does (it ended, or was never ours).
    pub fn deliver(&self, response: Value) -> bool {
        let id = response["id"].as_str().unwrap_or_default().to_string();
        match self.table().remove(&id) {
            Some(waiting) => waiting.send(response).is_ok(),
            None => false,
        }
    }
}

/// A request of ours, its fields in the order every frame of ours has.
#[derive(serde::Serialize)]
struct Request<'a> {
    jsonrpc: &'a str,
    id: &'a str,
    method: &'a str,
    params: &'a Value,
}

/// How a 2025-11-25 call over HTTP asks: on its own event stream, waiting
/// at most `wait` for each answer.
pub struct StreamAsker<'a> {
    pub events: &'a Events,
    pub pending: &'a Pending,
    pub wait: Duration,
}

/// A stateless server cannot remember what `initialize` declared (that was
/// another POST, maybe to another instance), so over HTTP it asks, and a
/// client that cannot answer says so with an error response, which the
/// tool reads as a refusal. No answer in time is a refusal too: the call
/// gives up rather than hold the stream open forever.
impl Transport for StreamAsker<'_> {
    fn declared(&self, _capability: &str) -> bool {
        true
    }

    fn request(&mut self, request: &InputRequest) -> Result<Value, Stop> {
        let (id, answer) = self.pending.open();
        let frame = Request {
            jsonrpc: "2.0",
            id: &id,
            method: request.method,
            params: &request.params,
        };
        if !self.events.send(&frame) {
            self.pending.close(&id);
            return Err(Stop::Refused("the client closed the stream".into()));
        }
        eprintln!(
            "{SERVER_NAME}: sent {} as request {id} on the stream",
            request.method
        );
        let response = answer.recv_timeout(self.wait);
        self.pending.close(&id);
        response.map_err(|_| {
            Stop::Refused(format!(
                "no answer to {} within {} s: the client may have sent it to another instance \
                 of this server, which cannot know this call",
                request.method,
                self.wait.as_secs_f64()
            ))
        })
    }
}

/// Long work on a call's event stream (chapter 16): its notifications are
/// events, and it is cancelled when the client closes the stream
/// (2026-07-28, `modern`) or when its flag is set by a POSTed
/// `notifications/cancelled` (2025-11-25, `Running`).
pub struct StreamWork<'a> {
    pub events: &'a Events,
    pub cancelled: &'a std::sync::atomic::AtomicBool,
    pub modern: bool,
    /// Whether anything went out since the last pause.
    pub wrote: bool,
}

impl<'a> StreamWork<'a> {
    pub fn new(
        events: &'a Events,
        cancelled: &'a std::sync::atomic::AtomicBool,
        modern: bool,
    ) -> Self {
        let wrote = false;
        StreamWork {
            events,
            cancelled,
            modern,
            wrote,
        }
    }
}

/// This instance's open `subscriptions/listen` streams (chapter 16), each
/// with what it asked to hear.
#[derive(Default)]
pub struct Listeners(Mutex<Vec<(crate::long_work::Subscription, Events)>>);

impl Listeners {
    pub fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(crate::long_work::Subscription, Events)>> {
        // A panic elsewhere while holding it leaves the list usable.
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl Work for StreamWork<'_> {
    fn notify(&mut self, notification: &Notification) {
        self.wrote |= self.events.send(notification);
    }

    /// A closed connection is noticed only when a write fails, so a pause
    /// with nothing said since the last starts with an SSE comment.
    fn cancelled(&mut self, pause: Duration) -> bool {
        if !std::mem::take(&mut self.wrote) {
            self.events.keepalive();
        }
        let until = std::time::Instant::now() + pause;
        loop {
            let closed = self.modern && !self.events.is_open();
            if closed || self.cancelled.load(Ordering::Relaxed) {
                eprintln!("{SERVER_NAME}: a long call was cancelled; nothing written");
                return true;
            }
            let left = until.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                return false;
            }
            std::thread::sleep(left.min(Duration::from_millis(10)));
        }
    }
}
