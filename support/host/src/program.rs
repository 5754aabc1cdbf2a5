//! A harness program's parts, from chapter 15 on: the command line's
//! options of chapters 7 to 15, the servers of either era started (chapter
//! 15's `discover`: its own, in chapter 15), the session and its hooks
//! opened, and the harness composed as a [`Stack`] of named extensions. Support-own: composition
//! plumbing, no chapter's lesson; each chapter's `stack.rs` says which
//! extensions its harness adds to the chapter before's, and where.

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
use crate::remote::{Server, Servers};
use crate::retry::Answering;
use crate::route::Respondent;
use crate::seams::{Extension, Harness};
use crate::session::{DemoFile, Session};
use crate::show;
use crate::show::Log;
use crate::skill_tools::Skills;
use crate::skills::{self, Skill};
use crate::subagents::Subagents;
use crate::transport::{Link, Stamp};
use serde_json::Value;

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
/// session with its hooks, the answers; and `found`, what the start found
/// besides the skills (the servers' skills, chapter 21 on).
pub struct Parts<T = ()> {
    pub program: &'static str,
    pub model: Model,
    pub prompt: String,
    pub max_turns: u32,
    /// Every skill: this machine's, then the servers' (chapter 21).
    pub skills: Vec<Skill>,
    /// The skills of this machine's folders alone.
    pub local_skills: Vec<Skill>,
    /// What `more` found at the start (the servers' skills, chapter 21 on).
    pub found: T,
    pub agents: Vec<Agent>,
    pub limits: (u32, usize),
    /// The settings file, if any (the sandbox's, chapter 24).
    pub settings: Option<PathBuf>,
    pub servers: Servers,
    pub hooks: Hooks,
    pub answers: Answers,
}

/// A server opened, or why it could not be.
type Opened = Result<Server, String>;

/// How a chapter makes its harness's extensions over a run's parts, from
/// the options they read: its `stack.rs`, which starts from the chapter
/// before's.
pub type MakeStack<T, O> = for<'p> fn(&'p Parts<T>, O) -> Result<Stack<'p>, String>;

/// For a start that finds nothing besides the skills.
pub async fn nothing_more(_: &str, _: &Servers, _: &[Skill]) -> (Vec<Skill>, ()) {
    (Vec::new(), ())
}

impl<T> Parts<T> {
    /// The skills and agents loaded, and the servers started; then `more`
    /// (told the program's name, for its messages) adds to the skills (a
    /// server's, chapter 21) and says what it found; then the run's
    /// introduction is printed, and the session opens with the hooks of
    /// `events` and the demo's files. On an error, what was started is
    /// stopped again.
    pub async fn start(
        program: &'static str,
        base: Base,
        more: impl AsyncFnOnce(&str, &Servers, &[Skill]) -> (Vec<Skill>, T),
        events: &[&str],
        demo: &[DemoFile],
    ) -> Result<Parts<T>, String> {
        let (capabilities, open) = (discover::capabilities, discover::open);
        Parts::start_with(program, base, capabilities, open, more, events, demo).await
    }

    /// [`Parts::start`], with the servers opened as chapter 15's
    /// `discover` says (its own, in chapter 15): what the client declares
    /// (`capabilities`, from whether it samples), and how a server is
    /// opened and its era found (`open`).
    pub async fn start_with(
        program: &'static str,
        base: Base,
        capabilities: fn(bool) -> Value,
        open: impl AsyncFn(&str, Link, &Value, bool) -> Opened,
        more: impl AsyncFnOnce(&str, &Servers, &[Skill]) -> (Vec<Skill>, T),
        events: &[&str],
        demo: &[DemoFile],
    ) -> Result<Parts<T>, String> {
        let AgentOptions {
            skill_folders,
            agent_folders,
            max_depth,
            max_concurrent,
        } = base.agents;
        let (local_skills, agents) = agents::load_usable(program, &skill_folders, &agent_folders);
        // Pure CPU work: on the blocking pool it overlaps the servers' start.
        let tokenizer = tokio::task::spawn_blocking(crate::tokens::load);
        let capabilities = capabilities(base.answers.sampling);
        let (legacy, stamp) = (base.legacy, base.stamp);
        let open_one = async |name: &str, mut link: Link| {
            link.stamp = stamp.clone();
            open(name, link, &capabilities, legacy).await
        };
        let servers = Servers::start(base.servers, base.options, open_one).await?;
        let (more, found) = more(program, &servers, &local_skills).await;
        let skills = [local_skills.clone(), more].concat();
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
            local_skills,
            found,
            agents,
            limits: (max_depth, max_concurrent),
            settings: base.hooks.settings,
            servers,
            answers: base.answers.or_root(&session.workdir),
            hooks: Hooks { settings, session },
        })
    }

    /// The extensions of chapters 7 to 15, over these parts: the servers
    /// (answered), the skills, `Bash`, the subagents, the fence and the
    /// hooks around the loop.
    pub fn base(&self) -> Stack<'_> {
        let answering = Answering {
            program: self.program,
            servers: &self.servers,
            respondent: Respondent {
                answers: &self.answers,
                hooks: &self.hooks,
                model: &self.model,
            },
        };
        self.base_with(answering)
    }

    /// The extensions of chapters 7 to 15, with `answering` for the
    /// servers' tools (chapter 15's own `Answering`, in chapter 15).
    pub fn base_with<'a>(&'a self, answering: impl Extension + 'a) -> Stack<'a> {
        let (max_depth, max_concurrent) = self.limits;
        let agents = self.agents.clone();
        let subagents = Subagents::new(agents, self.skills.clone(), max_depth, max_concurrent);
        let skills = Skills {
            skills: self.skills.clone(),
        };
        let workdir = &self.hooks.session.workdir;
        let (program, hooks) = (self.program, &self.hooks);
        let mut stack = Stack::default();
        stack.push("answering", answering);
        stack.push("skills", skills);
        stack.push("bash", Bash { workdir });
        stack.push("subagents", subagents);
        stack.push("fence", Fence { program, hooks });
        stack.push("lifecycle", Lifecycle::new(&self.hooks));
        stack
    }

    /// The run: the extensions `make` makes, the main conversation, the
    /// end.
    pub async fn run<O>(self, options: O, make: MakeStack<T, O>) -> ExitCode {
        let outcome = match make(&self, options) {
            Ok(stack) => converse(&stack.harness(&self), &self.prompt).await,
            Err(err) => Err(err),
        };
        self.end(outcome).await
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

/// The harness's beginning (SessionStart), then the main conversation (the
/// prompt, chapter 7's loop), then the harness's end.
async fn converse(harness: &Harness<'_>, prompt: &str) -> Result<String, String> {
    let mut log = Log::printed();
    harness.begin(&mut log).await?;
    let answer = crate::agent::run(harness, harness.main_context(), prompt, &mut log).await;
    harness.end();
    answer
}

/// A harness's extensions, in the order the harness asks them, each under
/// a name, so that a later chapter can put its own after an earlier one's,
/// or in its place. The order is the harness's: the first extension that
/// runs a tool runs it, and a conversation's opening is built in order.
#[derive(Default)]
pub struct Stack<'a> {
    extensions: Vec<(&'static str, Box<dyn Extension + 'a>)>,
}

impl<'a> Stack<'a> {
    /// Adds `extension` last.
    pub fn push(&mut self, name: &'static str, extension: impl Extension + 'a) {
        self.extensions.push((name, Box::new(extension)));
    }

    /// Adds `extension` just after the one named `after`.
    pub fn insert_after(
        &mut self,
        after: &str,
        name: &'static str,
        extension: impl Extension + 'a,
    ) {
        let at = self.position(after) + 1;
        self.extensions.insert(at, (name, Box::new(extension)));
    }

    /// Puts `extension` in the place of the one named `old`.
    pub fn replace(&mut self, old: &str, name: &'static str, extension: impl Extension + 'a) {
        let at = self.position(old);
        self.extensions[at] = (name, Box::new(extension));
    }

    /// Where the extension `name` is. A name no chapter added is a mistake
    /// in the program, not in its input.
    fn position(&self, name: &str) -> usize {
        let found = self.extensions.iter().position(|(named, _)| *named == name);
        found.unwrap_or_else(|| panic!("this harness has no extension named {name:?}"))
    }

    /// The harness over these extensions: a reply's calls run at the same
    /// time.
    pub fn harness<'h, T>(&'h self, parts: &'h Parts<T>) -> Harness<'h> {
        let extensions = self
            .extensions
            .iter()
            .map(|(_, extension)| &**extension as &dyn Extension);
        let mut harness = Harness::new(
            parts.program,
            &parts.model,
            parts.max_turns,
            extensions.collect(),
        );
        harness.join = |runs| Box::pin(crate::join::join_all(runs));
        harness
    }
}
