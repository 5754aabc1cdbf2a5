//! The command line as a struct (clap's derive): each field is an option,
//! its doc comment its line in `--help`. The servers' options are every
//! harness chapter's (`wire_host::cli`); chapter 7 added the model's,
//! chapter 8 the skills', chapter 9 the agents' and their limits, chapter
//! 11 the hooks' settings and where the tools run, chapter 15 how a
//! server's questions are answered. Chapter 19's setting is Claude Code's
//! environment variable, ENABLE_TOOL_SEARCH, read here; chapter 20 adds no
//! option (its measuring switch is an environment variable too).

use clap::Parser;
use wire_host::cli;
use wire_host::host::ServerConfig;
use wire_host::program::{Base, BaseArgs, Defaults};

use crate::PROGRAM;
use wire_host::tool_search::{Mode, SETTING};

/// The demo script, built into the binary so the demo needs no files.
const DEMO_SCRIPT: &str = include_str!("../scripts/cache-demo.json");
/// The chapter's own skills, used when no `--skills` is given.
const DEFAULT_SKILLS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/skills");
/// The chapter's own agents, used when no `--agents` is given.
const DEFAULT_AGENTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/agents");

const ABOUT: &str = "ch20-prompt-cache: chapter 19's agent loop with prompt caching: each\n\
    request marks cache_control on the last tool, the system prompt and the\n\
    last message, keeps everything before them the same from turn to turn,\n\
    and a line per turn says what the model wrote to its cache, read from it\n\
    and was sent uncached, and what the input cost.\n\n\
    With no arguments it runs a scripted demo: the model calls chapter 14's\n\
    server, started here and reached over HTTP on 127.0.0.1, twice, then\n\
    answers; the scripted model's cache figures are computed from the\n\
    requests, as the API would report them. No network beyond this machine.";

/// The model's environment, then tool search's and the cache breaker's.
fn after_help() -> String {
    let tool_search = "Environment for tool search and the cache:
  ENABLE_TOOL_SEARCH  true, false, auto (the default: defer the MCP tools when
                      their definitions pass 10% of a 200,000-token window)
                      or auto:N (N%)
  WIRE_CACHE_BREAKER  timestamp, reorder or change: break the cached prefix on
                      purpose, for wire-measure cache (the course's switch)";
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
    base: BaseArgs,
    /// What to ask (default: the script's prompt)
    prompt: Vec<String>,
}

pub struct Cli {
    /// The options of chapters 7 to 15.
    pub base: Base,
    /// ENABLE_TOOL_SEARCH, read.
    pub options: Mode,
}

/// The command line, or the exit status to end with: 0 after `--help`, 2
/// after a usage error (one line on stderr).
pub fn parse() -> Result<Cli, std::process::ExitCode> {
    let demo = std::env::args_os().len() == 1;
    let args: Args = cli::parse(PROGRAM, "scripts/cache-demo.json")?;
    resolve(args, demo).map_err(|err| cli::refuse(PROGRAM, &err))
}

fn resolve(args: Args, demo: bool) -> Result<Cli, String> {
    // Claude Code's setting, read here.
    let tool_search = Mode::read(std::env::var(SETTING).ok().as_deref())?;
    let defaults = Defaults {
        script: ("scripts/cache-demo.json", DEMO_SCRIPT.to_string()),
        settings: None,
        skills: DEFAULT_SKILLS,
        agents: DEFAULT_AGENTS,
        server: Some(demo_server()),
    };
    let base = args.base.resolve(PROGRAM, args.prompt, demo, defaults)?;
    Ok(Cli {
        base,
        options: tool_search,
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
