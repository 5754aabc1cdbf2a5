//! Chapter 7: the agent loop. A host that asks a model, runs the tools the
//! model asks for on MCP servers, and sends the results back, until the
//! model answers.
//!
//! Chapter 6's client comes from `wire-host` (`support/host`); `model.rs`
//! is the model (scripted or HTTP); `agent.rs` is the loop, which asks the
//! harness (`wire_host::seams`) at each step; `mcp.rs` is the harness's
//! one extension here, the servers' tools; `tokens.rs` counts what each
//! turn costs; `cli.rs` is the command line.

mod agent;
mod cli;
mod mcp;
mod model;
mod tokens;

use std::process::ExitCode;

use wire_host::host::Host;
use wire_host::seams::Harness;
use wire_host::show::{self, Log};

/// The name this program goes by in its messages.
const PROGRAM: &str = "ch07-agent-loop";

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let cli = match cli::parse() {
        Ok(cli) => cli,
        Err(status) => return status,
    };
    // Building the tokenizer is a moment of pure CPU work. On the runtime's
    // only thread it would stall the tasks that read the servers' pipes;
    // on the blocking pool it overlaps the servers' start instead.
    let tokenizer = tokio::task::spawn_blocking(tokens::load);
    let host = match Host::start(cli.servers, cli.options).await {
        Ok(host) => host,
        Err(err) => return show::ended(PROGRAM, Err(err)),
    };
    show::servers_and_tools(&host);
    println!("user: {}", cli.prompt);
    let _ = tokenizer.await; // Ready before the first turn counts tokens.
    let mcp = mcp::Mcp {
        program: PROGRAM,
        host: &host,
    };
    let harness = Harness::new(PROGRAM, &cli.model, cli.max_turns, vec![&mcp]);
    let context = harness.main_context();
    let outcome = agent::run(&harness, context, &cli.prompt, &mut Log::printed()).await;
    drop(harness);
    host.shutdown().await;
    show::ended(PROGRAM, outcome)
}
