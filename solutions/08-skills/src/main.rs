//! Chapter 8: skills. Chapter 7's agent loop, plus know-how the model
//! loads in three tiers: a catalogue in the system prompt, a skill's
//! instructions through the `Skill` tool, its files through
//! `read_skill_file`.
//!
//! `skills.rs` reads and validates skill folders and writes the catalogue;
//! `skill_tools.rs` is the two tools; `measure.rs` prints what each tier
//! costs. The rest is chapter 7's, with small hooks for the skills; what
//! chapters 6 and 7 taught comes from the `wire-host` crate (`support/host`).

mod agent;
mod measure;
mod skill_tools;
mod skills;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use skills::{Entry, Skill};
use wire_host::connection::{self, Options};
use wire_host::host::{Host, ServerConfig};
use wire_host::model::{self, Model};
use wire_host::tokens;

/// The name this program goes by in its messages.
const PROGRAM: &str = "ch08-skills";

const HELP: &str = "\
ch08-skills: an agent loop over MCP servers, with skills.

Usage: ch08-skills [OPTIONS] [PROMPT...]

With no options it runs a scripted demo: chapter 3's server (built and run
through `cargo run` from this workspace), this chapter's skills, and a
scripted model that activates a skill and reads one of its files; no network.

Options:
  --server NAME=COMMAND   start COMMAND as the MCP server NAME (repeatable;
                          default: chapter 3's server as `add`)
  --script PATH           a scripted model: replies from a JSON file
                          (default: scripts/skills.json, built in)
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

Environment for --model:
  ANTHROPIC_API_KEY       the key (required; any value for a local model)
  ANTHROPIC_BASE_URL      default https://api.anthropic.com; for Ollama
                          http://localhost:11434, for llama.cpp http://localhost:8080
";

/// The demo script, built into the binary so the demo needs no files.
const DEMO_SCRIPT: &str = include_str!("../scripts/skills.json");
/// The chapter's own skills, used when no `--skills` is given.
const DEFAULT_SKILLS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/skills");

struct Cli {
    servers: Vec<ServerConfig>,
    skill_folders: Vec<PathBuf>,
    check_skills: bool,
    measure_skills: bool,
    model: Model,
    prompt: String,
    max_turns: u32,
    options: Options,
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
    if !skills.is_empty() {
        let catalogue = tokens::count(&skills::catalogue(&skills));
        println!("catalogue: {catalogue} tokens (cl100k_base)");
    }
    println!("user: {}", cli.prompt);
    let _ = tokenizer.await; // Ready before the first turn counts tokens.
    let outcome = agent::run(&host, &skills, &cli.model, &cli.prompt, cli.max_turns).await;
    host.shutdown().await;
    match outcome {
        Ok(answer) => {
            println!("answer: {answer}");
            ExitCode::SUCCESS
        }
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
    // STRETCH(ch08/skill-cost): under the catalogue line, one line per valid
    // skill: what its catalogue entry adds to every request (the catalogue
    // with it, less the catalogue without it) and what loading it costs
    // (the Skill tool's answer); under #[cfg(feature = "stretch")].
    #[cfg(feature = "stretch")]
    for skill in &skills {
        let others: Vec<Skill> = skills
            .iter()
            .filter(|other| other.name != skill.name)
            .cloned()
            .collect();
        let tier1 = catalogue.saturating_sub(tokens::count(&skills::catalogue(&others)));
        let tier2 = tokens::count(&skill_tools::activate(skill));
        println!(
            "  {}: {tier1} tokens in every request, {tier2} more once loaded",
            skill.name
        );
    }
    // END(ch08/skill-cost)
    if all_loaded {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
// ANCHOR_END: check_skills

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
    let (mut check_skills, mut measure_skills) = (false, false);
    let mut prompt = Vec::new();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        // The word after `arg`, or a usage error that says what it needs.
        let mut next = |what: &str| args.next().cloned().ok_or(format!("{arg} needs {what}"));
        match arg.as_str() {
            "--trace" => trace = true,
            "--check-skills" => check_skills = true,
            "--measure-skills" => measure_skills = true,
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
    // Checking or measuring skills talks to no model, whatever is named.
    let model_name = model_name.filter(|_| !check_skills && !measure_skills);
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
        (None, None) => model::scripted("scripts/skills.json", DEMO_SCRIPT)?,
    };
    // ANCHOR_END: choose_model
    model.trace = trace;
    let prompt = if prompt.is_empty() {
        script_prompt
    } else {
        prompt.join(" ")
    };
    if prompt.is_empty() && !check_skills && !measure_skills {
        return Err("give a prompt: ch08-skills --model NAME What is 2 + 3?".to_string());
    }
    if max_turns == 0 {
        return Err("--max-turns 0: the model needs at least one turn".to_string());
    }
    if skill_folders.is_empty() {
        skill_folders.push(PathBuf::from(DEFAULT_SKILLS));
    }
    if servers.is_empty() {
        servers.push(chapter_three_server());
    }
    Ok(Cli {
        servers,
        skill_folders,
        check_skills,
        measure_skills,
        model,
        prompt,
        max_turns,
        options: Options {
            timeout: Duration::from_millis(timeout_ms),
            trace,
        },
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

/// Chapter 3's server, started through cargo from this workspace: cargo
/// builds it if needed, and the path works wherever the workspace lives.
/// `--config` brings the workspace's cargo settings along (in an offline
/// room, its vendored crates) whatever folder the demo is started from.
fn chapter_three_server() -> ServerConfig {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/../../Cargo.toml");
    let config = concat!(env!("CARGO_MANIFEST_DIR"), "/../../.cargo/config.toml");
    ServerConfig {
        name: "add".to_string(),
        command: [&cargo, "run", "--quiet", "--manifest-path", manifest]
            .into_iter()
            .chain(["--config", config, "--package", "ch03-add-tool-solution"])
            .map(str::to_string)
            .collect(),
    }
}
