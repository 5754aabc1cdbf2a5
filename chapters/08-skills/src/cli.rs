//! The command line as a struct (clap's derive): each field is an option,
//! its doc comment its line in `--help`. The servers' options are every
//! harness chapter's (`wire_host::cli`); chapter 7 added the model's, this
//! chapter the skills'.

use std::path::PathBuf;

use clap::Parser;
use wire_host::cli::{self, ModelArgs, ServerArgs};
use wire_host::connection::Options;
use wire_host::host::ServerConfig;
use wire_host::model::{self, Model};

use crate::PROGRAM;

/// The demo script, built into the binary so the demo needs no files.
const DEMO_SCRIPT: &str = include_str!("../scripts/skills.json");
/// The chapter's own skills, used when no `--skills` is given.
const DEFAULT_SKILLS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/skills");

const ABOUT: &str = "ch08-skills: an agent loop over MCP servers, with skills.\n\n\
    With no options it runs a scripted demo: chapter 3's server as `add` (run\n\
    through `cargo run` from this workspace), this chapter's skills, and a\n\
    scripted model that activates a skill and reads one of its files; no\n\
    network.";

#[derive(Parser)]
#[command(name = PROGRAM, bin_name = PROGRAM, about = ABOUT, after_help = cli::MODEL_ENVIRONMENT)]
struct Args {
    #[command(flatten)]
    servers: ServerArgs,
    #[command(flatten)]
    model: ModelArgs,
    /// Load the skills in DIR's subfolders (repeatable; default: this
    /// chapter's skills/ folder)
    #[arg(long = "skills", value_name = "DIR")]
    skill_folders: Vec<PathBuf>,
    /// Validate the skills and print one line per folder and the
    /// catalogue's cost; start nothing
    #[arg(long)]
    check_skills: bool,
    /// What to ask (default: the script's prompt)
    prompt: Vec<String>,
}

pub struct Cli {
    pub servers: Vec<ServerConfig>,
    pub skill_folders: Vec<PathBuf>,
    pub check_skills: bool,
    pub model: Model,
    pub prompt: String,
    pub max_turns: u32,
    pub options: Options,
}

/// The command line, or the exit status to end with: 0 after `--help`, 2
/// after a usage error (one line on stderr).
pub fn parse() -> Result<Cli, std::process::ExitCode> {
    let args: Args = cli::parse(PROGRAM, "scripts/skills.json")?;
    resolve(args).map_err(|err| cli::refuse(PROGRAM, &err))
}

fn resolve(args: Args) -> Result<Cli, String> {
    let skill_folders = cli::folders("--skills", args.skill_folders, DEFAULT_SKILLS)?;
    // Checking skills talks to no model, whatever is named.
    let offline = args.check_skills;
    let named = cli::model_name(args.model.model).filter(|_| !offline);
    let demo = ("scripts/skills.json", DEMO_SCRIPT);
    let (mut model, script_prompt) = model::choose(named, args.model.script, demo)?;
    model.trace = args.servers.trace;
    let prompt = match offline {
        true => String::new(), // Nothing is asked.
        false => cli::prompt(PROGRAM, args.prompt, script_prompt)?,
    };
    let add = cli::chapter_server("add", "ch03-add-tool-solution", &[]);
    Ok(Cli {
        servers: args.servers.configs(Some(add))?,
        options: args.servers.options(),
        skill_folders,
        check_skills: args.check_skills,
        model,
        prompt,
        max_turns: args.model.max_turns,
    })
}
