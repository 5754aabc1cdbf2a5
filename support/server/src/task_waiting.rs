//! Chapter 17's given code: a call that waits for its user as a task.
//! What the task keeps beside it in the state folder (`Waiting`: the call,
//! what the client can answer, the answers so far), how one round of the
//! call runs with those answers (as chapter 14's rounds ask), and which of
//! the answers a `tasks/update` brings are kept. The chapter's `tasks.rs`
//! stores it and moves the task.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::ask::{Ask, InputRequest, Stop};
use crate::asking::{self, declares, outcome};
use crate::jsonrpc::RpcError;

/// What a task that waits for its user keeps beside it: the call, to run
/// again once answered; what its request said the client can answer; the
/// answers so far, by key. Chapter 14's client carried this in a sealed
/// `requestState`; a task keeps it in the state folder, so the answer may
/// come hours later, to any instance.
#[derive(Serialize, Deserialize, Default, Clone)]
pub struct Waiting {
    pub name: String,
    pub arguments: Map<String, Value>,
    pub capabilities: Map<String, Value>,
    pub answers: Map<String, Value>,
    /// What the round being run asks that has no answer yet.
    #[serde(skip)]
    questions: Map<String, Value>,
}

/// How one round of a waiting call ends: it asks (questions by key), or
/// it is done.
pub enum Round {
    Asked(Value),
    Done(Result<Value, RpcError>),
}

impl Waiting {
    /// Keeps each response whose key is a question still open (asked, and not
    /// answered yet: a question is answered once); the others are ignored, as
    /// the extension asks. Whether every question now has its answer.
    pub fn keep(&mut self, asked: &Value, responses: &Map<String, Value>) -> bool {
        let asked = asked.as_object().cloned().unwrap_or_default();
        for (key, response) in responses {
            if asked.contains_key(key) && !self.answers.contains_key(key) {
                self.answers.insert(key.clone(), response.clone());
            }
        }
        asked.keys().all(|key| self.answers.contains_key(key))
    }

    /// A call of `name` before its first round: no answer yet.
    pub fn new(name: &str, arguments: &Map<String, Value>, params: Option<&Value>) -> Waiting {
        let params = params
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        Waiting {
            name: name.to_string(),
            arguments: arguments.clone(),
            capabilities: asking::client_capabilities(&params),
            ..Waiting::default()
        }
    }

    /// Runs the call once with the answers it has.
    pub fn round(mut self, tool: impl FnOnce(&mut dyn Ask) -> Result<Value, Stop>) -> Round {
        match tool(&mut self) {
            Err(Stop::Input) => Round::Asked(Value::Object(self.questions)),
            done => Round::Done(outcome(done)),
        }
    }
}

/// As chapter 14's rounds ask: every answer here, or every question not.
impl Ask for Waiting {
    fn can(&self, capability: &str) -> bool {
        declares(&self.capabilities, capability)
    }

    fn ask_each(&mut self, requests: Vec<(&str, InputRequest)>) -> Result<Vec<Value>, Stop> {
        let mut found = Vec::new();
        for (key, request) in requests {
            if !self.can(request.capability()) {
                let needed = asking::missing_capability(request.capability());
                return Err(Stop::Error(needed));
            }
            match self.answers.get(key) {
                Some(answer) => found.push(answer.clone()),
                None => drop(self.questions.insert(key.to_string(), request.to_json())),
            }
        }
        if self.questions.is_empty() {
            Ok(found)
        } else {
            Err(Stop::Input)
        }
    }
}
