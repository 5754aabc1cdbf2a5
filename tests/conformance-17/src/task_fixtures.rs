//! The conformance suite's task fixtures (its `tasks-*` scenarios), on
//! chapter 17's `tasks.rs` compiled as it is: the same store, the same
//! state machine, the same `tasks/get` and `tasks/cancel`. What the chapter
//! has no tool for is here: a task that waits for the client's input
//! (`confirm_delete`, `multi_input`), a tool error, a protocol error. The
//! answers a task waits for are kept in memory: the suite talks to one
//! instance.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

use crate::jsonrpc::RpcError;
use crate::modern;
use crate::tasks::{self, Status};
use wire_server::state::State;

/// The fixtures' names: `greet` is never a task; `failing_job` only ever is.
const TASK_TOOLS: [&str; 7] = [
    "test_tool_with_task",
    "greet",
    "slow_compute",
    "failing_job",
    "protocol_error_job",
    "confirm_delete",
    "multi_input",
];

/// The answers each waiting task has had, by task id and request key.
type Answers = Arc<Mutex<HashMap<String, Map<String, Value>>>>;

pub struct TaskFixtures {
    pub state: Arc<State>,
    pub answers: Answers,
}

pub fn definitions() -> Vec<Value> {
    let schema = |properties: Value| json!({ "type": "object", "properties": properties });
    let support = |name: &str| match name {
        "greet" => "forbidden",
        "failing_job" | "test_tool_with_task" => "required",
        _ => "optional",
    };
    TASK_TOOLS
        .iter()
        .map(|name| {
            let properties = match *name {
                "greet" => json!({ "name": { "type": "string" } }),
                "slow_compute" => {
                    json!({ "seconds": { "type": "number" }, "label": { "type": "string" } })
                }
                _ => json!({}),
            };
            json!({ "name": name, "description": format!("The suite's {name} fixture"),
                "inputSchema": schema(properties), "execution": { "taskSupport": support(name) } })
        })
        .collect()
}

impl TaskFixtures {
    /// The answer to a request these fixtures serve, or `None`.
    pub fn request(&self, method: &str, params: Option<&Value>) -> Option<Result<Value, RpcError>> {
        let name = params.and_then(|params| params["name"].as_str());
        match (method, name) {
            ("tools/call", Some("test_tool_with_task")) => None, // main.rs: its round first
            ("tools/call", Some(name)) if TASK_TOOLS.contains(&name) => {
                Some(self.call(name, params))
            }
            ("tasks/get" | "tasks/update" | "tasks/cancel", _) => Some(self.task(method, params)),
            _ => None,
        }
    }

    fn call(&self, name: &str, params: Option<&Value>) -> Result<Value, RpcError> {
        modern::check_meta(params)?;
        let arguments = params
            .map(|params| params["arguments"].clone())
            .unwrap_or_default();
        if name == "greet" {
            let who = arguments["name"].as_str().unwrap_or("world");
            return Ok(complete(done(&format!("Hello, {who}!"))));
        }
        if !tasks::declared(params) {
            return match name {
                "failing_job" => Err(tasks::missing_capability()),
                // Without the extension, the work runs while the call waits.
                _ => Ok(complete(work(name, &arguments, None)?)),
            };
        }
        let task = tasks::create(&self.state)?;
        let (state, answers, task_id) = (
            Arc::clone(&self.state),
            Arc::clone(&self.answers),
            task.task_id.clone(),
        );
        let name = name.to_string();
        std::thread::spawn(move || {
            let waiting = Waiting {
                state: &state,
                answers: &answers,
                task_id: &task_id,
            };
            let next = match work(&name, &arguments, Some(&waiting)) {
                Ok(result) => Status::Completed { result },
                Err(error) if error_code(&error) == 0 => return, // cancelled
                Err(error) => Status::Failed {
                    error: json!(error),
                },
            };
            let _ = tasks::move_to(&state, &task_id, next);
        });
        Ok(task.frame("task"))
    }

    /// A task whose work is already decided (`test_tool_with_task`, after
    /// its input-required round): it completes with `text` a moment later.
    pub fn start_with(&self, text: String) -> Result<Value, RpcError> {
        let task = tasks::create(&self.state)?;
        let (state, task_id) = (Arc::clone(&self.state), task.task_id.clone());
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            let _ = tasks::move_to(
                &state,
                &task_id,
                Status::Completed {
                    result: done(&text),
                },
            );
        });
        Ok(task.frame("task"))
    }

    fn task(&self, method: &str, params: Option<&Value>) -> Result<Value, RpcError> {
        modern::check_meta(params)?;
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
            (_, Some(task)) => self.update(task, params)?,
        };
        Ok(complete(ack))
    }

    /// `tasks/update`: the answers to requests still open are kept; the
    /// others ignored. With none left open, the task works again.
    fn update(&self, task: tasks::Task, params: Option<&Value>) -> Result<Value, RpcError> {
        let Status::InputRequired { input_requests } = &task.status else {
            return Ok(json!({}));
        };
        let responses = params.and_then(|params| params["inputResponses"].as_object());
        let mut open = input_requests.as_object().cloned().unwrap_or_default();
        let mut answers = self
            .answers
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let kept = answers.entry(task.task_id.clone()).or_default();
        for (key, response) in responses.into_iter().flatten() {
            if open.remove(key).is_some() {
                kept.insert(key.clone(), response.clone());
            }
        }
        drop(answers);
        let task_id = &task.task_id;
        if open.len() < input_requests.as_object().map_or(0, Map::len) {
            // The course's state machine has no move from a status to
            // itself: the fewer questions go through working.
            tasks::move_to(&self.state, task_id, Status::Working)?;
            if !open.is_empty() {
                let next = Status::InputRequired {
                    input_requests: Value::Object(open),
                };
                tasks::move_to(&self.state, task_id, next)?;
            }
        }
        Ok(json!({}))
    }
}

/// A task's way to ask and to hear its cancel.
struct Waiting<'a> {
    state: &'a State,
    answers: &'a Answers,
    task_id: &'a str,
}

impl Waiting<'_> {
    fn cancelled(&self) -> bool {
        let task = tasks::get(self.state, self.task_id).ok().flatten();
        task.is_none_or(|task| task.status == Status::Cancelled)
    }

    /// Asks `questions` (key to request) and waits for every answer.
    fn ask(&self, questions: Value) -> Result<Map<String, Value>, RpcError> {
        let next = Status::InputRequired {
            input_requests: questions.clone(),
        };
        tasks::move_to(self.state, self.task_id, next)?;
        let keys: Vec<&String> = questions
            .as_object()
            .map(|q| q.keys().collect())
            .unwrap_or_default();
        let until = Instant::now() + Duration::from_secs(60);
        while Instant::now() < until && !self.cancelled() {
            let answers = self
                .answers
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            let got = answers.get(self.task_id).cloned().unwrap_or_default();
            drop(answers);
            if keys.iter().all(|key| got.contains_key(*key)) {
                return Ok(got);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Err(stopped())
    }

    fn sleep(&self, pause: Duration) -> Result<(), RpcError> {
        let until = Instant::now() + pause;
        while Instant::now() < until {
            if self.cancelled() {
                return Err(stopped());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(())
    }
}

/// The marker of a task that stopped because it was cancelled: code 0.
fn stopped() -> RpcError {
    RpcError::new(0, "cancelled".into())
}

fn error_code(error: &RpcError) -> i64 {
    modern::code(error)
}

/// One fixture's work; `waiting` is `None` when no task carries it.
fn work(name: &str, arguments: &Value, waiting: Option<&Waiting>) -> Result<Value, RpcError> {
    let pause = |seconds: f64| match waiting {
        Some(waiting) => waiting.sleep(Duration::from_secs_f64(seconds)),
        None => {
            std::thread::sleep(Duration::from_secs_f64(seconds));
            Ok(())
        }
    };
    match name {
        "slow_compute" => {
            let seconds = arguments["seconds"]
                .as_f64()
                .unwrap_or(1.0)
                .clamp(0.0, 30.0);
            pause(seconds)?;
            let label = arguments["label"].as_str().unwrap_or("slow_compute");
            Ok(done(&format!("{label}: computed after {seconds} s")))
        }
        "failing_job" => {
            pause(1.0)?;
            let mut result = done("The job failed: no such input");
            result["isError"] = true.into();
            Ok(result)
        }
        "protocol_error_job" => {
            pause(0.2)?;
            Err(RpcError::new(
                -32603,
                "Internal error: the job's handler panicked".into(),
            ))
        }
        _ => ask_and_finish(name, waiting),
    }
}

fn ask_and_finish(name: &str, waiting: Option<&Waiting>) -> Result<Value, RpcError> {
    let Some(waiting) = waiting else {
        return Ok(done("Nothing asked: this call is no task"));
    };
    let question = |key: &str, message: &str| {
        json!({ key: { "method": "elicitation/create", "params": { "mode": "form",
            "message": message, "requestedSchema": { "type": "object",
            "properties": { "confirm": { "type": "boolean" }, "name": { "type": "string" } } } } } })
    };
    let mut questions = question(&format!("{}-confirm", waiting.task_id), "Delete the file?");
    if name == "multi_input" {
        let second = question(&format!("{}-name", waiting.task_id), "Your name?");
        if let (Some(first), Some(second)) = (questions.as_object_mut(), second.as_object()) {
            first.extend(second.clone());
        }
    }
    let answers = waiting.ask(questions)?;
    Ok(done(&format!("Answered: {}", Value::Object(answers))))
}

fn done(text: &str) -> Value {
    json!({ "content": [{ "type": "text", "text": text }], "isError": false })
}

fn complete(result: Value) -> Value {
    modern::complete("tools/call", result)
}
