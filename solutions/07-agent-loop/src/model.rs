//! The model, behind one function: `send` takes a Messages API request
//! body and returns the reply body. Two providers speak that one format:
//!
//! - `Scripted` gives a script's replies (`wire_host::script`): no key,
//!   no network; one queue of replies per context;
//! - `Http` posts to `{ANTHROPIC_BASE_URL}/v1/messages`: Claude, or a local
//!   model served by Ollama or llama.cpp.

use std::time::Duration;

use async_trait::async_trait;
use serde_json::Value;
use wire_host::script::Script;
use wire_host::seams::ModelApi;

/// The Anthropic API, unless `ANTHROPIC_BASE_URL` says otherwise.
const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";
/// The API version this code speaks; a required header.
const ANTHROPIC_VERSION: &str = "2023-06-01";
/// The key of the main conversation's context; a subagent's is the id of
/// the `Agent` call that started it.
pub const MAIN: &str = "main";

pub struct Model {
    pub provider: Provider,
    /// Print each request (`=>`) and reply (`<=`) on stderr.
    pub trace: bool,
}

pub enum Provider {
    Scripted(Script),
    Http {
        model: String,
        base_url: String,
        api_key: String,
    },
}

/// A scripted model, and the prompt its script brings.
pub fn scripted(name: &str, text: &str) -> Result<(Model, String), String> {
    let (script, prompt) = Script::read(name, text)?;
    let model = Model {
        provider: Provider::Scripted(script),
        trace: false,
    };
    Ok((model, prompt))
}

// ANCHOR: choose_model
/// The model a run talks to, and the prompt its script brings: a real
/// model only when one is named (`--model`, WIRE_MODEL): a key in the
/// environment alone never sends anything anywhere. Else a script, the
/// one `--script` names or the chapter's demo (`demo`: its name and text).
pub fn choose(
    named: Option<String>,
    script: Option<String>,
    demo: (&str, &str),
) -> Result<(Model, String), String> {
    match (named, script) {
        (Some(name), _) => Ok((from_env(&name)?, String::new())),
        (None, Some(path)) => {
            let text = std::fs::read_to_string(&path)
                .map_err(|err| format!("cannot read script {path}: {err}"))?;
            scripted(&path, &text)
        }
        (None, None) => scripted(demo.0, demo.1),
    }
}
// ANCHOR_END: choose_model

// ANCHOR: from_env
/// The HTTP provider, configured from the environment.
pub fn from_env(model: &str) -> Result<Model, String> {
    let api_key = std::env::var("ANTHROPIC_API_KEY").unwrap_or_default();
    if api_key.is_empty() {
        return Err(format!(
            "model {model} needs an API key: set ANTHROPIC_API_KEY \
             (any non-empty value for a local model, e.g. ANTHROPIC_API_KEY=ollama)"
        ));
    }
    let base_url = std::env::var("ANTHROPIC_BASE_URL")
        .ok()
        .filter(|url| !url.is_empty())
        .unwrap_or_else(|| DEFAULT_BASE_URL.to_string());
    let provider = Provider::Http {
        model: model.to_string(),
        base_url: base_url.trim_end_matches('/').to_string(),
        api_key,
    };
    Ok(Model {
        provider,
        trace: false,
    })
}
// ANCHOR_END: from_env

/// What the harness needs of a model (`wire_host::seams`).
#[async_trait(?Send)]
impl ModelApi for Model {
    /// The `model` field of each request.
    fn name(&self) -> &str {
        match &self.provider {
            Provider::Scripted(_) => "scripted",
            Provider::Http { model, .. } => model,
        }
    }

    /// One turn of the context `key`: the request body out, the reply body
    /// back. A trace labels a subagent's frames `[id]`, like a transcript.
    async fn send(&self, key: &str, request: &Value) -> Result<Value, String> {
        let label = match key {
            MAIN => String::new(),
            _ => format!("[{key}] "),
        };
        if self.trace {
            eprintln!("{label}=> {request}");
        }
        let reply = self.provider.send(key, request).await;
        if let (true, Ok(reply)) = (self.trace, &reply) {
            eprintln!("{label}<= {reply}");
        }
        reply
    }
}

impl Provider {
    async fn send(&self, context: &str, request: &Value) -> Result<Value, String> {
        match self {
            Provider::Scripted(script) => script.next(context),
            Provider::Http {
                base_url, api_key, ..
            } => {
                let url = format!("{base_url}/v1/messages");
                let (key, body) = (api_key.clone(), request.to_string());
                // ureq blocks; a blocking call inside async code belongs on
                // tokio's thread pool for blocking work.
                tokio::task::spawn_blocking(move || post(&url, &key, body))
                    .await
                    .map_err(|err| err.to_string())?
            }
        }
    }
}

// ANCHOR: post
fn post(url: &str, api_key: &str, body: String) -> Result<Value, String> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false) // We read error bodies: they explain.
        .timeout_global(Some(Duration::from_secs(600)))
        .build()
        .into();
    let mut response = send_request(&agent, url, api_key, body)?;
    let status = response.status();
    let text = response
        .body_mut()
        .read_to_string()
        .map_err(|err| format!("{url}: cannot read the reply: {err}"))?;
    if !status.is_success() {
        return Err(api_error(status.as_u16(), &text));
    }
    serde_json::from_str(&text).map_err(|err| format!("{url}: the reply is not JSON: {err}"))
}

/// What an error reply says. The Messages API answers a failure with an
/// HTTP status (429 rate limited, 529 overloaded, ...) and a body
/// `{"type":"error","error":{"type":...,"message":...},"request_id":...}`;
/// a local server may send anything, so the raw text is the fallback.
fn api_error(status: u16, text: &str) -> String {
    let body: Value = serde_json::from_str(text).unwrap_or_default();
    let error = &body["error"];
    match (error["type"].as_str(), error["message"].as_str()) {
        (Some(kind), Some(message)) => {
            let request = body["request_id"].as_str().unwrap_or("no request id");
            format!("the model API answered {status}: {kind}: {message} ({request})")
        }
        _ => format!("the model API answered {status}: {}", text.trim()),
    }
}

/// One POST to the Messages API. A reply with an error status is still a
/// reply: only a failure to talk at all is an `Err` here.
fn send_request(
    agent: &ureq::Agent,
    url: &str,
    api_key: &str,
    body: String,
) -> Result<ureq::http::Response<ureq::Body>, String> {
    // GAP(ch07/http): POST the body with the three headers the Messages
    // API needs (x-api-key, anthropic-version, content-type), and turn a
    // connection failure into an error that names the URL.
    // starter: Err(format!("TODO(ch07/http): cannot post to {url} yet"))
    agent
        .post(url)
        .header("x-api-key", api_key)
        .header("anthropic-version", ANTHROPIC_VERSION)
        .header("content-type", "application/json")
        .send(body)
        .map_err(|err| {
            format!("cannot reach {url}: {err}. Is ANTHROPIC_BASE_URL right, and is the server up?")
        })
    // END(ch07/http)
}
// ANCHOR_END: post
