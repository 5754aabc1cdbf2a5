//! Chapter 16's server, with tasks: `route` answers a task's request, and
//! every other request goes to chapter 16's server, unchanged.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::asking_tools::our_call;
use crate::dispatch16::{self, Asking};
use crate::draft_tools::tool_error;
use crate::http::{Answer, Asker, Finished, Handler};
use crate::jsonrpc::RpcError;
use crate::long_work::{Subscription, Work, calls, dressed, ready};
use crate::reindex;
use crate::resources::Notes;
use crate::server::Era;
use crate::state::State;
use crate::task_waiting::{Round, Waiting};
use crate::tasks::{self, Status, TaskWork};
use crate::tools;
use crate::watched::{Incoming, Watched};

type Outcome = Result<Value, RpcError>;

pub struct Tasks {
    /// Chapter 16's server: every request that is not a task's.
    pub long_work: Asking,
    /// The notes and the state folder once more, for a task's work, which
    /// runs on a thread of its own after its call has been answered.
    pub background: Arc<(Notes, State)>,
}

impl Tasks {
    // ANCHOR: route
    /// A task's request, answered here; `None` for any other (chapter 16's).
    pub fn route(&self, method: &str, params: Option<&Value>, era: &Era) -> Option<Outcome> {
        // TODO(ch17/route): a task's requests are 2026-07-28's (`Era::Modern`):
        // `tasks/get`, `tasks/update`, `tasks/cancel` (`task_request` refuses
        // one that does not declare the extension); a call that declares it
        // (`tasks::declared`), of `reindex_notes` once `ready` (`start_task`)
        // or of a chapter 14 tool (`our_call`: `wait_as_task`); `server/discover`:
        // chapter 16's answer, `declare`d, with `tasks::TASKS` in its extensions.
        let _ = (
            method,
            params,
            era,
            our_call,
            calls,
            ready,
            Waiting::new,
            json!(0),
        );
        let _ = (Self::start_task, Self::wait_as_task, Self::task_request);
        let _ = dispatch16::declare;
        None
        // END(ch17/route)
    }
    // ANCHOR_END: route

    // ANCHOR: start_task
    /// `reindex_notes` as a task: stored, run on a thread, its handle returned at once.
    fn start_task(&self) -> Result<Value, RpcError> {
        let task = tasks::create(&self.long_work.state)?;
        let (background, pause) = (Arc::clone(&self.background), self.long_work.pause);
        let task_id = task.task_id.clone();
        std::thread::spawn(move || {
            let (notes, state) = &*background;
            let mut work = TaskWork {
                state,
                task_id: &task_id,
            };
            let result = match reindex::reindex((notes, state), None, pause, &mut work) {
                Ok(None) => return, // cancelled between two steps: nothing written
                Ok(Some(done)) => done.result,
                Err(why) => tool_error(&why), // a tool error: the task completed
            };
            let moved = tasks::move_to(state, &task_id, Status::Completed { result });
            if !matches!(moved, Ok(true)) {
                eprintln!("{}: task {task_id} was not completed", crate::SERVER_NAME);
            }
        });
        Ok(task.frame("task"))
    }
    // ANCHOR_END: start_task

    // ANCHOR: wait_as_task
    /// A call of ours from a client that takes tasks: its first round runs now; if it
    /// asks, it becomes a task that waits for the answers (`tasks/update`).
    fn wait_as_task(&self, waiting: Waiting) -> Result<Value, RpcError> {
        let questions = match self.round(waiting.clone()) {
            Round::Asked(questions) => questions,
            Round::Done(outcome) => return outcome.map(|result| dressed(true, result)),
        };
        let task = tasks::create(&self.long_work.state)?;
        let task = tasks::wait(&self.long_work.state, &task.task_id, &waiting, questions)?;
        Ok(task.frame("task"))
    }

    /// One round of a waiting call, with the answers it has.
    fn round(&self, waiting: Waiting) -> Round {
        let (name, arguments) = (waiting.name.clone(), waiting.arguments.clone());
        waiting.round(|asker| tools::call(&self.long_work.server, &name, &arguments, asker))
    }
    // ANCHOR_END: wait_as_task

    // ANCHOR: task_request
    /// The `tasks/…` methods: -32021 when not declared, -32602 for an unknown task.
    fn task_request(&self, method: &str, params: Option<&Value>) -> Result<Value, RpcError> {
        crate::modern::check_meta(params)?;
        let state = &self.long_work.state;
        if !tasks::declared(params) {
            return Err(tasks::missing_capability());
        }
        let task_id = params.and_then(|params| params["taskId"].as_str());
        let task_id = task_id.ok_or_else(|| RpcError::invalid_params("taskId must be a string"))?;
        let found = tasks::get(state, task_id)?;
        let ack = match (method, found) {
            ("tasks/cancel", _) => tasks::cancel(state, task_id)?,
            (_, None) => return Err(tasks::unknown(task_id)),
            ("tasks/get", Some(task)) => return Ok(task.frame("complete")),
            (_, Some(task)) => {
                let responses = params.and_then(|params| params["inputResponses"].as_object());
                let responses = responses.cloned().unwrap_or_default();
                tasks::update(state, &task, &responses, |waiting| self.round(waiting))?
            }
        };
        Ok(dressed(true, ack))
    }
    // ANCHOR_END: task_request

    // ANCHOR: stdio
    /// One request on stdio: a task's here, any other as chapter 16 answers it.
    pub fn stdio(
        &self,
        incoming: Incoming,
        era: Era,
        connection: &mut Watched,
        subscriptions: &mut Vec<Subscription>,
    ) -> Option<Result<Value, RpcError>> {
        if let Incoming::Request(request) = &incoming
            && let Some(outcome) = self.route(request.method, request.params.as_ref(), &era)
        {
            return Some(outcome);
        }
        self.long_work
            .stdio(incoming, era, connection, subscriptions)
    }
    // ANCHOR_END: stdio
}

/// What HTTP serves: a task's request here, the rest as chapter 16 serves it.
impl Handler for Tasks {
    fn request(&self, method: &str, params: Option<Value>, era: Era, asker: Asker) -> Answer {
        match self.route(method, params.as_ref(), &era) {
            Some(outcome) => (Vec::new(), outcome),
            None => Handler::request(&self.long_work, method, params, era, asker),
        }
    }
    fn may_ask(&self, method: &str, params: Option<&Value>) -> bool {
        self.long_work.may_ask(method, params)
    }
    fn notification(&self, method: &str) {
        self.long_work.notification(method);
    }
    /// A task's call is answered at once: long work only without the extension.
    fn is_long(&self, method: &str, params: Option<&Value>) -> bool {
        self.long_work.is_long(method, params) && !tasks::declared(params)
    }
    fn long_call(&self, params: Option<Value>, era: Era, work: &mut dyn Work) -> Finished {
        self.long_work.long_call(params, era, work)
    }
}
