//! The draft tools' schemas and argument checks, for chapter 12's
//! `drafts.rs`: the shapes its tools take and answer on the wire, and the
//! refusal of arguments a tool does not take. Given with the chapter, not
//! written in it: its lesson is the handle and the operation key.

use serde_json::{Map, Value, json};

use crate::SERVER_NAME;
use crate::jsonrpc::RpcError;

/// The draft tools' names, as `definitions` spells them: the calls that
/// touch the state folder.
pub const NAMES: [&str; 3] = ["start_draft", "append_to_draft", "read_draft"];

pub fn definitions() -> [Value; 3] {
    let draft = json!({
        "type": "string",
        "description": "The handle start_draft returned, such as draft-1",
    });
    [
        json!({
            "name": "start_draft",
            "title": "Start a note draft",
            "description": "Starts an empty engineering note. Returns its handle: pass it to \
                            append_to_draft and read_draft.",
            "inputSchema": {
                "type": "object",
                "properties": { "title": { "type": "string", "minLength": 1 } },
                "required": ["title"],
                "additionalProperties": false,
            },
        }),
        json!({
            "name": "append_to_draft",
            "title": "Append a line to a draft",
            "description": "Appends one line to a draft. operation_key names this change: \
                            send the same key when you retry, and the change is made once.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "draft": draft,
                    "text": { "type": "string", "minLength": 1 },
                    "operation_key": {
                        "type": "string",
                        "minLength": 1,
                        "description": "A new key for each change, the same key for a retry",
                    },
                },
                "required": ["draft", "text", "operation_key"],
                "additionalProperties": false,
            },
        }),
        json!({
            "name": "read_draft",
            "title": "Read a draft",
            "description": "Returns a draft's title and lines.",
            "inputSchema": {
                "type": "object",
                "properties": { "draft": draft },
                "required": ["draft"],
                "additionalProperties": false,
            },
            "annotations": { "readOnlyHint": true },
        }),
    ]
}

/// Why a draft tool did not answer: the caller's mistake, told as a tool
/// error, or the state folder's, which is ours.
pub enum Failure {
    Caller(String),
    Disk(std::io::Error),
}

/// What a tool call answers: a tool error is the caller's to fix; a
/// failing disk is ours, -32603, with the details in our log only. Two
/// troubles of one draft are told to the caller as a tool error naming the
/// draft, since every other draft still works: a file in the folder that
/// is damaged or not a regular file, and a lock held past `LOCK_WAIT`.
pub fn answer(outcome: Result<Value, Failure>) -> Result<Value, RpcError> {
    use std::io::ErrorKind::{InvalidData, TimedOut};
    match outcome {
        Ok(result) => Ok(result),
        Err(Failure::Caller(advice)) => Ok(tool_error(&advice)),
        Err(Failure::Disk(err)) if matches!(err.kind(), InvalidData | TimedOut) => {
            eprintln!("{SERVER_NAME}: state folder: {err}");
            Ok(tool_error(&format!(
                "{err}; try again, or use another draft"
            )))
        }
        Err(Failure::Disk(err)) => {
            eprintln!("{SERVER_NAME}: state folder: {err}");
            Err(RpcError::internal("cannot use the state folder"))
        }
    }
}

impl From<std::io::Error> for Failure {
    fn from(err: std::io::Error) -> Failure {
        Failure::Disk(err)
    }
}

/// Refuses arguments the tool does not take.
pub fn only(arguments: &Map<String, Value>, names: &[&str]) -> Result<(), Failure> {
    match arguments.keys().find(|key| !names.contains(&key.as_str())) {
        Some(unknown) => Err(Failure::Caller(format!(
            "Unknown argument \"{unknown}\": this tool takes {}.",
            names.join(", ")
        ))),
        None => Ok(()),
    }
}

/// A non-empty string argument.
pub fn text<'a>(arguments: &'a Map<String, Value>, name: &str) -> Result<&'a str, Failure> {
    match arguments.get(name) {
        Some(Value::String(value)) if !value.trim().is_empty() => Ok(value),
        _ => Err(Failure::Caller(format!(
            "Argument \"{name}\" must be a non-empty string."
        ))),
    }
}

pub fn tool_result(summary: String, structured: Value) -> Value {
    json!({
        "content": [{ "type": "text", "text": summary }],
        "structuredContent": structured,
        "isError": false,
    })
}

pub fn tool_error(advice: &str) -> Value {
    json!({ "content": [{ "type": "text", "text": advice }], "isError": true })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_the_definitions_names() {
        let names: Vec<Value> = definitions()
            .iter()
            .map(|tool| tool["name"].clone())
            .collect();
        assert_eq!(names, NAMES.map(Value::from));
    }
}
