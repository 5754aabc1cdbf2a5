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
use wire_host::cli::{self, BudgetArgs, RuleArgs};
use wire_host::host::ServerConfig;
use wire_host::program::{Base, BaseArgs, Defaults};
use wire_host::stack22;

use crate::PROGRAM;
use crate::stack::Options;

/// The demo script, built into the binary so the demo needs no files.
const DEMO_SCRIPT: &str = include_str!("../scripts/permissions-demo.json");
/// The demo's settings: its permission rules.
const DEMO_SETTINGS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/settings/demo.json");
/// The chapter's own skills, used when no `--skills` is given.
const DEFAULT_SKILLS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/skills");
/// The chapter's own agents, used when no `--agents` is given.
const DEFAULT_AGENTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/agents");

const ABOUT: &str = "ch23-permissions: chapter 22's agent loop, whose tool calls the user's\n\
    permission rules decide, never the model: the permissions of --settings\n\
    (deny rules first, then ask, then allow, such as Bash(git diff *) or\n\
    mcp__drafts__*) and the permission mode. A call no rule allows is asked\n\
    about on the terminal, and refused when there is none.\n\n\
    With no arguments it runs a scripted demo with rules of its own: the\n\
    model searches chapter 14's notes, started here and reached over HTTP on\n\
    127.0.0.1 (allowed), tries to send a file out with curl (denied), to\n\
    publish a draft (asked, and refused: no terminal), and to make a folder\n\
    (allowed). No network beyond this machine.";

/// The model's environment, then tool search's, the cache breaker's and
/// memory's.
fn after_help() -> String {
    format!("{}\n\n{}", cli::MODEL_ENVIRONMENT, stack22::ENVIRONMENT)
}

#[derive(Parser)]
#[command(name = PROGRAM, bin_name = PROGRAM, about = ABOUT, after_help = after_help())]
struct Args {
    #[command(flatten)]
    base: BaseArgs,
    #[command(flatten)]
    budget: BudgetArgs,
    #[command(flatten)]
    rules: RuleArgs,
    /// What to ask (default: the script's prompt)
    prompt: Vec<String>,
}

pub struct Cli {
    /// The options of chapters 7 to 15.
    pub base: Base,
    /// What the extensions of chapters 19 to 23 read.
    pub options: Options,
}

/// The command line, or the exit status to end with: 0 after `--help`, 2
/// after a usage error (one line on stderr).
pub fn parse() -> Result<Cli, std::process::ExitCode> {
    let demo = std::env::args_os().len() == 1;
    let args: Args = cli::parse(PROGRAM, "scripts/permissions-demo.json")?;
    resolve(args, demo).map_err(|err| cli::refuse(PROGRAM, &err))
}

fn resolve(args: Args, demo: bool) -> Result<Cli, String> {
    let defaults = Defaults {
        script: ("scripts/permissions-demo.json", DEMO_SCRIPT.to_string()),
        settings: Some(PathBuf::from(DEMO_SETTINGS)),
        skills: DEFAULT_SKILLS,
        agents: DEFAULT_AGENTS,
        server: Some(demo_server()),
    };
    let base = args.base.resolve(PROGRAM, args.prompt, demo, defaults)?;
    let options = Options::read(&base, args.budget.context_budget, args.rules)?;
    Ok(Cli { base, options })
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
