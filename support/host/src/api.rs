//! One Messages API request and its HTTP answer, whole: the status, the
//! headers a client decides a retry by, and the body. Chapter 7's
//! `model.rs` keeps only a reply's body and turns an error into its text;
//! chapter 22 retries, and a retry needs the status and the server's
//! `retry-after`. Support-own: HTTP plumbing, no chapter's lesson.

use std::time::Duration;

use serde_json::Value;

use crate::model::{Model, Provider};
use crate::seams::ModelApi;

/// The API version this code speaks, as chapter 7's model sends it.
const ANTHROPIC_VERSION: &str = "2023-06-01";

/// What one attempt got back.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    /// The response's headers, names in lower case.
    pub headers: Vec<(String, String)>,
    pub body: Value,
}

impl Answer {
    /// A header's value, by its lower-case name.
    pub fn header(&self, name: &str) -> Option<&str> {
        let found = self.headers.iter().find(|(key, _)| key == name);
        found.map(|(_, value)| value.as_str())
    }

    /// What an error answer says, as chapter 7's model words it: the
    /// status, the error's type and message, and the request's id.
    pub fn error(&self) -> String {
        let (status, error) = (self.status, &self.body["error"]);
        match (error["type"].as_str(), error["message"].as_str()) {
            (Some(kind), Some(message)) => {
                let request = self.body["request_id"].as_str().unwrap_or("no request id");
                format!("the model API answered {status}: {kind}: {message} ({request})")
            }
            _ => format!("the model API answered {status}: {}", self.body),
        }
    }
}

/// The HTTP status the Messages API sends with a body: 200 for a message,
/// and for an error the status its documented error type goes with (the
/// API's errors page). A scripted reply is a body alone, so this gives it
/// its status; the scenarios' stub model answers the same way.
pub fn status_of(body: &Value) -> u16 {
    if body["type"] != "error" {
        return 200;
    }
    match body["error"]["type"].as_str().unwrap_or_default() {
        "invalid_request_error" => 400,
        "authentication_error" => 401,
        "billing_error" => 402,
        "permission_error" => 403,
        "not_found_error" => 404,
        "request_too_large" => 413,
        "rate_limit_error" => 429,
        "timeout_error" => 504,
        "overloaded_error" => 529,
        _ => 500,
    }
}

/// Sends `request` for the context `context` once: a scripted model's
/// next reply, or one POST to the Messages API, and what came back, an
/// error status included. Only a failure to talk at all is an `Err`.
pub async fn post(model: &Model, context: &str, request: &Value) -> Result<Answer, String> {
    let Provider::Http {
        base_url, api_key, ..
    } = &model.provider
    else {
        let body = model.send(context, request).await?;
        let status = status_of(&body);
        return Ok(Answer {
            status,
            headers: Vec::new(),
            body,
        });
    };
    if model.trace {
        eprintln!("=> {request}");
    }
    let (url, key, body) = (
        format!("{base_url}/v1/messages"),
        api_key.clone(),
        request.to_string(),
    );
    // ureq blocks: on tokio's pool for blocking work, as chapter 7's model.
    let answer = tokio::task::spawn_blocking(move || post_http(&url, &key, body))
        .await
        .map_err(|err| err.to_string())??;
    if model.trace {
        eprintln!("<= {} {}", answer.status, answer.body);
    }
    Ok(answer)
}

fn post_http(url: &str, api_key: &str, body: String) -> Result<Answer, String> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(600)))
        .build()
        .into();
    let mut response = agent
        .post(url)
        .header("x-api-key", api_key)
        .header("anthropic-version", ANTHROPIC_VERSION)
        .header("content-type", "application/json")
        .send(body)
        .map_err(|err| {
            format!("cannot reach {url}: {err}. Is ANTHROPIC_BASE_URL right, and is the server up?")
        })?;
    let headers = (response.headers().iter())
        .filter_map(|(name, value)| {
            Some((
                name.as_str().to_lowercase(),
                value.to_str().ok()?.to_string(),
            ))
        })
        .collect();
    let status = response.status().as_u16();
    let text = response
        .body_mut()
        .read_to_string()
        .map_err(|err| format!("{url}: cannot read the reply: {err}"))?;
    // An error from something other than the API (a proxy's HTML page) is
    // kept as a string, so the status still decides what happens next.
    let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
    if status == 200 && !body.is_object() {
        return Err(format!("{url}: the reply is not JSON"));
    }
    Ok(Answer {
        status,
        headers,
        body,
    })
}
