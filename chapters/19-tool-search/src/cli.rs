//! The command line as a struct (clap's derive): each field is an option,
//! its doc comment its line in `--help`. The servers' options are every
//! harness chapter's (`wire_host::cli`); chapter 7 added the model's,
//! chapter 8 the skills', chapter 9 the agents' and their limits, chapter
//! 11 the hooks' settings and where the tools run, chapter 15 how a
//! server's questions are answered. Chapter 19's setting is Claude Code's
//! environment variable, ENABLE_TOOL_SEARCH, read here.

use clap::Parser;
use wire_host::cli;
use wire_host::host::ServerConfig;
use wire_host::program::{Base, BaseArgs, Defaults};

use crate::PROGRAM;
use crate::tool_search::{Mode, SETTING};

/// The demo script, built into the binary so the demo needs no files.
const DEMO_SCRIPT: &str = include_str!("../scripts/search-demo.json");
/// The chapter's own skills, used when no `--skills` is given.
const DEFAULT_SKILLS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/skills");
/// The chapter's own agents, used when no `--agents` is given.
const DEFAULT_AGENTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/agents");

const ABOUT: &str = "ch19-tool-search: chapter 15's agent loop with tool search: past a\n\
    threshold (ENABLE_TOOL_SEARCH) the model gets the MCP tools' names and a\n\
    ToolSearch tool, and what a search finds is sent in full from the next\n\
    request on.\n\n\
    With no arguments it runs a scripted demo with tool search on: the model\n\
    searches chapter 14's server's deferred tools, started here and reached\n\
    over HTTP on 127.0.0.1, then calls the one it found; no network beyond\n\
    this machine.";

/// The model's environment, then tool search's.
fn after_help() -> String {
    let tool_search = "Environment for tool search:
  ENABLE_TOOL_SEARCH  true, false, auto (the default: defer the MCP tools when
                      their definitions pass 10% of a 200,000-token window)
                      or auto:N (N%); the demo sets true";
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
    let args: Args = cli::parse(PROGRAM, "scripts/search-demo.json")?;
    resolve(args, demo).map_err(|err| cli::refuse(PROGRAM, &err))
}

fn resolve(args: Args, demo: bool) -> Result<Cli, String> {
    // Claude Code's setting; the demo turns it on, to show it.
    let tool_search = match (demo, std::env::var(SETTING).ok()) {
        (true, None) => Mode::On,
        (_, value) => Mode::read(value.as_deref())?,
    };
    let defaults = Defaults {
        script: ("scripts/search-demo.json", DEMO_SCRIPT.to_string()),
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
