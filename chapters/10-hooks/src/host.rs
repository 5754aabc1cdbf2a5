//! Chapter 6's host, copied unchanged: several servers, each on its own
//! connection, and one merged catalogue of what they offer.

use serde_json::{Value, json};
use tokio::task::JoinSet;

use crate::connection::{Connection, Options};

// ANCHOR: versions
/// The revision this client asks for, and the ones it can live with.
pub const PROTOCOL_VERSION: &str = "2025-11-25";
const SUPPORTED_PROTOCOL_VERSIONS: [&str; 2] = [PROTOCOL_VERSION, "2025-06-18"];
// ANCHOR_END: versions

const CLIENT_NAME: &str = "wire-by-wire-client";

/// A server a host should start: a name for routing, and a command line.
pub struct ServerConfig {
    pub name: String,
    pub command: Vec<String>,
}

// ANCHOR: catalogue
/// One tool of the merged catalogue. The host keeps the routing identity
/// (server, name) and shows the model only the qualified name.
#[derive(Clone, Debug)]
pub struct Tool {
    /// `mcp__add__add`: unique across servers.
    pub qualified: String,
    pub server: String,
    /// The name the server knows it by.
    pub name: String,
    /// The tool as the server described it in tools/list.
    pub definition: Value,
}

/// The name a host shows for `tool` of `server`, as Claude Code does.
pub fn qualified_name(server: &str, tool: &str) -> String {
    format!("mcp__{server}__{tool}")
}
// ANCHOR_END: catalogue

/// One connected server and what it offers.
pub struct ConnectedServer {
    pub name: String,
    pub connection: Connection,
    /// `serverInfo` from the initialize result.
    pub info: Value,
    pub tools: Vec<Value>,
    pub resources: Vec<Value>,
    pub prompts: Vec<Value>,
}

pub struct Host {
    /// In the order they were given, so output is stable.
    pub servers: Vec<ConnectedServer>,
    /// The merged catalogue, built once: the servers are listed once.
    tools: Vec<Tool>,
}

// ANCHOR: start
impl Host {
    /// Starts every server at once: each handshake and listing runs in its
    /// own task, so one slow server does not hold up the others.
    pub async fn start(configs: Vec<ServerConfig>, options: Options) -> Result<Host, String> {
        let mut tasks = JoinSet::new();
        for (index, config) in configs.into_iter().enumerate() {
            tasks.spawn(async move { (index, ConnectedServer::connect(config, options).await) });
        }
        let mut servers = Vec::new();
        let mut errors = Vec::new();
        while let Some(joined) = tasks.join_next().await {
            match joined.map_err(|err| err.to_string()) {
                Ok((index, Ok(server))) => servers.push((index, server)),
                Ok((_, Err(err))) | Err(err) => errors.push(err),
            }
        }
        servers.sort_by_key(|(index, _)| *index);
        let servers: Vec<ConnectedServer> = servers.into_iter().map(|(_, server)| server).collect();
        let host = Host {
            tools: catalogue(&servers),
            servers,
        };
        if errors.is_empty() {
            Ok(host)
        } else {
            host.shutdown().await;
            Err(errors.join("\n"))
        }
    }
    // ANCHOR_END: start

    /// Every tool of every server, with its qualified name.
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    fn server(&self, name: &str) -> Result<&ConnectedServer, String> {
        self.servers
            .iter()
            .find(|server| server.name == name)
            .ok_or_else(|| format!("there is no server named {name:?}"))
    }

    // ANCHOR: call_tool
    /// Calls a tool by its qualified name. The result may still have
    /// `isError: true`: the tool ran and failed, which is not our error.
    pub async fn call_tool(&self, qualified: &str, arguments: Value) -> Result<Value, String> {
        let tool = self
            .tools
            .iter()
            .find(|tool| tool.qualified == qualified)
            .ok_or_else(|| format!("there is no tool named {qualified:?}"))?;
        let server = self.server(&tool.server)?;
        let params = json!({ "name": tool.name, "arguments": arguments });
        server.connection.request("tools/call", Some(params)).await
    }
    // ANCHOR_END: call_tool

    pub async fn read_resource(&self, server: &str, uri: &str) -> Result<Value, String> {
        let params = json!({ "uri": uri });
        let server = self.server(server)?;
        server
            .connection
            .request("resources/read", Some(params))
            .await
    }

    pub async fn get_prompt(&self, server: &str, name: &str, args: Value) -> Result<Value, String> {
        let params = json!({ "name": name, "arguments": args });
        let server = self.server(server)?;
        server.connection.request("prompts/get", Some(params)).await
    }

    /// Shuts every server down, all at once.
    pub async fn shutdown(self) {
        let mut tasks = JoinSet::new();
        for server in self.servers {
            tasks.spawn(server.connection.shutdown());
        }
        while tasks.join_next().await.is_some() {}
    }
}

// ANCHOR: connect
impl ConnectedServer {
    /// Starts the server and introduces it. A server that fails on the
    /// way is shut down properly, not left to `kill_on_drop`.
    async fn connect(config: ServerConfig, options: Options) -> Result<ConnectedServer, String> {
        let mut server = ConnectedServer {
            connection: Connection::spawn(&config.name, &config.command, options)?,
            name: config.name,
            info: Value::Null,
            tools: Vec::new(),
            resources: Vec::new(),
            prompts: Vec::new(),
        };
        match server.introduce().await {
            Ok(()) => Ok(server),
            Err(err) => {
                server.connection.shutdown().await;
                Err(err)
            }
        }
    }

    /// Shakes hands, then lists what the server offers: only what its
    /// capabilities announce, every page of it.
    async fn introduce(&mut self) -> Result<(), String> {
        let result = handshake(&self.connection).await?;
        self.info = result["serverInfo"].clone();
        let capabilities = &result["capabilities"];
        let connection = &self.connection;
        if capabilities.get("tools").is_some() {
            self.tools = list_all(connection, "tools/list", "tools").await?;
        }
        if capabilities.get("resources").is_some() {
            self.resources = list_all(connection, "resources/list", "resources").await?;
        }
        if capabilities.get("prompts").is_some() {
            self.prompts = list_all(connection, "prompts/list", "prompts").await?;
        }
        Ok(())
    }
}
// ANCHOR_END: connect

/// Every tool of every server, with its qualified name.
fn catalogue(servers: &[ConnectedServer]) -> Vec<Tool> {
    let mut tools = Vec::new();
    for server in servers {
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
    tools
}

// ANCHOR: handshake
/// `initialize`, a check of the version the server chose, then
/// `notifications/initialized`. Returns the initialize result.
async fn handshake(connection: &Connection) -> Result<Value, String> {
    let params = json!({
        "protocolVersion": PROTOCOL_VERSION,
        "capabilities": {},
        "clientInfo": { "name": CLIENT_NAME, "version": env!("CARGO_PKG_VERSION") },
    });
    let result = connection.request("initialize", Some(params)).await?;
    let version = result["protocolVersion"].as_str().unwrap_or_default();
    if !SUPPORTED_PROTOCOL_VERSIONS.contains(&version) {
        return Err(format!(
            "server {} speaks MCP {version:?}; this client speaks {}",
            connection.name,
            SUPPORTED_PROTOCOL_VERSIONS.join(" and ")
        ));
    }
    connection.notify("notifications/initialized", None).await?;
    Ok(result)
}
// ANCHOR_END: handshake

// ANCHOR: list_all
/// A guard against a server that hands out cursors forever.
const MAX_PAGES: usize = 100;

/// Calls a paginated list method until there is no `nextCursor`, and
/// returns the items under `key` from every page.
async fn list_all(connection: &Connection, method: &str, key: &str) -> Result<Vec<Value>, String> {
    let mut items = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..MAX_PAGES {
        let params = cursor.map(|cursor| json!({ "cursor": cursor }));
        let mut page = connection.request(method, params).await?;
        match page.get_mut(key).map(Value::take) {
            Some(Value::Array(list)) => items.extend(list),
            _ => return Err(format!("{method}: the result has no {key} list")),
        }
        cursor = match page.get("nextCursor") {
            Some(Value::String(next)) => Some(next.clone()),
            _ => return Ok(items), // No cursor: that was the last page.
        };
    }
    Err(format!("{method}: still more pages after {MAX_PAGES}"))
}
// ANCHOR_END: list_all
