//! `serve-tools COUNT PARAMS`: a made-up MCP server over stdio (2025-11-25)
//! whose catalogue is COUNT tools of PARAMS string parameters each, every
//! one described, for the `tools` table. It answers `initialize` and
//! `tools/list`; any other request gets -32601, so a client's
//! `server/discover` probe falls back to `initialize`.

use std::io::{BufRead, Write};

use serde::Deserialize;
use serde_json::{Value, json};

/// The parameters a made-up tool may have, in order: a blog search's.
const PARAMS: [(&str, &str); 5] = [
    ("query", "The words to search the posts for"),
    ("tag", "Only posts with this tag, e.g. kv-cache"),
    ("after", "Only posts published after this date (YYYY-MM-DD)"),
    ("sort", "relevance (the default) or date, newest first"),
    ("limit", "The most posts to return, 1 to 50 (default 10)"),
];

/// One JSON-RPC message as this server reads it.
#[derive(Deserialize)]
struct Request {
    id: Option<Value>,
    method: String,
}

/// Serves until stdin closes. A line that is not a request is skipped.
pub fn serve(count: usize, params: usize) -> Result<(), String> {
    let tools: Vec<Value> = (1..=count).map(|index| tool(index, params)).collect();
    let mut stdout = std::io::stdout().lock();
    for line in std::io::stdin().lock().lines() {
        let line = line.map_err(|err| err.to_string())?;
        let Ok(Request {
            id: Some(id),
            method,
        }) = serde_json::from_str(&line)
        else {
            continue;
        };
        let reply = match method.as_str() {
            "initialize" => json!({ "jsonrpc": "2.0", "id": id, "result": {
                "protocolVersion": "2025-11-25", "capabilities": { "tools": {} },
                "serverInfo": { "name": "wire-measure", "version": env!("CARGO_PKG_VERSION") } } }),
            "tools/list" => json!({ "jsonrpc": "2.0", "id": id, "result": { "tools": tools } }),
            // `cache`'s sessions call the tools: one made-up post each time.
            "tools/call" => json!({ "jsonrpc": "2.0", "id": id, "result": { "content": [
                { "type": "text", "text": "1 post: \"Retries\" (2026-03-02): retry after 100 ms, then 200, then 400." }
            ] } }),
            _ => json!({ "jsonrpc": "2.0", "id": id,
                         "error": { "code": -32601, "message": format!("Method not found: {method}") } }),
        };
        writeln!(stdout, "{reply}").map_err(|err| err.to_string())?;
        stdout.flush().map_err(|err| err.to_string())?;
    }
    Ok(())
}

/// Made-up tool number `index`: a blog search of the first `params`
/// parameters, all strings, the first required.
fn tool(index: usize, params: usize) -> Value {
    let properties: serde_json::Map<String, Value> = PARAMS
        .iter()
        .cycle()
        .take(params)
        .enumerate()
        .map(|(at, (name, description))| {
            let name = match at < PARAMS.len() {
                true => name.to_string(),
                false => format!("{name}_{at}"),
            };
            (
                name,
                json!({ "type": "string", "description": description }),
            )
        })
        .collect();
    json!({
        "name": format!("search_blog_{index:02}"),
        "description": "Searches the blog's posts and returns the best matches: title, \
                        date and a short excerpt of each.",
        "inputSchema": { "type": "object", "properties": properties, "required": ["query"] },
    })
}
