//! A request's trace context, logged: when a message carries a W3C
//! `traceparent` in its `params._meta` (SEP-414), the server writes one
//! line on stderr naming its method, its id and the trace, so that an
//! operator can find the request a client's trace points at. A value that
//! breaks W3C's rules is logged as ignored, with the rule, and changes
//! nothing else: the request is answered as it would be without it.
//! Support-own, no chapter's lesson: chapter 25 shows it from the host's
//! side.

use serde::Deserialize;
use serde_json::Value;

use crate::SERVER_NAME;

/// The most characters of a value a log line shows: a hostile one can
/// neither flood the log nor, escaped, forge a line of it.
const SHOWN: usize = 64;

#[derive(Deserialize)]
struct Incoming {
    id: Option<Value>,
    method: Option<String>,
    params: Option<Params>,
}

#[derive(Deserialize)]
struct Params {
    #[serde(rename = "_meta")]
    meta: Option<Meta>,
}

#[derive(Deserialize)]
struct Meta {
    traceparent: Option<Value>,
}

/// Logs the trace context of one incoming frame, if it has one. Cheap for
/// the others: a frame whose bytes never say `traceparent` is not parsed.
pub fn log(line: &[u8]) {
    if !line.windows(11).any(|window| window == b"traceparent") {
        return;
    }
    let Ok(Incoming {
        id,
        method: Some(method),
        params,
    }) = serde_json::from_slice(line)
    else {
        return; // Not a request or notification with object params.
    };
    let Some(value) = params.and_then(|params| params.meta?.traceparent) else {
        return;
    };
    let id = id.map_or("-".to_string(), |id| id.to_string());
    let method = method.escape_debug();
    match value.as_str().ok_or("not a string").and_then(check) {
        Ok(traceparent) => eprintln!("{SERVER_NAME}: {method} {id} traceparent={traceparent}"),
        Err(why) => {
            let text = value.as_str().map_or(value.to_string(), str::to_string);
            let shown: String = text.chars().take(SHOWN).collect();
            let cut = if text.chars().count() > SHOWN {
                "…"
            } else {
                ""
            };
            eprintln!("{SERVER_NAME}: {method} {id}: traceparent ignored ({why}): {shown:?}{cut}");
        }
    }
}

/// W3C Trace Context's rules for `traceparent`: the version, trace-id,
/// parent-id and flags as lowercase hex of 2, 32, 16 and 2 digits; version
/// `ff` invalid; version `00` exactly these four fields, a later version
/// perhaps more after a `-`; neither id all zeros. The four fields, or the
/// rule broken.
pub fn check(value: &str) -> Result<&str, &'static str> {
    let fields: Vec<&str> = value.splitn(5, '-').collect();
    let [version, trace_id, parent_id, flags, rest @ ..] = fields.as_slice() else {
        return Err("not four fields separated by -");
    };
    let hex = |field: &str, digits: usize| {
        field.len() == digits
            && field
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    };
    let sized = hex(version, 2) && hex(trace_id, 32) && hex(parent_id, 16) && hex(flags, 2);
    let zeros = |id: &str| id.bytes().all(|digit| digit == b'0');
    match () {
        _ if !sized => Err("fields of 2, 32, 16 and 2 lowercase hex digits"),
        _ if *version == "ff" => Err("version ff is invalid"),
        _ if *version == "00" && !rest.is_empty() => Err("version 00 ends after its flags"),
        _ if zeros(trace_id) => Err("the trace-id is all zeros"),
        _ if zeros(parent_id) => Err("the parent-id is all zeros"),
        _ => Ok(&value[..55]),
    }
}

#[cfg(test)]
mod tests {
    use super::check;

    const VALID: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    #[test]
    fn a_valid_value_and_a_later_version_are_read() {
        assert_eq!(check(VALID), Ok(VALID));
        let later =
            "cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-what-the-future-will-be-like";
        assert_eq!(check(later), Ok(&later[..55]));
    }

    #[test]
    fn each_rule_is_named() {
        let cases = [
            (
                VALID.to_uppercase(),
                "fields of 2, 32, 16 and 2 lowercase hex digits",
            ),
            (VALID.replacen("00-", "ff-", 1), "version ff is invalid"),
            (format!("{VALID}-extra"), "version 00 ends after its flags"),
            (
                VALID.replace("4bf92f3577b34da6a3ce929d0e0e4736", &"0".repeat(32)),
                "the trace-id is all zeros",
            ),
            (
                VALID.replace("00f067aa0ba902b7", &"0".repeat(16)),
                "the parent-id is all zeros",
            ),
            (
                VALID[..54].to_string(),
                "fields of 2, 32, 16 and 2 lowercase hex digits",
            ),
            ("garbage".to_string(), "not four fields separated by -"),
        ];
        for (value, why) in cases {
            assert_eq!(check(&value), Err(why), "{value}");
        }
    }
}
