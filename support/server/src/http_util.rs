//! Chapter 13's HTTP plumbing, with the `http` feature: the responses its
//! transport writes (JSON, refusals, 202), reading headers, and the signals
//! that stop the server, and the limits that keep one client from costing
//! the others (timeouts, a connection limit, work off the runtime's
//! threads). Given with the chapter, not written in it: its lesson is what
//! each check and each status means, in `http.rs`.

use std::pin::Pin;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use http_body_util::Full;
use hyper::body::Bytes;
use hyper::body::Incoming;
use hyper::header::{self, HeaderMap, HeaderValue};
use hyper::server::conn::http1;
use hyper::service::HttpService;
use hyper::{Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::sync::Semaphore;
use tokio::time::{Instant, Sleep};

use crate::SERVER_NAME;
use crate::jsonrpc::{INTERNAL_ERROR, Reply, RpcError};

/// A whole response body, in memory: every answer here is small.
pub type Body = Full<Bytes>;

/// Resolves on the first Ctrl-C (SIGINT) or SIGTERM, naming it. The
/// handlers are installed when this is called, not when it is first awaited.
#[cfg(unix)]
pub fn stop_signal() -> std::io::Result<impl Future<Output = &'static str>> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut interrupt = signal(SignalKind::interrupt())?;
    let mut terminate = signal(SignalKind::terminate())?;
    Ok(async move {
        tokio::select! {
            _ = interrupt.recv() => "interrupted",
            _ = terminate.recv() => "terminated",
        }
    })
}

/// Elsewhere (Windows) there is no SIGTERM: Ctrl-C only.
#[cfg(not(unix))]
pub fn stop_signal() -> std::io::Result<impl Future<Output = &'static str>> {
    let interrupt = tokio::signal::ctrl_c();
    Ok(async move {
        let _ = interrupt.await;
        "interrupted"
    })
}

/// Runs `serve` (a transport's, until Ctrl-C or SIGTERM) on a
/// multi-threaded runtime: what every server's `main` does with `--listen`.
/// A runtime that cannot start, or a server that stops on an error, is
/// said on stderr and exits 1.
pub fn run(serve: impl Future<Output = Result<(), String>>) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("{SERVER_NAME}: cannot start the runtime: {err}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(serve) {
        Ok(()) => ExitCode::SUCCESS,
        Err(problem) => {
            eprintln!("{SERVER_NAME}: {problem}");
            ExitCode::FAILURE
        }
    }
}

/// `application/json`, with or without parameters such as `charset=utf-8`.
pub fn is_json(headers: &HeaderMap) -> bool {
    header_text(headers, "content-type")
        .and_then(|value| value.split(';').next())
        .is_some_and(|media| media.trim().eq_ignore_ascii_case("application/json"))
}

/// The MCP headers a gateway may route by: each may appear once. With two
/// values, a gateway that reads the last would route one method while we
/// run another.
pub const MCP_HEADERS: [&str; 3] = ["MCP-Protocol-Version", "Mcp-Method", "Mcp-Name"];

/// Refuses a request that sends one of `MCP_HEADERS` twice with different
/// values, as a header mismatch (`code`, chapter 13's -32020).
pub fn one_value_each(headers: &HeaderMap, code: i64) -> Result<(), RpcError> {
    for name in MCP_HEADERS {
        one_value(headers, name)
            .map_err(|problem| RpcError::new(code, format!("Header mismatch: {problem}")))?;
    }
    Ok(())
}

/// The text of header `name`, which may be sent more than once only with
/// one value: two different values are an error that names both. The
/// legacy era has no header mismatch error, so chapter 13 refuses it there
/// as an invalid request; in 2026-07-28 it is `one_value_each`'s -32020.
pub fn one_value<'a>(headers: &'a HeaderMap, name: &str) -> Result<Option<&'a str>, String> {
    let mut values = headers.get_all(name).iter();
    let Some(first) = values.next() else {
        return Ok(None);
    };
    if let Some(other) = values.find(|value| *value != first) {
        let shown = |value: &HeaderValue| String::from_utf8_lossy(value.as_bytes()).into_owned();
        let (first, other) = (shown(first), shown(other));
        return Err(format!("{name} is sent twice, as '{first}' and '{other}'"));
    }
    Ok(first.to_str().ok())
}

/// What an `Mcp-Name` header says. A name that a header cannot carry
/// plainly (not ASCII, a line break, spaces at an end, or text that looks
/// like the encoding itself) travels as `=?base64?…?=`, the standard base64
/// of its UTF-8, and a server MUST decode it before comparing it with the
/// body (2026-07-28, Streamable HTTP, "Value Encoding"). `None`: neither a
/// plain value of visible ASCII, spaces and tabs, nor a valid encoding (the
/// spec's "invalid characters", a header mismatch too).
pub fn decoded_name(value: &HeaderValue) -> Option<Vec<u8>> {
    let value = value.as_bytes();
    let encoded = value
        .strip_prefix(b"=?base64?")
        .and_then(|rest| rest.strip_suffix(b"?="));
    match encoded {
        Some(encoded) => base64_decode(encoded),
        None => value
            .iter()
            .all(|&byte| byte == b'\t' || (0x20..0x7f).contains(&byte))
            .then(|| value.to_vec()),
    }
}

/// Standard, padded base64 (RFC 4648), in its one canonical form: the
/// bytes whose `base64::encode` is exactly `text`, if there are any. A
/// second spelling of the same bytes (other padding, stray low bits) would
/// be a second header that means the same name; refusing it keeps one.
fn base64_decode(text: &[u8]) -> Option<Vec<u8>> {
    let sextet = |byte: u8| match byte {
        b'A'..=b'Z' => Some(byte - b'A'),
        b'a'..=b'z' => Some(byte - b'a' + 26),
        b'0'..=b'9' => Some(byte - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    };
    if !text.len().is_multiple_of(4) {
        return None;
    }
    let padding = text.iter().rev().take_while(|&&byte| byte == b'=').count();
    let mut bytes = Vec::with_capacity(text.len() / 4 * 3);
    let mut bits = 0u32;
    for (i, &byte) in text[..text.len() - padding].iter().enumerate() {
        bits = (bits << 6) | u32::from(sextet(byte)?);
        if i % 4 == 3 {
            bytes.extend_from_slice(&bits.to_be_bytes()[1..]);
            bits = 0;
        }
    }
    match padding {
        0 => {}
        1 => bytes.extend_from_slice(&(bits << 6).to_be_bytes()[1..3]),
        2 => bytes.push((bits << 12).to_be_bytes()[1]),
        _ => return None,
    }
    (crate::base64::encode(&bytes).as_bytes() == text).then_some(bytes)
}

/// The token of an `Authorization: Bearer TOKEN` header. The scheme's name
/// is case-insensitive (RFC 9110), so `bearer` and `BEARER` count too.
pub fn bearer_token(headers: &HeaderMap) -> Option<&str> {
    let (scheme, token) = header_text(headers, "authorization")?.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then_some(token.trim_start())
}

pub fn header_text<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|value| value.to_str().ok())
}

/// A reply as JSON. Generic in the body type, as `refusal`, `accepted` and
/// `run_handler` are: chapter 14's responses may also be streams of events
/// (`asking_http::Streamed`), and a whole body becomes one of those.
pub fn json_reply<B: From<Body>>(status: StatusCode, reply: &Reply) -> Response<B> {
    let body = serde_json::to_vec(reply).unwrap_or_default();
    let mut response = Response::new(Full::new(Bytes::from(body)).into());
    *response.status_mut() = status;
    let json = HeaderValue::from_static("application/json");
    response.headers_mut().insert(header::CONTENT_TYPE, json);
    response
}

/// A refusal before any message was read: a JSON-RPC error without an id,
/// which is what the spec allows in the body of a 4xx. Logged once per
/// `LOG_EVERY` refusals: a client that is refused in a loop must not fill
/// the disk with our log.
pub fn refusal<B: From<Body>>(status: StatusCode, problem: &str) -> Response<B> {
    sampled(&REFUSALS, &format!("{} {problem}", status.as_u16()));
    let error = RpcError::new(-32600, format!("Invalid Request: {problem}"));
    json_reply(status, &Reply::without_id(error))
}

pub fn accepted<B: From<Body>>() -> Response<B> {
    let mut response = Response::new(Full::new(Bytes::new()).into());
    *response.status_mut() = StatusCode::ACCEPTED;
    response
}

/// At most this long from a request's first byte to its last (head and
/// body): a client that trickles bytes is cut off, not waited for.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// A connection with no request under way is closed after this long.
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(30);

/// The two deadlines of a connection: `REQUEST_TIMEOUT` and `IDLE_TIMEOUT`,
/// or the milliseconds in `WIRE_TEST_REQUEST_TIMEOUT_MS` and
/// `WIRE_TEST_IDLE_TIMEOUT_MS`: a test that only needs a stalled request cut
/// off sets them short instead of waiting 10 s (one test in
/// tests/tests/http_limits.rs waits out the real limit, so that it stays
/// pinned). Not for users: the limits are the server's.
#[derive(Clone, Copy)]
struct Limits {
    request: Duration,
    idle: Duration,
}

impl Limits {
    fn read() -> Limits {
        Limits {
            request: for_tests("WIRE_TEST_REQUEST_TIMEOUT_MS", REQUEST_TIMEOUT),
            idle: for_tests("WIRE_TEST_IDLE_TIMEOUT_MS", IDLE_TIMEOUT),
        }
    }
}

fn for_tests(variable: &str, default: Duration) -> Duration {
    std::env::var(variable)
        .ok()
        .and_then(|millis| millis.parse().ok())
        .map_or(default, Duration::from_millis)
}

/// Connections served at once; one more is closed at once, logged.
pub const MAX_CONNECTIONS: usize = 1024;

/// How long the accept loop rests after a failed accept (out of file
/// descriptors, say) instead of retrying at full speed.
pub const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);

/// One log line for the first of each this many refusals or failures.
pub const LOG_EVERY: u64 = 1000;

// Process-wide by nature: the refusals are sampled in the process's one
// log (stderr), wherever in the process they are written.
static REFUSALS: AtomicU64 = AtomicU64::new(0);

fn sampled(count: &AtomicU64, line: &str) {
    let seen = count.fetch_add(1, Ordering::Relaxed);
    if seen.is_multiple_of(LOG_EVERY) {
        let more = if seen == 0 {
            String::new()
        } else {
            format!(" ({seen} so far)")
        };
        eprintln!("{SERVER_NAME}: {line}{more}");
    }
}

/// A `Content-Length` over `limit`: refused before a byte of the body is read.
pub fn declared_over(headers: &HeaderMap, limit: usize) -> bool {
    header_text(headers, "content-length")
        .and_then(|length| length.trim().parse::<u64>().ok())
        .is_some_and(|length| length > limit as u64)
}

/// Where the handler of a POSTed body runs. A call of a draft tool may wait
/// for the draft's lock (up to `LOCK_WAIT`, held by another process, maybe):
/// it runs on tokio's blocking pool, so waiting holds a thread of its own,
/// never one of the few that every other connection needs. Anything else
/// runs here, on the connection's task: handing it to another thread and
/// back costs more than the work itself (two thread wake-ups a request;
/// with every request on the pool, `cargo xtask bench --http` measured
/// about half the requests per second).
pub async fn run_handler<B: From<Body> + Send + 'static>(
    body: Bytes,
    work: impl FnOnce(Bytes) -> Response<B> + Send + 'static,
) -> Response<B> {
    crate::trace::log(&body); // Its trace context, if any (chapter 25).
    if !may_wait(&body) {
        return work(body);
    }
    match tokio::task::spawn_blocking(move || work(body)).await {
        Ok(response) => response,
        Err(err) => {
            eprintln!("{SERVER_NAME}: the handler failed: {err}");
            let error = RpcError::new(INTERNAL_ERROR, "Internal error".into());
            json_reply(StatusCode::INTERNAL_SERVER_ERROR, &Reply::without_id(error))
        }
    }
}

/// As much of a JSON-RPC message as deciding where it runs needs.
#[derive(serde::Deserialize)]
struct Peek {
    #[serde(default)]
    method: String,
    #[serde(default)]
    params: Option<PeekParams>,
}

#[derive(serde::Deserialize)]
struct PeekParams {
    #[serde(default)]
    name: Option<String>,
}

/// Whether `body` is a `tools/call` of a draft tool, the only request that
/// touches the state folder. A body that does not parse fails before it
/// reaches the folder, so it never waits.
pub fn may_wait(body: &[u8]) -> bool {
    let Ok(peek) = serde_json::from_slice::<Peek>(body) else {
        return false;
    };
    let name = peek.params.and_then(|params| params.name);
    peek.method == "tools/call"
        && name.is_some_and(|name| crate::draft_tools::NAMES.contains(&name.as_str()))
}

/// What one server's accept loop keeps for the connections it serves: a
/// slot for each, at most `MAX_CONNECTIONS`; their deadlines; and the count
/// that samples the failures in the log.
pub struct Connections {
    open: Arc<Semaphore>,
    limits: Limits,
    failures: Arc<AtomicU64>,
}

impl Default for Connections {
    fn default() -> Connections {
        Connections {
            open: Arc::new(Semaphore::new(MAX_CONNECTIONS)),
            limits: Limits::read(),
            failures: Arc::default(),
        }
    }
}

impl Connections {
    /// A failed accept: logged (sampled) and waited out for
    /// `ACCEPT_BACKOFF`, so that running out of file descriptors is not a
    /// busy loop.
    pub async fn accept_failed(&self, err: &std::io::Error) {
        sampled(&self.failures, &format!("accept failed: {err}"));
        tokio::time::sleep(ACCEPT_BACKOFF).await;
    }

    /// Serves one connection on a task of its own, within `MAX_CONNECTIONS`
    /// and the deadlines; one more is closed at once.
    pub fn spawn<S>(&self, stream: TcpStream, service: S)
    where
        S: HttpService<Incoming> + Send + 'static,
        S::Future: Send,
        S::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
        S::ResBody: Send + 'static,
        <S::ResBody as hyper::body::Body>::Data: Send,
        <S::ResBody as hyper::body::Body>::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        let Ok(permit) = Arc::clone(&self.open).try_acquire_owned() else {
            let line = format!("over {MAX_CONNECTIONS} connections: one closed");
            sampled(&self.failures, &line);
            return; // Dropping the stream closes it.
        };
        let io = TokioIo::new(Deadlines::new(stream, self.limits));
        let failures = Arc::clone(&self.failures);
        tokio::spawn(async move {
            let _permit = permit;
            if let Err(err) = http1::Builder::new().serve_connection(io, service).await {
                sampled(&failures, &format!("connection ended: {err}"));
            }
        });
    }
}

/// A stream whose reads fail with `TimedOut` when a request has taken
/// longer than `REQUEST_TIMEOUT` from its first byte, or when nothing came
/// for `IDLE_TIMEOUT` between requests. A request is under way from the
/// first byte read until our answer is written.
struct Deadlines {
    stream: TcpStream,
    limits: Limits,
    timer: Pin<Box<Sleep>>,
    in_request: bool,
}

impl Deadlines {
    fn new(stream: TcpStream, limits: Limits) -> Deadlines {
        let timer = Box::pin(tokio::time::sleep(limits.idle));
        let in_request = false;
        Deadlines {
            stream,
            limits,
            timer,
            in_request,
        }
    }
}

impl AsyncRead for Deadlines {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        match Pin::new(&mut self.stream).poll_read(cx, buf) {
            Poll::Ready(result) => {
                if buf.filled().len() > before && !self.in_request {
                    self.in_request = true;
                    let request = self.limits.request;
                    self.timer.as_mut().reset(Instant::now() + request);
                }
                Poll::Ready(result)
            }
            Poll::Pending => match self.timer.as_mut().poll(cx) {
                Poll::Ready(()) => {
                    let what = if self.in_request {
                        "request"
                    } else {
                        "idle connection"
                    };
                    let problem = format!("{what} timed out");
                    Poll::Ready(Err(std::io::Error::new(
                        std::io::ErrorKind::TimedOut,
                        problem,
                    )))
                }
                Poll::Pending => Poll::Pending,
            },
        }
    }
}

impl AsyncWrite for Deadlines {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        // Our answer is going out: the request is over, the idle clock runs.
        if self.in_request {
            self.in_request = false;
            let idle = self.limits.idle;
            self.timer.as_mut().reset(Instant::now() + idle);
        }
        Pin::new(&mut self.stream).poll_write(cx, data)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_draft_tool_call_goes_to_the_blocking_pool() {
        let call = |name: &str| {
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"{name}"}}}}"#
            )
        };
        for name in crate::draft_tools::NAMES {
            assert!(may_wait(call(name).as_bytes()), "{name}");
        }
        assert!(!may_wait(call("add").as_bytes()));
        assert!(!may_wait(
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#
        ));
        assert!(!may_wait(b"{not json"));
    }

    fn decoded(value: &str) -> Option<String> {
        let value = HeaderValue::from_str(value).unwrap();
        decoded_name(&value).map(|bytes| String::from_utf8(bytes).unwrap())
    }

    #[test]
    fn an_encoded_name_is_decoded_and_a_plain_one_kept() {
        // The examples of the spec's "Value Encoding" table.
        assert_eq!(decoded("us-west1").as_deref(), Some("us-west1"));
        let cases = [
            ("=?base64?SGVsbG8sIOS4lueVjA==?=", "Hello, 世界"),
            ("=?base64?IHBhZGRlZCA=?=", " padded "),
            ("=?base64?bGluZTEKbGluZTI=?=", "line1\nline2"),
            ("=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=", "=?base64?literal?="),
            ("=?base64??=", ""),
        ];
        for (header, name) in cases {
            assert_eq!(decoded(header).as_deref(), Some(name), "{header}");
        }
    }

    #[test]
    fn a_bad_encoding_or_a_raw_byte_outside_ascii_is_refused() {
        for header in [
            "=?base64?YWR?=",     // not a multiple of four
            "=?base64?YW=k?=",    // padding inside
            "=?base64?YWRk===?=", // too much padding
            "=?base64?Zh==?=",    // stray low bits: "Zg==" is the spelling of "f"
            "=?base64?*WRk?=",    // not the alphabet
        ] {
            assert_eq!(decoded(header), None, "{header}");
        }
        let raw = HeaderValue::from_bytes("café".as_bytes()).unwrap();
        assert_eq!(decoded_name(&raw), None);
    }
}
