//! What every harness prints: before its first turn, the servers it started
//! and the tools they offer, one line each, as chapter 7 first printed them;
//! then a line per tool call.

use serde_json::Value;

use crate::host::Host;
use crate::tokens;

/// `server NAME: IMPLEMENTATION VERSION`, then `tool QUALIFIED (server S,
/// tool T)` for each tool of the merged catalogue.
pub fn servers_and_tools(host: &Host) {
    for server in &host.servers {
        let (name, version) = (&server.info["name"], &server.info["version"]);
        println!(
            "server {}: {} {}",
            server.name,
            name.as_str().unwrap_or("?"),
            version.as_str().unwrap_or("?")
        );
    }
    for tool in host.tools() {
        println!(
            "tool {} (server {}, tool {})",
            tool.qualified, tool.server, tool.name
        );
    }
}

/// The line for one tool call: `tool` or `error`, the tool's name, its
/// input and the result's text. A `long` result (a skill's text, a
/// resource) is shown by its cost in tokens, which says more than its lines.
pub fn tool_call(name: &str, input: &Value, text: &str, is_error: bool, long: bool) -> String {
    let kind = if is_error { "error" } else { "tool" };
    if long && !is_error {
        let tokens = tokens::count(text);
        format!("  {kind} {name} {input} -> {tokens} tokens (cl100k_base)")
    } else {
        format!("  {kind} {name} {input} -> {text}")
    }
}
