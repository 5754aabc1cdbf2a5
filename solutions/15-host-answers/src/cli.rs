//! The command line as a struct (clap's derive): each field is an option,
//! its doc comment its line in `--help`. The servers' options are every
//! harness chapter's (`wire_host::cli`); chapter 7 added the model's,
//! chapter 8 the skills', chapter 9 the agents' and their limits, chapter
//! 11 the hooks' settings and where the tools run, this chapter how a
//! server's questions are answered.

use std::path::PathBuf;

use clap::Parser;
use wire_host::cli;
use wire_host::host::ServerConfig;
use wire_host::program::{Base, BaseArgs, Defaults};

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
    base: BaseArgs,
    /// What to ask (default: the script's prompt)
    prompt: Vec<String>,
}

/// The command line, or the exit status to end with: 0 after `--help`, 2
/// after a usage error (one line on stderr).
pub fn parse() -> Result<Base, std::process::ExitCode> {
    let demo = std::env::args_os().len() == 1;
    let mut args: Args = cli::parse(PROGRAM, "scripts/answers-demo.json")?;
    if demo {
        args.base.answers.answers = Some(PathBuf::from(DEMO_ANSWERS));
    }
    let defaults = Defaults {
        script: ("scripts/answers-demo.json", DEMO_SCRIPT.to_string()),
        settings: None,
        skills: DEFAULT_SKILLS,
        agents: DEFAULT_AGENTS,
        server: Some(demo_server()),
    };
    let base = args.base.resolve(PROGRAM, args.prompt, demo, defaults);
    base.map_err(|err| cli::refuse(PROGRAM, &err))
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
