//! What every harness prints: before its first turn, the servers it started
//! and the tools they offer, one line each, as chapter 7 first printed them;
//! then, from chapter 9 on, where each context's lines go. Support-own:
//! output plumbing, no chapter's lesson.

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

/// Where a context's lines go: the main one prints them; a subagent keeps
/// them, and its parent prints them, labelled, once it is done, so lines
/// of subagents running at the same time never mix. Chapter 9 on.
pub struct Log {
    pub lines: Option<Vec<String>>,
}

impl Log {
    pub fn say(&mut self, line: String) {
        match &mut self.lines {
            Some(lines) => lines.push(line),
            None => println!("{line}"),
        }
    }

    /// The lines kept, each labelled with the id of the call they ran for.
    pub fn labelled(self, id: &str) -> Vec<String> {
        let lines = self.lines.unwrap_or_default().into_iter();
        lines.map(|line| format!("  [{id}] {line}")).collect()
    }
}

/// The names of a context's tools (Messages API definitions), for the
/// first line a subagent prints, or `none`.
pub fn tool_names(tools: &[serde_json::Value]) -> String {
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    if names.is_empty() {
        "none".to_string()
    } else {
        names.join(" ")
    }
}
