//! `plain-server`: the benchmark's baseline, an MCP server with one tool,
//! `add`, written the obvious way: read a line, `serde_json::from_str`, build
//! the reply with `json!`, `writeln!` it to stdout.
//!
//! It is no chapter and teaches nothing; `cargo xtask bench` measures it in
//! the same run as the chapters, so a chapter's pipelined throughput can be
//! read as a ratio to a server anyone would write, whatever the machine.
//! It answers what the benchmark sends (`initialize`, `ping`, `tools/list`,
//! `tools/call add`) with the same values as chapter 3, and little else.

use std::io::{self, BufRead, Write};

use serde_json::{Value, json};

fn main() -> io::Result<()> {
    let mut stdout = io::stdout().lock();
    for line in io::stdin().lock().lines() {
        let request: Value = match serde_json::from_str(&line?) {
            Ok(request) => request,
            Err(_) => {
                let error = json!({"code": -32700, "message": "Parse error"});
                writeln!(stdout, "{}", json!({"jsonrpc": "2.0", "error": error}))?;
                continue;
            }
        };
        // A notification (no id) gets no reply.
        let Some(id) = request.get("id") else {
            continue;
        };
        let reply = match answer(&request) {
            Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            Err(error) => json!({"jsonrpc": "2.0", "id": id, "error": error}),
        };
        // Stdout is line-buffered: each reply is one `write`, as it would be
        // in any server that never thinks about flushing.
        writeln!(stdout, "{reply}")?;
    }
    Ok(())
}

fn answer(request: &Value) -> Result<Value, Value> {
    let params = &request["params"];
    match request["method"].as_str() {
        Some("initialize") => Ok(json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "plain-server", "version": "0.1.0"},
        })),
        Some("ping") => Ok(json!({})),
        Some("tools/list") => Ok(json!({"tools": [{
            "name": "add",
            "description": "Adds two numbers and returns their sum.",
            "inputSchema": {
                "type": "object",
                "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                "required": ["a", "b"],
            },
        }]})),
        Some("tools/call") if params["name"] == "add" => {
            let (a, b) = (&params["arguments"]["a"], &params["arguments"]["b"]);
            let sum = match (a.as_i64(), b.as_i64(), a.as_f64(), b.as_f64()) {
                (Some(a), Some(b), _, _) if a.checked_add(b).is_some() => json!(a + b),
                (_, _, Some(a), Some(b)) => json!(a + b),
                _ => return Ok(tool_error("a and b must be numbers")),
            };
            let structured = json!({"sum": sum});
            Ok(json!({
                "content": [{"type": "text", "text": structured.to_string()}],
                "structuredContent": structured,
                "isError": false,
            }))
        }
        Some("tools/call") => Err(json!({"code": -32602, "message": "Unknown tool"})),
        _ => Err(json!({"code": -32601, "message": "Method not found"})),
    }
}

fn tool_error(message: &str) -> Value {
    json!({"content": [{"type": "text", "text": message}], "isError": true})
}
