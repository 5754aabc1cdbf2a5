//! The `add` tool: how it describes itself (`tools/list`) and what it does
//! (`tools/call`).

use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::jsonrpc::RpcError;

// ANCHOR: list
pub fn list() -> Value {
    let tools = [
        add_definition(),
        // STRETCH(ch03/multiply): a second tool, `multiply`, in three places:
        // list it in `list` after `add`, call it in `call`, write it at the end of
        // the file; put each piece under #[cfg(feature = "stretch")].
        // END(ch03/multiply)
    ];
    json!({ "tools": tools })
}

/// What the model reads to decide whether and how to call `add`.
fn add_definition() -> Value {
    // TODO(ch03/tool-definition): describe `add`: name, title, description,
    // an inputSchema with two required numbers a and b, and an outputSchema.
    todo!(
        "ch03/tool-definition: describe `add`: name, title, description, an inputSchema with two required numbers a and b, and an outputSchema."
    )
    // END(ch03/tool-definition)
}
// ANCHOR_END: list

// ANCHOR: call
#[derive(Deserialize)]
struct CallParams {
    name: String,
    #[serde(default)]
    arguments: Map<String, Value>,
}

pub fn call(params: Option<Value>) -> Result<Value, RpcError> {
    let params = params.ok_or_else(|| RpcError::invalid_params("tools/call needs params"))?;
    // A request that does not fit the schema (no name, arguments that are
    // not an object) is a protocol error: the client sent a broken request.
    let CallParams { name, arguments } =
        serde_json::from_value(params).map_err(RpcError::invalid_params)?;
    match name.as_str() {
        // Bad arguments are the model's mistake, not the client's: they come
        // back as a result with isError, so the model can read it and retry.
        "add" => Ok(match add(&arguments) {
            Ok(sum) => tool_result(sum),
            Err(advice) => tool_error(advice),
        }),
        // STRETCH(ch03/multiply): call `multiply` by its name; its answer
        // is {"product": …}, its mistakes come back with isError like add's.
        // END(ch03/multiply)
        _ => Err(RpcError::new(-32602, format!("Unknown tool: {name}"))),
    }
}
// ANCHOR_END: call

// ANCHOR: results
fn tool_result(sum: Value) -> Value {
    // TODO(ch03/tool-result): the structured result {"sum": …}, and the same
    // JSON as text for clients that do not read structuredContent.
    todo!(
        "ch03/tool-result: the structured result {{\"sum\": …}}, and the same JSON as text for clients that do not read structuredContent."
    )
    // END(ch03/tool-result)
}

fn tool_error(advice: String) -> Value {
    json!({
        "content": [{ "type": "text", "text": advice }],
        "isError": true,
    })
}
// ANCHOR_END: results

// ANCHOR: add
/// 2^53 - 1: up to here a double (Rust's f64, and every JavaScript number)
/// holds every integer, so integer sums are exact. Beyond it, it skips some.
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// Adds `a` and `b`, or says what the caller must change.
fn add(arguments: &Map<String, Value>) -> Result<Value, String> {
    // TODO(ch03/add): reject unknown arguments, read a and b as numbers,
    // and refuse a sum beyond MAX_SAFE_INTEGER in size (it may be rounded).
    todo!(
        "ch03/add: reject unknown arguments, read a and b as numbers, and refuse a sum beyond MAX_SAFE_INTEGER in size (it may be rounded)."
    )
    // END(ch03/add)
}

fn number(arguments: &Map<String, Value>, name: &str) -> Result<f64, String> {
    let value = match arguments.get(name) {
        Some(Value::Number(value)) => value,
        Some(other) => {
            return Err(format!(
                "Argument \"{name}\" must be a JSON number such as 2 or 2.5, not {}.",
                describe(other)
            ));
        }
        None => {
            return Err(format!(
                "Missing argument \"{name}\": add needs two numbers, a and b."
            ));
        }
    };
    // Every JSON number becomes an f64, and past 2^53 - 1 that can lose
    // digits on the way in: serde_json already reads -18446744073709551615,
    // too big for an i64, as the float -1.8446744073709552e19. So any number
    // that big is refused, however it is written.
    let float = value.as_f64().unwrap_or(f64::INFINITY);
    if float.abs() > MAX_SAFE_INTEGER {
        return Err(format!(
            "Argument \"{name}\" is {value}, too large to add exactly; \
             use numbers between -9007199254740991 and 9007199254740991."
        ));
    }
    Ok(float)
}

/// 2 + 3 is `5`, not `5.0`: whole results are written as integers.
fn json_number(x: f64) -> Value {
    if x.fract() == 0.0 && x.abs() <= MAX_SAFE_INTEGER {
        Value::from(x as i64)
    } else {
        Value::from(x)
    }
}

fn describe(value: &Value) -> String {
    match value {
        Value::Null => "null".to_string(),
        Value::Bool(flag) => format!("the boolean {flag}"),
        Value::String(text) => format!("the string {value}", value = Value::from(text.as_str())),
        Value::Array(_) => "an array".to_string(),
        Value::Object(_) => "an object".to_string(),
        Value::Number(number) => format!("the number {number}"),
    }
}
// ANCHOR_END: add

// STRETCH(ch03/multiply): describe `multiply` (two numbers a and b, an output
// {"product": …}) and compute it, refusing a product that may not be exact;
// reuse `number` and `json_number`.
// END(ch03/multiply)
