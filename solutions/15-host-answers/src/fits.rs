//! The stretch `ch15/fits-form` (`main.rs` declares it, `route.rs` calls it).

// STRETCH(ch15/fits-form): `until_it_fits`: an accepted form whose content
// does not fit its `requestedSchema` is not sent; the user is told why and
// asked again, three times in all at most (`ASKS`), then it is declined.
// `misfit` says why: a required field missing, a value of the wrong type,
// not one of the listed choices, or outside its bounds.
use serde_json::{Value, json};
use wire_host::ask::Answers;

/// How many times the user is asked in all (the course's choice).
const ASKS: usize = 3;

pub fn until_it_fits(
    answers: &Answers,
    server: &str,
    params: &Value,
    mut answer: (Value, &'static str),
) -> (Value, &'static str) {
    for asked in 1..=ASKS {
        let why = match answer.0["action"].as_str() {
            Some("accept") => misfit(&params["requestedSchema"], &answer.0["content"]),
            _ => None,
        };
        let Some(why) = why else { return answer };
        println!("  elicitation from {server}: the answer does not fit the form: {why}");
        if asked < ASKS {
            answer = answers.elicit(server, params);
        }
    }
    (json!({ "action": "decline" }), "it never fit the form")
}

fn misfit(schema: &Value, content: &Value) -> Option<String> {
    let required = schema["required"].as_array().into_iter().flatten();
    for name in required.filter_map(Value::as_str) {
        if content.get(name).is_none() {
            return Some(format!("{name} is required"));
        }
    }
    // A field the form does not name is let through, as JSON Schema does.
    for (name, value) in content.as_object()? {
        if let Some(why) = field_misfit(&schema["properties"][name], value) {
            return Some(format!("{name} {why}"));
        }
    }
    None
}

fn field_misfit(field: &Value, value: &Value) -> Option<String> {
    let fits = match field["type"].as_str() {
        Some("string") => value.is_string(),
        Some("boolean") => value.is_boolean(),
        Some("number") => value.is_number(),
        Some("integer") => value.is_i64() || value.is_u64(),
        Some("array") => value.is_array(),
        _ => true, // an array's items, given as `anyOf` choices
    };
    let choices = choices(field);
    match value {
        _ if !fits => Some(format!(
            "must be of type {}",
            field["type"].as_str().unwrap_or("?")
        )),
        _ if !choices.is_empty() && !choices.contains(&value) => {
            Some(format!("must be one of {}", json!(choices)))
        }
        Value::String(text) => {
            outside(field, "minLength", "maxLength", text.chars().count() as f64)
        }
        Value::Array(items) => {
            outside(field, "minItems", "maxItems", items.len() as f64).or_else(|| {
                let why = items
                    .iter()
                    .find_map(|item| field_misfit(&field["items"], item))?;
                Some(format!("has an item that does not fit: it {why}"))
            })
        }
        Value::Number(n) => outside(field, "minimum", "maximum", n.as_f64().unwrap_or_default()),
        _ => None,
    }
}

/// What a field allows, when it lists it: `enum`, or the `const` of each
/// `oneOf` entry (one choice) or `anyOf` entry (an array's items).
fn choices(field: &Value) -> Vec<&Value> {
    let listed = |key: &str| field[key].as_array().into_iter().flatten();
    let titled = listed("oneOf")
        .chain(listed("anyOf"))
        .map(|entry| &entry["const"]);
    listed("enum").chain(titled).collect()
}

/// `size` against the field's bounds named `low` and `high`, if it has them.
fn outside(field: &Value, low: &str, high: &str, size: f64) -> Option<String> {
    match (field[low].as_f64(), field[high].as_f64()) {
        (Some(bound), _) if size < bound => Some(format!("is under its {low}, {bound}")),
        (_, Some(bound)) if size > bound => Some(format!("is over its {high}, {bound}")),
        _ => None,
    }
}
// END(ch15/fits-form)
