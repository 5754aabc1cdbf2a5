//! Chapter 6: the other side of the wire. A client that starts MCP servers
//! as child processes, shakes hands with each, merges their tools into one
//! catalogue and calls them.
//!
//! `connection.rs` is one server (pipes, ids, replies, timeouts);
//! `host.rs` is several servers and the merged catalogue.

mod connection;
mod host;

use std::process::ExitCode;
use std::time::Duration;

use serde_json::Value;

use connection::Options;
use host::{Host, ServerConfig};

/// The name this program goes by in its messages.
const PROGRAM: &str = "ch06-client";

const HELP: &str = "\
ch06-client: an MCP client that starts servers and calls their tools.

Usage: ch06-client [--trace] [--timeout-ms N] [--server NAME=COMMAND]... [ACTION]...

Actions, run in order (default: list):
  list                          the merged catalogue: tools, resources, prompts
  call TOOL JSON                call mcp__<server>__<tool> with JSON arguments
  read SERVER URI               read a resource
  prompt SERVER NAME [JSON]     get a prompt, with JSON arguments

Options:
  --server NAME=COMMAND   start COMMAND as the server NAME (repeatable). COMMAND
                          is split at spaces; use double quotes around a part
                          with spaces. Without --server: chapter 3's server,
                          run through `cargo run` from this workspace.
  --trace                 print every frame, both ways, on stderr
  --timeout-ms N          how long to wait for a reply (default 30000;
                          also WIRE_TIMEOUT_MS)
";

/// One thing to do once every server is connected.
enum Action {
    List,
    Call {
        tool: String,
        arguments: Value,
    },
    Read {
        server: String,
        uri: String,
    },
    Prompt {
        server: String,
        name: String,
        arguments: Value,
    },
}

struct Cli {
    servers: Vec<ServerConfig>,
    actions: Vec<Action>,
    options: Options,
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|arg| arg == "--help" || arg == "-h") {
        print!("{HELP}");
        return ExitCode::SUCCESS;
    }
    let cli = match parse_args(&args) {
        Ok(cli) => cli,
        Err(err) => {
            eprintln!("{PROGRAM}: {err}; try --help");
            return ExitCode::from(2);
        }
    };
    let host = match Host::start(cli.servers, cli.options).await {
        Ok(host) => host,
        Err(err) => {
            eprintln!("{PROGRAM}: {err}");
            return ExitCode::FAILURE;
        }
    };
    let mut failed = false;
    for action in cli.actions {
        if let Err(err) = run(&host, action).await {
            eprintln!("{PROGRAM}: {err}");
            failed = true;
        }
    }
    host.shutdown().await;
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

// ANCHOR: run
async fn run(host: &Host, action: Action) -> Result<(), String> {
    match action {
        Action::List => print_catalogue(host),
        Action::Call { tool, arguments } => {
            let result = host.call_tool(&tool, arguments).await?;
            print_content(&result);
            if result["isError"] == true {
                return Err(format!("{tool} reported an error"));
            }
        }
        Action::Read { server, uri } => {
            let result = host.read_resource(&server, &uri).await?;
            for content in result["contents"].as_array().into_iter().flatten() {
                match content["text"].as_str() {
                    Some(text) => println!("{text}"),
                    None => println!("{content}"),
                }
            }
        }
        Action::Prompt {
            server,
            name,
            arguments,
        } => {
            let result = host.get_prompt(&server, &name, arguments).await?;
            for message in result["messages"].as_array().into_iter().flatten() {
                let role = message["role"].as_str().unwrap_or("?");
                match message["content"]["text"].as_str() {
                    Some(text) => println!("{role}: {text}"),
                    None => println!("{role}: {}", message["content"]),
                }
            }
        }
    }
    Ok(())
}
// ANCHOR_END: run

// ANCHOR: print_catalogue
fn print_catalogue(host: &Host) {
    for server in &host.servers {
        let info = &server.info;
        println!(
            "server {}: {} {}",
            server.name,
            info["name"].as_str().unwrap_or("?"),
            info["version"].as_str().unwrap_or("?")
        );
        // STRETCH(ch06/instructions): `  instructions: …`, when there are some.
        #[cfg(feature = "stretch")]
        if let Some(instructions) = &server.instructions {
            println!("  instructions: {instructions}");
        }
        // END(ch06/instructions)
    }
    let tools = host.tools();
    println!("tools ({}):", tools.len());
    for tool in tools {
        let description = tool.definition["description"].as_str().unwrap_or("");
        println!("  {}  {description}", tool.qualified);
    }
    let resources = host
        .servers
        .iter()
        .flat_map(|s| s.resources.iter().map(|r| (&s.name, r)));
    print_entries("resources", resources, "uri", "name");
    let prompts = host
        .servers
        .iter()
        .flat_map(|s| s.prompts.iter().map(|p| (&s.name, p)));
    print_entries("prompts", prompts, "name", "description");
}

/// Prints a "title:" heading and one line per (server, entry), if there are any.
fn print_entries<'a>(
    title: &str,
    entries: impl Iterator<Item = (&'a String, &'a Value)>,
    key: &str,
    detail: &str,
) {
    for (index, (server, entry)) in entries.enumerate() {
        if index == 0 {
            println!("{title}:");
        }
        let name = entry[key].as_str().unwrap_or("?");
        println!(
            "  {server} {name}  {}",
            entry[detail].as_str().unwrap_or("")
        );
    }
}
// ANCHOR_END: print_catalogue

/// A tool result for people: text blocks as text, anything else as JSON.
fn print_content(result: &Value) {
    for block in result["content"].as_array().into_iter().flatten() {
        match block["text"].as_str() {
            Some(text) => println!("{text}"),
            None => println!("{block}"),
        }
    }
}

fn parse_args(args: &[String]) -> Result<Cli, String> {
    let mut servers = Vec::new();
    let mut actions = Vec::new();
    let mut trace = false;
    let mut timeout_ms: u64 = match std::env::var("WIRE_TIMEOUT_MS") {
        Ok(value) => number("WIRE_TIMEOUT_MS", &value)?,
        Err(_) => 30_000,
    };
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        // The word after `arg`, or a usage error that says what it needs.
        let mut next = |what: &str| args.next().cloned().ok_or(format!("{arg} needs {what}"));
        match arg.as_str() {
            "--trace" => trace = true,
            "--timeout-ms" => timeout_ms = number(arg, &next("a number")?)?,
            "--server" => {
                let value = next("NAME=COMMAND")?;
                let (name, command) = value
                    .split_once('=')
                    .ok_or(format!("--server {value:?}: write NAME=COMMAND"))?;
                servers.push(ServerConfig {
                    name: name.to_string(),
                    command: connection::split_command(command),
                });
            }
            "list" => actions.push(Action::List),
            "call" => actions.push(Action::Call {
                tool: next("a tool name")?,
                arguments: json_arg(&next("JSON arguments")?)?,
            }),
            "read" => actions.push(Action::Read {
                server: next("a server name")?,
                uri: next("a URI")?,
            }),
            "prompt" => {
                let server = next("a server name")?;
                let name = next("a prompt name")?;
                actions.push(Action::Prompt {
                    server,
                    name,
                    arguments: Value::Object(Default::default()),
                })
            }
            json if json.starts_with('{') => match actions.last_mut() {
                Some(Action::Prompt { arguments, .. }) => *arguments = json_arg(json)?,
                _ => return Err(format!("unexpected JSON {json}")),
            },
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    if servers.is_empty() {
        servers.push(chapter_three_server());
    }
    if actions.is_empty() {
        actions.push(Action::List);
    }
    let options = Options {
        timeout: Duration::from_millis(timeout_ms),
        trace,
    };
    Ok(Cli {
        servers,
        actions,
        options,
    })
}

/// A number from the command line; one that does not fit is an error, never
/// cut down to fit.
fn number<T: std::str::FromStr<Err = std::num::ParseIntError>>(
    option: &str,
    text: &str,
) -> Result<T, String> {
    text.parse()
        .map_err(|err| format!("{option} {text:?}: {err}"))
}

fn json_arg(text: &str) -> Result<Value, String> {
    serde_json::from_str(text).map_err(|err| format!("{text:?} is not JSON: {err}"))
}

// ANCHOR: default_server
/// Chapter 3's server, started through cargo from this workspace: cargo
/// builds it if needed, and the path works wherever the workspace lives.
fn chapter_three_server() -> ServerConfig {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/../../Cargo.toml");
    ServerConfig {
        name: "add".to_string(),
        command: [&cargo, "run", "--quiet", "--manifest-path", manifest]
            .into_iter()
            .chain(["--package", "ch03-add-tool-solution"])
            .map(str::to_string)
            .collect(),
    }
}
// ANCHOR_END: default_server
