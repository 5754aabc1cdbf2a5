//! Streamable HTTP: one endpoint, `/mcp`. Each POST carries one JSON-RPC
//! message; a request gets one JSON-RPC reply as `application/json`, a
//! notification or a response gets `202 Accepted`. Before the message is
//! read, the transport refuses what is not ours to serve: a foreign
//! `Origin`, a missing token, a body too large, a body that is not JSON.
//!
//! The server keeps no session: every POST says which revision it speaks
//! (in its headers, and for 2026-07-28 in its body too), so any instance
//! that shares the `--state` folder can answer it.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use http_body_util::{BodyExt, Full, LengthLimitError, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::header::{self, HeaderMap, HeaderValue};
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use serde_json::Value;
use tokio::net::TcpListener;

use crate::SERVER_NAME;
use crate::ask::Ask;
use crate::asking_http::{self, Pending, Streamed};
use crate::http_util::{Connections, accepted, declared_over, decoded_name};
use crate::http_util::{bearer_token, is_json, json_reply, one_value, one_value_each, refusal};
use crate::http_util::{header_text, run_handler, stop_signal};
use crate::jsonrpc::{self, MAX_FRAME_BYTES, Message, Reply, RpcError};
use crate::modern::{self, MODERN_VERSION};
use crate::options::Guard;
use crate::server::{Era, Handshake, SUPPORTED_PROTOCOL_VERSIONS};

/// The one path this server answers on.
pub const ENDPOINT: &str = "/mcp";

/// JSON-RPC error code of 2026-07-28 for headers that do not match the body.
const HEADER_MISMATCH: i64 = -32020;

// ANCHOR: handler
/// What the transport serves: chapter 14's `Asking`, or the conformance
/// suite's fixtures (`ch14-conformance`, beside the course's tests), whose
/// answers may have notifications to send first.
pub trait Handler: Send + Sync {
    /// One request in the era the transport decided: the notifications to
    /// send before its reply (progress, log messages), and its outcome.
    /// `asker`: how a 2025-11-25 request asks the client, if it may.
    fn request(&self, method: &str, params: Option<Value>, era: Era, asker: Asker) -> Answer;
    /// Whether a 2025-11-25 request may ask the client: it is then answered
    /// on an event stream that stays open while it waits.
    fn may_ask(&self, method: &str, params: Option<&Value>) -> bool;
    fn notification(&self, method: &str);
}

pub type Answer = (Vec<Value>, Result<Value, RpcError>);
pub type Asker<'a> = Option<&'a mut dyn Ask>;

// ANCHOR_END: handler

/// Everything a connection needs: what answers (its state lives in a
/// folder, so no lock is needed to share it) and the guard.
pub struct Shared {
    pub server: Box<dyn Handler>,
    pub guard: Guard,
    /// This instance's calls that wait for a client's answer (2025-11-25).
    pub pending: Arc<Pending>,
    /// `--answer-wait`: how long such a call waits for each answer.
    pub answer_wait: Duration,
}

// ANCHOR: serve
/// Accepts connections until Ctrl-C or SIGTERM; each connection is served
/// by hyper on its own task, one HTTP request after another.
pub async fn serve(listen: SocketAddr, shared: Arc<Shared>) -> Result<(), String> {
    let listener = TcpListener::bind(listen)
        .await
        .map_err(|err| format!("cannot listen on {listen}: {err}"))?;
    // The signals are ours from here on, before anyone is told we listen.
    let stop = stop_signal().map_err(|err| format!("cannot watch for signals: {err}"))?;
    tokio::pin!(stop);
    let bound = listener.local_addr().map_err(|err| err.to_string())?;
    eprintln!("listening on http://{bound}{}", ENDPOINT);
    let connections = Connections::default(); // this server's, within its limits
    loop {
        let (stream, _peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(err) => {
                    // Out of file descriptors, say: refuse this one, keep serving.
                    connections.accept_failed(&err).await;
                    continue;
                }
            },
            signal = &mut stop => {
                eprintln!("{SERVER_NAME}: {signal}, bye");
                return Ok(());
            }
        };
        let shared = Arc::clone(&shared);
        let service = service_fn(move |request| handle(request, Arc::clone(&shared)));
        connections.spawn(stream, service); // with timeouts and a connection limit
    }
}

// ANCHOR_END: serve

// ANCHOR: handle
/// hyper calls this once per HTTP request on any connection.
async fn handle(
    request: Request<Incoming>,
    shared: Arc<Shared>,
) -> Result<Response<Streamed>, Infallible> {
    Ok(answer(request, shared).await)
}

/// The checks run cheapest first, and none of them reads the body until
/// the sender is known to be welcome.
async fn answer(request: Request<Incoming>, shared: Arc<Shared>) -> Response<Streamed> {
    if request.uri().path() != ENDPOINT {
        return refusal(StatusCode::NOT_FOUND, "the MCP endpoint is /mcp");
    }
    if let Some(origin) = request.headers().get(header::ORIGIN)
        && !origin_allowed(origin, &shared.guard.allowed_origins)
    {
        return refusal(StatusCode::FORBIDDEN, "this Origin may not use the server");
    }
    if let Some(token) = &shared.guard.token
        && let Some(refused) = check_token(request.headers(), token)
    {
        return refused;
    }
    if request.method() != Method::POST {
        // No GET stream (2026-07-28 removed it, and 2025-11-25 lets us say
        // 405) and no sessions to DELETE.
        let mut refused = refusal(StatusCode::METHOD_NOT_ALLOWED, "only POST is served here");
        let allow = HeaderValue::from_static("POST");
        refused.headers_mut().insert(header::ALLOW, allow);
        return refused;
    }
    if !is_json(request.headers()) {
        let problem = "send the message with Content-Type: application/json";
        return refusal(StatusCode::UNSUPPORTED_MEDIA_TYPE, problem);
    }
    if declared_over(request.headers(), MAX_FRAME_BYTES) {
        let problem = format!("a message may be at most {MAX_FRAME_BYTES} bytes");
        return refusal(StatusCode::PAYLOAD_TOO_LARGE, &problem);
    }
    let headers = request.headers().clone();
    let body = match Limited::new(request.into_body(), MAX_FRAME_BYTES)
        .collect()
        .await
    {
        Ok(body) => body.to_bytes(),
        Err(err) if err.is::<LengthLimitError>() => {
            let problem = format!("a message may be at most {MAX_FRAME_BYTES} bytes");
            return refusal(StatusCode::PAYLOAD_TOO_LARGE, &problem);
        }
        Err(err) => return refusal(StatusCode::BAD_REQUEST, &format!("unreadable body: {err}")),
    };
    run_handler(body, move |body| post(&headers, &body, &shared)).await
}
// ANCHOR_END: handle

// ANCHOR: post
/// One POSTed message, its era decided once, its headers checked against its body.
fn post(headers: &HeaderMap, body: &[u8], shared: &Arc<Shared>) -> Response<Streamed> {
    let server = &*shared.server;
    let message = match jsonrpc::parse(body) {
        Err(reply) => return json_reply(StatusCode::BAD_REQUEST, &reply),
        Ok(message) => message,
    };
    // The era, decided once: by the body, as over stdio (chapter 12's
    // `Handshake::era`), or by a header that names the modern revision.
    let version = header_text(headers, "mcp-protocol-version");
    let modern = matches!(Handshake::default().era(&message), Era::Modern)
        || version == Some(MODERN_VERSION);
    let (id, method, params) = match message {
        Message::Request { id, method, params } => (id, method, params),
        Message::Notification { method } => {
            server.notification(&method);
            return accepted();
        }
        Message::Response => return asking_http::deliver(body, &shared.pending),
    };
    if !modern {
        // Errors of the legacy era travel as 200: the HTTP exchange worked,
        // the JSON-RPC request did not.
        let (notifications, outcome) = match legacy_revision(&method, headers) {
            Ok(protocol_version) => {
                let mut handshake = Handshake { protocol_version };
                if server.may_ask(&method, params.as_ref()) {
                    return stream(shared, id, method, params, handshake);
                }
                server.request(&method, params, Era::Legacy(&mut handshake), None)
            }
            Err(error) => return json_reply(StatusCode::BAD_REQUEST, &Reply::new(id, Err(error))),
        };
        return answer_with(StatusCode::OK, &Reply::new(id, outcome), notifications);
    }
    let (notifications, outcome) = match check_modern_headers(headers, &method, params.as_ref()) {
        Ok(()) => server.request(&method, params, Era::Modern, None),
        Err(error) => (Vec::new(), Err(error)),
    };
    let status = match &outcome {
        Ok(_) => StatusCode::OK,
        Err(error) => modern_status(modern::code(error)),
    };
    answer_with(status, &Reply::new(id, outcome), notifications)
}

// ANCHOR: sse
/// A reply alone goes out as JSON. A reply with notifications before it
/// (progress, log messages) goes out as a stream of server-sent events,
/// one `data:` line per message, the reply last; the stream then ends.
fn answer_with(status: StatusCode, reply: &Reply, notifications: Vec<Value>) -> Response<Streamed> {
    if notifications.is_empty() {
        return json_reply(status, reply);
    }
    let mut events = String::new();
    let reply = serde_json::to_string(reply).unwrap_or_default();
    let messages = notifications.iter().map(Value::to_string).chain([reply]);
    for message in messages {
        events.push_str(&format!("event: message\ndata: {message}\n\n"));
    }
    let mut response = Response::new(Full::new(Bytes::from(events)).into());
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    // Asks a proxy such as nginx not to hold the events back (the spec's SHOULD).
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}
// ANCHOR_END: sse

// ANCHOR: stream
/// 2025-11-25, a call that may ask: answered on an event stream that stays
/// open while the call runs, asking through it (`asking_http::stream`).
fn stream(
    shared: &Arc<Shared>,
    id: Value,
    method: String,
    params: Option<Value>,
    mut handshake: Handshake,
) -> Response<Streamed> {
    let (pending, shared) = (Arc::clone(&shared.pending), Arc::clone(shared));
    asking_http::stream(pending, shared.answer_wait, move |asker| {
        let era = Era::Legacy(&mut handshake);
        let (_, outcome) = shared.server.request(&method, params, era, Some(asker));
        Reply::new(id, outcome)
    })
}
// ANCHOR_END: stream
// ANCHOR_END: post

// ANCHOR: modern_status
/// An HTTP status for each 2026-07-28 error, so that a gateway can act on a
/// failure unread. The spec fixes 404 for -32601 and 400 for -32020 to -32022.
fn modern_status(code: i64) -> StatusCode {
    match code {
        jsonrpc::METHOD_NOT_FOUND => StatusCode::NOT_FOUND,
        jsonrpc::INTERNAL_ERROR => StatusCode::INTERNAL_SERVER_ERROR,
        _ => StatusCode::BAD_REQUEST,
    }
}
// ANCHOR_END: modern_status

// ANCHOR: modern_headers
/// 2026-07-28 mirrors the version, the method and the name into headers so
/// that a proxy can route without reading the body. The server reads the
/// body, so it must refuse a request whose headers say something else.
fn check_modern_headers(
    headers: &HeaderMap,
    method: &str,
    params: Option<&Value>,
) -> Result<(), RpcError> {
    one_value_each(headers, HEADER_MISMATCH)?; // a header sent twice, two ways
    let meta_version = params
        .and_then(|params| params.get("_meta"))
        .and_then(|meta| meta.get("io.modelcontextprotocol/protocolVersion"));
    match meta_version {
        // No version in the body: the body is wrong, and check_meta says how.
        None => return modern::check_meta(params),
        Some(meta_version) => {
            let body_version = meta_version.as_str().unwrap_or_default();
            expect_header(headers, "MCP-Protocol-Version", body_version)?;
        }
    }
    expect_header(headers, "Mcp-Method", method)?;
    let name_field = match method {
        "tools/call" | "prompts/get" => "name",
        "resources/read" => "uri",
        _ => return Ok(()),
    };
    match params.and_then(|params| params.get(name_field)) {
        Some(Value::String(name)) => expect_header(headers, "Mcp-Name", name),
        // A missing or odd name is the handler's to refuse, with -32602.
        _ => Ok(()),
    }
}

/// The header must be there and say `body_value`; `Mcp-Name` may say it
/// as `=?base64?…?=`, the form that carries what a header cannot.
fn expect_header(headers: &HeaderMap, name: &str, body_value: &str) -> Result<(), RpcError> {
    let mismatch =
        |detail: String| RpcError::new(HEADER_MISMATCH, format!("Header mismatch: {detail}"));
    let Some(value) = headers.get(name) else {
        return Err(mismatch(format!("the {name} header is missing")));
    };
    let said = match name {
        "Mcp-Name" => decoded_name(value),
        _ => Some(value.as_bytes().to_vec()),
    };
    if said.as_deref() == Some(body_value.as_bytes()) {
        return Ok(());
    }
    let shown = String::from_utf8_lossy(said.as_deref().unwrap_or(value.as_bytes()));
    Err(mismatch(format!(
        "{name} header value '{shown}' does not match body value '{body_value}'"
    )))
}
// ANCHOR_END: modern_headers

// ANCHOR: legacy_revision
/// 2025-11-25 and 2025-06-18 agree on a revision in `initialize`, and the
/// client then names it in `MCP-Protocol-Version` on every request. We keep
/// no session, so that header is the only memory of the handshake.
fn legacy_revision(method: &str, headers: &HeaderMap) -> Result<Option<String>, RpcError> {
    // Sent twice, two ways: a gateway reading the last would see another revision.
    let version = one_value(headers, "MCP-Protocol-Version").map_err(RpcError::invalid_request)?;
    if method == "initialize" {
        return Ok(None);
    }
    match version {
        Some(version) if SUPPORTED_PROTOCOL_VERSIONS.contains(&version) => {
            Ok(Some(version.to_string()))
        }
        // Without the header the spec says to assume 2025-03-26, which this
        // server does not speak; so both cases are an unsupported revision.
        _ => Err(RpcError::invalid_request(format!(
            "MCP-Protocol-Version must name a revision this server speaks: {} (after \
             initialize), or {MODERN_VERSION}",
            SUPPORTED_PROTOCOL_VERSIONS.join(", ")
        ))),
    }
}
// ANCHOR_END: legacy_revision

// ANCHOR: guards
/// DNS rebinding: a web page from anywhere can make a browser send requests
/// to 127.0.0.1, but the browser names the page's origin. Loopback origins
/// are ours; others only when `--allow-origin` names them exactly.
fn origin_allowed(origin: &HeaderValue, allowed: &[String]) -> bool {
    let Ok(origin) = origin.to_str() else {
        return false;
    };
    if allowed.iter().any(|allowed| allowed == origin) {
        return true;
    }
    let Some((scheme, rest)) = origin.split_once("://") else {
        return false; // Includes "null", which opaque origins send.
    };
    let host = match rest.rsplit_once(':') {
        Some((host, port)) if port.bytes().all(|byte| byte.is_ascii_digit()) => host,
        _ => rest,
    };
    matches!(scheme, "http" | "https") && matches!(host, "localhost" | "127.0.0.1" | "[::1]")
}

/// A bearer token (RFC 6750): 401 with `WWW-Authenticate` when it is
/// missing or wrong, so the client knows what to send.
fn check_token(headers: &HeaderMap, token: &str) -> Option<Response<Streamed>> {
    let sent = bearer_token(headers);
    let challenge = match sent {
        Some(sent) if same_secret(sent.as_bytes(), token.as_bytes()) => return None,
        Some(_) => "Bearer realm=\"mcp\", error=\"invalid_token\"",
        None => "Bearer realm=\"mcp\"",
    };
    let mut refused = refusal(StatusCode::UNAUTHORIZED, "a valid bearer token is required");
    let challenge = HeaderValue::from_static(challenge);
    refused
        .headers_mut()
        .insert(header::WWW_AUTHENTICATE, challenge);
    Some(refused)
}

/// Compares every byte whatever the first difference, so that the time a
/// refusal takes does not tell an attacker how much of a guess was right.
fn same_secret(sent: &[u8], token: &[u8]) -> bool {
    sent.len() == token.len() && sent.iter().zip(token).fold(0, |acc, (a, b)| acc | (a ^ b)) == 0
}
// ANCHOR_END: guards

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_origins_pass_and_others_do_not() {
        let allowed = vec!["https://app.example".to_string()];
        let check =
            |origin: &str| origin_allowed(&HeaderValue::from_str(origin).unwrap(), &allowed);
        assert!(check("http://localhost:3000"));
        assert!(check("http://127.0.0.1"));
        assert!(check("http://[::1]:8080"));
        assert!(check("https://app.example"));
        assert!(!check("http://evil.example"));
        assert!(!check("http://localhost.evil.example"));
        assert!(!check("null"));
        assert!(!check("https://app.example:444"));
    }
}
