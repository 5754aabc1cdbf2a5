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
use wire_host::proxy;
use wire_host::stack22;
use wire_host::stack23::Options;

use crate::PROGRAM;

/// The demo script, built into the binary so the demo needs no files.
const DEMO_SCRIPT: &str = include_str!("../scripts/trace-demo.json");
/// The demo's settings: chapter 24's sandbox, for the skill's script.
const DEMO_SETTINGS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/settings/demo.json");
/// The chapter's own skills, used when no `--skills` is given.
const DEFAULT_SKILLS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/skills");
/// The chapter's own agents, used when no `--agents` is given.
const DEFAULT_AGENTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/agents");

const ABOUT: &str = "ch25-trace-context: chapter 24's agent loop, which starts one W3C trace\n\
    for the run, continued from the TRACEPARENT environment variable or new,\n\
    and sends it in the _meta of every MCP request, each with a span of its\n\
    own (traceparent, SEP-414), so that a server's log line names the trace.\n\n\
    With no arguments it runs a scripted demo: the model runs the\n\
    release-notes skill's script in the sandbox, then writes the notes as a\n\
    draft on chapter 14's server, whose log lines carry the run's trace. No\n\
    network.";

/// The model's environment, then tool search's, the cache breaker's and
/// memory's.
fn after_help() -> String {
    let trace = "  TRACEPARENT         the caller's W3C trace context, which this run's
                      requests continue (unset or not valid: a new trace)";
    let model = cli::MODEL_ENVIRONMENT;
    format!("{model}\n\n{}\n{trace}", stack22::ENVIRONMENT)
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
    let args: Args = cli::parse(PROGRAM, "scripts/trace-demo.json")?;
    resolve(args, demo).map_err(|err| cli::refuse(PROGRAM, &err))
}

fn resolve(args: Args, demo: bool) -> Result<Cli, String> {
    let defaults = Defaults {
        script: ("scripts/trace-demo.json", demo_script()),
        settings: Some(PathBuf::from(DEMO_SETTINGS)),
        skills: DEFAULT_SKILLS,
        agents: DEFAULT_AGENTS,
        server: Some(demo_server()),
    };
    let base = args.base.resolve(PROGRAM, args.prompt, demo, defaults)?;
    let options = Options::read(&base, args.budget.context_budget, args.rules)?;
    Ok(Cli { base, options })
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
