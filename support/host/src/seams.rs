//! The harness's seams, and the runner that asks every extension at each
//! (support-own: dispatch, no chapter's lesson; the loop that calls the
//! seams is chapter 7's, each extension its chapter's). A seam is a
//! question the loop (`agent.rs`) asks on its way: which tools does the
//! model see, what does each request carry and how is it sent, may this
//! call run, how does it run, what follows its result, may the turn end?
//! An [`Extension`] answers the seams it cares about; every method has a
//! default that does nothing, so an extension is the lesson of its
//! chapter and nothing else. The harness asks its extensions in the order
//! they were added, and says here how their answers combine.

use async_trait::async_trait;
use serde_json::Value;

use crate::messages::{ToolUse, message};
use crate::model::MAIN;
use crate::show::{Log, confirm};
use crate::xml::with_reminders;

/// What the model is told about its situation, in every request of the
/// main conversation, before what extensions add (a skill catalogue).
pub const SYSTEM: &str = "You are a careful assistant. Use the tools for arithmetic.";

/// One conversation: its own messages list, system prompt and tools. The
/// main one is the only one until chapter 9 starts subagents, each in a
/// context of its own.
#[derive(Clone, Debug)]
pub struct Context {
    /// `main`, or the id of the `Agent` call that started a subagent.
    pub key: String,
    /// 0 for the main conversation, 1 for its subagents, and so on.
    pub depth: u32,
    /// The `model` field of its requests.
    pub model: String,
    pub system: String,
    /// The only tools it may call.
    pub tools: Vec<Value>,
    /// Its turn cap.
    pub cap: u32,
    /// The agent's name in a subagent (its hooks get it, chapter 11).
    pub agent_type: Option<String>,
}

impl Context {
    /// A subagent's `Agent` call id and agent type, which its hooks receive;
    /// `None` in the main conversation.
    pub fn inside(&self) -> Option<(&str, &str)> {
        let agent_type = self.agent_type.as_deref()?;
        Some((&self.key, agent_type))
    }
}

/// One tool call on its way from the model's reply to its result: what the
/// model asked for, and what the harness gathers about it as it goes.
pub struct Call {
    /// The call as the model asked for it.
    pub tool_use: ToolUse,
    /// The input it runs with instead, when a fence changed it (a hook's
    /// `updatedInput`, chapter 10): used once the call may run.
    pub input: Option<Value>,
    /// What to print about it, in order.
    pub lines: Vec<String>,
    /// Text for the model beside the tool's own output (a hook's context).
    pub notes: Vec<String>,
    /// Why the whole run stops after this call, if it does (a hook's
    /// `continue: false`).
    pub stop: Option<String>,
}

impl Call {
    pub fn new(tool_use: &ToolUse) -> Call {
        Call {
            tool_use: tool_use.clone(),
            input: None,
            lines: Vec::new(),
            notes: Vec::new(),
            stop: None,
        }
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.tool_use.name
    }

    /// `NAME INPUT`, as a question about it shows the call.
    pub fn shown(&self) -> String {
        format!("{} {}", self.tool_use.name, self.tool_use.input)
    }
}

/// What a tool call came to: an MCP result (its `content`, maybe
/// `isError`), or the text of a failure.
pub type Outcome = Result<Value, String>;

/// Work under way, boxed so that the runs of a reply's calls (and a
/// subagent's loop, which holds itself) fit in one list.
pub type Run<'a, T> = std::pin::Pin<Box<dyn Future<Output = T> + 'a>>;

/// One tool call done: its `tool_result` block, and the call with what it
/// gathered.
pub type Done = (crate::messages::Block, Call);

/// How the calls of one reply run: one after the other
/// ([`one_after_another`], chapters 7 and 8), or at the same time
/// (chapter 9's `join_all`).
pub type Join = for<'r> fn(Vec<Run<'r, Done>>) -> Run<'r, Vec<Done>>;

/// What the harness says at a call's gate: run it, or refuse it with the
/// text the model reads instead of a result.
pub enum Gate {
    Run,
    Refuse(String),
}

/// What one extension makes of a call at the gate. The harness combines
/// them: any `Deny` refuses the call (the first one's text), then any
/// `Ask` asks the user, then it runs; `Allow` says an extension vouches
/// for the call (chapter 23's rules read it as an allow rule), `Pass`
/// that it has nothing to say.
pub enum Verdict {
    Pass,
    Allow,
    /// Ask the user at the terminal: the question, and what the model
    /// reads when the answer is no (`…, and WHY NOT: it did not run`).
    Ask {
        question: String,
        refused: String,
    },
    /// Refused, with the text the model reads.
    Deny(String),
}

/// One extension of the harness: it answers the seams it cares about.
/// The methods are called in the order the extensions were added.
#[async_trait(?Send)]
pub trait Extension {
    /// The tools the model sees in the main conversation: this extension
    /// adds its own, or changes the list (tools are in the order added).
    fn tools(&self, _tools: &mut Vec<Value>) {}

    /// The main conversation's system prompt, added to.
    fn system(&self, _system: &mut String) {}

    /// Before each turn of the main conversation: true when the tools it
    /// offers changed (a server's list_changed).
    async fn tools_changed(&self) -> bool {
        false
    }

    /// Once, before the main conversation starts (chapter 11's
    /// SessionStart): an `Err` ends the run before the first request.
    async fn begin(&self, _harness: &Harness<'_>, _log: &mut Log) -> Result<(), String> {
        Ok(())
    }

    /// Once, after the main conversation ended, however it ended (chapter
    /// 20's cost of the session).
    fn end(&self) {}

    /// The conversation's first message, built from the prompt's.
    async fn opening(
        &self,
        _harness: &Harness<'_>,
        _context: &Context,
        message: Value,
        _log: &mut Log,
    ) -> Result<Value, String> {
        Ok(message)
    }

    /// A message added to a conversation.
    fn remember(&self, _context: &Context, _message: &Value) {}

    /// Before each request is built: the conversation may be rewritten.
    async fn prepare(
        &self,
        _harness: &Harness<'_>,
        _context: &Context,
        _messages: &mut Vec<Value>,
        _turn: u32,
        _log: &mut Log,
    ) -> Result<(), String> {
        Ok(())
    }

    /// What each request carries, added to the body the loop built.
    fn carry(&self, _context: &Context, _messages: &[Value], _turn: u32, _request: &mut Value) {}

    /// How a request is sent: `Some` when this extension sends it.
    async fn send(
        &self,
        _harness: &Harness<'_>,
        _key: &str,
        _request: &Value,
        _log: &mut Log,
    ) -> Option<Result<Value, String>> {
        None
    }

    /// A reply, read by this extension before the loop reads it.
    fn replied(
        &self,
        _harness: &Harness<'_>,
        _request: &Value,
        _reply: &mut Value,
        _log: &mut Log,
    ) {
    }

    /// At a final answer: the next user message when the turn may not end
    /// yet.
    async fn may_end(
        &self,
        _harness: &Harness<'_>,
        _context: &Context,
        _answer: &str,
        _log: &mut Log,
    ) -> Result<Option<Value>, String> {
        Ok(None)
    }

    /// Why the model cannot call a tool the request did not send, when
    /// this extension knows better than "there is no such tool".
    fn not_sent(&self, _context: &Context, _name: &str) -> Option<String> {
        None
    }

    /// What this extension makes of a call before it runs.
    async fn gate(&self, _harness: &Harness<'_>, _context: &Context, _call: &mut Call) -> Verdict {
        Verdict::Pass
    }

    /// The final say on a call every fence let through (none denied it
    /// and none asked): `allowed` says whether one vouched for it. `None`
    /// leaves it to the others; with no one judging, it runs (chapter
    /// 23's permission rules judge).
    async fn judge(
        &self,
        _harness: &Harness<'_>,
        _context: &Context,
        _call: &mut Call,
        _allowed: bool,
    ) -> Option<Verdict> {
        None
    }

    /// Runs the call: `Some` when the tool is this extension's.
    async fn run(
        &self,
        _harness: &Harness<'_>,
        _context: &Context,
        _call: &mut Call,
    ) -> Option<Outcome> {
        None
    }

    /// After a call ran: its outcome, as this extension leaves it.
    async fn after(
        &self,
        _harness: &Harness<'_>,
        _context: &Context,
        _call: &mut Call,
        outcome: Outcome,
    ) -> Outcome {
        outcome
    }

    /// Whether this extension's tool `name` gives a long result, shown by
    /// its cost in tokens rather than its text (a skill's instructions).
    fn long(&self, _name: &str) -> bool {
        false
    }
}

/// What the loop needs of a model: its name, and one request sent for a
/// context (chapter 7's `model.rs`, scripted or over HTTP).
#[async_trait(?Send)]
pub trait ModelApi {
    /// The `model` field of each request.
    fn name(&self) -> &str;
    /// The request body out, the reply body back.
    async fn send(&self, key: &str, request: &Value) -> Result<Value, String>;
}

/// What the loop runs on: the model, the limits, and the extensions.
pub struct Harness<'a> {
    /// The name this program goes by in its messages.
    pub program: &'static str,
    pub model: &'a dyn ModelApi,
    /// The main conversation's turn cap.
    pub max_turns: u32,
    /// How the calls of one reply run.
    pub join: Join,
    pub extensions: Vec<&'a dyn Extension>,
}

/// Runs the calls of one reply one after the other, in order.
pub fn one_after_another<'r>(runs: Vec<Run<'r, Done>>) -> Run<'r, Vec<Done>> {
    Box::pin(async move {
        let mut done = Vec::new();
        for run in runs {
            done.push(run.await);
        }
        done
    })
}

impl<'a> Harness<'a> {
    /// A harness whose calls of one reply run one after the other.
    pub fn new(
        program: &'static str,
        model: &'a dyn ModelApi,
        max_turns: u32,
        extensions: Vec<&'a dyn Extension>,
    ) -> Harness<'a> {
        Harness {
            program,
            model,
            max_turns,
            join: one_after_another,
            extensions,
        }
    }

    /// The main conversation: every extension's tools, the system prompt
    /// with what each adds.
    pub fn main_context(&self) -> Context {
        let mut tools = Vec::new();
        let mut system = SYSTEM.to_string();
        for extension in &self.extensions {
            extension.tools(&mut tools);
            extension.system(&mut system);
        }
        Context {
            key: MAIN.to_string(),
            depth: 0,
            model: self.model.name().to_string(),
            system,
            tools,
            cap: self.max_turns,
            agent_type: None,
        }
    }

    /// Before the main conversation: every extension's `begin`, in order,
    /// until one ends the run.
    pub async fn begin(&self, log: &mut Log) -> Result<(), String> {
        for extension in &self.extensions {
            extension.begin(self, log).await?;
        }
        Ok(())
    }

    /// After the main conversation: every extension's `end`, in order.
    pub fn end(&self) {
        self.extensions.iter().for_each(|extension| extension.end());
    }

    /// The conversation's start: the prompt as the first user message, as
    /// each extension leaves it, remembered.
    pub async fn opening(
        &self,
        context: &Context,
        prompt: &str,
        log: &mut Log,
    ) -> Result<Vec<Value>, String> {
        let mut message = message("user", prompt);
        for extension in &self.extensions {
            message = extension.opening(self, context, message, log).await?;
        }
        let mut messages = Vec::new();
        self.remember(context, &mut messages, message);
        Ok(messages)
    }

    /// Adds a message to the conversation, and tells every extension.
    pub fn remember(&self, context: &Context, messages: &mut Vec<Value>, message: Value) {
        for extension in &self.extensions {
            extension.remember(context, &message);
        }
        messages.push(message);
    }

    /// Before a turn of the main conversation: a fresh main context when
    /// an extension's tools changed.
    pub async fn refreshed(&self, context: &Context) -> Option<Context> {
        if context.depth > 0 {
            return None;
        }
        let mut changed = false;
        for extension in &self.extensions {
            changed |= extension.tools_changed().await;
        }
        changed.then(|| self.main_context())
    }

    /// Before a request is built: each extension may rewrite the
    /// conversation.
    pub async fn prepare(
        &self,
        context: &Context,
        messages: &mut Vec<Value>,
        turn: u32,
        log: &mut Log,
    ) -> Result<(), String> {
        for extension in &self.extensions {
            extension
                .prepare(self, context, messages, turn, log)
                .await?;
        }
        Ok(())
    }

    /// What each extension adds to a request the loop built.
    pub fn carry(&self, context: &Context, messages: &[Value], turn: u32, request: &mut Value) {
        for extension in &self.extensions {
            extension.carry(context, messages, turn, request);
        }
    }

    /// Sends a request for the context `key`: the first extension that
    /// sends it, else the model itself; then every extension reads the
    /// reply.
    pub async fn send(&self, key: &str, request: &Value, log: &mut Log) -> Result<Value, String> {
        let mut sent = None;
        for extension in &self.extensions {
            sent = extension.send(self, key, request, log).await;
            if sent.is_some() {
                break;
            }
        }
        let mut reply = match sent {
            Some(reply) => reply?,
            None => self.model.send(key, request).await?,
        };
        for extension in &self.extensions {
            extension.replied(self, request, &mut reply, log);
        }
        Ok(reply)
    }

    /// At a final answer: the first extension's next message, if one
    /// refuses the end.
    pub async fn may_end(
        &self,
        context: &Context,
        answer: &str,
        log: &mut Log,
    ) -> Result<Option<Value>, String> {
        for extension in &self.extensions {
            let next = extension.may_end(self, context, answer, log).await?;
            if next.is_some() {
                return Ok(next);
            }
        }
        Ok(None)
    }

    /// Runs the calls of one reply, as the harness was told to.
    pub async fn join<'r>(&self, runs: Vec<Run<'r, Done>>) -> Vec<Done> {
        (self.join)(runs).await
    }

    /// What the model reads when it calls a tool the request did not send.
    pub fn not_sent(&self, context: &Context, name: &str) -> String {
        let mut extensions = self.extensions.iter();
        let why = extensions.find_map(|extension| extension.not_sent(context, name));
        why.unwrap_or_else(|| {
            format!("there is no tool named {name:?} here: call one of the tools you were given")
        })
    }

    /// Whether a call may run: each extension's verdict, in order, until
    /// one denies it; a question to the user, if one asks; else the
    /// judges' say, told whether one vouched for the call.
    pub async fn gate(&self, context: &Context, call: &mut Call) -> Gate {
        let (mut ask, mut allowed) = (None, false);
        for extension in &self.extensions {
            match extension.gate(self, context, call).await {
                Verdict::Deny(why) => return Gate::Refuse(why),
                Verdict::Ask { question, refused } => {
                    ask.get_or_insert((question, refused));
                }
                Verdict::Allow => allowed = true,
                Verdict::Pass => {}
            }
        }
        if ask.is_none() {
            for extension in &self.extensions {
                match extension.judge(self, context, call, allowed).await {
                    Some(Verdict::Deny(why)) => return Gate::Refuse(why),
                    Some(Verdict::Ask { question, refused }) => {
                        ask = Some((question, refused));
                        break;
                    }
                    Some(Verdict::Allow) => break,
                    Some(Verdict::Pass) | None => {}
                }
            }
        }
        let Some((question, refused)) = ask else {
            return Gate::Run;
        };
        match confirm(self.program, &question, &call.shown()) {
            Ok(()) => {
                call.lines.push("  the user allowed the call".to_string());
                Gate::Run
            }
            Err(no) => Gate::Refuse(format!("{refused}, and {no}: it did not run")),
        }
    }

    /// Runs a call the gate let through, with the input a fence gave it
    /// (if one did): the first extension whose tool it is runs it.
    pub async fn run(&self, context: &Context, call: &mut Call) -> Outcome {
        if let Some(input) = call.input.take() {
            call.tool_use.input = input;
        }
        for extension in &self.extensions {
            if let Some(outcome) = extension.run(self, context, call).await {
                return outcome;
            }
        }
        Err(format!("no part of this harness runs {:?}", call.name()))
    }

    /// After a call ran: each extension's turn, then what they noted for
    /// the model goes beside the tool's own output.
    pub async fn after(&self, context: &Context, call: &mut Call, outcome: Outcome) -> Outcome {
        let mut outcome = outcome;
        for extension in &self.extensions {
            outcome = extension.after(self, context, call, outcome).await;
        }
        let notes = std::mem::take(&mut call.notes);
        outcome.map(|result| with_reminders(result, notes.into_iter()))
    }

    /// Whether a tool's result is shown by its cost in tokens.
    pub fn long(&self, name: &str) -> bool {
        self.extensions.iter().any(|extension| extension.long(name))
    }
}
