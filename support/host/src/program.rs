//! A harness program's parts, from chapter 19 on: the command line's
//! options of chapters 7 to 15, the servers of either era started (chapter
//! 15's `discover`), the session and its hooks opened, and the extensions
//! of chapters 7 to 15 made, for a chapter's `main.rs` to list beside its
//! own. Support-own: composition plumbing, no chapter's lesson; each
//! chapter still says which extensions its harness runs, in which order.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::agents::{self, Agent};
use crate::ask::{AnswerArgs, Answers};
use crate::bash::Bash;
use crate::cli::{self, AgentArgs, AgentOptions, HookArgs, HookOptions, ModelArgs, ServerArgs};
use crate::connection::Options;
use crate::discover;
use crate::fence::Fence;
use crate::hooks::Hooks;
use crate::host::ServerConfig;
use crate::lifecycle::Lifecycle;
use crate::matcher::Matcher;
use crate::model::{self, Model};
use crate::remote::Servers;
use crate::retry::Answering;
use crate::seams::{Extension, Harness};
use crate::session::{DemoFile, Session};
use crate::show;
use crate::skill_tools::Skills;
use crate::skills::{self, Skill};
use crate::subagents::Subagents;
use crate::transport::{Link, Stamp};

/// The options of chapters 7 to 15: the servers, the model, the skills and
/// agents, the hooks, the answers to a server's questions, `--legacy`.
#[derive(clap::Args)]
pub struct BaseArgs {
    #[command(flatten)]
    pub servers: ServerArgs,
    #[command(flatten)]
    pub model: ModelArgs,
    #[command(flatten)]
    pub agents: AgentArgs,
    #[command(flatten)]
    pub hooks: HookArgs,
    #[command(flatten)]
    pub answers: AnswerArgs,
    /// Skip server/discover: initialize every server (for servers that
    /// fail on a request before initialize)
    #[arg(long)]
    pub legacy: bool,
}

/// What a chapter's demo brings when the program runs with no arguments,
/// and the chapter's own skills and agents.
pub struct Defaults {
    /// The demo script's name and text.
    pub script: (&'static str, String),
    /// The demo's settings (its hooks, its permissions), if it has any.
    pub settings: Option<PathBuf>,
    /// The chapter's own skills and agents folders.
    pub skills: &'static str,
    pub agents: &'static str,
    /// The demo's server, if it starts one.
    pub server: Option<ServerConfig>,
}

/// [`BaseArgs`], checked.
pub struct Base {
    pub servers: Vec<ServerConfig>,
    pub options: Options,
    pub model: Model,
    pub prompt: String,
    pub max_turns: u32,
    pub agents: AgentOptions,
    pub hooks: HookOptions,
    pub answers: Answers,
    pub legacy: bool,
    /// What every MCP request carries besides (chapter 25's trace).
    pub stamp: Option<Stamp>,
}

impl BaseArgs {
    /// Checks the options; `words` is the prompt, `demo` says the program
    /// ran with no arguments.
    pub fn resolve(
        self,
        program: &str,
        words: Vec<String>,
        demo: bool,
        defaults: Defaults,
    ) -> Result<Base, String> {
        let hooks = self.hooks.resolve(defaults.settings.filter(|_| demo))?;
        let answers = self.answers.load(None)?;
        let agents = self.agents.resolve(defaults.skills, defaults.agents)?;
        let named = cli::model_name(self.model.model);
        let script = (defaults.script.0, defaults.script.1.as_str());
        let (mut model, script_prompt) = model::choose(named, self.model.script, script)?;
        model.trace = self.servers.trace;
        Ok(Base {
            prompt: cli::prompt(program, words, script_prompt)?,
            servers: self.servers.configs(defaults.server.filter(|_| demo))?,
            options: self.servers.options(),
            model,
            max_turns: self.model.max_turns,
            agents,
            hooks,
            answers,
            legacy: self.legacy,
            stamp: None,
        })
    }
}

/// What a run owns: the model, the skills and agents, the servers, the
/// session with its hooks, the answers.
pub struct Parts {
    pub program: &'static str,
    pub model: Model,
    pub prompt: String,
    pub max_turns: u32,
    pub skills: Vec<Skill>,
    pub agents: Vec<Agent>,
    pub limits: (u32, usize),
    pub servers: Servers,
    pub hooks: Hooks,
    pub answers: Answers,
}

impl Parts {
    /// The skills and agents loaded, and the servers started; then `more` adds to the
    /// skills (a server's, chapter 21); then the run's introduction is
    /// printed, and the session opens with the hooks of `events` and the
    /// demo's files. On an error, what was started is stopped again.
    pub async fn start(
        program: &'static str,
        base: Base,
        more: impl AsyncFnOnce(&Servers, &[Skill]) -> Vec<Skill>,
        events: &[&str],
        demo: &[DemoFile],
    ) -> Result<Parts, String> {
        let AgentOptions {
            skill_folders,
            agent_folders,
            max_depth,
            max_concurrent,
        } = base.agents;
        let (mut skills, agents) = agents::load_usable(program, &skill_folders, &agent_folders);
        // Pure CPU work: on the blocking pool it overlaps the servers' start.
        let tokenizer = tokio::task::spawn_blocking(crate::tokens::load);
        let capabilities = discover::capabilities(base.answers.sampling);
        let (legacy, stamp) = (base.legacy, base.stamp);
        let open = async |name: &str, mut link: Link| {
            link.stamp = stamp.clone();
            discover::open(name, link, &capabilities, legacy).await
        };
        let servers = Servers::start(base.servers, base.options, open).await?;
        skills.extend(more(&servers, &skills).await);
        let names: Vec<&str> = skills.iter().map(|skill| skill.name.as_str()).collect();
        let agent_names: Vec<&str> = agents.iter().map(|agent| agent.name.as_str()).collect();
        servers.show();
        show::introduce_rest(
            &names,
            &agent_names,
            &skills::catalogue(&skills),
            &base.prompt,
        );
        let _ = tokenizer.await; // Ready before the first turn counts tokens.
        let opened = Session::with_hooks(program, &base.hooks, demo, events, Matcher::parse);
        let (session, settings) = match opened {
            Ok(opened) => opened,
            Err(err) => {
                servers.shutdown().await;
                return Err(err);
            }
        };
        Ok(Parts {
            program,
            model: base.model,
            prompt: base.prompt,
            max_turns: base.max_turns,
            skills,
            agents,
            limits: (max_depth, max_concurrent),
            servers,
            answers: base.answers.or_root(&session.workdir),
            hooks: Hooks { settings, session },
        })
    }

    /// The extensions of chapters 7 to 15, over these parts.
    pub fn base(&self) -> BaseExtensions<'_> {
        let (max_depth, max_concurrent) = self.limits;
        let agents = self.agents.clone();
        BaseExtensions {
            answering: Answering {
                program: self.program,
                servers: &self.servers,
                answers: &self.answers,
                hooks: &self.hooks,
                model: &self.model,
            },
            skills: Skills {
                skills: self.skills.clone(),
            },
            bash: Bash {
                workdir: &self.hooks.session.workdir,
            },
            subagents: Subagents::new(agents, self.skills.clone(), max_depth, max_concurrent),
            fence: Fence {
                program: self.program,
                hooks: &self.hooks,
            },
            lifecycle: Lifecycle::new(&self.hooks),
        }
    }

    /// The harness over `extensions`: a reply's calls run at the same time.
    pub fn harness<'a>(&'a self, extensions: Vec<&'a dyn Extension>) -> Harness<'a> {
        let mut harness = Harness::new(self.program, &self.model, self.max_turns, extensions);
        harness.join = |runs| Box::pin(crate::join::join_all(runs));
        harness
    }

    /// The end: the servers stopped, the session's folders removed, the
    /// answer (or why there is none) said.
    pub async fn end(self, outcome: Result<String, String>) -> ExitCode {
        let Parts { servers, hooks, .. } = self;
        servers.shutdown().await;
        drop(hooks); // The session's folders go last.
        show::ended(self.program, outcome)
    }
}

/// The extensions of chapters 7 to 15: the servers (answered), the
/// skills, `Bash`, the subagents, the fence and the hooks around the loop.
pub struct BaseExtensions<'a> {
    pub answering: Answering<'a>,
    pub skills: Skills,
    pub bash: Bash<'a>,
    pub subagents: Subagents,
    pub fence: Fence<'a>,
    pub lifecycle: Lifecycle<'a>,
}
