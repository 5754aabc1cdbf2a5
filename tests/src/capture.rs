//! `{state}`: the one server value a transcript cannot pin byte for byte.
//! A 2026-07-28 `requestState` (chapter 14) is opaque and carries an expiry,
//! so its bytes change from run to run. In a `<-` line,
//! `"requestState":"{state}"` matches any JSON string there and binds it;
//! in a later `->` line, `{state}` sends the last bound value back, and
//! `{state:tampered}` sends it with `-TAMPERED` appended (what the
//! conformance suite's tampered-state scenario sends). Nothing else about
//! the frames is loosened: the rest of each line is compared as always.

use crate::run::transcript::Transcript;

const FIELD: &[u8] = b"\"requestState\":\"";
const PLACEHOLDER: &[u8] = b"{state}";
const TAMPERED: &[u8] = b"{state:tampered}";

/// Whether the transcript uses the capture at all: only then are the
/// server's lines rewritten, so every other transcript is compared as is.
pub fn uses_state(transcript: &Transcript) -> bool {
    transcript
        .frames
        .iter()
        .any(|frame| contains(&frame.bytes, b"{state"))
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    find(haystack, needle, 0).is_some()
}

fn find(haystack: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    haystack
        .get(from..)?
        .windows(needle.len())
        .position(|window| window == needle)
        .map(|at| at + from)
}

/// A server line with every `requestState` value replaced by `{state}`;
/// the last value found is bound in `state`. A sealed state is base64url
/// and a dot, so its string holds no escapes: it ends at the next quote.
pub fn bind(line: &[u8], state: &mut Option<String>) -> Vec<u8> {
    let mut out = Vec::with_capacity(line.len());
    let mut rest = 0;
    while let Some(at) = find(line, FIELD, rest) {
        let start = at + FIELD.len();
        let Some(end) = find(line, b"\"", start) else {
            break;
        };
        out.extend_from_slice(&line[rest..start]);
        out.extend_from_slice(PLACEHOLDER);
        *state = Some(String::from_utf8_lossy(&line[start..end]).into_owned());
        rest = end;
    }
    out.extend_from_slice(&line[rest..]);
    out
}

/// A client frame with `{state}` and `{state:tampered}` filled in from the
/// bound value (left as written if nothing is bound yet).
pub fn fill(bytes: &[u8], state: Option<&str>) -> Vec<u8> {
    let Some(state) = state else {
        return bytes.to_vec();
    };
    let text = String::from_utf8_lossy(bytes);
    let tampered = format!("{state}-TAMPERED");
    let text = text.replace(std::str::from_utf8(TAMPERED).unwrap_or_default(), &tampered);
    text.replace(std::str::from_utf8(PLACEHOLDER).unwrap_or_default(), state)
        .into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_is_bound_and_sent_back() {
        let mut state = None;
        let line = br#"{"result":{"requestState":"eyJ9.abc-_","resultType":"input_required"}}"#;
        let bound = bind(line, &mut state);
        assert_eq!(
            bound,
            br#"{"result":{"requestState":"{state}","resultType":"input_required"}}"#
        );
        assert_eq!(state.as_deref(), Some("eyJ9.abc-_"));
        let sent = fill(
            br#"{"a":"{state}","b":"{state:tampered}"}"#,
            state.as_deref(),
        );
        assert_eq!(sent, br#"{"a":"eyJ9.abc-_","b":"eyJ9.abc-_-TAMPERED"}"#);
    }
}
