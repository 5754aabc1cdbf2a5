//! Chapter 15's answers to a server that asks: the user's, on the terminal,
//! or scripted ones from `--answers FILE`; the roots from `--root`; and
//! sampling's two shapes (MCP's `sampling/createMessage` and the Messages
//! API). Support-own: terminal prompting and format plumbing, no lesson.
//!
//! An elicitation is asked on `/dev/tty`, and only when stdin is a
//! terminal: stdout is the program's output (and a transcript's), never a
//! prompt. With no terminal and no scripted answer left, it is declined.
//! A sampling request is shown whole and goes to the model only once the
//! user approves it; with no terminal and no scripted approval, refused.
//!
//! The answers file: `{"elicitation": [ElicitResult, ...], "sampling":
//! [true|false, ...]}`, each list used in order, first come first served.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::model::MAIN;
use crate::transport::INTERNAL_ERROR;

/// The hook events a host that answers servers fires: chapter 11's, and
/// Claude Code's two around a server's form.
pub const EVENTS: &[&str] = &[
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "Stop",
    "SubagentStop",
    "Elicitation",
    "ElicitationResult",
];

/// `--answers`, `--root`, `--no-sampling`: how servers' questions are
/// answered.
#[derive(clap::Args)]
pub struct AnswerArgs {
    /// Scripted answers to servers' questions (JSON: "elicitation" and
    /// "sampling" lists); without it, a terminal asks, else declines
    #[arg(long, value_name = "FILE")]
    pub answers: Option<PathBuf>,
    /// A folder servers may see, as a root (repeatable; default: the
    /// working folder)
    #[arg(long = "root", value_name = "DIR")]
    pub roots: Vec<PathBuf>,
    /// Do not offer sampling to servers
    #[arg(long)]
    pub no_sampling: bool,
}

impl AnswerArgs {
    /// The answers; `demo_answers` is the file a run with no arguments uses.
    pub fn load(self, demo_answers: Option<PathBuf>) -> Result<Answers, String> {
        let file = self.answers.or(demo_answers);
        Answers::load(file.as_deref(), self.roots, !self.no_sampling)
    }
}

#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
struct Script {
    elicitation: VecDeque<Value>,
    sampling: VecDeque<bool>,
}

/// Where the answers come from.
pub struct Answers {
    script: Option<Mutex<Script>>,
    /// The folders the user lets servers see (`roots/list`).
    pub roots: Vec<PathBuf>,
    /// Whether servers may ask for sampling (declared in the capabilities).
    pub sampling: bool,
}

impl Answers {
    /// Reads the answers file, if one is named; `roots` are made absolute.
    pub fn load(
        file: Option<&Path>,
        roots: Vec<PathBuf>,
        sampling: bool,
    ) -> Result<Answers, String> {
        let script = match file {
            None => None,
            Some(file) => {
                let text = std::fs::read_to_string(file)
                    .map_err(|err| format!("--answers {}: {err}", file.display()))?;
                let script: Script = serde_json::from_str(&text)
                    .map_err(|err| format!("--answers {}: {err}", file.display()))?;
                Some(Mutex::new(script))
            }
        };
        let roots = roots
            .into_iter()
            .map(|root| std::path::absolute(&root).unwrap_or(root))
            .collect();
        Ok(Answers {
            script,
            roots,
            sampling,
        })
    }

    /// With `folder` as the only root when `--root` named none (the
    /// default: the working folder).
    pub fn or_root(mut self, folder: &Path) -> Answers {
        if self.roots.is_empty() {
            self.roots.push(folder.to_path_buf());
        }
        self
    }

    /// The user's answer to an elicitation (an ElicitResult), and how it
    /// was got, for the trace.
    pub fn elicit(&self, server: &str, params: &Value) -> (Value, &'static str) {
        let scripted = self
            .script
            .as_ref()
            .and_then(|script| script.lock().unwrap().elicitation.pop_front());
        if let Some(answer) = scripted {
            return (answer, "scripted");
        }
        if !std::io::stdin().is_terminal() {
            return (
                json!({ "action": "decline" }),
                "no terminal, no answers file",
            );
        }
        match on_terminal(|tty| ask_form(tty, server, params)) {
            Ok(answer) => (answer, "asked on the terminal"),
            Err(_) => (
                json!({ "action": "decline" }),
                "the terminal could not be read",
            ),
        }
    }

    /// Whether the user lets `server`'s sampling request go to the model.
    pub fn approve(&self, server: &str, params: &Value) -> (bool, &'static str) {
        let scripted = self
            .script
            .as_ref()
            .and_then(|script| script.lock().unwrap().sampling.pop_front());
        if let Some(approved) = scripted {
            return (approved, "scripted");
        }
        if !std::io::stdin().is_terminal() {
            return (false, "no terminal, no answers file");
        }
        let shown = serde_json::to_string_pretty(params).unwrap_or_default();
        let question = format!("Server {server} asks the model:\n{shown}\nSend it? [y/N] ");
        match on_terminal(|tty| Ok(line(tty, &question)?.trim().eq_ignore_ascii_case("y"))) {
            Ok(approved) => (approved, "asked on the terminal"),
            Err(_) => (false, "the terminal could not be read"),
        }
    }

    /// `roots/list`'s result: one `file://` root per folder.
    pub fn roots_result(&self) -> Value {
        let roots: Vec<Value> = self
            .roots
            .iter()
            .map(|root| {
                let name = root
                    .file_name()
                    .map(|name| name.to_string_lossy().into_owned());
                json!({ "uri": file_uri(root), "name": name.unwrap_or_default() })
            })
            .collect();
        json!({ "roots": roots })
    }
}

/// A `file://` URI for an absolute path, with the bytes a URI cannot
/// hold plainly percent-encoded.
pub fn file_uri(path: &Path) -> String {
    let mut uri = String::from("file://");
    for byte in path.to_string_lossy().bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'/' | b'-' | b'_' | b'.' | b'~' => {
                uri.push(char::from(byte))
            }
            _ => uri.push_str(&format!("%{byte:02X}")),
        }
    }
    uri
}

type Tty = (std::fs::File, BufReader<std::fs::File>);

fn on_terminal<T>(ask: impl FnOnce(&mut Tty) -> std::io::Result<T>) -> std::io::Result<T> {
    let tty = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")?;
    let reader = BufReader::new(tty.try_clone()?);
    ask(&mut (tty, reader))
}

fn line(tty: &mut Tty, question: &str) -> std::io::Result<String> {
    tty.0.write_all(question.as_bytes())?;
    tty.0.flush()?;
    let mut answer = String::new();
    tty.1.read_line(&mut answer)?;
    Ok(answer)
}

/// The form, one field per line (Enter keeps the default), then the choice.
fn ask_form(tty: &mut Tty, server: &str, params: &Value) -> std::io::Result<Value> {
    let message = params["message"].as_str().unwrap_or_default();
    tty.0
        .write_all(format!("Server {server} asks: {message}\n").as_bytes())?;
    if let Some(url) = params["url"].as_str() {
        tty.0
            .write_all(format!("(it asks you to open {url})\n").as_bytes())?;
    }
    let mut content = Map::new();
    let empty = Map::new();
    let properties = params["requestedSchema"]["properties"]
        .as_object()
        .unwrap_or(&empty);
    for (name, schema) in properties {
        let title = schema["title"].as_str().unwrap_or(name);
        let default = &schema["default"];
        let typed = line(tty, &format!("  {title} [{default}]: "))?;
        match (typed.trim(), default) {
            ("", Value::Null) => {}
            ("", default) => drop(content.insert(name.clone(), default.clone())),
            (typed, _) => drop(content.insert(name.clone(), typed_value(typed, schema))),
        }
    }
    let choice = line(tty, "Send it? [a]ccept, [d]ecline, [c]ancel: ")?;
    Ok(match choice.trim() {
        "a" | "accept" => json!({ "action": "accept", "content": content }),
        "c" | "cancel" => json!({ "action": "cancel" }),
        _ => json!({ "action": "decline" }),
    })
}

/// What the user typed, as the schema's type wants it.
fn typed_value(typed: &str, schema: &Value) -> Value {
    match schema["type"].as_str() {
        Some("boolean") => json!(matches!(typed, "y" | "yes" | "true")),
        Some("integer") => typed
            .parse::<i64>()
            .map(Value::from)
            .unwrap_or(json!(typed)),
        Some("number") => typed
            .parse::<f64>()
            .map(Value::from)
            .unwrap_or(json!(typed)),
        _ => json!(typed),
    }
}

/// A server's sampling request: shown to the user, then sent to the
/// harness's model once approved; its result, or the error for the server.
pub async fn sample(
    answers: &Answers,
    model: &dyn crate::seams::ModelApi,
    server: &str,
    params: &Value,
) -> Result<Value, (i64, String)> {
    let (approved, how) = answers.approve(server, params);
    let said = if approved { "approved" } else { "refused" };
    println!("  sampling from {server}: {said} ({how})");
    if !approved {
        // The spec's example of a user who says no (client/sampling).
        return Err((-1, "User rejected sampling request".into()));
    }
    let request = sampling_request(params, model.name());
    let reply = model
        .send(MAIN, &request)
        .await
        .map_err(|err| (INTERNAL_ERROR, err))?;
    Ok(sampling_result(&reply, model.name()))
}

/// `sampling/createMessage`'s params as a Messages API request body.
pub fn sampling_request(params: &Value, model: &str) -> Value {
    let messages: Vec<Value> = params["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|message| {
            let blocks = match &message["content"] {
                Value::Array(blocks) => blocks.clone(),
                block => vec![block.clone()],
            };
            let texts: Vec<Value> = blocks
                .iter()
                .filter_map(|block| block["text"].as_str())
                .map(|text| json!({ "type": "text", "text": text }))
                .collect();
            json!({ "role": message["role"], "content": texts })
        })
        .collect();
    let mut request = json!({
        "model": model,
        "max_tokens": params["maxTokens"].as_u64().unwrap_or(256),
        "messages": messages,
    });
    if let Some(system) = params["systemPrompt"].as_str() {
        request["system"] = json!(system);
    }
    request
}

/// A Messages API reply as `sampling/createMessage`'s result.
pub fn sampling_result(reply: &Value, model: &str) -> Value {
    let text: Vec<&str> = reply["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|block| block["text"].as_str())
        .collect();
    let stop = match reply["stop_reason"].as_str() {
        Some("max_tokens") => "maxTokens",
        Some("stop_sequence") => "stopSequence",
        _ => "endTurn",
    };
    json!({
        "role": "assistant",
        "content": { "type": "text", "text": text.join("\n") },
        "model": reply["model"].as_str().unwrap_or(model),
        "stopReason": stop,
    })
}
