//! Chapter 7: the agent loop. A host that asks a model, runs the tools the
//! model asks for on MCP servers, and sends the results back, until the
//! model answers.
//!
//! Chapter 6's client comes from the `wire-host` crate (`support/host`),
//! generated from chapter 6's solution; `model.rs` is the model (scripted
//! or HTTP); `agent.rs` is the loop; `tokens.rs` counts what each turn
//! costs.

mod agent;
mod model;
mod tokens;

use std::process::ExitCode;
use std::time::Duration;

use model::Model;
use wire_host::connection::{self, Options};
use wire_host::host::{Host, ServerConfig};

/// The name this program goes by in its messages.
const PROGRAM: &str = "ch07-agent-loop";

const HELP: &str = "\
ch07-agent-loop: an agent loop over MCP servers.

Usage: ch07-agent-loop [OPTIONS] [PROMPT...]

With no options it runs a scripted demo: chapter 3's server (built and run
through `cargo run` from this workspace) and a scripted model, no network.

Options:
  --server NAME=COMMAND   start COMMAND as the MCP server NAME (repeatable;
                          default: chapter 3's server as `add`)
  --script PATH           a scripted model: replies from a JSON file
                          (default: scripts/add.json, built in)
  --model NAME            a real model over HTTP instead (also WIRE_MODEL)
  --max-turns N           give up after N model turns (default 10)
  --timeout-ms N          how long to wait for an MCP reply (default 30000)
  --trace                 print every MCP frame, both ways, on stderr

Environment for --model:
  ANTHROPIC_API_KEY       the key (required; any value for a local model)
  ANTHROPIC_BASE_URL      default https://api.anthropic.com; for Ollama
                          http://localhost:11434, for llama.cpp http://localhost:8080
";

/// The demo script, built into the binary so the demo needs no files.
const DEMO_SCRIPT: &str = include_str!("../scripts/add.json");

struct Cli {
    servers: Vec<ServerConfig>,
    model: Model,
    prompt: String,
    max_turns: u32,
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
            eprintln!("{PROGRAM}: {err}");
            return ExitCode::from(2);
        }
    };
    // Building the tokenizer is a moment of pure CPU work. On the runtime's
    // only thread it would stall the tasks that read the servers' pipes;
    // on the blocking pool it overlaps the servers' start instead.
    let tokenizer = tokio::task::spawn_blocking(tokens::load);
    let host = match Host::start(cli.servers, cli.options).await {
        Ok(host) => host,
        Err(err) => {
            eprintln!("{PROGRAM}: {err}");
            return ExitCode::FAILURE;
        }
    };
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
    println!("user: {}", cli.prompt);
    let _ = tokenizer.await; // Ready before the first turn counts tokens.
    let outcome = agent::run(&host, &cli.model, &cli.prompt, cli.max_turns).await;
    host.shutdown().await;
    match outcome {
        Ok(answer) => {
            println!("answer: {answer}");
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("{PROGRAM}: {err}");
            ExitCode::FAILURE
        }
    }
}

fn parse_args(args: &[String]) -> Result<Cli, String> {
    let mut servers = Vec::new();
    let mut script: Option<String> = None;
    let mut model_name = std::env::var("WIRE_MODEL").ok().filter(|m| !m.is_empty());
    let mut max_turns = 10;
    let mut timeout_ms = 30_000;
    let mut trace = false;
    let mut prompt = Vec::new();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        // The word after `arg`, or a usage error that says what it needs.
        let mut next = |what: &str| args.next().cloned().ok_or(format!("{arg} needs {what}"));
        match arg.as_str() {
            "--trace" => trace = true,
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
            "--script" => script = Some(next("a path")?),
            "--model" => model_name = Some(next("a name")?),
            "--max-turns" => max_turns = number(arg, &next("a number")?)?,
            "--timeout-ms" => timeout_ms = number(arg, &next("a number")?)?,
            flag if flag.starts_with("--") => return Err(format!("unknown option {flag:?}")),
            word => prompt.push(word.to_string()),
        }
    }
    // ANCHOR: choose_model
    // A real model only when one is named: a key in the environment alone
    // never sends anything anywhere.
    let (mut model, script_prompt) = match (model_name, script) {
        (Some(name), _) => (model::from_env(&name)?, String::new()),
        (None, Some(path)) => {
            let text = std::fs::read_to_string(&path)
                .map_err(|err| format!("cannot read script {path}: {err}"))?;
            model::scripted(&path, &text)?
        }
        (None, None) => model::scripted("scripts/add.json", DEMO_SCRIPT)?,
    };
    // ANCHOR_END: choose_model
    model.trace = trace;
    let prompt = if prompt.is_empty() {
        script_prompt
    } else {
        prompt.join(" ")
    };
    if prompt.is_empty() {
        return Err("give a prompt: ch07-agent-loop --model NAME What is 2 + 3?".to_string());
    }
    if max_turns == 0 {
        return Err("--max-turns 0: the model needs at least one turn".to_string());
    }
    if servers.is_empty() {
        servers.push(chapter_three_server());
    }
    Ok(Cli {
        servers,
        model,
        prompt,
        max_turns,
        options: Options {
            timeout: Duration::from_millis(timeout_ms),
            trace,
        },
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

/// Chapter 3's server, started through cargo from this workspace: cargo
/// builds it if needed, and the path works wherever the workspace lives.
/// `--config` brings the workspace's cargo settings along (in an offline
/// room, its vendored crates) whatever folder the demo is started from.
fn chapter_three_server() -> ServerConfig {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/../../Cargo.toml");
    let config = concat!(env!("CARGO_MANIFEST_DIR"), "/../../.cargo/config.toml");
    ServerConfig {
        name: "add".to_string(),
        command: [&cargo, "run", "--quiet", "--manifest-path", manifest]
            .into_iter()
            .chain(["--config", config, "--package", "ch03-add-tool-solution"])
            .map(str::to_string)
            .collect(),
    }
}
