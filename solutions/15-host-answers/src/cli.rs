//! The command line as a struct (clap's derive): each field is an option,
//! its doc comment its line in `--help`. The servers' options are every
//! harness chapter's (`wire_host::cli`); chapter 7 added the model's,
//! chapter 8 the skills', chapter 9 the agents' and their limits, chapter
//! 11 the hooks' settings and where the tools run, this chapter how a
//! server's questions are answered.

use std::path::PathBuf;

use clap::Parser;
use wire_host::ask::{AnswerArgs, Answers};
use wire_host::cli::{self, AgentArgs, HookArgs, HookOptions, ModelArgs, ServerArgs};
use wire_host::connection::Options;
use wire_host::host::ServerConfig;
use wire_host::model::{self, Model};

use crate::PROGRAM;

/// The demo script, built into the binary so the demo needs no files.
const DEMO_SCRIPT: &str = include_str!("../scripts/answers-demo.json");
/// The demo's scripted answers: the user declines the form.
const DEMO_ANSWERS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/answers.json");
/// The chapter's own skills, used when no `--skills` is given.
const DEFAULT_SKILLS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/skills");
/// The chapter's own agents, used when no `--agents` is given.
const DEFAULT_AGENTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/agents");

const ABOUT: &str = "ch15-host-answers: chapter 11's agent loop, as a client of both MCP eras\n\
    (2026-07-28 found by server/discover, else initialize) over stdio or\n\
    Streamable HTTP (--server NAME=http://...), that answers a server that\n\
    asks: a form for the user, sampling by the model once approved, roots.\n\n\
    With no arguments it runs a scripted demo: the model publishes a draft on\n\
    chapter 14's server, started here and reached over HTTP on 127.0.0.1; the\n\
    server asks for confirmation, the scripted answer declines, and nothing is\n\
    published; no network beyond this machine.";

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
    #[command(flatten)]
    answers: AnswerArgs,
    /// Skip server/discover: initialize every server (for servers that
    /// fail on a request before initialize)
    #[arg(long)]
    legacy: bool,
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
    pub answers: Answers,
    /// `--legacy`: no server/discover probe.
    pub legacy: bool,
}

/// The command line, or the exit status to end with: 0 after `--help`, 2
/// after a usage error (one line on stderr).
pub fn parse() -> Result<Cli, std::process::ExitCode> {
    let demo = std::env::args_os().len() == 1;
    let args: Args = cli::parse(PROGRAM, "scripts/answers-demo.json")?;
    resolve(args, demo).map_err(|err| cli::refuse(PROGRAM, &err))
}

fn resolve(args: Args, demo: bool) -> Result<Cli, String> {
    let hooks = args.hooks.resolve(None)?;
    let answers = args
        .answers
        .load(demo.then(|| PathBuf::from(DEMO_ANSWERS)))?;
    let agents = args.agents.resolve(DEFAULT_SKILLS, DEFAULT_AGENTS)?;
    let named = cli::model_name(args.model.model);
    let demo_script = ("scripts/answers-demo.json", DEMO_SCRIPT);
    let (mut model, script_prompt) = model::choose(named, args.model.script, demo_script)?;
    model.trace = args.servers.trace;
    let prompt = cli::prompt(PROGRAM, args.prompt, script_prompt)?;
    Ok(Cli {
        servers: args.servers.configs(demo.then(demo_server))?,
        options: args.servers.options(),
        skill_folders: agents.skill_folders,
        agent_folders: agents.agent_folders,
        model,
        prompt,
        max_turns: args.model.max_turns,
        max_depth: agents.max_depth,
        max_concurrent: agents.max_concurrent,
        hooks,
        answers,
        legacy: args.legacy,
    })
}

/// The demo's server: chapter 14's, over Streamable HTTP on a free port
/// of this machine (the host starts it and stops it).
fn demo_server() -> ServerConfig {
    cli::chapter_server(
        "drafts",
        "ch14-asking-solution",
        &["--listen", "127.0.0.1:0"],
    )
}
