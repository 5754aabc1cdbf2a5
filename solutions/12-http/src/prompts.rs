//! Prompts: recipes that the user picks from a menu (a slash command, say).
//! The server fills the user's arguments into ready-made messages and
//! returns them. It runs no model and executes nothing: the host shows the
//! messages and decides what to send.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::jsonrpc::RpcError;
use crate::paging::{self, ListParams};
use crate::resources::Notes;

// ANCHOR: definitions
/// A prompt, as `prompts/list` describes it. The same definitions drive the
/// checks in `prompts/get`, so the menu and the checks cannot disagree.
struct Prompt {
    name: &'static str,
    title: &'static str,
    description: &'static str,
    arguments: &'static [Argument],
}

/// One argument of a prompt. Its value is always a string.
struct Argument {
    name: &'static str,
    description: &'static str,
    required: bool,
}

const PROMPTS: [Prompt; 2] = [
    Prompt {
        name: "explain_note",
        title: "Explain a note",
        description: "Explains one of the built-in engineering notes, with an example, \
                      to the audience you name.",
        arguments: &[
            Argument {
                name: "key",
                description: "The key of a built-in note, such as backoff",
                required: true,
            },
            Argument {
                name: "audience",
                description: "Who the explanation is for (a new team member if not given)",
                required: false,
            },
        ],
    },
    Prompt {
        name: "incident_review",
        title: "Review an incident",
        description: "Starts a blameless incident review: questions one at a time, \
                      then a summary.",
        arguments: &[
            Argument {
                name: "service",
                description: "The service that had the incident, such as checkout",
                required: true,
            },
            Argument {
                name: "symptom",
                description: "What users saw, such as slow payments",
                required: true,
            },
        ],
    },
];
// ANCHOR_END: definitions

// ANCHOR: list
pub fn list(params: Option<Value>) -> Result<Value, RpcError> {
    let ListParams { cursor } = paging::list_params(params)?;
    let names: Vec<&str> = PROMPTS.iter().map(|prompt| prompt.name).collect();
    let (range, next_cursor) = paging::page(&names, cursor.as_deref())?;
    let prompts: Vec<Value> = PROMPTS[range].iter().map(Prompt::to_json).collect();
    let mut result = json!({ "prompts": prompts });
    if let Some(next_cursor) = next_cursor {
        result["nextCursor"] = next_cursor.into();
    }
    Ok(result)
}

impl Prompt {
    /// The `Prompt` object of `prompts/list`.
    fn to_json(&self) -> Value {
        let arguments: Vec<Value> = self
            .arguments
            .iter()
            .map(|argument| {
                json!({
                    "name": argument.name,
                    "description": argument.description,
                    "required": argument.required,
                })
            })
            .collect();
        json!({
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "arguments": arguments,
        })
    }

    /// "key (required) and audience", for error messages.
    fn takes(&self) -> String {
        let mut names: Vec<String> = self
            .arguments
            .iter()
            .map(|argument| {
                if argument.required {
                    format!("{} (required)", argument.name)
                } else {
                    argument.name.to_string()
                }
            })
            .collect();
        let last = names.pop().unwrap_or_default();
        if names.is_empty() {
            last
        } else {
            format!("{} and {last}", names.join(", "))
        }
    }
}
// ANCHOR_END: list

// ANCHOR: get
#[derive(Deserialize)]
struct GetParams {
    name: String,
    #[serde(default)]
    arguments: Map<String, Value>,
}

pub fn get(params: Option<Value>, notes: &Notes) -> Result<Value, RpcError> {
    let params = params.ok_or_else(|| RpcError::invalid_params("prompts/get needs a name"))?;
    let GetParams { name, arguments } =
        serde_json::from_value(params).map_err(RpcError::invalid_params)?;
    let Some(prompt) = PROMPTS.iter().find(|prompt| prompt.name == name) else {
        let names: Vec<&str> = PROMPTS.iter().map(|prompt| prompt.name).collect();
        return Err(RpcError::invalid_params(format!(
            "unknown prompt \"{name}\"; prompts/list shows the prompts: {}",
            names.join(", ")
        )));
    };
    let arguments = check_arguments(prompt, &arguments)?;
    let (description, messages) = match prompt.name {
        "explain_note" => explain_note(&arguments, notes)?,
        _ => incident_review(&arguments),
    };
    Ok(json!({ "description": description, "messages": messages }))
}

/// Checks the arguments against the prompt's definition: every name known,
/// every value a string, every required one given and not blank.
fn check_arguments<'a>(
    prompt: &Prompt,
    given: &'a Map<String, Value>,
) -> Result<BTreeMap<&'a str, &'a str>, RpcError> {
    let mut values = BTreeMap::new();
    for (name, value) in given {
        if !prompt
            .arguments
            .iter()
            .any(|argument| argument.name == name)
        {
            return Err(RpcError::invalid_params(format!(
                "unknown argument \"{name}\" for prompt {}; it takes {}",
                prompt.name,
                prompt.takes()
            )));
        }
        let Value::String(value) = value else {
            return Err(RpcError::invalid_params(format!(
                "argument \"{name}\" of prompt {} must be a string, not {value}; \
                 prompt arguments are always strings",
                prompt.name
            )));
        };
        values.insert(name.as_str(), value.as_str());
    }
    for argument in prompt.arguments.iter().filter(|argument| argument.required) {
        if values
            .get(argument.name)
            .is_none_or(|value| value.trim().is_empty())
        {
            return Err(RpcError::invalid_params(format!(
                "prompt {} needs the argument \"{}\" ({})",
                prompt.name, argument.name, argument.description
            )));
        }
    }
    Ok(values)
}
// ANCHOR_END: get

// ANCHOR: explain_note
/// A prompt filled in: a description, and the messages. Each message is a
/// role and ONE content block, so two blocks make two messages.
type Filled = (String, Vec<Value>);

fn explain_note(arguments: &BTreeMap<&str, &str>, notes: &Notes) -> Result<Filled, RpcError> {
    let key = arguments.get("key").copied().unwrap_or_default();
    let audience = match arguments.get("audience") {
        Some(audience) if !audience.trim().is_empty() => audience,
        _ => "a new team member",
    };
    let request = format!(
        "Explain the note above to {audience}: what it asks us to do, why, \
         and one example from a real system. Keep it under 150 words."
    );
    let messages = vec![
        json!({ "role": "user", "content": embed_note(key, notes)? }),
        json!({ "role": "user", "content": { "type": "text", "text": request } }),
    ];
    Ok((format!("Explain note://{key} to {audience}"), messages))
}

/// The note with this key, as an embedded resource content block.
fn embed_note(key: &str, notes: &Notes) -> Result<Value, RpcError> {
    let uri = format!("note://{key}");
    let read = notes.read(Some(json!({ "uri": uri }))).map_err(|_| {
        RpcError::invalid_params(format!(
            "no built-in note has the key \"{key}\"; resources/list shows the notes \
             (note://backoff has the key backoff)"
        ))
    })?;
    Ok(json!({ "type": "resource", "resource": read["contents"][0] }))
}
// ANCHOR_END: explain_note

// ANCHOR: incident_review
fn incident_review(arguments: &BTreeMap<&str, &str>) -> Filled {
    let service = arguments.get("service").copied().unwrap_or_default();
    let symptom = arguments.get("symptom").copied().unwrap_or_default();
    // The user's words go into the text as they are: whatever they say, they
    // are data for the model to read, and this server acts on none of it.
    let request = format!(
        "We are reviewing an incident in {service}. What users saw: {symptom}\n\
         Ask me one question at a time about what happened and when. Then write \
         a blameless summary with three headings: Impact, Timeline, Changes."
    );
    // An assistant message puts words in the model's mouth: the review
    // starts with the first question already asked.
    let first_question = "First question: when did the first user notice, and how did we find out?";
    let messages = vec![
        json!({ "role": "user", "content": { "type": "text", "text": request } }),
        json!({ "role": "assistant", "content": { "type": "text", "text": first_question } }),
    ];
    (format!("Incident review for {service}"), messages)
}
// ANCHOR_END: incident_review
