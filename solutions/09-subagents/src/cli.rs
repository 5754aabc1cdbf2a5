//! The command line as a struct (clap's derive): each field is an option,
//! its doc comment its line in `--help`. The servers' options are every
//! harness chapter's (`wire_host::cli`); chapter 7 added the model's,
//! chapter 8 the skills', this chapter the agents' and their limits.

use std::path::PathBuf;

use clap::Parser;
use wire_host::cli::{self, ModelArgs, ServerArgs};
use wire_host::connection::Options;
use wire_host::host::ServerConfig;
use wire_host::model::{self, Model};

use crate::PROGRAM;

/// The demo script, built into the binary so the demo needs no files.
const DEMO_SCRIPT: &str = include_str!("../scripts/subagents.json");
/// The chapter's own skills, used when no `--skills` is given.
const DEFAULT_SKILLS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/skills");
/// The chapter's own agents, used when no `--agents` is given.
const DEFAULT_AGENTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/agents");

const ABOUT: &str = "ch09-subagents: an agent loop over MCP servers, with skills and subagents.\n\n\
    With no options it runs a scripted demo: chapter 3's server as `add` (run\n\
    through `cargo run` from this workspace), this chapter's agents and skills,\n\
    and a scripted model that delegates two tasks to subagents in one turn; no\n\
    network.";

#[derive(Parser)]
#[command(name = PROGRAM, bin_name = PROGRAM, about = ABOUT, after_help = cli::MODEL_ENVIRONMENT)]
struct Args {
    #[command(flatten)]
    servers: ServerArgs,
    #[command(flatten)]
    model: ModelArgs,
    /// Load the skills in DIR's subfolders (repeatable; default: this
    /// chapter's skills/ folder)
    #[arg(long = "skills", value_name = "DIR")]
    skill_folders: Vec<PathBuf>,
    /// Load the agent files (*.md) under DIR (repeatable; default: this
    /// chapter's agents/ folder)
    #[arg(long = "agents", value_name = "DIR")]
    agent_folders: Vec<PathBuf>,
    /// Validate the agent files and print one line per file; start nothing
    #[arg(long)]
    check_agents: bool,
    /// Levels of subagents below the main conversation (1: subagents get no
    /// Agent tool; 0: none)
    #[arg(long, value_name = "N", default_value_t = 1)]
    max_depth: u32,
    /// Subagents of one reply that run at once
    #[arg(long, value_name = "N", default_value_t = 4)]
    max_concurrent: usize,
    // STRETCH(ch09/spawn-allowlist): `--agent NAME` runs the main
    // conversation as the agent NAME, as `claude --agent` does: its Agent
    // tool offers and runs only the types its `Agent(a, b)` rules name
    // (`agents::spawnable`); a subagent's Agent tool offers every type.
    // Here: the `--agent NAME` option.
    /// Run the main conversation as the agent NAME
    #[cfg(feature = "stretch")]
    #[arg(long, value_name = "NAME")]
    agent: Option<String>,
    // END(ch09/spawn-allowlist)
    /// What to ask (default: the script's prompt)
    prompt: Vec<String>,
}

pub struct Cli {
    pub servers: Vec<ServerConfig>,
    pub skill_folders: Vec<PathBuf>,
    pub agent_folders: Vec<PathBuf>,
    pub check_agents: bool,
    pub model: Model,
    pub prompt: String,
    pub max_turns: u32,
    pub max_depth: u32,
    pub max_concurrent: usize,
    pub options: Options,
    // STRETCH(ch09/spawn-allowlist): the agent `--agent` names.
    #[cfg(feature = "stretch")]
    pub main_agent: Option<String>,
    // END(ch09/spawn-allowlist)
}

/// The command line, or the exit status to end with: 0 after `--help`, 2
/// after a usage error (one line on stderr).
pub fn parse() -> Result<Cli, std::process::ExitCode> {
    let args: Args = cli::parse(PROGRAM, "scripts/subagents.json")?;
    resolve(args).map_err(|err| cli::refuse(PROGRAM, &err))
}

fn resolve(args: Args) -> Result<Cli, String> {
    let skill_folders = cli::folders("--skills", args.skill_folders, DEFAULT_SKILLS)?;
    let agent_folders = cli::folders("--agents", args.agent_folders, DEFAULT_AGENTS)?;
    if args.max_concurrent == 0 {
        return Err("--max-concurrent 0: at least one subagent must be able to run".to_string());
    }
    // Checking talks to no model, whatever is named.
    let offline = args.check_agents;
    let named = cli::model_name(args.model.model).filter(|_| !offline);
    let demo = ("scripts/subagents.json", DEMO_SCRIPT);
    let (mut model, script_prompt) = model::choose(named, args.model.script, demo)?;
    model.trace = args.servers.trace;
    let prompt = match offline {
        true => String::new(), // Nothing is asked.
        false => cli::prompt(PROGRAM, args.prompt, script_prompt)?,
    };
    let add = cli::chapter_server("add", "ch03-add-tool-solution", &[]);
    Ok(Cli {
        servers: args.servers.configs(Some(add))?,
        options: args.servers.options(),
        skill_folders,
        agent_folders,
        check_agents: args.check_agents,
        model,
        prompt,
        max_turns: args.model.max_turns,
        max_depth: args.max_depth,
        max_concurrent: args.max_concurrent,
        // STRETCH(ch09/spawn-allowlist): the agent `--agent` names.
        #[cfg(feature = "stretch")]
        main_agent: args.agent,
        // END(ch09/spawn-allowlist)
    })
}
