//! The part of the harness's command line that every chapter from 07 on
//! shares, and that none of them teaches: the MCP servers to start and how
//! to talk to them, the default servers from this workspace, and how a
//! usage error reads. A chapter's own `cli.rs` flattens [`ServerArgs`] into
//! its clap struct and adds what it teaches.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use crate::connection::{self, Options};
use crate::host::ServerConfig;

/// The end of every harness's `--help`: what `--model` reads.
pub const MODEL_ENVIRONMENT: &str = "\
Environment for --model:
  ANTHROPIC_API_KEY   the key (required; any value for a local model)
  ANTHROPIC_BASE_URL  default https://api.anthropic.com; for Ollama
                      http://localhost:11434, for llama.cpp http://localhost:8080";

/// `--server`, `--timeout-ms`, `--trace`.
#[derive(clap::Args)]
pub struct ServerArgs {
    /// Start COMMAND as the MCP server NAME (repeatable; default: the demo's)
    #[arg(long = "server", value_name = "NAME=COMMAND")]
    pub servers: Vec<String>,
    /// How long to wait for an MCP reply, in ms
    #[arg(long, value_name = "N", default_value_t = 30_000)]
    pub timeout_ms: u64,
    /// Print every MCP frame, both ways, on stderr
    #[arg(long)]
    pub trace: bool,
}

impl ServerArgs {
    /// Each `--server NAME=COMMAND`, split at its first `=`; `default` (if
    /// any) when none is given.
    pub fn configs(&self, default: Option<ServerConfig>) -> Result<Vec<ServerConfig>, String> {
        if self.servers.is_empty() {
            return Ok(default.into_iter().collect());
        }
        let mut servers = Vec::new();
        for value in &self.servers {
            let (name, command) = value
                .split_once('=')
                .ok_or(format!("--server {value:?}: write NAME=COMMAND"))?;
            servers.push(ServerConfig {
                name: name.to_string(),
                command: connection::split_command(command),
            });
        }
        Ok(servers)
    }

    /// How each connection behaves.
    pub fn options(&self) -> Options {
        Options {
            timeout: Duration::from_millis(self.timeout_ms),
            trace: self.trace,
        }
    }
}

/// `--script`, `--model`, `--max-turns`: the model's options, every
/// harness chapter's (chapter 7 on). `--script`'s help names the
/// chapter's own demo script: [`parse`] writes it in.
#[derive(clap::Args)]
pub struct ModelArgs {
    /// A scripted model: replies from a JSON file
    #[arg(long, value_name = "PATH")]
    pub script: Option<String>,
    /// A real model over HTTP instead (also WIRE_MODEL)
    #[arg(long, value_name = "NAME")]
    pub model: Option<String>,
    /// Give up after N model turns
    #[arg(long, value_name = "N", default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_turns: u32,
}

/// `--skills`, `--agents`, `--max-depth`, `--max-concurrent`: the skills'
/// and the agents' options (chapters 8 and 9), every harness chapter's from
/// chapter 10 on.
#[derive(clap::Args)]
pub struct AgentArgs {
    /// Load the skills in DIR's subfolders (repeatable; default: this
    /// chapter's skills/ folder)
    #[arg(long = "skills", value_name = "DIR")]
    pub skill_folders: Vec<PathBuf>,
    /// Load the agent files (*.md) under DIR (repeatable; default: this
    /// chapter's agents/ folder)
    #[arg(long = "agents", value_name = "DIR")]
    pub agent_folders: Vec<PathBuf>,
    /// Levels of subagents below the main conversation (1: subagents get no
    /// Agent tool; 0: none)
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub max_depth: u32,
    /// Subagents of one reply that run at once
    #[arg(long, value_name = "N", default_value_t = 4)]
    pub max_concurrent: usize,
}

/// [`AgentArgs`], checked: the folders (the chapter's own when none is
/// named) and the limits.
pub struct AgentOptions {
    pub skill_folders: Vec<PathBuf>,
    pub agent_folders: Vec<PathBuf>,
    pub max_depth: u32,
    pub max_concurrent: usize,
}

impl AgentArgs {
    /// Checks the options; `skills` and `agents` are the chapter's own
    /// folders.
    pub fn resolve(self, skills: &str, agents: &str) -> Result<AgentOptions, String> {
        let skill_folders = folders("--skills", self.skill_folders, skills)?;
        let agent_folders = folders("--agents", self.agent_folders, agents)?;
        if self.max_concurrent == 0 {
            return Err("--max-concurrent 0: at least one subagent must be able to run".into());
        }
        Ok(AgentOptions {
            skill_folders,
            agent_folders,
            max_depth: self.max_depth,
            max_concurrent: self.max_concurrent,
        })
    }
}

/// `--context-budget`: chapter 22's compaction, every later chapter's.
#[derive(clap::Args)]
pub struct BudgetArgs {
    /// Compact the conversation when a request would carry more than N
    /// tokens (cl100k_base; the course's option; default: no budget)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub context_budget: Option<u64>,
}

/// `--pins`, `--permission-mode`: chapter 23's rules, every later
/// chapter's.
#[derive(clap::Args)]
pub struct RuleArgs {
    /// Keep each MCP tool's definition digest in FILE, and refuse a tool
    /// whose definition changed since (the course's option; default: for
    /// this session only)
    #[arg(long, value_name = "FILE")]
    pub pins: Option<PathBuf>,
    /// Claude Code's permission mode: default, acceptEdits, plan, auto,
    /// dontAsk or bypassPermissions (default: the settings' defaultMode)
    #[arg(long, value_name = "MODE")]
    pub permission_mode: Option<String>,
}

/// A harness chapter's command line, read: clap's struct `A`, whose
/// `--script` (from [`ModelArgs`]) says that the chapter's demo script
/// is `demo_script`; or the exit status to end with: 0 after `--help`, 2
/// after a usage error (one line on stderr).
pub fn parse<A: clap::Parser>(program: &str, demo_script: &str) -> Result<A, ExitCode> {
    let help = format!("A scripted model: replies from a JSON file (default: {demo_script})");
    let command = A::command().mut_arg("script", |arg| arg.help(help));
    let matches = command
        .try_get_matches()
        .map_err(|err| usage(program, err))?;
    A::from_arg_matches(&matches).map_err(|err| usage(program, err))
}

/// `--settings`, `--workdir`, `--session-id`: the hook chapters' options
/// (10 on), checked before anything starts.
#[derive(clap::Args)]
pub struct HookArgs {
    /// The hooks of a settings.json file (default: none; a chapter's demo,
    /// run with no arguments, may bring its own)
    #[arg(long, value_name = "FILE")]
    pub settings: Option<PathBuf>,
    /// Where Bash and the hooks run (default: a fresh temporary folder,
    /// removed at the end)
    #[arg(long, value_name = "DIR")]
    pub workdir: Option<PathBuf>,
    /// The session_id hooks receive (default: made up)
    #[arg(long, value_name = "ID")]
    pub session_id: Option<String>,
}

/// [`HookArgs`], checked: the settings file and the working folder exist,
/// the session's id can name a folder.
pub struct HookOptions {
    pub settings: Option<PathBuf>,
    /// `None`: a fresh temporary folder.
    pub workdir: Option<PathBuf>,
    pub session_id: String,
}

impl HookArgs {
    /// Checks the options; `demo_settings` is the file a run with no
    /// arguments uses.
    pub fn resolve(self, demo_settings: Option<PathBuf>) -> Result<HookOptions, String> {
        if let Some(path) = self.settings.as_ref().filter(|path| !path.is_file()) {
            return Err(format!("--settings {}: no such file", path.display()));
        }
        if let Some(folder) = self.workdir.as_ref().filter(|folder| !folder.is_dir()) {
            return Err(format!("--workdir {}: no such folder", folder.display()));
        }
        let session_id = match self.session_id {
            Some(id) => session_id(id)?,
            None => format!("session-{}", std::process::id()),
        };
        Ok(HookOptions {
            settings: self.settings.or(demo_settings),
            workdir: self.workdir,
            session_id,
        })
    }
}

/// A `--session-id`: it names a folder, so no path separators, nothing
/// hidden.
fn session_id(id: String) -> Result<String, String> {
    let fits = !id.is_empty()
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    match fits {
        true => Ok(id),
        false => Err(format!(
            "--session-id {id:?}: letters, digits, - and _ only"
        )),
    }
}

/// The prompt: the words given on the command line, else the script's
/// (a real model's is empty); no prompt at all is a usage error.
pub fn prompt(program: &str, words: Vec<String>, script: String) -> Result<String, String> {
    let prompt = match words.is_empty() {
        true => script,
        false => words.join(" "),
    };
    match prompt.is_empty() {
        true => Err(format!(
            "give a prompt: {program} --model NAME What is 2 + 3?"
        )),
        false => Ok(prompt),
    }
}

/// `--model NAME`, or else a non-empty `WIRE_MODEL`.
pub fn model_name(named: Option<String>) -> Option<String> {
    named.or(std::env::var("WIRE_MODEL").ok().filter(|m| !m.is_empty()))
}

/// The folders a repeatable folder option (`--skills`, `--agents`) names,
/// each checked to be one, or the chapter's own (`default`) when none is.
pub fn folders(option: &str, given: Vec<PathBuf>, default: &str) -> Result<Vec<PathBuf>, String> {
    if let Some(folder) = given.iter().find(|folder| !folder.is_dir()) {
        return Err(format!("{option} {}: no such folder", folder.display()));
    }
    match given.is_empty() {
        true => Ok(vec![PathBuf::from(default)]),
        false => Ok(given),
    }
}

/// A chapter's server (`package`, with `args`) as the MCP server `name`,
/// started through cargo from this workspace: cargo builds it if needed,
/// and the path works wherever the workspace lives. `--config` brings the
/// workspace's cargo settings along (in an offline room, its vendored
/// crates) whatever folder the demo is started from.
pub fn chapter_server(name: &str, package: &str, args: &[&str]) -> ServerConfig {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/../../Cargo.toml");
    let config = concat!(env!("CARGO_MANIFEST_DIR"), "/../../.cargo/config.toml");
    let dashes: &[&str] = if args.is_empty() { &[] } else { &["--"] };
    ServerConfig {
        name: name.to_string(),
        command: [&cargo, "run", "--quiet", "--manifest-path", manifest]
            .into_iter()
            .chain(["--config", config, "--package", package])
            .chain(dashes.iter().chain(args).copied())
            .map(str::to_string)
            .collect(),
    }
}

/// clap's verdict in the course's style: the help as clap writes it, on
/// stdout (status 0); an error as one line on stderr after the program's
/// name (status 2), where clap's own runs to several, with the usage again.
pub fn usage(program: &str, err: clap::Error) -> ExitCode {
    if !err.use_stderr() {
        print!("{err}");
        return ExitCode::SUCCESS;
    }
    let text = err.to_string();
    let first = text.lines().next().unwrap_or_default();
    let reason = first.strip_prefix("error: ").unwrap_or(first);
    eprintln!("{program}: {}; try --help", reason.replace('\'', "\""));
    ExitCode::from(2)
}

/// A usage error found after parsing (a folder that is not there, a
/// number out of range): one line, status 2.
pub fn refuse(program: &str, err: &str) -> ExitCode {
    eprintln!("{program}: {err}");
    ExitCode::from(2)
}
