//! What every harness prints before its first turn: the servers it started
//! and the tools they offer, one line each, as chapter 7 first printed them.

use crate::host::Host;

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
