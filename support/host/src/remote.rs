//! Chapter 15's servers, each on a `transport::Link`, and the merged
//! catalogue: chapter 6's `Host` again, for links that may be HTTP and
//! servers of either era. Support-own bookkeeping: the chapter decides how
//! each server is opened (its era) and how a call is answered.

use std::sync::Mutex;

use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::connection::Options;
use crate::host::{ServerConfig, Tool, qualified_name};
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
    /// The tools it listed first.
    pub tools: Vec<Value>,
    /// 2026-07-28: the `_meta` its requests carry, listings included.
    pub meta: Option<Value>,
}

impl Server {
    /// The params of a request to this server: in 2026-07-28 with its
    /// `_meta`.
    pub fn params(&self, mut params: Value) -> Value {
        if let Some(meta) = &self.meta {
            params["_meta"] = meta.clone();
        }
        params
    }

    /// Whether its `server/discover` named the extension `name` among its
    /// capabilities (2026-07-28; a 2025-era server declares none here).
    pub fn declares(&self, name: &str) -> bool {
        let capabilities = self.link.discovered().unwrap_or_default();
        capabilities["extensions"][name].is_object()
    }

    /// The text of the resource `uri` (`resources/read`, its first content).
    pub async fn read_text(&self, uri: &str) -> Result<String, String> {
        let params = self.params(json!({ "uri": uri }));
        let result = self.link.request("resources/read", Some(params)).await?;
        let text = result["contents"][0]["text"].as_str();
        text.map(str::to_string)
            .ok_or(format!("{uri}: server {} sent no text", self.name))
    }
}

/// Every server, and one catalogue of their tools.
#[derive(Default)]
pub struct Servers {
    /// In the order they were given, so output is stable.
    pub servers: Vec<Server>,
    /// Each server's tools as last listed, in the servers' order.
    lists: Mutex<Vec<Vec<Value>>>,
}

impl Servers {
    /// The servers, and the tools they listed.
    pub fn new(servers: Vec<Server>) -> Servers {
        let lists = servers.iter().map(|server| server.tools.clone()).collect();
        Servers {
            servers,
            lists: Mutex::new(lists),
        }
    }

    /// Opens every server, one after the other: its link, then `open` (the
    /// chapter's choice of era); on a failure, shuts those already open.
    pub async fn start(
        configs: Vec<ServerConfig>,
        options: Options,
        open: impl AsyncFn(&str, Link) -> Result<Server, String>,
    ) -> Result<Servers, String> {
        let mut servers = Vec::new();
        for config in configs {
            let link = Link::open(
                &config.name,
                &config.command,
                options.timeout,
                options.trace,
            );
            let opened = match link.await {
                Ok(link) => open(&config.name, link).await,
                Err(err) => Err(err),
            };
            match opened {
                Ok(server) => servers.push(server),
                Err(err) => {
                    Servers::new(servers).shutdown().await;
                    return Err(err);
                }
            }
        }
        Ok(Servers::new(servers))
    }

    /// The merged catalogue, as the servers last listed their tools.
    pub fn tools(&self) -> Vec<Tool> {
        let lists = self.lists.lock().unwrap();
        let mut tools = Vec::new();
        for (server, list) in self.servers.iter().zip(lists.iter()) {
            for definition in list {
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

    /// The tool of this qualified name, and its server.
    pub fn find(&self, qualified: &str) -> Result<(&Server, Tool), String> {
        let tool = self
            .tools()
            .into_iter()
            .find(|tool| tool.qualified == qualified)
            .ok_or_else(|| format!("there is no tool named {qualified:?}"))?;
        let server = self
            .servers
            .iter()
            .find(|server| server.name == tool.server);
        Ok((server.ok_or("the tool's server is gone")?, tool))
    }

    /// Lists again the tools of every server that sent
    /// `notifications/tools/list_changed`; true when one did. A listing
    /// that fails keeps the old list, and says so.
    pub async fn refresh(&self) -> bool {
        let mut changed = false;
        for (index, server) in self.servers.iter().enumerate() {
            if !server.link.tools_changed() {
                continue;
            }
            match list_tools(&server.link, server.meta.as_ref()).await {
                Ok(tools) => {
                    println!(
                        "  tools of {} listed again: {} now",
                        server.name,
                        tools.len()
                    );
                    self.lists.lock().unwrap()[index] = tools;
                    changed = true;
                }
                Err(err) => eprintln!("[{}] listing the tools again failed: {err}", server.name),
            }
        }
        changed
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

/// Chapter 2's handshake on `link`, from the client's side: `initialize`
/// asking for the first of `versions`, a check that the server chose one
/// of them, `notifications/initialized`; later HTTP requests name the
/// version. The version and the server's `serverInfo`.
pub async fn initialize(
    link: &Link,
    capabilities: &Value,
    versions: &[&str],
) -> Result<(String, Value), String> {
    let params = json!({
        "protocolVersion": versions[0],
        "capabilities": capabilities,
        "clientInfo": client_info(),
    });
    let result = link.request("initialize", Some(params)).await?;
    let version = result["protocolVersion"].as_str().unwrap_or_default();
    if !versions.contains(&version) {
        return Err(format!(
            "server {} speaks MCP {version:?}; this client speaks {MODERN} and {}",
            link.name,
            versions.join(" and ")
        ));
    }
    link.agreed(version);
    link.notify("notifications/initialized", None).await?;
    Ok((version.to_string(), result["serverInfo"].clone()))
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

/// Whether `tool`'s `x-mcp-header` annotations (SEP-2243) are valid: each
/// a non-empty header token, unique ignoring case, on a property of type
/// integer, string or boolean (2026-07-28, server/tools: not `number`). A
/// tool with an invalid one is left out of the catalogue (said on stderr);
/// a valid one's are handed to the link.
fn mirrored(link: &Link, tool: &Value) -> bool {
    let name = tool["name"].as_str().unwrap_or_default();
    let empty = serde_json::Map::new();
    let properties = tool["inputSchema"]["properties"]
        .as_object()
        .unwrap_or(&empty);
    let mut params: Vec<(String, String)> = Vec::new();
    for (property, schema) in properties {
        let Some(header) = schema.get("x-mcp-header") else {
            continue;
        };
        let token = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c);
        let problem = match header.as_str() {
            None | Some("") => Some("is not a non-empty string"),
            Some(text) if !text.chars().all(token) => Some("is not a header name"),
            Some(text)
                if params
                    .iter()
                    .any(|(_, seen)| seen.eq_ignore_ascii_case(text)) =>
            {
                Some("is used twice")
            }
            // Not `number`: the spec permits integer, string and boolean.
            _ if !matches!(
                schema["type"].as_str(),
                Some("string" | "integer" | "boolean")
            ) =>
            {
                Some("is on a property that is not a string, an integer or a boolean")
            }
            _ => None,
        };
        if let Some(problem) = problem {
            eprintln!(
                "[{}] leaving out tool {name}: x-mcp-header of {property} {problem}",
                link.name
            );
            return false;
        }
        params.push((
            property.clone(),
            header.as_str().unwrap_or_default().to_string(),
        ));
    }
    if !params.is_empty() {
        link.mirror_params(name, params);
    }
    true
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
            Some(Value::Array(list)) => {
                items.extend(list.into_iter().filter(|tool| mirrored(link, tool)))
            }
            _ => return Err("tools/list: the result has no tools list".into()),
        }
        cursor = match page.get("nextCursor") {
            Some(Value::String(next)) => Some(next.clone()),
            _ => {
                // 2026-07-28: told of a change only on a subscription.
                if let Some(meta) = meta {
                    link.subscribe_to_tools(meta).await?;
                }
                return Ok(items);
            }
        };
    }
    Err(format!("tools/list: still more pages after {MAX_PAGES}"))
}

/// One skill as `skills/list` gives it (the skills extension,
/// `io.modelcontextprotocol/skills`, 2026-07-28), and the server that
/// lists it: the wire's shape, for chapter 21.
#[derive(Clone, Debug, Deserialize)]
pub struct Served {
    #[serde(skip)]
    pub server: String,
    /// The URI of its SKILL.md: the skill's folder is what comes before
    /// the last `/`.
    pub uri: String,
    pub frontmatter: Map<String, Value>,
    /// Every file of the skill, SKILL.md among them.
    #[serde(default)]
    pub resources: Vec<Listed>,
}

/// One file of a skill's manifest: its URI, `sha256:` and 64 hexadecimal
/// digits, and its length in bytes.
#[derive(Clone, Debug, Deserialize)]
pub struct Listed {
    pub uri: String,
    pub digest: String,
    pub size: u64,
}

impl Served {
    pub fn name(&self) -> &str {
        self.frontmatter["name"].as_str().unwrap_or_default()
    }

    pub fn folder(&self) -> &str {
        let (folder, _) = self.uri.rsplit_once('/').unwrap_or((&self.uri, ""));
        folder
    }
}

/// Every page of `skills/list`: the skills, read into their shape, each
/// naming `server`. 2026-07-28 only, so each request carries the server's
/// `_meta`.
pub async fn list_skills(server: &Server) -> Result<Vec<Served>, String> {
    let mut entries = Vec::new();
    let mut params = server.params(json!({}));
    for _ in 0..MAX_PAGES {
        let page = server
            .link
            .request("skills/list", Some(params.clone()))
            .await?;
        let Some(skills) = page["skills"].as_array() else {
            return Err("skills/list: the result has no skills list".into());
        };
        entries.extend(skills.iter().cloned());
        if let Some(cursor) = page["nextCursor"].as_str() {
            params["cursor"] = json!(cursor);
            continue;
        }
        let mut skills = Vec::<Served>::deserialize(Value::Array(entries));
        let named = |skill: &mut Served| skill.server = server.name.clone();
        skills.iter_mut().flatten().for_each(named);
        return skills.map_err(|err| err.to_string());
    }
    Err(format!("skills/list: still more pages after {MAX_PAGES}"))
}
