//! The tools: how they describe themselves (`tools/list`) and what they do
//! (`tools/call`). `add` is chapter 3's; `search_notes` searches the notes
//! that resources.rs serves; the draft tools keep their state in drafts.rs.

use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::jsonrpc::RpcError;
use crate::resources::Notes;
use crate::state::State;
use crate::{draft_tools, drafts};

// ANCHOR: list
pub fn list() -> Value {
    let [start, append, read] = draft_tools::definitions(); // Their schemas are given.
    json!({ "tools": [add_definition(), search_definition(), start, append, read] })
}

/// What the model reads to decide whether and how to call `add`.
fn add_definition() -> Value {
    json!({
        "name": "add",
        "title": "Add two numbers",
        "description": "Adds two numbers and returns their sum. \
                        Use it instead of doing arithmetic in your head.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "a": { "type": "number", "description": "The first number" },
                "b": { "type": "number", "description": "The second number" },
            },
            "required": ["a", "b"],
            "additionalProperties": false,
        },
        "outputSchema": {
            "type": "object",
            "properties": { "sum": { "type": "number", "description": "a + b" } },
            "required": ["sum"],
        },
    })
}
// ANCHOR_END: list

// ANCHOR: call
#[derive(Deserialize)]
struct CallParams {
    name: String,
    #[serde(default)]
    arguments: Map<String, Value>,
}

pub fn call(params: Option<Value>, notes: &Notes, state: &State) -> Result<Value, RpcError> {
    let params = params.ok_or_else(|| RpcError::invalid_params("tools/call needs params"))?;
    // A request that does not fit the schema (no name, arguments that are
    // not an object) is a protocol error: the client sent a broken request.
    let CallParams { name, arguments } =
        serde_json::from_value(params).map_err(RpcError::invalid_params)?;
    match name.as_str() {
        // Bad arguments are the model's mistake, not the client's: they come
        // back as a result with isError, so the model can read it and retry.
        "add" => Ok(match add(&arguments) {
            Ok(sum) => tool_result(sum),
            Err(advice) => tool_error(advice),
        }),
        "search_notes" => Ok(search_notes(notes, &arguments)),
        _ => drafts::call(&name, &arguments, state)?
            .ok_or_else(|| RpcError::new(-32602, format!("Unknown tool: {name}"))),
    }
}
// ANCHOR_END: call

// ANCHOR: results
fn tool_result(sum: Value) -> Value {
    let structured = json!({ "sum": sum });
    json!({
        "content": [{ "type": "text", "text": structured.to_string() }],
        "structuredContent": structured,
        "isError": false,
    })
}

fn tool_error(advice: String) -> Value {
    json!({
        "content": [{ "type": "text", "text": advice }],
        "isError": true,
    })
}
// ANCHOR_END: results

// ANCHOR: add
/// 2^53 - 1: up to here a double (Rust's f64, and every JavaScript number)
/// holds every integer, so integer sums are exact. Beyond it, it skips some.
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// Adds `a` and `b`, or says what the caller must change.
fn add(arguments: &Map<String, Value>) -> Result<Value, String> {
    if let Some(unknown) = arguments.keys().find(|key| *key != "a" && *key != "b") {
        return Err(format!(
            "Unknown argument \"{unknown}\": add takes exactly two numbers, a and b."
        ));
    }
    let a = number(arguments, "a")?;
    let b = number(arguments, "b")?;
    let sum = a + b;
    // Past 2^53 - 1 the sum may have been rounded: refuse it rather than
    // answer a number that is quietly wrong.
    if sum.abs() > MAX_SAFE_INTEGER {
        let (a, b) = (json_number(a), json_number(b));
        return Err(format!(
            "The sum of {a} and {b} is beyond 9007199254740991 in size, where it \
             may not be exact; use smaller numbers."
        ));
    }
    Ok(json_number(sum))
}

fn number(arguments: &Map<String, Value>, name: &str) -> Result<f64, String> {
    let value = match arguments.get(name) {
        Some(Value::Number(value)) => value,
        Some(other) => {
            return Err(format!(
                "Argument \"{name}\" must be a JSON number such as 2 or 2.5, not {}.",
                describe(other)
            ));
        }
        None => {
            return Err(format!(
                "Missing argument \"{name}\": add needs two numbers, a and b."
            ));
        }
    };
    // Every JSON number becomes an f64, and past 2^53 - 1 that can lose
    // digits on the way in: serde_json already reads -18446744073709551615,
    // too big for an i64, as the float -1.8446744073709552e19. So any number
    // that big is refused, however it is written.
    let float = value.as_f64().unwrap_or(f64::INFINITY);
    if float.abs() > MAX_SAFE_INTEGER {
        return Err(format!(
            "Argument \"{name}\" is {value}, too large to add exactly; \
             use numbers between -9007199254740991 and 9007199254740991."
        ));
    }
    Ok(float)
}

/// 2 + 3 is `5`, not `5.0`: whole results are written as integers.
fn json_number(x: f64) -> Value {
    if x.fract() == 0.0 && x.abs() <= MAX_SAFE_INTEGER {
        Value::from(x as i64)
    } else {
        Value::from(x)
    }
}

fn describe(value: &Value) -> String {
    match value {
        Value::Null => "null".to_string(),
        Value::Bool(flag) => format!("the boolean {flag}"),
        Value::String(text) => format!("the string {value}", value = Value::from(text.as_str())),
        Value::Array(_) => "an array".to_string(),
        Value::Object(_) => "an object".to_string(),
        Value::Number(number) => format!("the number {number}"),
    }
}
// ANCHOR_END: add

// ANCHOR: search
/// The notes of resources.rs as a tool: the model decides when to search.
fn search_definition() -> Value {
    json!({
        "name": "search_notes",
        "title": "Search the engineering notes",
        "description": "Finds the notes whose text contains a word or phrase, ignoring case. \
                        Returns the first matching line of each note, and a link to the \
                        whole note.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "query": {
                    "type": "string",
                    "minLength": 1,
                    "description": "The word or phrase to look for, such as retry",
                },
            },
            "required": ["query"],
            "additionalProperties": false,
        },
        "annotations": { "readOnlyHint": true },
    })
}

/// Runs `search_notes`: a text block with one line per match, then a
/// `resource_link` per match (a Resource from resources/list, plus a type).
fn search_notes(notes: &Notes, arguments: &Map<String, Value>) -> Value {
    if let Some(unknown) = arguments.keys().find(|key| *key != "query") {
        return tool_error(format!(
            "Unknown argument \"{unknown}\": search_notes takes one string, query."
        ));
    }
    let query = match arguments.get("query") {
        Some(Value::String(query)) if !query.trim().is_empty() => query.trim(),
        Some(_) => {
            return tool_error(
                "Argument \"query\" must be a non-empty string, such as \"retry\".".to_string(),
            );
        }
        None => {
            return tool_error(
                "Missing argument \"query\": say what to look for, such as \"retry\".".to_string(),
            );
        }
    };
    let needle = query.to_lowercase();
    let mut lines = Vec::new();
    let mut content = Vec::new();
    for entry in notes.entries() {
        let Some(text) = entry.text() else {
            continue; // Binary notes are not searched.
        };
        if let Some(line) = text
            .lines()
            .find(|line| line.to_lowercase().contains(&needle))
        {
            lines.push(format!("{}: {}", entry.uri, line.trim()));
            let mut link = entry.to_json();
            link["type"] = "resource_link".into();
            content.push(link);
        }
    }
    let summary = match lines.len() {
        0 => format!("No note contains \"{query}\"."),
        1 => format!("1 note contains \"{query}\":\n{}", lines.join("\n")),
        n => format!("{n} notes contain \"{query}\":\n{}", lines.join("\n")),
    };
    content.insert(0, json!({ "type": "text", "text": summary }));
    json!({ "content": content, "isError": false })
}
// ANCHOR_END: search
