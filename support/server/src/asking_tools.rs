//! Chapter 14's tools as the model sees them (`tools/list`), and the form
//! `publish_draft` shows the user: given, as chapter 12's draft tools'
//! schemas are (`draft_tools.rs`). What the tools do is the chapter's.
//!
//! The schemas name their dialect, JSON Schema 2020-12, which is what MCP
//! assumes when none is named; saying it costs one line and leaves no doubt.

use serde_json::{Value, json};

pub const NAMES: [&str; 3] = ["publish_draft", "summarize_note", "export_draft"];

const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// A tool's input schema: an object of required strings, nothing else.
fn strings(fields: &[(&str, &str)]) -> Value {
    let properties: serde_json::Map<String, Value> = fields
        .iter()
        .map(|(name, about)| {
            (
                name.to_string(),
                json!({ "type": "string", "description": about }),
            )
        })
        .collect();
    let required: Vec<&str> = fields.iter().map(|(name, _)| *name).collect();
    json!({
        "$schema": DIALECT,
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}

/// What every one of them returns as `structuredContent`: what it did.
fn outcome(fields: Value) -> Value {
    json!({ "$schema": DIALECT, "type": "object", "properties": fields })
}

pub fn definitions() -> [Value; 3] {
    let draft = (
        "draft",
        "The draft's handle, as start_draft returned it, such as draft-1",
    );
    [
        json!({
            "name": NAMES[0],
            "title": "Publish a draft",
            "description": "Publishes a draft once the user confirms it in a form. The user may \
                            decline or cancel: then nothing is published.",
            "inputSchema": strings(&[draft]),
            "outputSchema": outcome(json!({
                "draft": { "type": "string" },
                "published": { "type": "boolean" },
                "visibility": { "type": "string", "enum": ["team", "everyone"] },
            })),
        }),
        json!({
            "name": NAMES[1],
            "title": "Summarize a note",
            "description": "Summarizes one note in two sentences, asking the client's model \
                            (the user sees and may refuse the request).",
            "inputSchema": strings(&[("uri", "The note's URI, such as note://backoff")]),
            "outputSchema": outcome(json!({
                "uri": { "type": "string" },
                "summary": { "type": "string" },
                "model": { "type": "string" },
            })),
        }),
        json!({
            "name": NAMES[2],
            "title": "Export a draft to a file",
            "description": "Writes a draft as Markdown to a new file, which must lie inside one \
                            of the roots the client gives; an existing file is never replaced.",
            "inputSchema": strings(&[draft, ("path", "The absolute path of the new file")]),
            "outputSchema": outcome(json!({
                "draft": { "type": "string" },
                "path": { "type": "string" },
            })),
        }),
    ]
}

/// The form of `publish_draft`: every field has a default (SEP-1034), so
/// a client can prefill it, and the choice of audience is an enum with a
/// title for each value (SEP-1330's titled single-select: `oneOf` of
/// `const` and `title`). Accepting the form is the consent; its defaults
/// are the narrowest choice, so accepting unread publishes to the team only.
pub fn publish_form() -> Value {
    json!({
        "type": "object",
        "properties": {
            "visibility": {
                "type": "string",
                "title": "Who may read it",
                "oneOf": [
                    { "const": "team", "title": "My team" },
                    { "const": "everyone", "title": "Everyone" },
                ],
                "default": "team",
            },
            "notify": {
                "type": "boolean",
                "title": "Tell the readers it is out",
                "default": false,
            },
        },
        "required": ["visibility"],
    })
}
