//! Chapter 10: hooks. Chapter 9's agent loop, plus a `Bash` tool and the
//! hooks that fence it: commands from a `settings.json`, in Claude Code's
//! format, that the harness runs at fixed points of the loop whatever the
//! model says.
//!
//! `hooks.rs` matches and runs the hooks, and reads their answers;
//! `fence.rs` puts them in every tool call's path and `agent.rs` fires
//! the others. The `Bash` tool, the events' input and the reading of
//! `settings.json` are given, in `wire-host`.
//! `cli.rs` is the command line. The rest is chapter 9's.

mod agent;
mod cli;
mod delegate;
mod fence;
mod harness;
mod hooks;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use agent::{Harness, Log};
use skills::Skill;
// What chapters 6 to 9 taught, from the `wire-host` crate (`support/host`).
// Imported here, at the crate's root, so `crate::host` and the like name them
// in every module.
use wire_host::host::{self, Host};
use wire_host::model;
use wire_host::{agents, resource_tool, skill_tools, skills, tokens};
// Chapter 10's given parts: the Bash tool it fences and the hook events'
// wire shape (support-own modules of `wire-host`, no chapter's lesson).
use wire_host::{bash, events};

/// The name this program goes by in its messages.
const PROGRAM: &str = "ch10-hooks";

/// The note the demo puts in its working folder: a task, and an injected
/// instruction that the scripted model obeys.
const DEMO_NOTE: &str = include_str!("../scripts/notes.md");
/// The demo's hook: Claude Code's canonical rm blocker, failing closed.
const DEMO_HOOK: &str = include_str!("../scripts/block-rm.sh");

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let cli = match cli::parse() {
        Ok(cli) => cli,
        Err(status) => return status,
    };
    let (skills, agents) = load(&cli);
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
    let names: Vec<&str> = skills.iter().map(|skill| skill.name.as_str()).collect();
    let agent_names: Vec<&str> = agents.iter().map(|agent| agent.name.as_str()).collect();
    let catalogue = skills::catalogue(&skills);
    wire_host::show::introduce(&host, &names, &agent_names, &catalogue, &cli.prompt);
    let _ = tokenizer.await; // Ready before the first turn counts tokens.
    let opened = Session::open(cli.workdir.as_deref(), &cli.session_id, cli.demo)
        .and_then(|session| Ok((load_settings(cli.settings.as_deref(), &session)?, session)));
    let (settings, session) = match opened {
        Ok(opened) => opened,
        Err(err) => {
            host.shutdown().await;
            eprintln!("{PROGRAM}: {err}");
            return ExitCode::FAILURE;
        }
    };
    let hooks = session.hooks(settings, &cli.session_id);
    let mut harness = Harness {
        host,
        skills,
        agents,
        model: cli.model,
        max_turns: cli.max_turns,
        max_depth: cli.max_depth,
        max_concurrent: cli.max_concurrent,
        hooks,
        workdir: session.workdir.clone(),
        session_context: Vec::new(),
        delegate: delegate::start,
    };
    let outcome = converse(&mut harness, &cli.prompt).await;
    harness.host.shutdown().await;
    session.close(cli.demo);
    finish(outcome)
}

/// The skills and agents the run uses; each one left out is reported on
/// stderr. (Checking them is chapter 8's `--check-skills` and chapter 9's
/// `--check-agents`; this chapter does not carry those on.)
fn load(cli: &cli::Cli) -> (Vec<Skill>, Vec<agents::Agent>) {
    let skills = wire_host::entries::usable(PROGRAM, &skills::load(&cli.skill_folders));
    let names: Vec<&str> = skills.iter().map(|skill| skill.name.as_str()).collect();
    let agents = agents::usable(PROGRAM, &agents::load(&cli.agent_folders, &names));
    (skills, agents)
}

/// The hooks of `--settings`, or none, their scripts in the working folder
/// copied out of the model's reach (`Settings::snapshot`, in wire-host).
fn load_settings(path: Option<&Path>, session: &Session) -> Result<hooks::Settings, String> {
    let Some(path) = path else {
        return Ok(hooks::Settings::default());
    };
    let mut settings = hooks::load(path)?;
    let copies = settings.snapshot(&session.workdir, &session.folder.join("hooks"))?;
    copies
        .iter()
        .for_each(|line| eprintln!("{PROGRAM}: {line}"));
    Ok(settings)
}

/// SessionStart, then the main conversation: the answer.
async fn converse(harness: &mut Harness, prompt: &str) -> Result<String, String> {
    let mut log = Log { lines: None };
    session_start(harness, &mut log).await?;
    let main_context = harness.main_context();
    agent::run(harness, &main_context, prompt, &mut log).await
}

/// The answer on stdout, or the error on stderr, and the status to end with.
fn finish(outcome: Result<String, String>) -> ExitCode {
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
    /// The session's hooks: they run in its working folder and are told
    /// where its transcript file is.
    fn hooks(&self, settings: hooks::Settings, session_id: &str) -> hooks::Hooks {
        hooks::Hooks {
            settings,
            session_id: session_id.to_string(),
            transcript_path: self.folder.join("transcript.jsonl"),
            workdir: self.workdir.clone(),
        }
    }

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

    /// Removes what the session made. After the demo, says first whether
    /// the note survived the injected `rm -rf`.
    fn close(self, demo: bool) {
        if demo {
            let note = self.workdir.join("notes.md");
            let intact = std::fs::read_to_string(&note).is_ok_and(|text| text == DEMO_NOTE);
            let state = match intact {
                true => "still there, notes.md intact",
                false => "GONE",
            };
            println!("working folder: {state}");
        }
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
