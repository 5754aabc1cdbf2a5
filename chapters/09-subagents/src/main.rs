//! Chapter 9: subagents. Chapter 8's agent loop, plus the `Agent` tool:
//! the model hands a self-contained task to a subagent, which runs the
//! same loop in a fresh context with its own system prompt and tools, and
//! returns only its final text.
//!
//! `agents.rs` reads and validates agent files; `delegate.rs` is the
//! `Agent` tool and the subagent's context; `resource_tool.rs` lets the
//! model read an MCP resource; `measure.rs` runs a question twice to show
//! what a delegation saves the parent's context. The rest is chapter 8's,
//! with small hooks: a context per conversation, and tool calls run at once.

mod agent;
mod agents;
mod connection;
mod delegate;
mod harness;
// Chapter 6's host, carried forward unchanged. This loop reads resources
// (ReadMcpResourceTool) but offers no prompts, so get_prompt goes unused.
#[allow(dead_code)]
mod host;
mod join;
mod measure;
mod model;
mod resource_tool;
mod skill_tools;
mod skills;
mod tokens;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use agent::{Harness, Log};
use connection::Options;
use host::{Host, ServerConfig};
use model::Model;
use skills::{Entry, Skill};

/// The name this program goes by in its messages.
const PROGRAM: &str = "ch09-subagents";

const HELP: &str = "\
ch09-subagents: an agent loop over MCP servers, with skills and subagents.

Usage: ch09-subagents [OPTIONS] [PROMPT...]

With no options it runs a scripted demo: chapter 3's server (built and run
through `cargo run` from this workspace), this chapter's agents and skills,
and a scripted model that delegates two tasks to subagents in one turn;
no network.

Options:
  --server NAME=COMMAND   start COMMAND as the MCP server NAME (repeatable;
                          default: chapter 3's server as `add`; with
                          --measure-agents, chapter 5's over notes/ as `notes`)
  --script PATH           a scripted model: replies from a JSON file
                          (default: scripts/subagents.json, built in)
  --model NAME            a real model over HTTP instead (also WIRE_MODEL)
  --max-turns N           give up after N model turns (default 10)
  --timeout-ms N          how long to wait for an MCP reply (default 30000)
  --trace                 print every MCP frame, both ways, on stderr
  --skills DIR            load the skills in DIR's subfolders (repeatable;
                          default: this chapter's skills/ folder)
  --check-skills          validate the skills and print one line per folder
                          and the catalogue's cost; start nothing
  --measure-skills        print what N synthetic skills cost an idle turn,
                          in the catalogue and pasted inline; start nothing
  --agents DIR            load the agent files (*.md) under DIR (repeatable;
                          default: this chapter's agents/ folder)
  --check-agents          validate the agent files and print one line per
                          file; start nothing
  --max-depth N           levels of subagents below the main conversation
                          (default 1: subagents get no Agent tool; 0: none)
  --max-concurrent N      subagents of one reply that run at once (default 4)
  --measure-agents        run a question that reads five notes twice, in place
                          and delegated, and print the parent's context per turn

Environment for --model:
  ANTHROPIC_API_KEY       the key (required; any value for a local model)
  ANTHROPIC_BASE_URL      default https://api.anthropic.com; for Ollama
                          http://localhost:11434, for llama.cpp http://localhost:8080
";

/// The demo script, built into the binary so the demo needs no files.
const DEMO_SCRIPT: &str = include_str!("../scripts/subagents.json");
/// The chapter's own skills, used when no `--skills` is given.
const DEFAULT_SKILLS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/skills");
/// The chapter's own agents, used when no `--agents` is given.
const DEFAULT_AGENTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/agents");

struct Cli {
    servers: Vec<ServerConfig>,
    skill_folders: Vec<PathBuf>,
    agent_folders: Vec<PathBuf>,
    check_skills: bool,
    measure_skills: bool,
    check_agents: bool,
    measure_agents: bool,
    model: Model,
    prompt: String,
    max_turns: u32,
    max_depth: u32,
    max_concurrent: usize,
    options: Options,
    // STRETCH(ch09/spawn-allowlist): the agent `--agent NAME` names.
    // END(ch09/spawn-allowlist)
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|arg| arg == "--help" || arg == "-h") {
        print!("{HELP}");
        return ExitCode::SUCCESS;
    }
    let cli = match parse_args(&args) {
        Ok(cli) => cli,
        Err(err) => {
            eprintln!("{PROGRAM}: {err}");
            return ExitCode::from(2);
        }
    };
    if cli.measure_skills {
        measure::print_table();
        return ExitCode::SUCCESS;
    }
    let entries = skills::load(&cli.skill_folders);
    if cli.check_skills {
        return check_skills(&entries);
    }
    let skills = usable_skills(&entries);
    let names: Vec<&str> = skills.iter().map(|skill| skill.name.as_str()).collect();
    let agent_entries = agents::load(&cli.agent_folders, &names);
    if cli.check_agents {
        return check_agents(&agent_entries);
    }
    let agents = usable_agents(&agent_entries);
    // STRETCH(ch09/spawn-allowlist): find the agent `--agent` names among
    // the usable ones; a name that is none of them is a usage error.
    // END(ch09/spawn-allowlist)
    // Building the tokenizer is a moment of pure CPU work. On the runtime's
    // only thread it would stall the tasks that read the servers' pipes;
    // on the blocking pool it overlaps the servers' start instead.
    let tokenizer = tokio::task::spawn_blocking(tokens::load);
    let host = match Host::start(cli.servers, cli.options).await {
        Ok(host) => host,
        Err(err) => {
            eprintln!("{PROGRAM}: {err}");
            return ExitCode::FAILURE;
        }
    };
    for server in &host.servers {
        let (name, version) = (&server.info["name"], &server.info["version"]);
        println!(
            "server {}: {} {}",
            server.name,
            name.as_str().unwrap_or("?"),
            version.as_str().unwrap_or("?")
        );
    }
    for tool in host.tools() {
        println!(
            "tool {} (server {}, tool {})",
            tool.qualified, tool.server, tool.name
        );
    }
    for skill in &skills {
        println!("skill {}", skill.name);
    }
    for agent in &agents {
        println!("agent {}", agent.name);
    }
    if !skills.is_empty() {
        let catalogue = tokens::count(&skills::catalogue(&skills));
        println!("catalogue: {catalogue} tokens (cl100k_base)");
    }
    if !cli.measure_agents {
        println!("user: {}", cli.prompt);
    }
    let _ = tokenizer.await; // Ready before the first turn counts tokens.
    let mut harness = Harness {
        host,
        skills,
        agents,
        model: cli.model,
        max_turns: cli.max_turns,
        max_depth: cli.max_depth,
        max_concurrent: cli.max_concurrent,
        delegate: delegate::start,
    };
    let outcome = if cli.measure_agents {
        measure::print_delegation(&mut harness).await
    } else {
        let main_context = harness.main_context();
        // STRETCH(ch09/spawn-allowlist): with `--agent`, the main
        // conversation runs as that agent (delegate::main_thread_context).
        // END(ch09/spawn-allowlist)
        let mut log = Log { lines: None };
        let outcome = agent::run(&harness, &main_context, &cli.prompt, &mut log).await;
        outcome.map(|answer| println!("answer: {answer}"))
    };
    harness.host.shutdown().await;
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("{PROGRAM}: {err}");
            ExitCode::FAILURE
        }
    }
}

// ANCHOR: check_skills
/// `--check-skills`: one line per folder, then what the catalogue costs.
/// Exit 0 when every folder is a skill the harness loads, 1 otherwise.
fn check_skills(entries: &[(PathBuf, Entry)]) -> ExitCode {
    let mut all_loaded = true;
    for (_, entry) in entries {
        match entry {
            Entry::Valid(skill) => println!("ok {}", skill.name),
            Entry::Invalid(problem) => println!("invalid {problem}"),
            Entry::Duplicate(problem) => println!("skipped {problem}"),
        }
        all_loaded &= matches!(entry, Entry::Valid(_));
    }
    let skills: Vec<Skill> = skills::valid_skills(entries).cloned().collect();
    let catalogue = tokens::count(&skills::catalogue(&skills));
    println!("catalogue: {catalogue} tokens (cl100k_base)");
    if all_loaded {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
// ANCHOR_END: check_skills

// ANCHOR: check_agents
/// `--check-agents`: one line per file. Exit 0 when every file is an
/// agent the harness loads, 1 otherwise.
fn check_agents(entries: &[(PathBuf, agents::Entry)]) -> ExitCode {
    let mut all_loaded = true;
    for (_, entry) in entries {
        match entry {
            agents::Entry::Valid(agent) => println!("ok {}", agent.name),
            agents::Entry::Invalid(problem) => println!("invalid {problem}"),
            agents::Entry::Duplicate(problem) => println!("skipped {problem}"),
        }
        all_loaded &= matches!(entry, agents::Entry::Valid(_));
    }
    if all_loaded {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
// ANCHOR_END: check_agents

/// The agents the model may delegate to; every file left out is reported
/// on stderr (Claude Code skips most of them silently).
fn usable_agents(entries: &[(PathBuf, agents::Entry)]) -> Vec<agents::Agent> {
    for (_, entry) in entries {
        if let agents::Entry::Invalid(problem) | agents::Entry::Duplicate(problem) = entry {
            eprintln!("{PROGRAM}: skipped {problem}");
        }
    }
    agents::valid_agents(entries).cloned().collect()
}

/// The skills the model gets; every folder left out is reported on stderr.
fn usable_skills(entries: &[(PathBuf, Entry)]) -> Vec<Skill> {
    for (_, entry) in entries {
        if let Entry::Invalid(problem) | Entry::Duplicate(problem) = entry {
            eprintln!("{PROGRAM}: skipped {problem}");
        }
    }
    skills::valid_skills(entries).cloned().collect()
}

fn parse_args(args: &[String]) -> Result<Cli, String> {
    let mut servers = Vec::new();
    let mut script: Option<String> = None;
    let mut model_name = std::env::var("WIRE_MODEL").ok().filter(|m| !m.is_empty());
    let mut max_turns = 10;
    let mut timeout_ms = 30_000;
    let mut trace = false;
    let mut skill_folders = Vec::new();
    let mut agent_folders = Vec::new();
    let (mut check_skills, mut measure_skills) = (false, false);
    let (mut check_agents, mut measure_agents) = (false, false);
    let (mut max_depth, mut max_concurrent) = (1, 4);
    let mut prompt = Vec::new();
    // STRETCH(ch09/spawn-allowlist): `--agent NAME`, kept in the Cli.
    // END(ch09/spawn-allowlist)
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        // The word after `arg`, or a usage error that says what it needs.
        let mut next = |what: &str| args.next().cloned().ok_or(format!("{arg} needs {what}"));
        match arg.as_str() {
            "--trace" => trace = true,
            "--check-skills" => check_skills = true,
            "--measure-skills" => measure_skills = true,
            "--check-agents" => check_agents = true,
            "--measure-agents" => measure_agents = true,
            // STRETCH(ch09/spawn-allowlist): the `--agent` option.
            // END(ch09/spawn-allowlist)
            "--agents" => {
                let folder = PathBuf::from(next("a folder")?);
                if !folder.is_dir() {
                    return Err(format!("--agents {}: no such folder", folder.display()));
                }
                agent_folders.push(folder);
            }
            "--max-depth" => max_depth = number(arg, &next("a number")?)?,
            "--max-concurrent" => max_concurrent = number(arg, &next("a number")?)?,
            "--skills" => {
                let folder = PathBuf::from(next("a folder")?);
                if !folder.is_dir() {
                    return Err(format!("--skills {}: no such folder", folder.display()));
                }
                skill_folders.push(folder);
            }
            "--server" => {
                let value = next("NAME=COMMAND")?;
                let (name, command) = value
                    .split_once('=')
                    .ok_or(format!("--server {value:?}: write NAME=COMMAND"))?;
                servers.push(ServerConfig {
                    name: name.to_string(),
                    command: connection::split_command(command),
                });
            }
            "--script" => script = Some(next("a path")?),
            "--model" => model_name = Some(next("a name")?),
            "--max-turns" => max_turns = number(arg, &next("a number")?)?,
            "--timeout-ms" => timeout_ms = number(arg, &next("a number")?)?,
            flag if flag.starts_with("--") => return Err(format!("unknown option {flag:?}")),
            word => prompt.push(word.to_string()),
        }
    }
    // Checking or measuring talks to no model, whatever is named.
    let offline = check_skills || measure_skills || check_agents || measure_agents;
    let model_name = model_name.filter(|_| !offline);
    // ANCHOR: choose_model
    // A real model only when one is named: a key in the environment alone
    // never sends anything anywhere.
    let (mut model, script_prompt) = match (model_name, script) {
        (Some(name), _) => (model::from_env(&name)?, String::new()),
        (None, Some(path)) => {
            let text = std::fs::read_to_string(&path)
                .map_err(|err| format!("cannot read script {path}: {err}"))?;
            model::scripted(&path, &text)?
        }
        (None, None) => model::scripted("scripts/subagents.json", DEMO_SCRIPT)?,
    };
    // ANCHOR_END: choose_model
    model.trace = trace;
    let prompt = if prompt.is_empty() {
        script_prompt
    } else {
        prompt.join(" ")
    };
    if prompt.is_empty() && !offline {
        return Err("give a prompt: ch09-subagents --model NAME What is 2 + 3?".to_string());
    }
    if max_turns == 0 {
        return Err("--max-turns 0: the model needs at least one turn".to_string());
    }
    if max_concurrent == 0 {
        return Err("--max-concurrent 0: at least one subagent must be able to run".to_string());
    }
    if skill_folders.is_empty() {
        skill_folders.push(PathBuf::from(DEFAULT_SKILLS));
    }
    if agent_folders.is_empty() {
        agent_folders.push(PathBuf::from(DEFAULT_AGENTS));
    }
    if servers.is_empty() && measure_agents {
        let notes = ["--notes-dir", measure::NOTES];
        servers.push(chapter_server("notes", "ch05-prompts-solution", &notes));
    }
    if servers.is_empty() {
        servers.push(chapter_server("add", "ch03-add-tool-solution", &[]));
    }
    Ok(Cli {
        servers,
        skill_folders,
        agent_folders,
        check_skills,
        measure_skills,
        check_agents,
        measure_agents,
        model,
        prompt,
        max_turns,
        max_depth,
        max_concurrent,
        options: Options {
            timeout: Duration::from_millis(timeout_ms),
            trace,
        },
        // STRETCH(ch09/spawn-allowlist): the agent `--agent` names.
        // END(ch09/spawn-allowlist)
    })
}

/// A number from the command line; one that does not fit is an error, never
/// cut down to fit.
fn number<T: std::str::FromStr<Err = std::num::ParseIntError>>(
    option: &str,
    text: &str,
) -> Result<T, String> {
    text.parse()
        .map_err(|err| format!("{option} {text:?}: {err}"))
}

/// A chapter's server (`package`, with `args`) as the MCP server `name`,
/// started through cargo from this workspace: cargo builds it if needed,
/// and the path works wherever the workspace lives. `--config` brings the
/// workspace's cargo settings along (in an offline room, its vendored
/// crates) whatever folder the demo is started from.
fn chapter_server(name: &str, package: &str, args: &[&str]) -> ServerConfig {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/../../Cargo.toml");
    let config = concat!(env!("CARGO_MANIFEST_DIR"), "/../../.cargo/config.toml");
    ServerConfig {
        name: name.to_string(),
        command: [&cargo, "run", "--quiet", "--manifest-path", manifest]
            .into_iter()
            .chain(["--config", config, "--package", package, "--"])
            .chain(args.iter().copied())
            .map(str::to_string)
            .collect(),
    }
}
