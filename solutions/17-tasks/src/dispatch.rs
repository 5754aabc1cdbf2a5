//! Chapter 16's server, with tasks. A 2026-07-28 call of `reindex_notes`
//! that declares the tasks extension starts a task and returns its handle;
//! a call of chapter 14's tools that asks the user becomes a task that
//! waits for the answer; `tasks/get`, `tasks/update` and `tasks/cancel`
//! answer from the state folder (`tasks.rs`). Everything else is chapter
//! 16's: long work with the `Work` its transport gives it, told to the
//! subscriptions that asked.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use crate::ask::Ask;
use crate::asking::{Unable, outcome};
use crate::asking_tools::{our_call, with_definitions};
use crate::draft_tools::tool_error;
use crate::http::{Answer, Asker, Finished, Handler};
use crate::jsonrpc::RpcError;
use crate::long_work::{self, Work, calls, dressed, ready};
use crate::long_work::{Change, Subscription};
use crate::reindex;
use crate::request_state::Seal;
use crate::resources::Notes;
use crate::rounds;
use crate::server::{Era, Server};
use crate::state::State;
use crate::subscriptions;
use crate::task_waiting::{Round, Waiting};
use crate::tasks::{self, Status, TaskWork};
use crate::tools;
use crate::watched::{Call, Incoming, Watched};

pub struct Asking {
    pub server: Server,
    pub seal: Seal,
    /// The notes and the state folder again, for `reindex_notes`.
    pub notes: Notes,
    pub state: State,
    /// `--step`: the pause between two steps of long work.
    pub pause: Duration,
    /// The notes and the state folder once more, for a task's work, which
    /// runs on a thread of its own after its call has been answered.
    pub background: Arc<(Notes, State)>,
}

impl Asking {
    // ANCHOR: request
    /// One request in the era its transport decided; `asker` is how a
    /// 2025-11-25 tool may ask (none: it cannot, over this transport).
    pub fn request(
        &self,
        method: &str,
        params: Option<Value>,
        era: Era,
        asker: Option<&mut dyn Ask>,
    ) -> Result<Value, RpcError> {
        let call = params.as_ref().and_then(our_call);
        let search = calls(method, params.as_ref(), "search_index");
        let task =
            calls(method, params.as_ref(), "reindex_notes") && tasks::declared(params.as_ref());
        match (method, call, era) {
            ("tools/call", _, era) if task && ready(params.as_ref(), &era) => self.start_task(),
            ("tasks/get" | "tasks/update" | "tasks/cancel", _, Era::Modern) => {
                self.task_request(method, params.as_ref())
            }
            ("tools/list", _, era) => self
                .server
                .handle_request(method, params, era)
                .map(|result| long_work::with_definitions(with_definitions(result), &self.state)),
            ("tools/call", _, era) if search && ready(params.as_ref(), &era) => {
                let result = long_work::search(&self.state, params.as_ref());
                Ok(dressed(matches!(era, Era::Modern), result))
            }
            ("tools/call", Some((name, arguments)), Era::Modern)
                if tasks::declared(params.as_ref()) =>
            {
                self.wait_as_task(Waiting::new(&name, &arguments, params.as_ref()))
            }
            ("tools/call", Some((name, arguments)), Era::Modern) => {
                let run = |asker: &mut dyn Ask| tools::call(&self.server, &name, &arguments, asker);
                rounds::round(&self.seal, (method, &name), &arguments, params, run)
            }
            // Before initialize, chapter 12's server refuses every call.
            ("tools/call", Some((name, arguments)), Era::Legacy(handshake))
                if handshake.protocol_version.is_some() =>
            {
                let mut unable = Unable;
                let asker = asker.unwrap_or(&mut unable);
                outcome(tools::call(&self.server, &name, &arguments, asker))
            }
            (_, _, era) => self.server.handle_request(method, params, era),
        }
    }
    // ANCHOR_END: request
}

impl Asking {
    // ANCHOR: start_task
    /// `reindex_notes` as a task: stored first, then its work on a thread
    /// of its own, and its handle returned at once.
    fn start_task(&self) -> Result<Value, RpcError> {
        let task = tasks::create(&self.state)?;
        let (background, pause) = (Arc::clone(&self.background), self.pause);
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
    /// A call of ours that asks, from a client that takes tasks: its first
    /// round runs now. If it asks, the call becomes a task that waits for
    /// the answers (`tasks/update`); if not, it is answered as it is.
    fn wait_as_task(&self, waiting: Waiting) -> Result<Value, RpcError> {
        let questions = match self.round(waiting.clone()) {
            Round::Asked(questions) => questions,
            Round::Done(outcome) => return outcome.map(|result| dressed(true, result)),
        };
        let task = tasks::create(&self.state)?;
        let task = tasks::wait(&self.state, &task.task_id, &waiting, questions)?;
        Ok(task.frame("task"))
    }

    /// One round of a waiting call, with the answers it has.
    fn round(&self, waiting: Waiting) -> Round {
        let (name, arguments) = (waiting.name.clone(), waiting.arguments.clone());
        waiting.round(|asker| tools::call(&self.server, &name, &arguments, asker))
    }
    // ANCHOR_END: wait_as_task

    // ANCHOR: task_request
    /// `tasks/get`, `tasks/update` and `tasks/cancel`, for a request that
    /// declares the extension (else -32021); an unknown task is -32602.
    fn task_request(&self, method: &str, params: Option<&Value>) -> Result<Value, RpcError> {
        crate::modern::check_meta(params)?;
        if !tasks::declared(params) {
            return Err(tasks::missing_capability());
        }
        let task_id = params.and_then(|params| params["taskId"].as_str());
        let task_id = task_id.ok_or_else(|| RpcError::invalid_params("taskId must be a string"))?;
        let found = tasks::get(&self.state, task_id)?;
        let ack = match (method, found) {
            ("tasks/cancel", _) => tasks::cancel(&self.state, task_id)?,
            (_, None) => return Err(tasks::unknown(task_id)),
            ("tasks/get", Some(task)) => return Ok(task.frame("complete")),
            (_, Some(task)) => {
                let responses = params.and_then(|params| params["inputResponses"].as_object());
                let responses = responses.cloned().unwrap_or_default();
                tasks::update(&self.state, &task, &responses, |waiting| {
                    self.round(waiting)
                })?
            }
        };
        Ok(dressed(true, ack))
    }
    // ANCHOR_END: task_request

    // ANCHOR: long
    /// `reindex_notes`, reporting to `work`: `None` when it was cancelled
    /// (no reply is sent for it), else its outcome and what it changed.
    pub fn long_call(&self, params: Option<Value>, era: Era, work: &mut dyn Work) -> Finished {
        if !ready(params.as_ref(), &era) {
            return Some((
                self.server.handle_request("tools/call", params, era),
                Vec::new(),
            ));
        }
        let modern = matches!(era, Era::Modern);
        let token = params
            .as_ref()
            .and_then(|params| params["_meta"].get("progressToken"));
        let done = match reindex::reindex((&self.notes, &self.state), token, self.pause, work) {
            Ok(None) => return None,
            Err(why) => return Some((Ok(dressed(modern, tool_error(&why))), Vec::new())),
            Ok(Some(done)) => done,
        };
        let tools = done.created.then_some(Change::Tools); // search_index is new
        let edited = done.edited.into_iter().map(Change::Updated);
        let changes = tools.into_iter().chain(edited).collect();
        Some((Ok(dressed(modern, done.result)), changes))
    }
    // ANCHOR_END: long

    // ANCHOR: stdio
    /// One request on stdio, where this connection's `subscriptions` live:
    /// `None` for no reply (a cancelled call, a listen that stays open).
    pub fn stdio(
        &self,
        incoming: Incoming,
        era: Era,
        connection: &mut Watched,
        subscriptions: &mut Vec<Subscription>,
    ) -> Option<Result<Value, RpcError>> {
        let request = match incoming {
            Incoming::Request(request) => request,
            Incoming::Cancelled(id) => {
                // No call works: a listen's id ends that subscription; others are ignored.
                subscriptions.retain(|subscription| subscription.id.as_ref() != Some(&id));
                eprintln!(
                    "{}: cancel of {id}: no call of that id works",
                    crate::SERVER_NAME
                );
                return None;
            }
        };
        let (id, method, params) = (request.id, request.method, request.params);
        match (method, &era) {
            ("subscriptions/listen", Era::Modern) => {
                let (subscription, ack) = match subscriptions::listen(id, params.as_ref()) {
                    Ok(opened) => opened,
                    Err(error) => return Some(Err(error)),
                };
                let _ = connection.send(&ack); // The acknowledgment first, always.
                subscriptions.push(subscription);
                return None; // It stays open: its reply would end it.
            }
            ("resources/subscribe" | "resources/unsubscribe", Era::Legacy(_)) => {
                // Once initialized, the connection has its subscription.
                let legacy = subscriptions.iter_mut().find(|known| known.id.is_none());
                if let Some(legacy) = legacy {
                    return Some(subscriptions::subscribe(legacy, method, params.as_ref()));
                }
            }
            _ => {}
        }
        if !long(method, params.as_ref()) {
            let mut outcome = self.request(method, params, era, Some(connection));
            if let Ok(result) = &mut outcome {
                declare(method, result);
                if method == "initialize" {
                    subscriptions.push(subscriptions::legacy()); // 2025-11-25 hears list_changed
                }
            }
            return Some(outcome);
        }
        let mut work = Call { connection, id };
        let (outcome, changes) = self.long_call(params, era, &mut work)?;
        for notification in subscriptions::for_all(subscriptions.iter(), &changes) {
            let _ = work.connection.send(&notification);
        }
        Some(outcome)
    }
    // ANCHOR_END: stdio
}

/// Whether a request is chapter 16's long work: `reindex_notes` called by a
/// client that did not declare tasks (a task's call is answered at once).
fn long(method: &str, params: Option<&Value>) -> bool {
    calls(method, params, "reindex_notes") && !tasks::declared(params)
}

// ANCHOR: declare
/// What this server can tell, where it can tell it: its tool list changes
/// (`listChanged`) and its notes can be subscribed to (`subscribe`). Said
/// in `initialize` on stdio and in `server/discover`; never over 2025-11-25
/// HTTP, where this server keeps no stream to send them on.
pub fn declare(method: &str, result: &mut Value) {
    if matches!(method, "initialize" | "server/discover") && result.get("capabilities").is_some() {
        result["capabilities"]["tools"] = json!({ "listChanged": true });
        result["capabilities"]["resources"] = json!({ "subscribe": true });
    }
    // The tasks extension is 2026-07-28's: only `server/discover` says it.
    if method == "server/discover" && result.get("capabilities").is_some() {
        result["capabilities"]["extensions"] = json!({ tasks::TASKS: {} });
    }
}
// ANCHOR_END: declare

/// What HTTP serves: nothing to say before a reply; our tools may ask.
impl Handler for Asking {
    fn request(&self, method: &str, params: Option<Value>, era: Era, asker: Asker) -> Answer {
        let modern = matches!(era, Era::Modern);
        let mut outcome = self.request(method, params, era, asker);
        if let Ok(result) = &mut outcome
            && modern
        {
            declare(method, result);
        }
        (Vec::new(), outcome)
    }
    fn may_ask(&self, method: &str, params: Option<&Value>) -> bool {
        method == "tools/call" && params.and_then(our_call).is_some()
    }
    fn notification(&self, method: &str) {
        self.server.handle_notification(method);
    }
    fn is_long(&self, method: &str, params: Option<&Value>) -> bool {
        long(method, params)
    }
    fn long_call(&self, params: Option<Value>, era: Era, work: &mut dyn Work) -> Finished {
        self.long_call(params, era, work)
    }
}
