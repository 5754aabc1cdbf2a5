//! Explains where two JSON values first differ, as a JSON Pointer path.

use serde_json::Value;

/// `None` when equal; otherwise one sentence naming the first difference.
pub fn first_difference(expected: &Value, actual: &Value) -> Option<String> {
    walk("", expected, actual)
}

fn walk(path: &str, expected: &Value, actual: &Value) -> Option<String> {
    let at = if path.is_empty() {
        "the top level".to_string()
    } else {
        path.to_string()
    };
    match (expected, actual) {
        (Value::Object(want), Value::Object(got)) => {
            for (key, want_value) in want {
                let child = format!("{path}/{}", key.replace('~', "~0").replace('/', "~1"));
                match got.get(key) {
                    None => {
                        return Some(format!(
                            "{child} is missing (expected {})",
                            show(want_value)
                        ));
                    }
                    Some(got_value) => {
                        if let Some(found) = walk(&child, want_value, got_value) {
                            return Some(found);
                        }
                    }
                }
            }
            let extra = got.keys().find(|key| !want.contains_key(*key))?;
            Some(format!(
                "{path}/{extra} is not expected (it is {})",
                show(&got[extra])
            ))
        }
        (Value::Array(want), Value::Array(got)) => {
            if let Some(found) = one_item_apart(path, want, got) {
                return Some(found);
            }
            for (index, (want_item, got_item)) in want.iter().zip(got).enumerate() {
                if let Some(found) = walk(&format!("{path}/{index}"), want_item, got_item) {
                    return Some(found);
                }
            }
            (want.len() != got.len())
                .then(|| format!("{at} has {} items, expected {}", got.len(), want.len()))
        }
        _ if expected == actual => None,
        // A long string would be cut at the same prefix on both sides:
        // show a window around its first differing character instead.
        (Value::String(want), Value::String(got))
            if want.chars().count().max(got.chars().count()) > 60 =>
        {
            let window = crate::textdiff::first_difference(want, got)?;
            Some(format!("{at}: the strings differ; {window}"))
        }
        _ => Some(format!(
            "{at}: expected {}, got {}",
            describe(expected),
            describe(actual)
        )),
    }
}

/// Two arrays one item apart: a missing or an extra item is the whole
/// difference, so name it rather than the first of the items it shifted
/// (a conversation without the assistant's message would otherwise be
/// reported as a user message with the wrong content).
fn one_item_apart(path: &str, want: &[Value], got: &[Value]) -> Option<String> {
    let without = |items: &[Value], index: usize| -> Vec<Value> {
        let mut rest = items.to_vec();
        rest.remove(index);
        rest
    };
    if want.len() == got.len() + 1 {
        let index = (0..want.len()).find(|&index| without(want, index) == got)?;
        return Some(format!(
            "{path}/{index} is missing (expected {}); the items around it match",
            show(&want[index])
        ));
    }
    if got.len() == want.len() + 1 {
        let index = (0..got.len()).find(|&index| without(got, index) == want)?;
        return Some(format!(
            "{path}/{index} is not expected (it is {}); the items around it match",
            show(&got[index])
        ));
    }
    None
}

/// A value with its JSON type spelled out, so `5` vs `5.0` is visible.
fn describe(value: &Value) -> String {
    let kind = match value {
        Value::Null => return "null".to_string(),
        Value::Bool(_) => "the boolean",
        Value::Number(n) if n.is_f64() => "the float",
        Value::Number(_) => "the integer",
        Value::String(_) => "the string",
        Value::Array(_) => "the array",
        Value::Object(_) => "the object",
    };
    format!("{kind} {}", show(value))
}

fn show(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 120 {
        format!("{}…", text.chars().take(120).collect::<String>())
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_the_first_difference() {
        let want = json!({"id": 1, "result": {"content": [{"text": "5"}]}});
        assert_eq!(first_difference(&want, &want.clone()), None);
        let got = json!({"id": 1, "result": {"content": [{"text": "5.0"}]}});
        assert_eq!(
            first_difference(&want, &got).unwrap(),
            r#"/result/content/0/text: expected the string "5", got the string "5.0""#
        );
        let got = json!({"id": 1.0, "result": {"content": [{"text": "5"}]}});
        assert_eq!(
            first_difference(&want, &got).unwrap(),
            "/id: expected the integer 1, got the float 1.0"
        );
        let got = json!({"id": 1, "result": {"content": [{"text": "5"}]}, "extra": true});
        assert_eq!(
            first_difference(&want, &got).unwrap(),
            "/extra is not expected (it is true)"
        );
        let long = "Release checklist: bump the version, run the tests, tag the commit.";
        let with_newline = json!({"text": format!("{long}\n")});
        let without = json!({"text": long});
        assert_eq!(
            first_difference(&with_newline, &without).unwrap(),
            "/text: the strings differ; first difference at character 68 (expected 68 characters, got 67):\n    \
             expected: …run the tests, tag the commit.⏎\n    \
             actual:   …run the tests, tag the commit.(ends here)"
        );
        let want = json!({"messages": [{"role": "user"}, {"role": "assistant"}, {"role": "user"}]});
        let got = json!({"messages": [{"role": "user"}, {"role": "user"}]});
        assert_eq!(
            first_difference(&want, &got).unwrap(),
            r#"/messages/1 is missing (expected {"role":"assistant"}); the items around it match"#
        );
        assert_eq!(
            first_difference(&got, &want).unwrap(),
            r#"/messages/1 is not expected (it is {"role":"assistant"}); the items around it match"#
        );
        let want = json!({"id": 1, "result": {"content": [{"text": "5"}]}});
        let got = json!({"id": 1});
        assert!(
            first_difference(&want, &got)
                .unwrap()
                .starts_with("/result is missing")
        );
    }
}
