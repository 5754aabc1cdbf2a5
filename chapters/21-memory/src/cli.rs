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
use wire_host::session::DemoFile;

use crate::PROGRAM;
use wire_host::tool_search::{Mode, SETTING};

/// The demo script, built into the binary so the demo needs no files.
const DEMO_SCRIPT: &str = include_str!("../scripts/memory-demo.json");
/// The demo's working folder: a project's memory files (`demo/`).
const DEMO_FILES: &[DemoFile] = &[
    DemoFile::text("CLAUDE.md", include_str!("../demo/CLAUDE.md")),
    DemoFile::text("docs/commits.md", include_str!("../demo/docs/commits.md")),
    DemoFile::text("CLAUDE.local.md", include_str!("../demo/CLAUDE.local.md")),
];

/// The chapter's own skills, used when no `--skills` is given.
const DEFAULT_SKILLS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/skills");
/// The chapter's own agents, used when no `--agents` is given.
const DEFAULT_AGENTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/agents");

const ABOUT: &str = "ch21-memory: chapter 20's agent loop, told about the project before the\n\
    first question: the memory files Claude Code reads (managed, user,\n\
    project, local; AGENTS.md where there is no CLAUDE.md), with their\n\
    @imports, open the first user message. A server's skills (the skills\n\
    extension) join the catalogue, read only when used and checked against\n\
    their size and digest.\n\n\
    With no arguments it runs a scripted demo in a fresh folder holding a\n\
    CLAUDE.md, the file it imports and a CLAUDE.local.md: the model loads a\n\
    skill that chapter 18's server, started here and reached over HTTP on\n\
    127.0.0.1, serves, then answers. No network beyond this machine.";

/// The model's environment, then tool search's, the cache breaker's and
/// memory's.
fn after_help() -> String {
    let tool_search = "Environment for tool search, the cache and memory:
  ENABLE_TOOL_SEARCH  true, false, auto (the default: defer the MCP tools when
                      their definitions pass 10% of a 200,000-token window)
                      or auto:N (N%)
  WIRE_CACHE_BREAKER  timestamp, reorder or change: break the cached prefix on
                      purpose, for wire-measure cache (the course's switch)
  WIRE_MANAGED_DIR    the managed policy's folder (default: /etc/claude-code;
                      the course's switch, for its tests)";
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
    /// The demo's working folder, with its memory files; none otherwise.
    pub demo: &'static [DemoFile],
}

/// The command line, or the exit status to end with: 0 after `--help`, 2
/// after a usage error (one line on stderr).
pub fn parse() -> Result<Cli, std::process::ExitCode> {
    let demo = std::env::args_os().len() == 1;
    let args: Args = cli::parse(PROGRAM, "scripts/memory-demo.json")?;
    resolve(args, demo).map_err(|err| cli::refuse(PROGRAM, &err))
}

fn resolve(args: Args, demo: bool) -> Result<Cli, String> {
    // Claude Code's setting, read here.
    let tool_search = Mode::read(std::env::var(SETTING).ok().as_deref())?;
    let defaults = Defaults {
        script: ("scripts/memory-demo.json", DEMO_SCRIPT.to_string()),
        settings: None,
        skills: DEFAULT_SKILLS,
        agents: DEFAULT_AGENTS,
        server: Some(demo_server()),
    };
    let base = args.base.resolve(PROGRAM, args.prompt, demo, defaults)?;
    Ok(Cli {
        base,
        options: tool_search,
        demo: if demo { DEMO_FILES } else { &[] },
    })
}

/// The demo's server: chapter 18's, serving the course's example skills
/// (`tests/fixtures/skills-server`) over Streamable HTTP on a free port of
/// this machine (the host starts it and stops it).
fn demo_server() -> ServerConfig {
    let skills = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/skills-server"
    );
    // The transport finds `--listen ADDR` as the last two arguments.
    let args = ["--skills-dir", skills, "--listen", "127.0.0.1:0"];
    cli::chapter_server("skills", "ch18-skills-server-solution", &args)
}
