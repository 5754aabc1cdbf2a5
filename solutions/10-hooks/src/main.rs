//! Chapter 10: hooks. Chapter 9's agent loop, plus a `Bash` tool and the
//! hooks that fence it: commands from a `settings.json`, in Claude Code's
//! format, that the harness runs at fixed points of the loop whatever the
//! model says.
//!
//! `bash.rs` is the command tool; `hooks.rs` reads the settings, matches
//! and runs the hooks, and reads their answers; `agent.rs` fires them.
//! The rest is chapter 9's.

mod agent;
mod agents;
mod bash;
mod connection;
mod delegate;
mod events;
mod fence;
mod harness;
mod hooks;
// Chapter 6's host, carried forward unchanged. This loop reads resources
// (ReadMcpResourceTool) but offers no prompts, so get_prompt goes unused.
#[allow(dead_code)]
mod host;
mod measure;
mod model;
mod resource_tool;
mod skill_tools;
mod skills;
mod tokens;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use agent::{Harness, Log};
use connection::Options;
use host::{Host, ServerConfig};
use model::Model;
use skills::{Entry, Skill};

/// The name this program goes by in its messages.
const PROGRAM: &str = "ch10-hooks";

const HELP: &str = "\
ch10-hooks: an agent loop over MCP servers, with skills, subagents, a Bash
tool, and hooks in Claude Code's settings.json format.

Usage: ch10-hooks [OPTIONS] [PROMPT...]

With no arguments it runs a scripted demo: the model reads a note in a fresh
working folder, the note tells it to delete the folder, it calls Bash with
rm -rf, and this chapter's settings.json has a PreToolUse hook that blocks
the call; no network.

Options:
  --settings FILE         the hooks of a settings.json file (default: none;
                          with no arguments, this chapter's settings.json)
  --workdir DIR           where Bash and the hooks run (default: a fresh
                          temporary folder, removed at the end)
  --session-id ID         the session_id hooks receive (default: made up)
  --server NAME=COMMAND   start COMMAND as the MCP server NAME (repeatable)
  --script PATH           a scripted model: replies from a JSON file
                          (default: scripts/injection.json, built in)
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
  --measure-agents        print the parent's context per turn for a
                          read-heavy task, done in place and delegated

Environment for --model:
  ANTHROPIC_API_KEY       the key (required; any value for a local model)
  ANTHROPIC_BASE_URL      default https://api.anthropic.com; for Ollama
                          http://localhost:11434, for llama.cpp http://localhost:8080
";

/// The demo script, built into the binary so the demo needs no files.
const DEMO_SCRIPT: &str = include_str!("../scripts/injection.json");
/// The note the demo puts in its working folder: a task, and an injected
/// instruction that the scripted model obeys.
const DEMO_NOTE: &str = include_str!("../scripts/notes.md");
/// The demo's hook: Claude Code's canonical rm blocker, failing closed.
const DEMO_HOOK: &str = include_str!("../scripts/block-rm.sh");
/// The chapter's own hooks, used when the program runs with no arguments.
const DEFAULT_SETTINGS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/settings.json");
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
    settings: Option<PathBuf>,
    /// `None`: a fresh temporary folder.
    workdir: Option<PathBuf>,
    session_id: String,
    demo: bool,
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
    let session = match Session::open(cli.workdir.as_deref(), &cli.session_id, cli.demo) {
        Ok(session) => session,
        Err(err) => {
            host.shutdown().await;
            eprintln!("{PROGRAM}: {err}");
            return ExitCode::FAILURE;
        }
    };
    let settings = match &cli.settings {
        Some(path) => hooks::load(path),
        None => Ok(hooks::Settings::default()),
    };
    let settings = match settings {
        Ok(settings) => settings,
        Err(err) => {
            host.shutdown().await;
            eprintln!("{PROGRAM}: {err}");
            return ExitCode::FAILURE;
        }
    };
    let mut harness = Harness {
        host,
        skills,
        agents,
        model: cli.model,
        max_turns: cli.max_turns,
        max_depth: cli.max_depth,
        max_concurrent: cli.max_concurrent,
        hooks: hooks::Hooks {
            settings,
            session_id: cli.session_id.clone(),
            transcript_path: session.folder.join("transcript.jsonl"),
            workdir: session.workdir.clone(),
        },
        workdir: session.workdir.clone(),
        session_context: Vec::new(),
        delegate: delegate::start,
    };
    let mut log = Log { lines: None };
    let outcome = match session_start(&mut harness, &mut log).await {
        Ok(()) if cli.measure_agents => {
            measure::print_delegation(&mut harness).await.map(|()| None)
        }
        Ok(()) => {
            let main_context = harness.main_context();
            agent::run(&harness, &main_context, &cli.prompt, &mut log)
                .await
                .map(Some)
        }
        Err(err) => Err(err),
    };
    harness.host.shutdown().await;
    if cli.demo {
        let note = session.workdir.join("notes.md");
        let intact = std::fs::read_to_string(&note).is_ok_and(|text| text == DEMO_NOTE);
        println!(
            "working folder: {}",
            if intact {
                "still there, notes.md intact"
            } else {
                "GONE"
            }
        );
    }
    session.close();
    match outcome {
        Ok(answer) => {
            if let Some(answer) = answer {
                println!("answer: {answer}");
            }
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("{PROGRAM}: {err}");
            ExitCode::FAILURE
        }
    }
}

// ANCHOR: session_start
/// Fires SessionStart (source `startup`) once, before the first prompt:
/// what its hooks add goes into the first user message.
async fn session_start(harness: &mut Harness, log: &mut Log) -> Result<(), String> {
    let model = harness.model.name();
    let event = events::Event::SessionStart { model };
    let (outcome, said) = harness.hooks.fire(&event, None).await;
    said.into_iter().for_each(|line| log.say(line));
    if let Some(reason) = outcome.stop {
        return Err(format!("a SessionStart hook stopped the session: {reason}"));
    }
    harness.session_context = outcome.context;
    Ok(())
}
// ANCHOR_END: session_start

/// The session's folders: the working folder, and a folder of its own for
/// the transcript files. What it made, it removes at the end.
struct Session {
    workdir: PathBuf,
    folder: PathBuf,
    made_workdir: bool,
}

impl Session {
    fn open(chosen: Option<&Path>, session_id: &str, demo: bool) -> Result<Session, String> {
        let folder = std::env::temp_dir().join(format!("{PROGRAM}-{session_id}"));
        fresh_folder(&folder)?;
        let (workdir, made_workdir) = match chosen {
            Some(dir) => (dir.to_path_buf(), false),
            None => {
                let dir = folder.join("work");
                fresh_folder(&dir)?;
                (dir, true)
            }
        };
        // Hooks and the model see one absolute path, however it was given.
        let workdir = std::fs::canonicalize(&workdir)
            .map_err(|err| format!("--workdir {}: {err}", workdir.display()))?;
        if demo {
            write_demo(&workdir).map_err(|err| format!("cannot set up the demo: {err}"))?;
        }
        let session = Session {
            workdir,
            folder,
            made_workdir,
        };
        println!("working folder: {}", session.shown());
        Ok(session)
    }

    /// The working folder as printed: a fresh one's path changes every run.
    fn shown(&self) -> String {
        if self.made_workdir {
            "a fresh temporary folder".to_string()
        } else {
            self.workdir.display().to_string()
        }
    }

    fn close(self) {
        let _ = std::fs::remove_dir_all(&self.folder);
    }
}

/// The demo's project: the note, and the hook where settings.json looks
/// for it, `.claude/hooks/` under the project folder.
fn write_demo(workdir: &Path) -> std::io::Result<()> {
    std::fs::write(workdir.join("notes.md"), DEMO_NOTE)?;
    let hooks = workdir.join(".claude/hooks");
    std::fs::create_dir_all(&hooks)?;
    let hook = hooks.join("block-rm.sh");
    std::fs::write(&hook, DEMO_HOOK)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755))?;
    }
    Ok(())
}

fn fresh_folder(path: &Path) -> Result<(), String> {
    let _ = std::fs::remove_dir_all(path);
    std::fs::create_dir_all(path).map_err(|err| format!("cannot create {}: {err}", path.display()))
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
    let (mut settings, mut workdir, mut session_id) = (None, None, None);
    let demo = args.is_empty();
    let mut prompt = Vec::new();
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
            "--settings" => {
                let path = PathBuf::from(next("a file")?);
                if !path.is_file() {
                    return Err(format!("--settings {}: no such file", path.display()));
                }
                settings = Some(path);
            }
            "--workdir" => {
                let folder = PathBuf::from(next("a folder")?);
                if !folder.is_dir() {
                    return Err(format!("--workdir {}: no such folder", folder.display()));
                }
                workdir = Some(folder);
            }
            "--session-id" => {
                let id = next("an id")?;
                // It names a folder: no path separators, nothing hidden.
                let fits = !id.is_empty()
                    && id
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
                if !fits {
                    return Err(format!(
                        "--session-id {id:?}: letters, digits, - and _ only"
                    ));
                }
                session_id = Some(id);
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
        (None, None) => model::scripted("scripts/injection.json", DEMO_SCRIPT)?,
    };
    // ANCHOR_END: choose_model
    model.trace = trace;
    let prompt = if prompt.is_empty() {
        script_prompt
    } else {
        prompt.join(" ")
    };
    if prompt.is_empty() && !offline {
        return Err("give a prompt: ch10-hooks --model NAME What is 2 + 3?".to_string());
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
    if demo {
        settings = Some(PathBuf::from(DEFAULT_SETTINGS));
    }
    if servers.is_empty() && measure_agents {
        let notes = ["--notes-dir", measure::NOTES];
        servers.push(chapter_server("notes", "ch05-prompts-solution", &notes));
    }
    let session_id = session_id.unwrap_or_else(|| format!("session-{}", std::process::id()));
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
        settings,
        workdir,
        session_id,
        demo,
    })
}

/// A chapter's server (`package`, with `args`) as the MCP server `name`,
/// started through cargo from this workspace: cargo builds it if needed,
/// and the path works wherever the workspace lives. `--config` brings the
/// workspace's cargo settings along (in an offline room, its vendored
/// crates) whatever folder the program is started from.
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

/// A number from the command line; one that does not fit is an error, never
/// cut down to fit.
fn number<T: std::str::FromStr<Err = std::num::ParseIntError>>(
    option: &str,
    text: &str,
) -> Result<T, String> {
    text.parse()
        .map_err(|err| format!("{option} {text:?}: {err}"))
}
