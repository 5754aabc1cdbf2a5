//! The command line as a struct (clap's derive): each field is an option,
//! its doc comment its line in `--help`. The servers' options are every
//! harness chapter's (`wire_host::cli`); chapter 7 added the model's,
//! chapter 8 the skills', chapter 9 the agents' and their limits, this
//! chapter the hooks' settings and where the tools run.

use std::path::PathBuf;

use clap::Parser;
use wire_host::cli::{self, AgentArgs, HookArgs, HookOptions, ModelArgs, ServerArgs};
use wire_host::connection::Options;
use wire_host::host::ServerConfig;
use wire_host::model::{self, Model};

use crate::PROGRAM;

/// The demo script, built into the binary so the demo needs no files.
const DEMO_SCRIPT: &str = include_str!("../scripts/injection.json");
/// The chapter's own hooks, used when the program runs with no arguments.
const DEFAULT_SETTINGS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/settings.json");
/// The chapter's own skills, used when no `--skills` is given.
const DEFAULT_SKILLS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/skills");
/// The chapter's own agents, used when no `--agents` is given.
const DEFAULT_AGENTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/agents");

const ABOUT: &str = "ch10-hooks: an agent loop over MCP servers, with skills, subagents, a Bash\n\
    tool, and hooks in Claude Code's settings.json format.\n\n\
    With no arguments it runs a scripted demo: the model reads a note in a fresh\n\
    working folder, the note tells it to delete the folder, it calls Bash with\n\
    rm -rf, and this chapter's settings.json has a PreToolUse hook that blocks\n\
    the call; no network. No server starts unless named.";

#[derive(Parser)]
#[command(name = PROGRAM, bin_name = PROGRAM, about = ABOUT, after_help = cli::MODEL_ENVIRONMENT)]
struct Args {
    #[command(flatten)]
    servers: ServerArgs,
    #[command(flatten)]
    model: ModelArgs,
    #[command(flatten)]
    agents: AgentArgs,
    #[command(flatten)]
    hooks: HookArgs,
    /// What to ask (default: the script's prompt)
    prompt: Vec<String>,
}

pub struct Cli {
    pub servers: Vec<ServerConfig>,
    pub skill_folders: Vec<PathBuf>,
    pub agent_folders: Vec<PathBuf>,
    pub model: Model,
    pub prompt: String,
    pub max_turns: u32,
    pub max_depth: u32,
    pub max_concurrent: usize,
    pub options: Options,
    pub hooks: HookOptions,
    /// No arguments at all: the demo, with its settings and its note.
    pub demo: bool,
}

/// The command line, or the exit status to end with: 0 after `--help`, 2
/// after a usage error (one line on stderr).
pub fn parse() -> Result<Cli, std::process::ExitCode> {
    let demo = std::env::args_os().len() == 1;
    let args: Args = cli::parse(PROGRAM, "scripts/injection.json")?;
    resolve(args, demo).map_err(|err| cli::refuse(PROGRAM, &err))
}

fn resolve(args: Args, demo: bool) -> Result<Cli, String> {
    let hooks = args
        .hooks
        .resolve(demo.then(|| PathBuf::from(DEFAULT_SETTINGS)))?;
    let agents = args.agents.resolve(DEFAULT_SKILLS, DEFAULT_AGENTS)?;
    let named = cli::model_name(args.model.model);
    let demo_script = ("scripts/injection.json", DEMO_SCRIPT);
    let (mut model, script_prompt) = model::choose(named, args.model.script, demo_script)?;
    model.trace = args.servers.trace;
    let prompt = cli::prompt(PROGRAM, args.prompt, script_prompt)?;
    Ok(Cli {
        servers: args.servers.configs(None)?,
        options: args.servers.options(),
        skill_folders: agents.skill_folders,
        agent_folders: agents.agent_folders,
        model,
        prompt,
        max_turns: args.model.max_turns,
        max_depth: agents.max_depth,
        max_concurrent: agents.max_concurrent,
        hooks,
        demo,
    })
}
