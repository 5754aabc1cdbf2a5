//! The conformance fixtures chapter 14 adds to chapter 13's: the suite's
//! tools (and one prompt) that need an elicitation, a sampling or the
//! roots, and one tool whose input schema uses JSON Schema 2020-12.
//!
//! Each is written once against chapter 14's `Ask`, exactly as
//! `publish_draft` is: it asks through `ask`/`ask_each` and reads the
//! answer, never knowing how the question travelled. In 2026-07-28 the
//! chapter's `Rounds` turns a question into an input-required result and
//! finds the answer in the retry; in 2025-11-25 the transport's asker
//! sends a request of the server's own. So when the suite passes, it is
//! the chapter's machinery that passed, not a second implementation.
//!
//! The names, keys, messages and schemas are the ones the suite's
//! scenarios describe (`tools-call-sampling`, `tools-call-elicitation`,
//! `elicitation-sep1034-defaults`, `elicitation-sep1330-enums`, and the
//! `input-required-result-*` scenarios of 2026-07-28).

use serde_json::{Map, Value, json};

use crate::ask::{Ask, InputRequest, Stop, ask};
use crate::jsonrpc::RpcError;

/// The tools here, for `our_tool`.
const TOOLS: [&str; 13] = [
    "json_schema_2020_12_tool",
    "test_sampling",
    "test_elicitation",
    "test_elicitation_sep1034_defaults",
    "test_elicitation_sep1330_enums",
    "test_input_required_result_elicitation",
    "test_input_required_result_sampling",
    "test_input_required_result_list_roots",
    "test_input_required_result_request_state",
    "test_input_required_result_multiple_inputs",
    "test_input_required_result_multi_round",
    "test_input_required_result_tampered_state",
    "test_input_required_result_capabilities",
];

/// The one prompt that asks (`input-required-result-non-tool-request`).
pub const PROMPT: &str = "test_input_required_result_prompt";

/// Whether a request is for one of the fixtures here: its method and the
/// tool's or prompt's name.
pub fn ours(method: &str, params: Option<&Value>) -> Option<String> {
    let name = params?.get("name")?.as_str()?;
    let known = match method {
        "tools/call" => TOOLS.contains(&name),
        "prompts/get" => name == PROMPT,
        _ => false,
    };
    known.then(|| name.to_string())
}

/// The definitions `tools/list` adds to chapter 13's fixtures.
pub fn tools() -> Vec<Value> {
    let no_arguments = json!({ "type": "object", "properties": {} });
    let one_string = |name: &str, description: &str| {
        json!({ "type": "object",
                "properties": { name: { "type": "string", "description": description } },
                "required": [name] })
    };
    let described = [
        (
            "json_schema_2020_12_tool",
            "Tool with JSON Schema 2020-12 features",
        ),
        (
            "test_sampling",
            "Asks the client's model to answer a prompt",
        ),
        ("test_elicitation", "Asks the user for a name and an email"),
        (
            "test_elicitation_sep1034_defaults",
            "Asks with a form whose fields have defaults",
        ),
        (
            "test_elicitation_sep1330_enums",
            "Asks with a form of every kind of enum",
        ),
        (
            "test_input_required_result_elicitation",
            "Asks the user's name",
        ),
        (
            "test_input_required_result_sampling",
            "Asks the client's model a question",
        ),
        (
            "test_input_required_result_list_roots",
            "Asks for the client's roots",
        ),
        (
            "test_input_required_result_request_state",
            "Asks for a confirmation, carrying a requestState",
        ),
        (
            "test_input_required_result_multiple_inputs",
            "Asks three questions at once",
        ),
        (
            "test_input_required_result_multi_round",
            "Asks two questions, one round each",
        ),
        (
            "test_input_required_result_tampered_state",
            "Asks for a confirmation; refuses a changed requestState",
        ),
        (
            "test_input_required_result_capabilities",
            "Asks only what the client declared it can answer",
        ),
    ];
    described
        .into_iter()
        .map(|(name, description)| {
            let schema = match name {
                "test_sampling" => one_string("prompt", "The prompt for the model"),
                "test_elicitation" => one_string("message", "The message to show the user"),
                "json_schema_2020_12_tool" => schema_2020_12(),
                _ => no_arguments.clone(),
            };
            json!({ "name": name, "description": description, "inputSchema": schema })
        })
        .collect()
}

/// The suite's `json-schema-2020-12` scenario checks that a listing keeps
/// every keyword of a JSON Schema 2020-12 (the default dialect of tool
/// schemas since 2025-11-25): `$schema`, `$defs` with an `$anchor`,
/// composition, conditionals, `additionalProperties`. A server that passes
/// schemas through as JSON values, as chapter 12's does, keeps them all.
fn schema_2020_12() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": { "address": { "$anchor": "addressDef", "type": "object",
            "properties": { "street": { "type": "string" }, "city": { "type": "string" } } } },
        "properties": {
            "name": { "type": "string" },
            "address": { "$ref": "#/$defs/address" },
            "contactMethod": { "type": "string", "enum": ["phone", "email"] },
            "phone": { "type": "string" },
            "email": { "type": "string" },
        },
        "allOf": [{ "anyOf": [{ "required": ["phone"] }, { "required": ["email"] }] }],
        "if": { "properties": { "contactMethod": { "const": "phone" } }, "required": ["contactMethod"] },
        "then": { "required": ["phone"] },
        "else": { "required": ["email"] },
        "additionalProperties": false,
    })
}

/// The definition `prompts/list` adds.
pub fn prompt_definition() -> Value {
    json!({ "name": PROMPT, "description": "A prompt that asks the user for its context" })
}

/// Runs the tool `name` (one of `TOOLS`).
pub fn call(
    name: &str,
    arguments: &Map<String, Value>,
    asker: &mut dyn Ask,
) -> Result<Value, Stop> {
    match name {
        "json_schema_2020_12_tool" => Ok(text("ok")),
        "test_sampling" => sampling(arguments, asker),
        "test_elicitation" => elicitation(arguments, asker),
        "test_elicitation_sep1034_defaults" => form_outcome(asker, defaults_form()),
        "test_elicitation_sep1330_enums" => form_outcome(asker, enums_form()),
        "test_input_required_result_sampling" => {
            let question = sample_request("What is the capital of France?", 100);
            let answer = ask(asker, "capital_question", question)?;
            Ok(text(&format!(
                "The model said: {}",
                completion_text(&answer)?
            )))
        }
        "test_input_required_result_list_roots" => {
            let answer = ask(asker, "client_roots", InputRequest::roots())?;
            Ok(text(&format!("Roots: {}", root_uris(&answer)?)))
        }
        "test_input_required_result_request_state" => {
            confirm(asker)?;
            Ok(text(
                "state-ok: the requestState came back sealed and unchanged",
            ))
        }
        "test_input_required_result_tampered_state" => {
            confirm(asker)?;
            Ok(text("Confirmed, with a requestState this server sealed"))
        }
        "test_input_required_result_multiple_inputs" => multiple_inputs(asker),
        "test_input_required_result_multi_round" => multi_round(asker),
        "test_input_required_result_capabilities" => capabilities(asker),
        // test_input_required_result_elicitation, which validate-input and
        // ignore-extra-params also call, with odd answers.
        _ => {
            let name = user_name(asker)?;
            Ok(text(&format!("Hello, {name}!")))
        }
    }
}

/// `prompts/get` of `PROMPT`: the user's context, in the prompt's message.
pub fn prompt(asker: &mut dyn Ask) -> Result<Value, Stop> {
    let request = InputRequest::elicit(
        "What context should the prompt use?",
        string_form("context"),
    );
    let answer = accepted(ask(asker, "user_context", request)?)?;
    let context = field(&answer, "context")?;
    Ok(json!({
        "description": "A prompt built from the user's answer",
        "messages": [{ "role": "user", "content": {
            "type": "text", "text": format!("Explain this, given the context: {context}") } }],
    }))
}

// ---- 2025-11-25 (server requests on the response stream) -------------------

/// `tools-call-sampling`: the prompt from the arguments, to the client's model.
fn sampling(arguments: &Map<String, Value>, asker: &mut dyn Ask) -> Result<Value, Stop> {
    let prompt = string_argument(arguments, "prompt")?;
    if !asker.can("sampling") {
        return Err(Stop::Refused(
            "The client cannot sample: it did not declare sampling".into(),
        ));
    }
    let answer = ask(asker, "sampling", sample_request(prompt, 100))?;
    Ok(text(&format!(
        "LLM response: {}",
        completion_text(&answer)?
    )))
}

/// `tools-call-elicitation`: a username and an email, from the user.
fn elicitation(arguments: &Map<String, Value>, asker: &mut dyn Ask) -> Result<Value, Stop> {
    let message = string_argument(arguments, "message")?;
    let schema = json!({
        "type": "object",
        "properties": {
            "username": { "type": "string", "description": "User's response" },
            "email": { "type": "string", "description": "User's email address" },
        },
        "required": ["username", "email"],
    });
    if !asker.can("elicitation") {
        return Err(Stop::Refused(
            "The client cannot elicit: it did not declare elicitation".into(),
        ));
    }
    let answer = ask(asker, "elicitation", InputRequest::elicit(message, schema))?;
    Ok(text(&format!(
        "User response: action={}, content={}",
        answer["action"].as_str().unwrap_or("none"),
        answer.get("content").cloned().unwrap_or(json!({}))
    )))
}

/// SEP-1034: every primitive type, each with a default the client may show.
fn defaults_form() -> Value {
    json!({
        "type": "object",
        "properties": {
            "name": { "type": "string", "default": "John Doe" },
            "age": { "type": "integer", "default": 30 },
            "score": { "type": "number", "default": 95.5 },
            "status": { "type": "string", "enum": ["active", "inactive", "pending"], "default": "active" },
            "verified": { "type": "boolean", "default": true },
        },
    })
}

/// SEP-1330: the five ways a form offers choices.
fn enums_form() -> Value {
    let titled = |prefix: &str, titles: [&str; 3]| -> Vec<Value> {
        titles
            .iter()
            .enumerate()
            .map(|(at, title)| json!({ "const": format!("{prefix}{}", at + 1), "title": title }))
            .collect()
    };
    json!({
        "type": "object",
        "properties": {
            "untitledSingle": { "type": "string", "enum": ["option1", "option2", "option3"] },
            "titledSingle": { "type": "string",
                "oneOf": titled("value", ["First Option", "Second Option", "Third Option"]) },
            "legacyEnum": { "type": "string", "enum": ["opt1", "opt2", "opt3"],
                "enumNames": ["Option One", "Option Two", "Option Three"] },
            "untitledMulti": { "type": "array",
                "items": { "type": "string", "enum": ["option1", "option2", "option3"] } },
            "titledMulti": { "type": "array",
                "items": { "anyOf": titled("value", ["First Choice", "Second Choice", "Third Choice"]) } },
        },
    })
}

/// Shows a form and says what came back, whatever the user chose.
fn form_outcome(asker: &mut dyn Ask, schema: Value) -> Result<Value, Stop> {
    if !asker.can("elicitation") {
        return Err(Stop::Refused(
            "The client cannot elicit: it did not declare elicitation".into(),
        ));
    }
    let request = InputRequest::elicit("Please review and update the form fields", schema);
    let answer = ask(asker, "form", request)?;
    Ok(text(&format!(
        "Elicitation completed: action={}, content={}",
        answer["action"].as_str().unwrap_or("none"),
        answer.get("content").cloned().unwrap_or(json!({}))
    )))
}

// ---- 2026-07-28 (input-required results) -----------------------------------

/// `user_name`: the question of `input-required-result-basic-elicitation`.
fn user_name(asker: &mut dyn Ask) -> Result<String, Stop> {
    let request = InputRequest::elicit("What is your name?", string_form("name"));
    let answer = accepted(ask(asker, "user_name", request)?)?;
    Ok(field(&answer, "name")?.to_string())
}

/// `confirm`: the question of the request-state and tampered-state scenarios.
fn confirm(asker: &mut dyn Ask) -> Result<(), Stop> {
    let schema = json!({ "type": "object", "properties": { "ok": { "type": "boolean" } },
                         "required": ["ok"] });
    let answer = accepted(ask(
        asker,
        "confirm",
        InputRequest::elicit("Please confirm", schema),
    )?)?;
    match answer["content"]["ok"] {
        Value::Bool(true) => Ok(()),
        Value::Bool(false) => Err(Stop::Refused("Not confirmed: nothing done".into())),
        _ => Err(bad_answer("content.ok must be a boolean")),
    }
}

/// Three questions in one input-required result, one of each kind.
fn multiple_inputs(asker: &mut dyn Ask) -> Result<Value, Stop> {
    let requests = vec![
        (
            "user_name",
            InputRequest::elicit("What is your name?", string_form("name")),
        ),
        ("greeting", sample_request("Generate a greeting", 50)),
        ("client_roots", InputRequest::roots()),
    ];
    let answers = asker.ask_each(requests)?;
    let [name, greeting, roots] = answers.as_slice() else {
        return Err(bad_answer("three questions need three answers"));
    };
    let name = field(&accepted(name.clone())?, "name")?.to_string();
    Ok(text(&format!(
        "Hello, {name}! The model offers: {}; the roots are {}",
        completion_text(greeting)?,
        root_uris(roots)?
    )))
}

/// Two questions, the second asked only once the first is answered: a
/// round each, the answers so far carried in the sealed state.
fn multi_round(asker: &mut dyn Ask) -> Result<Value, Stop> {
    let step1 = InputRequest::elicit("Step 1: What is your name?", string_form("name"));
    let name = field(&accepted(ask(asker, "step1", step1)?)?, "name")?.to_string();
    let step2 = InputRequest::elicit("Step 2: What is your favorite color?", string_form("color"));
    let color = field(&accepted(ask(asker, "step2", step2)?)?, "color")?.to_string();
    Ok(text(&format!("{name} likes {color}")))
}

/// Asks only what the request's capabilities say the client can answer:
/// here sampling, and the user only if it can elicit.
fn capabilities(asker: &mut dyn Ask) -> Result<Value, Stop> {
    let mut requests = Vec::new();
    if asker.can("sampling") {
        requests.push((
            "summary",
            sample_request("Summarize the weather in one word", 20),
        ));
    }
    if asker.can("elicitation") {
        requests.push((
            "user_name",
            InputRequest::elicit("What is your name?", string_form("name")),
        ));
    }
    if requests.is_empty() {
        return Ok(text(
            "The client can answer nothing this tool asks; nothing asked",
        ));
    }
    let answers = asker.ask_each(requests)?;
    Ok(text(&format!("{} answers received", answers.len())))
}

// ---- Small pieces -----------------------------------------------------------

/// A form with one required string field.
fn string_form(name: &str) -> Value {
    json!({ "type": "object", "properties": { name: { "type": "string" } }, "required": [name] })
}

/// A sampling request: one user message.
fn sample_request(prompt: &str, max_tokens: u64) -> InputRequest {
    InputRequest::sample(json!({
        "messages": [{ "role": "user", "content": { "type": "text", "text": prompt } }],
        "maxTokens": max_tokens,
    }))
}

fn text(text: &str) -> Value {
    json!({ "content": [{ "type": "text", "text": text }] })
}

/// An elicitation answer the user accepted; declining or dismissing the
/// form ends the tool, and nothing is assumed.
fn accepted(answer: Value) -> Result<Value, Stop> {
    match answer["action"].as_str() {
        Some("accept") => Ok(answer),
        Some(action @ ("decline" | "cancel")) => Err(Stop::Refused(format!(
            "The user chose {action}: nothing done"
        ))),
        _ => Err(bad_answer(
            "an elicitation result needs action accept, decline or cancel",
        )),
    }
}

/// A string field of an accepted form.
fn field<'a>(answer: &'a Value, name: &str) -> Result<&'a str, Stop> {
    answer["content"][name]
        .as_str()
        .ok_or_else(|| bad_answer(&format!("content.{name} must be a string")))
}

/// The text of a sampling result (one block, or the first of a list).
fn completion_text(answer: &Value) -> Result<String, Stop> {
    let block = match &answer["content"] {
        Value::Array(blocks) => blocks.first().cloned().unwrap_or_default(),
        block => block.clone(),
    };
    block["text"]
        .as_str()
        .map(String::from)
        .ok_or_else(|| bad_answer("a sampling result needs text content"))
}

/// The URIs of a `roots/list` result, joined.
fn root_uris(answer: &Value) -> Result<String, Stop> {
    let roots = answer["roots"]
        .as_array()
        .ok_or_else(|| bad_answer("a roots/list result needs roots"))?;
    let uris: Vec<&str> = roots
        .iter()
        .filter_map(|root| root["uri"].as_str())
        .collect();
    Ok(uris.join(", "))
}

fn string_argument<'a>(arguments: &'a Map<String, Value>, name: &str) -> Result<&'a str, Stop> {
    arguments.get(name).and_then(Value::as_str).ok_or_else(|| {
        Stop::Error(RpcError::invalid_params(format!(
            "missing argument {name:?}"
        )))
    })
}

/// An answer without the shape asked for: the client's fault, -32602.
fn bad_answer(problem: &str) -> Stop {
    Stop::Error(RpcError::invalid_params(format!(
        "the client's answer: {problem}"
    )))
}
