//! The MCP servers' tools, as the harness's first extension: the tools the
//! model sees (the merged catalogue, in the Messages API's shape) and how
//! a call of one runs (on its server, through chapter 6's host).

use async_trait::async_trait;
use serde_json::{Value, json};

use wire_host::host::{Host, Tool};
use wire_host::seams::{Call, Context, Extension, Harness, Outcome};

// ANCHOR: extension
/// The servers chapter 6's host started.
pub struct Mcp<'a> {
    /// The name this program goes by in its warnings.
    pub program: &'static str,
    pub host: &'a Host,
}

#[async_trait(?Send)]
impl Extension for Mcp<'_> {
    fn tools(&self, tools: &mut Vec<Value>) {
        tools.extend(tool_definitions(self.program, self.host.tools()));
    }

    async fn run(&self, _: &Harness<'_>, _: &Context, call: &mut Call) -> Option<Outcome> {
        let (name, input) = (call.name(), call.tool_use.input.clone());
        let ours = self.host.tools().iter().any(|tool| tool.qualified == name);
        match ours {
            true => Some(self.host.call_tool(name, input).await),
            false => None,
        }
    }
}
// ANCHOR_END: extension

// ANCHOR: tool_definitions
/// The catalogue as the model sees it: the qualified name, the server's
/// description, and its inputSchema renamed to input_schema.
pub fn tool_definitions(program: &str, catalogue: &[Tool]) -> Vec<Value> {
    // GAP(ch07/tool-definitions): one Messages API tool per catalogue
    // entry whose name the API accepts: name (qualified), description,
    // input_schema.
    // starter: let _ = (program, fits_the_api);
    // starter: catalogue.iter().map(|tool| json!({ "name": tool.qualified })).collect()
    catalogue
        .iter()
        .filter(|tool| fits_the_api(program, &tool.qualified))
        .map(|tool| {
            json!({
                "name": tool.qualified,
                "description": tool.definition["description"].as_str().unwrap_or_default(),
                "input_schema": tool.definition["inputSchema"],
            })
        })
        .collect()
    // END(ch07/tool-definitions)
}

/// The Messages API takes tool names of 1 to 64 ASCII letters, digits,
/// `_` and `-`. MCP allows more (dots, up to 128 characters), so a name
/// that does not fit is left out, with a warning: one bad name would
/// make the API refuse every request.
pub fn fits_the_api(program: &str, name: &str) -> bool {
    let fits = (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'-');
    if !fits {
        eprintln!(
            "{program}: not offering {name:?} to the model: a Messages API tool name is \
             1 to 64 of a-z, A-Z, 0-9, _ and -"
        );
    }
    fits
}
// ANCHOR_END: tool_definitions
