//! The command line as a struct (clap's derive): each field is an option,
//! its doc comment its line in `--help`. The servers' options are every
//! harness chapter's (`wire_host::cli`); chapter 7 added the model's,
//! chapter 8 the skills', chapter 9 the agents' and their limits, chapter
//! 11 the hooks' settings and where the tools run, chapter 15 how a
//! server's questions are answered. Chapter 19's setting is Claude Code's
//! environment variable, ENABLE_TOOL_SEARCH, read here; chapter 20 adds no
//! option (its measuring switch is an environment variable too).

use clap::Parser;
use wire_host::cli::{self, BudgetArgs};
use wire_host::host::ServerConfig;
use wire_host::program::{Base, BaseArgs, Defaults};

use crate::PROGRAM;
use crate::stack::{self, Options};

/// The demo script, built into the binary so the demo needs no files.
const DEMO_SCRIPT: &str = include_str!("../scripts/long-demo.json");
/// The demo's budget: small, so that its short session outgrows it.
const DEMO_BUDGET: u64 = 1900;
/// The chapter's own skills, used when no `--skills` is given.
const DEFAULT_SKILLS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/skills");
/// The chapter's own agents, used when no `--agents` is given.
const DEFAULT_AGENTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/agents");

const ABOUT: &str = "ch22-long-session: chapter 21's agent loop for a long session: a request\n\
    that would carry more than --context-budget tokens has the model summarize\n\
    the older turns first (PreCompact hooks hear of it, and may refuse), and a\n\
    request the model API refuses for a while (429 rate limited, 529\n\
    overloaded, 5xx) is tried again after the wait the answer asks for, or a\n\
    growing backoff.\n\n\
    With no arguments it runs a scripted demo: the model API is overloaded at\n\
    first, then the model searches chapter 14's notes, started here and\n\
    reached over HTTP on 127.0.0.1, until the session outgrows the demo's\n\
    budget of 1,900 tokens and is compacted, then answers. No network beyond\n\
    this machine.";

/// The model's environment, then tool search's, the cache breaker's and
/// memory's.
fn after_help() -> String {
    format!("{}\n\n{}", cli::MODEL_ENVIRONMENT, stack::ENVIRONMENT)
}

#[derive(Parser)]
#[command(name = PROGRAM, bin_name = PROGRAM, about = ABOUT, after_help = after_help())]
struct Args {
    #[command(flatten)]
    base: BaseArgs,
    #[command(flatten)]
    budget: BudgetArgs,
    /// What to ask (default: the script's prompt)
    prompt: Vec<String>,
}

pub struct Cli {
    /// The options of chapters 7 to 15.
    pub base: Base,
    /// ENABLE_TOOL_SEARCH, read; `--context-budget`.
    pub options: Options,
}

/// The command line, or the exit status to end with: 0 after `--help`, 2
/// after a usage error (one line on stderr).
pub fn parse() -> Result<Cli, std::process::ExitCode> {
    let demo = std::env::args_os().len() == 1;
    let args: Args = cli::parse(PROGRAM, "scripts/long-demo.json")?;
    resolve(args, demo).map_err(|err| cli::refuse(PROGRAM, &err))
}

fn resolve(args: Args, demo: bool) -> Result<Cli, String> {
    let budget = args.budget.context_budget.or(demo.then_some(DEMO_BUDGET));
    let defaults = Defaults {
        script: ("scripts/long-demo.json", DEMO_SCRIPT.to_string()),
        settings: None,
        skills: DEFAULT_SKILLS,
        agents: DEFAULT_AGENTS,
        server: Some(demo_server()),
    };
    let base = args.base.resolve(PROGRAM, args.prompt, demo, defaults)?;
    let options = Options::read(budget)?;
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
