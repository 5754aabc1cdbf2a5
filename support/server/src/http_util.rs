//! Chapter 12's HTTP plumbing, with the `http` feature: the responses its
//! transport writes (JSON, refusals, 202), reading headers, and the signals
//! that stop the server. Given with the chapter, not written in it: its
//! lesson is what each check and each status means, in `http.rs`.

use http_body_util::Full;
use hyper::body::Bytes;
use hyper::header::{self, HeaderMap, HeaderValue};
use hyper::{Response, StatusCode};

use crate::SERVER_NAME;
use crate::jsonrpc::{Reply, RpcError};

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

/// `application/json`, with or without parameters such as `charset=utf-8`.
pub fn is_json(headers: &HeaderMap) -> bool {
    header_text(headers, "content-type")
        .and_then(|value| value.split(';').next())
        .is_some_and(|media| media.trim().eq_ignore_ascii_case("application/json"))
}

pub fn header_text<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|value| value.to_str().ok())
}

pub fn json_reply(status: StatusCode, reply: &Reply) -> Response<Body> {
    let body = serde_json::to_vec(reply).unwrap_or_default();
    let mut response = Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = status;
    let json = HeaderValue::from_static("application/json");
    response.headers_mut().insert(header::CONTENT_TYPE, json);
    response
}

/// A refusal before any message was read: a JSON-RPC error without an id,
/// which is what the spec allows in the body of a 4xx.
pub fn refusal(status: StatusCode, problem: &str) -> Response<Body> {
    eprintln!("{SERVER_NAME}: {} {problem}", status.as_u16());
    let error = RpcError::new(-32600, format!("Invalid Request: {problem}"));
    json_reply(status, &Reply::without_id(error))
}

pub fn accepted() -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::new()));
    *response.status_mut() = StatusCode::ACCEPTED;
    response
}
