//! The command line as a struct (clap's derive): each field is an option,
//! its doc comment its line in `--help`. The servers' options are every
//! harness chapter's (`wire_host::cli`); chapter 7 added the model's,
//! chapter 8 the skills', chapter 9 the agents' and their limits, chapter
//! 11 the hooks' settings and where the tools run, chapter 15 how a
//! server's questions are answered. Chapter 19's setting is Claude Code's
//! environment variable, ENABLE_TOOL_SEARCH, read here; chapter 20 adds no
//! option (its measuring switch is an environment variable too).

use std::path::PathBuf;

use clap::Parser;
use wire_host::ask::{AnswerArgs, Answers};
use wire_host::cli::{self, HookArgs, HookOptions, ServerArgs};
use wire_host::connection::Options;
use wire_host::host::ServerConfig;
use wire_host::model::{self, Model};

use crate::PROGRAM;
use crate::tool_search::{Mode, SETTING};
use crate::{compaction, retries};
use crate::{permissions, pins};
use wire_host::proxy;

/// The demo script, built into the binary so the demo needs no files.
const DEMO_SCRIPT: &str = include_str!("../scripts/trace-demo.json");
/// The demo's settings: chapter 24's sandbox, for the skill's script.
const DEMO_SETTINGS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/settings/demo.json");
/// The chapter's own skills, used when no `--skills` is given.
const DEFAULT_SKILLS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/skills");
/// The chapter's own agents, used when no `--agents` is given.
const DEFAULT_AGENTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/agents");

const ABOUT: &str = "ch25-trace-context: chapter 24's agent loop, which starts one W3C trace
\
    for the run, continued from the TRACEPARENT environment variable or new,
\
    and sends it in the _meta of every MCP request, each with a span of its
\
    own (traceparent, SEP-414), so that a server's log line names the trace.

\
    With no arguments it runs a scripted demo: the model runs the
\
    release-notes skill's script in the sandbox, then writes the notes as a
\
    draft on chapter 14's server, whose log lines carry the run's trace. No
\
    network.";

/// The model's environment, then tool search's, the cache breaker's and
/// memory's.
fn after_help() -> String {
    let tool_search = "Environment for tool search, the cache, memory and retries:
  ENABLE_TOOL_SEARCH  true, false, auto (the default: defer the MCP tools when
                      their definitions pass 10% of a 200,000-token window)
                      or auto:N (N%)
  WIRE_CACHE_BREAKER  timestamp, reorder or change: break the cached prefix on
                      purpose, for wire-measure cache (the course's switch)
  WIRE_MANAGED_DIR    the managed policy's folder (default: /etc/claude-code;
                      the course's switch, for its tests)
  CLAUDE_CODE_MAX_RETRIES  how often a request the model API refused for a
                      while (429, 529, 5xx) is tried again (default: 10)
  TRACEPARENT         the caller's W3C trace context, which this run's
                      requests continue (unset or not valid: a new trace)";
    format!(
        "{}

{tool_search}",
        cli::MODEL_ENVIRONMENT
    )
}

#[derive(Parser)]
#[command(name = PROGRAM, bin_name = PROGRAM, about = ABOUT, after_help = after_help())]
struct Args {
    #[command(flatten)]
    servers: ServerArgs,
    /// A scripted model: replies from a JSON file (default: scripts/trace-demo.json)
    #[arg(long, value_name = "PATH")]
    script: Option<String>,
    /// A real model over HTTP instead (also WIRE_MODEL)
    #[arg(long, value_name = "NAME")]
    model: Option<String>,
    /// Give up after N model turns
    #[arg(long, value_name = "N", default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..))]
    max_turns: u32,
    /// Load the skills in DIR's subfolders (repeatable; default: this
    /// chapter's skills/ folder)
    #[arg(long = "skills", value_name = "DIR")]
    skill_folders: Vec<PathBuf>,
    /// Load the agent files (*.md) under DIR (repeatable; default: this
    /// chapter's agents/ folder)
    #[arg(long = "agents", value_name = "DIR")]
    agent_folders: Vec<PathBuf>,
    /// Levels of subagents below the main conversation (1: subagents get no
    /// Agent tool; 0: none)
    #[arg(long, value_name = "N", default_value_t = 1)]
    max_depth: u32,
    /// Subagents of one reply that run at once
    #[arg(long, value_name = "N", default_value_t = 4)]
    max_concurrent: usize,
    #[command(flatten)]
    hooks: HookArgs,
    #[command(flatten)]
    answers: AnswerArgs,
    /// Skip server/discover: initialize every server (for servers that
    /// fail on a request before initialize)
    #[arg(long)]
    legacy: bool,
    /// Compact the conversation when a request would carry more than N
    /// tokens (cl100k_base; the course's option; default: no budget)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    context_budget: Option<u64>,
    /// Keep each MCP tool's definition digest in FILE, and refuse a tool
    /// whose definition changed since (the course's option; default: for
    /// this session only)
    #[arg(long, value_name = "FILE")]
    pins: Option<PathBuf>,
    /// Claude Code's permission mode: default, acceptEdits, plan, auto,
    /// dontAsk or bypassPermissions (default: the settings' defaultMode)
    #[arg(long, value_name = "MODE")]
    permission_mode: Option<String>,
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
    /// ENABLE_TOOL_SEARCH, read.
    pub tool_search: Mode,
}

/// The command line, or the exit status to end with: 0 after `--help`, 2
/// after a usage error (one line on stderr).
pub fn parse() -> Result<Cli, std::process::ExitCode> {
    // Inside the sandbox the harness is the bridge to its proxy (chapter 24).
    let words: Vec<String> = std::env::args().collect();
    if let [_, flag, socket, command @ ..] = words.as_slice()
        && flag == proxy::BRIDGE
    {
        std::process::exit(proxy::bridge(socket.into(), command));
    }
    let demo = std::env::args_os().len() == 1;
    let args = Args::try_parse().map_err(|err| cli::usage(PROGRAM, err))?;
    resolve(args, demo).map_err(|err| cli::refuse(PROGRAM, &err))
}

fn resolve(args: Args, demo: bool) -> Result<Cli, String> {
    let hooks = args
        .hooks
        .resolve(demo.then(|| PathBuf::from(DEMO_SETTINGS)))?;
    // The permission rules (chapter 23): the settings file's, the mode flag's.
    permissions::load(hooks.settings.as_deref(), args.permission_mode.as_deref())?;
    pins::load(args.pins)?;
    let answers = args.answers.load(None)?;
    // Claude Code's setting (the demo leaves it to `auto`: nothing deferred).
    let tool_search = Mode::read(std::env::var(SETTING).ok().as_deref())?;
    retries::max_retries()?; // Claude Code's setting, checked before any request.
    compaction::set_budget(args.context_budget.map(|tokens| tokens as usize));
    let skill_folders = cli::folders("--skills", args.skill_folders, DEFAULT_SKILLS)?;
    let agent_folders = cli::folders("--agents", args.agent_folders, DEFAULT_AGENTS)?;
    if args.max_concurrent == 0 {
        return Err("--max-concurrent 0: at least one subagent must be able to run".to_string());
    }
    let model_name = cli::model_name(args.model);
    // A real model only when one is named: a key in the environment alone
    // never sends anything anywhere.
    let (mut model, script_prompt) = match (model_name, args.script) {
        (Some(name), _) => (model::from_env(&name)?, String::new()),
        (None, Some(path)) => {
            let text = std::fs::read_to_string(&path)
                .map_err(|err| format!("cannot read script {path}: {err}"))?;
            cli::scripted(&path, &text)?
        }
        (None, None) => cli::scripted("scripts/trace-demo.json", &demo_script())?,
    };
    model.trace = args.servers.trace;
    let prompt = match args.prompt.is_empty() {
        true => script_prompt,
        false => args.prompt.join(" "),
    };
    if prompt.is_empty() {
        return Err("give a prompt: ch25-trace-context --model NAME What is 2 + 3?".to_string());
    }
    Ok(Cli {
        servers: args.servers.configs(demo.then(demo_server))?,
        options: args.servers.options(),
        skill_folders,
        agent_folders,
        model,
        prompt,
        max_turns: args.max_turns,
        max_depth: args.max_depth,
        max_concurrent: args.max_concurrent,
        hooks,
        answers,
        legacy: args.legacy,
        tool_search,
    })
}

/// The demo script, with `{skills}` standing for this chapter's skills
/// folder: the Skill tool tells a real model where a skill's folder is,
/// and a scripted one must be told where this checkout put it.
fn demo_script() -> String {
    let folder = serde_json::to_string(DEFAULT_SKILLS).unwrap_or_default();
    DEMO_SCRIPT.replace("{skills}", folder.trim_matches('"'))
}

/// The demo's server: chapter 14's, over stdio, whose stderr shows each
/// request's trace.
fn demo_server() -> ServerConfig {
    cli::chapter_server("drafts", "ch14-asking-solution", &[])
}
