//! `ReadMcpResourceTool`: the harness tool Claude Code gives the model to
//! read an MCP resource, with the input `{server, uri}`. The model sees a
//! server's tools by name, but a resource only as a URI (in a
//! `resource_link`, or a search result's text); this tool is how it reads
//! the resource behind the URI, through the host's `resources/read`.
//!
//! Support-own: no chapter generates this file. Chapter 9 offers the tool
//! (a task worth delegating reads a lot) but its lesson is delegation, so
//! the tool is given, and the book shows it.

use async_trait::async_trait;
use serde_json::{Value, json};

use crate::host::Host;
use crate::seams::{Call, Context, Extension, Harness, Outcome};

/// The tool, as an extension of the harness (chapters 9 to 11).
pub struct ResourceTool<'a> {
    pub host: &'a Host,
}

#[async_trait(?Send)]
impl Extension for ResourceTool<'_> {
    fn tools(&self, tools: &mut Vec<Value>) {
        tools.extend(definition(self.host));
    }

    async fn run(&self, _: &Harness<'_>, _: &Context, call: &mut Call) -> Option<Outcome> {
        match call.name() == READ {
            true => Some(run(self.host, &call.tool_use.input).await),
            false => None,
        }
    }

    /// A resource's text is long: its line shows its cost in tokens.
    fn long(&self, name: &str) -> bool {
        name == READ
    }
}

/// The tool's name, as Claude Code calls it.
pub const READ: &str = "ReadMcpResourceTool";

// ANCHOR: definition
/// The tool as the model sees it, when a connected server has resources:
/// the host lists them only when a server declares the capability.
pub fn definition(host: &Host) -> Option<Value> {
    let servers: Vec<&str> = host
        .servers
        .iter()
        .filter(|server| !server.resources.is_empty())
        .map(|server| server.name.as_str())
        .collect();
    if servers.is_empty() {
        return None;
    }
    Some(json!({
        "name": READ,
        "description": format!(
            "Reads a resource of a connected MCP server by its URI (from a resource_link \
             or a tool's text) and returns its text. Servers with resources: {}.",
            servers.join(", ")
        ),
        "input_schema": {
            "type": "object",
            "properties": {
                "server": { "type": "string", "description": "The MCP server's name" },
                "uri": { "type": "string", "description": "The resource's URI" },
            },
            "required": ["server", "uri"],
        },
    }))
}
// ANCHOR_END: definition

// ANCHOR: run
/// Reads the resource and returns a tool result holding its text. A blob
/// is not shown: one line says what it is. An unknown server or a
/// JSON-RPC error is an `Err`, which the loop returns marked is_error.
pub async fn run(host: &Host, input: &Value) -> Result<Value, String> {
    let (Some(server), Some(uri)) = (input["server"].as_str(), input["uri"].as_str()) else {
        return Err("give \"server\" and \"uri\", both strings".to_string());
    };
    let result = host.read_resource(server, uri).await?;
    let texts: Vec<String> = result["contents"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|content| {
            let uri = content["uri"].as_str().unwrap_or(uri);
            match (&content["text"], &content["blob"]) {
                (Value::String(text), _) => text.clone(),
                (_, Value::String(blob)) => {
                    // Four base64 characters carry three bytes; `=` pads.
                    let bytes = blob.trim_end_matches('=').len() * 3 / 4;
                    format!("{uri}: binary, {bytes} bytes, not shown")
                }
                _ => format!("{uri}: no text and no blob"),
            }
        })
        .collect();
    Ok(json!({ "content": [{ "type": "text", "text": texts.join("\n") }] }))
}
// ANCHOR_END: run
