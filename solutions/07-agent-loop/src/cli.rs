//! The command line as a struct (clap's derive): each field is an option,
//! its doc comment its line in `--help`. The servers' and the model's
//! options are every harness chapter's (`wire_host::cli`); this chapter
//! chooses the model from them.

use clap::Parser;
use wire_host::cli::{self, ModelArgs, ServerArgs};
use wire_host::connection::Options;
use wire_host::host::ServerConfig;

use crate::PROGRAM;
use crate::model::{self, Model};

/// The demo script, built into the binary so the demo needs no files.
const DEMO_SCRIPT: &str = include_str!("../scripts/add.json");

const ABOUT: &str = "ch07-agent-loop: an agent loop over MCP servers.\n\n\
    With no options it runs a scripted demo: chapter 3's server as `add` (run\n\
    through `cargo run` from this workspace) and a scripted model; no network.";

#[derive(Parser)]
#[command(name = PROGRAM, bin_name = PROGRAM, about = ABOUT, after_help = cli::MODEL_ENVIRONMENT)]
struct Args {
    #[command(flatten)]
    servers: ServerArgs,
    #[command(flatten)]
    model: ModelArgs,
    /// What to ask (default: the script's prompt)
    prompt: Vec<String>,
}

pub struct Cli {
    pub servers: Vec<ServerConfig>,
    pub model: Model,
    pub prompt: String,
    pub max_turns: u32,
    pub options: Options,
}

/// The command line, or the exit status to end with: 0 after `--help`, 2
/// after a usage error (one line on stderr).
pub fn parse() -> Result<Cli, std::process::ExitCode> {
    let args: Args = cli::parse(PROGRAM, "scripts/add.json")?;
    resolve(args).map_err(|err| cli::refuse(PROGRAM, &err))
}

fn resolve(args: Args) -> Result<Cli, String> {
    let named = cli::model_name(args.model.model);
    let demo = ("scripts/add.json", DEMO_SCRIPT);
    let (mut model, script_prompt) = model::choose(named, args.model.script, demo)?;
    model.trace = args.servers.trace;
    let prompt = cli::prompt(PROGRAM, args.prompt, script_prompt)?;
    let add = cli::chapter_server("add", "ch03-add-tool-solution", &[]);
    Ok(Cli {
        servers: args.servers.configs(Some(add))?,
        options: args.servers.options(),
        model,
        prompt,
        max_turns: args.model.max_turns,
    })
}
