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
use wire_host::program::{Base, BaseArgs, Defaults};
use wire_host::proxy;
use wire_host::stack22;
use wire_host::stack23::Options;

use crate::PROGRAM;

/// The demo script, built into the binary so the demo needs no files.
const DEMO_SCRIPT: &str = include_str!("../scripts/sandbox-demo.json");
/// The demo's settings: its sandbox.
const DEMO_SETTINGS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/settings/demo.json");
/// The chapter's own skills, used when no `--skills` is given.
const DEFAULT_SKILLS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/skills");
/// The chapter's own agents, used when no `--agents` is given.
const DEFAULT_AGENTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/agents");

const ABOUT: &str = "ch24-sandbox: chapter 23's agent loop, whose Bash commands run in an\n\
    operating system's sandbox when the settings' sandbox is enabled:\n\
    bubblewrap, the filesystem read-only but the working folder, the denyRead\n\
    paths hidden, no network, and an HTTP proxy outside that lets through the\n\
    allowedDomains alone. A sandbox that cannot start refuses Bash, with the\n\
    reason.\n\n\
    With no arguments it runs a scripted demo in a sandbox that hides ~/.ssh:\n\
    the model tries to read the key and to write outside the working folder,\n\
    then makes a folder inside it. No server, no network.";

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
    // Inside the sandbox the harness is the bridge to its proxy (chapter 24).
    let words: Vec<String> = std::env::args().collect();
    if let [_, flag, socket, command @ ..] = words.as_slice()
        && flag == proxy::BRIDGE
    {
        std::process::exit(proxy::bridge(socket.into(), command));
    }
    let demo = std::env::args_os().len() == 1;
    let args: Args = cli::parse(PROGRAM, "scripts/sandbox-demo.json")?;
    resolve(args, demo).map_err(|err| cli::refuse(PROGRAM, &err))
}

fn resolve(args: Args, demo: bool) -> Result<Cli, String> {
    let defaults = Defaults {
        script: ("scripts/sandbox-demo.json", DEMO_SCRIPT.to_string()),
        settings: Some(PathBuf::from(DEMO_SETTINGS)),
        skills: DEFAULT_SKILLS,
        agents: DEFAULT_AGENTS,
        server: None,
    };
    let base = args.base.resolve(PROGRAM, args.prompt, demo, defaults)?;
    let options = Options::read(&base, args.budget.context_budget, args.rules)?;
    Ok(Cli { base, options })
}
