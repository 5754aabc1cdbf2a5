//! Tasks (the extension `io.modelcontextprotocol/tasks` of 2026-07-28): a
//! call answers at once with a handle, and the work goes on. Each task is a
//! file in the state folder, so any instance sharing `--state` answers for
//! it; its status is a typed state machine.

use std::fs::File;
use std::io::{self, Read};
use std::time::{Duration, Instant, SystemTime};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::jsonrpc::RpcError;
use crate::long_work::{Notification, Work};
use crate::state::State;
use crate::task_waiting::{Round, Waiting};

/// The extension's name, in capabilities and in `requiredCapabilities`.
pub const TASKS: &str = "io.modelcontextprotocol/tasks";

/// A task is kept an hour after it was created (our choice), polled twice a second.
const TTL_MS: u64 = 3_600_000;
const POLL_INTERVAL_MS: u64 = 500;

// ANCHOR: status
/// Where a task is, with what that status carries on the wire.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Status {
    Working,
    InputRequired {
        #[serde(rename = "inputRequests")]
        input_requests: Value,
    },
    /// The call's result, a tool error (`isError`) included.
    Completed {
        result: Value,
    },
    /// A JSON-RPC error: the call itself failed.
    Failed {
        error: Value,
    },
    Cancelled,
}

impl Status {
    pub fn is_terminal(&self) -> bool {
        matches!(
            self,
            Status::Completed { .. } | Status::Failed { .. } | Status::Cancelled
        )
    }

    /// Whether a task in this status may move to `next`.
    pub fn may_become(&self, next: &Status) -> bool {
        // TODO(ch17/transition): the extension's state machine. `Working`
        // may become `InputRequired` or any terminal status;
        // `InputRequired` may become `Working` or any terminal status; a
        // terminal status (`is_terminal`) never changes again, and no
        // status "moves" to itself.
        let _ = next;
        true
        // END(ch17/transition)
    }
}
// ANCHOR_END: status

// ANCHOR: task
/// One task as stored, and as `tasks/get` shows it (its fields sorted,
/// as every frame of ours is).
#[derive(Serialize, Deserialize, Clone, Debug)]
#[serde(rename_all = "camelCase")]
pub struct Task {
    pub task_id: String,
    #[serde(flatten)]
    pub status: Status,
    pub created_at: String,
    pub last_updated_at: String,
    pub ttl_ms: u64,
    pub poll_interval_ms: u64,
}
// ANCHOR_END: task

impl Task {
    /// The task as a result: `resultType` "task" for the handle a call
    /// returns, "complete" for `tasks/get`.
    pub fn frame(&self, result_type: &str) -> Value {
        let mut frame = crate::modern::complete("tasks/get", json!(self));
        frame["resultType"] = result_type.into();
        frame
    }
}

fn file(task_id: &str) -> String {
    format!("task-{task_id}.json")
}

// ANCHOR: create
/// A new task, `working`: its handle is returned only once its file is
/// written, so that a `tasks/get` to any instance finds it.
pub fn create(state: &State) -> Result<Task, RpcError> {
    let now = humantime::format_rfc3339_millis(SystemTime::now()).to_string();
    let task = Task {
        task_id: new_id().map_err(|err| internal(&err))?,
        status: Status::Working,
        created_at: now.clone(),
        last_updated_at: now,
        ttl_ms: TTL_MS,
        poll_interval_ms: POLL_INTERVAL_MS,
    };
    // TODO(ch17/create): write `task` to its `file` in the state folder
    // (`store`); a failure is an internal error and no handle at all. Only
    // then return it.
    let _ = (file, &state, store::<Task>);
    Ok(task)
    // END(ch17/create)
}
// ANCHOR_END: create

/// The task `task_id`, as stored: `None` when there is none (an id that
/// is not a task's never names a file).
pub fn get(state: &State, task_id: &str) -> Result<Option<Task>, RpcError> {
    if task_id.is_empty() || !task_id.bytes().all(|byte| byte.is_ascii_hexdigit()) {
        return Ok(None);
    }
    let Some(text) = state.read(&file(task_id)).map_err(|err| internal(&err))? else {
        return Ok(None);
    };
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|err| internal(&err))
}

// ANCHOR: move_to
/// Moves the task to `next` if its state machine allows it, under its
/// lock, so that two instances (the work, a cancel) never both win:
/// `false` when the move was refused.
pub fn move_to(state: &State, task_id: &str, next: Status) -> Result<bool, RpcError> {
    let _held = state.lock(&file(task_id)).map_err(|err| internal(&err))?;
    let Some(mut task) = get(state, task_id)? else {
        return Err(unknown(task_id));
    };
    if !task.status.may_become(&next) {
        return Ok(false);
    }
    task.status = next;
    task.last_updated_at = humantime::format_rfc3339_millis(SystemTime::now()).to_string();
    store(state, &file(task_id), &task)?;
    Ok(true)
}
// ANCHOR_END: move_to

// ANCHOR: cancel
/// `tasks/cancel`: an unknown id is -32602; a known one gets the empty
/// acknowledgment, whatever its status.
pub fn cancel(state: &State, task_id: &str) -> Result<Value, RpcError> {
    // TODO(ch17/cancel): refuse an unknown task (`get` finds none) with
    // `unknown`. Else move it to `Status::Cancelled` (`move_to`: a
    // terminal task stays as it is, and that is no error) and acknowledge
    // with an empty result. The work sees the status between two steps
    // (`TaskWork`) and stops, writing nothing.
    let _ = (state, task_id, unknown(task_id));
    Ok(json!({}))
    // END(ch17/cancel)
}
// ANCHOR_END: cancel

fn waiting_file(task_id: &str) -> String {
    format!("task-{task_id}.waiting.json")
}

/// Stores what `task_id` waits with, then shows it waiting for `questions`.
pub fn wait(
    state: &State,
    task_id: &str,
    waiting: &Waiting,
    questions: Value,
) -> Result<Task, RpcError> {
    store(state, &waiting_file(task_id), waiting)?;
    let asking = Status::InputRequired {
        input_requests: questions,
    };
    move_to(state, task_id, asking)?;
    get(state, task_id)?.ok_or_else(|| unknown(task_id))
}

// ANCHOR: update
/// `tasks/update`: the answers to the questions `task` has open are kept
/// (`keep`); once none is open, the call runs again. Always the empty ack.
pub fn update(
    state: &State,
    task: &Task,
    responses: &Map<String, Value>,
    rerun: impl FnOnce(Waiting) -> Round,
) -> Result<Value, RpcError> {
    let (id, file) = (&task.task_id, waiting_file(&task.task_id));
    let _held = state.lock(&file).map_err(|err| internal(&err))?;
    let read = state.read(&file).map_err(|err| internal(&err))?;
    let waiting = read.and_then(|text| serde_json::from_str::<Waiting>(&text).ok());
    let (Status::InputRequired { input_requests }, Some(mut waiting)) = (&task.status, waiting)
    else {
        return Ok(json!({})); // Nothing is open: every answer is ignored.
    };
    let answered = waiting.keep(input_requests, responses);
    store(state, &file, &waiting)?;
    if !answered {
        return Ok(json!({})); // A question is still open: it keeps waiting.
    }
    // TODO(ch17/answer): every question has its answer. The task works
    // again (`move_to` `Working`), the call runs again with the answers
    // (`rerun`), and the task moves to where that round ends (`next`):
    // completed with the call's result, failed with its JSON-RPC error,
    // or waiting for new questions. Then the empty ack.
    let _ = (id, waiting, rerun, next);
    Ok(json!({}))
    // END(ch17/answer)
}
// ANCHOR_END: update

/// Where a round leaves its task.
pub fn next(round: Round) -> Status {
    match round {
        Round::Asked(questions) => Status::InputRequired {
            input_requests: questions,
        },
        Round::Done(Ok(result)) => Status::Completed { result },
        Round::Done(Err(error)) => Status::Failed {
            error: json!(error),
        },
    }
}

/// The -32602 of a task nobody knows.
pub fn unknown(task_id: &str) -> RpcError {
    RpcError::invalid_params(format!("no task {task_id:?}: unknown, or expired"))
}

/// Writes `value` as JSON to `name` in the state folder, whole or not at all.
fn store<T: Serialize>(state: &State, name: &str, value: &T) -> Result<(), RpcError> {
    let text = serde_json::to_string(value).unwrap_or_default();
    state.replace(name, &text).map_err(|err| internal(&err))
}

fn internal(err: &dyn std::fmt::Display) -> RpcError {
    RpcError::internal(format!("the task store: {err}"))
}

/// Whether a 2026-07-28 request declares the extension in its own
/// capabilities (`_meta`); nothing else counts, not an earlier request.
pub fn declared(params: Option<&Value>) -> bool {
    let meta = params.and_then(|params| params.get("_meta"));
    let capabilities = meta.and_then(|meta| meta.get("io.modelcontextprotocol/clientCapabilities"));
    capabilities
        .and_then(|capabilities| capabilities["extensions"].get(TASKS))
        .is_some()
}

/// -32021 (2026-07-28's Missing Required Client Capability): the request
/// needs the extension, and did not declare it.
pub fn missing_capability() -> RpcError {
    let required = json!({ "requiredCapabilities": { "extensions": { TASKS: {} } } });
    RpcError::new(-32021, "Missing required client capability".into()).with_data(required)
}

// ANCHOR: work
/// Long work as a task: no client waits on a stream, so progress goes
/// nowhere, and the cancel is the task's status in the state folder,
/// read between two steps.
pub struct TaskWork<'a> {
    pub state: &'a State,
    pub task_id: &'a str,
}

impl Work for TaskWork<'_> {
    fn notify(&mut self, _notification: &Notification) {}

    fn cancelled(&mut self, pause: Duration) -> bool {
        let until = Instant::now() + pause;
        loop {
            let status = get(self.state, self.task_id).ok().flatten();
            if status.is_none_or(|task| task.status == Status::Cancelled) {
                return true;
            }
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            std::thread::sleep(left.min(Duration::from_millis(20)));
        }
    }
}
// ANCHOR_END: work

/// 128 bits from the OS's random source, in hex: a task id that nobody
/// can guess (the extension asks for that), and that names a file safely.
fn new_id() -> io::Result<String> {
    let mut bytes = [0u8; 16];
    File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(bytes.iter().map(|byte| format!("{byte:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::UNIX_EPOCH;

    #[test]
    fn only_the_extensions_moves_are_allowed() {
        let asking = Status::InputRequired {
            input_requests: json!({}),
        };
        let done = Status::Completed { result: json!({}) };
        let failed = Status::Failed { error: json!({}) };
        let open = [Status::Working, asking.clone()];
        let ends = [done.clone(), failed.clone(), Status::Cancelled];
        assert!(Status::Working.may_become(&asking) && asking.may_become(&Status::Working));
        for (from, end) in open
            .iter()
            .flat_map(|from| ends.iter().map(move |end| (from, end)))
        {
            assert!(from.may_become(end), "{from:?} -> {end:?}");
        }
        for from in &ends {
            for next in open.iter().chain(&ends) {
                assert!(!from.may_become(next), "{from:?} -> {next:?}");
            }
        }
        assert!(!Status::Working.may_become(&Status::Working));
        assert!(!asking.may_become(&asking));
    }

    #[test]
    fn a_time_is_written_in_utc() {
        let time = UNIX_EPOCH + Duration::from_millis(1_796_285_700_123);
        let written = humantime::format_rfc3339_millis(time).to_string();
        assert_eq!(written, "2026-12-03T08:15:00.123Z");
    }
}
