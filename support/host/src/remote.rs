//! Chapter 15's servers, each on a `transport::Link`, and the merged
//! catalogue: chapter 6's `Host` again, for links that may be HTTP and
//! servers of either era. Support-own bookkeeping: the chapter decides how
//! each server is opened (its era) and how a call is answered.

use serde_json::{Value, json};

use crate::host::{Tool, qualified_name};
use crate::transport::{Link, MODERN};

/// The name this client gives itself, in initialize and in `_meta`.
pub const CLIENT_NAME: &str = "wire-by-wire-client";

/// One server, opened.
pub struct Server {
    pub name: String,
    pub link: Link,
    /// The revision it speaks: 2026-07-28, 2025-11-25 or 2025-06-18.
    pub era: String,
    /// Its `serverInfo` (2026-07-28: from the result's `_meta`).
    pub info: Value,
    pub tools: Vec<Value>,
}

/// Every server, and one catalogue of their tools.
#[derive(Default)]
pub struct Servers {
    /// In the order they were given, so output is stable.
    pub servers: Vec<Server>,
    tools: Vec<Tool>,
}

impl Servers {
    /// The servers, with their tools merged once.
    pub fn new(servers: Vec<Server>) -> Servers {
        let mut tools = Vec::new();
        for server in &servers {
            for definition in &server.tools {
                let name = definition["name"].as_str().unwrap_or_default();
                tools.push(Tool {
                    qualified: qualified_name(&server.name, name),
                    server: server.name.clone(),
                    name: name.to_string(),
                    definition: definition.clone(),
                });
            }
        }
        Servers { servers, tools }
    }

    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// The tool of this qualified name, and its server.
    pub fn find(&self, qualified: &str) -> Result<(&Server, &Tool), String> {
        let tool = self
            .tools
            .iter()
            .find(|tool| tool.qualified == qualified)
            .ok_or_else(|| format!("there is no tool named {qualified:?}"))?;
        let server = self
            .servers
            .iter()
            .find(|server| server.name == tool.server);
        Ok((server.ok_or("the tool's server is gone")?, tool))
    }

    /// `server NAME: IMPLEMENTATION VERSION (ERA)` for each server, then a
    /// line per tool, as `show::servers_and_tools` prints chapter 6's.
    pub fn show(&self) {
        for server in &self.servers {
            let (name, version) = (&server.info["name"], &server.info["version"]);
            let (name, version) = (
                name.as_str().unwrap_or("?"),
                version.as_str().unwrap_or("?"),
            );
            println!("server {}: {name} {version} ({})", server.name, server.era);
        }
        for tool in self.tools() {
            println!(
                "tool {} (server {}, tool {})",
                tool.qualified, tool.server, tool.name
            );
        }
    }

    /// Ends every connection, one after the other.
    pub async fn shutdown(self) {
        for server in self.servers {
            server.link.shutdown().await;
        }
    }
}

/// `clientInfo`: this client's name and version.
pub fn client_info() -> Value {
    json!({ "name": CLIENT_NAME, "version": env!("CARGO_PKG_VERSION") })
}

/// 2026-07-28's `_meta` of every request: the revision, who asks, and what
/// it can answer.
pub fn modern_meta(capabilities: &Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientInfo": client_info(),
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    })
}

/// A guard against a server that hands out cursors forever.
const MAX_PAGES: usize = 100;

/// Every page of `tools/list`; in 2026-07-28 each request with its `_meta`.
pub async fn list_tools(link: &Link, meta: Option<&Value>) -> Result<Vec<Value>, String> {
    let mut items = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..MAX_PAGES {
        let mut params = json!({});
        if let Some(cursor) = cursor {
            params["cursor"] = json!(cursor);
        }
        if let Some(meta) = meta {
            params["_meta"] = meta.clone();
        }
        let params = (params != json!({})).then_some(params);
        let mut page = link.request("tools/list", params).await?;
        match page.get_mut("tools").map(Value::take) {
            Some(Value::Array(list)) => items.extend(list),
            _ => return Err("tools/list: the result has no tools list".into()),
        }
        cursor = match page.get("nextCursor") {
            Some(Value::String(next)) => Some(next.clone()),
            _ => return Ok(items),
        };
    }
    Err(format!("tools/list: still more pages after {MAX_PAGES}"))
}
