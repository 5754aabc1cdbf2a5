//! `{state}`, `{task}` and `{time}`: the server values a transcript cannot
//! pin byte for byte. A 2026-07-28 `requestState` (chapter 14) is opaque
//! and carries an expiry, so its bytes change from run to run; so does a
//! task's id (chapter 17: unguessable, by the tasks extension's rule) and
//! the times a task carries. In a `<-` line, `"requestState":"{state}"`
//! and `"taskId":"{task}"` match any JSON string there and bind it;
//! `"createdAt":"{time}"` and `"lastUpdatedAt":"{time}"` match any string
//! and bind nothing. In a later `->` line, `{state}` and `{task}` send the
//! last bound value back, and `{state:tampered}` sends the state with
//! `-TAMPERED` appended (what the conformance suite's tampered-state
//! scenario sends). Nothing else about the frames is loosened: the rest
//! of each line is compared as always.

use crate::run::transcript::Transcript;

/// The fields captured: the key as it starts in a frame, and its placeholder.
const FIELDS: [(&[u8], &[u8]); 4] = [
    (b"\"requestState\":\"", b"{state}"),
    (b"\"taskId\":\"", b"{task}"),
    (b"\"createdAt\":\"", b"{time}"),
    (b"\"lastUpdatedAt\":\"", b"{time}"),
];
const TAMPERED: &[u8] = b"{state:tampered}";

/// The values bound so far: the last `requestState` and the last `taskId`.
#[derive(Default)]
pub struct Bound {
    state: Option<String>,
    task: Option<String>,
}

/// Whether the transcript uses the capture at all: only then are the
/// server's lines rewritten, so every other transcript is compared as is.
pub fn uses_state(transcript: &Transcript) -> bool {
    transcript.frames.iter().any(|frame| {
        FIELDS
            .iter()
            .any(|(_, placeholder)| contains(&frame.bytes, &placeholder[..placeholder.len() - 1]))
    })
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

/// A server line with every captured value replaced by its placeholder;
/// the last state and task id found are bound. A sealed state is
/// base64url and a dot, a task id hex, a time digits and punctuation: no
/// string of theirs holds an escape, so each ends at the next quote.
pub fn bind(line: &[u8], bound: &mut Bound) -> Vec<u8> {
    let mut line = line.to_vec();
    for (field, placeholder) in FIELDS {
        let mut out = Vec::with_capacity(line.len());
        let mut rest = 0;
        while let Some(at) = find(&line, field, rest) {
            let start = at + field.len();
            let Some(end) = find(&line, b"\"", start) else {
                break;
            };
            out.extend_from_slice(&line[rest..start]);
            out.extend_from_slice(placeholder);
            let value = Some(String::from_utf8_lossy(&line[start..end]).into_owned());
            match placeholder {
                b"{state}" => bound.state = value,
                b"{task}" => bound.task = value,
                _ => {}
            }
            rest = end;
        }
        out.extend_from_slice(&line[rest..]);
        line = out;
    }
    line
}

/// A client frame with `{state}`, `{state:tampered}` and `{task}` filled
/// in from the bound values (each left as written if nothing is bound).
pub fn fill(bytes: &[u8], bound: &Bound) -> Vec<u8> {
    if bound.state.is_none() && bound.task.is_none() {
        return bytes.to_vec(); // raw bytes stay raw
    }
    let mut text = String::from_utf8_lossy(bytes).into_owned();
    if let Some(state) = &bound.state {
        let tampered = format!("{state}-TAMPERED");
        text = text.replace(std::str::from_utf8(TAMPERED).unwrap_or_default(), &tampered);
        text = text.replace("{state}", state);
    }
    if let Some(task) = &bound.task {
        text = text.replace("{task}", task);
    }
    text.into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_is_bound_and_sent_back() {
        let mut bound = Bound::default();
        let line = br#"{"result":{"requestState":"eyJ9.abc-_","resultType":"input_required"}}"#;
        assert_eq!(
            bind(line, &mut bound),
            br#"{"result":{"requestState":"{state}","resultType":"input_required"}}"#
        );
        assert_eq!(bound.state.as_deref(), Some("eyJ9.abc-_"));
        let sent = fill(br#"{"a":"{state}","b":"{state:tampered}"}"#, &bound);
        assert_eq!(sent, br#"{"a":"eyJ9.abc-_","b":"eyJ9.abc-_-TAMPERED"}"#);
    }

    #[test]
    fn a_task_id_is_bound_and_its_times_are_matched() {
        let mut bound = Bound::default();
        let line = br#"{"createdAt":"2026-12-03T08:00:00.000Z","lastUpdatedAt":"2026-12-03T08:00:01.000Z","taskId":"ab12"}"#;
        assert_eq!(
            bind(line, &mut bound),
            br#"{"createdAt":"{time}","lastUpdatedAt":"{time}","taskId":"{task}"}"#
        );
        assert_eq!(
            fill(br#"{"taskId":"{task}"}"#, &bound),
            br#"{"taskId":"ab12"}"#
        );
    }
}
