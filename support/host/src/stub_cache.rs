//! The prompt cache of a stand-in model: the `usage` figures the Messages
//! API would report, computed from the request it actually got. The
//! scenarios' stub model (`tests/src/run/client_runner.rs`) and the offline
//! demo's scripted model (chapter 20) both use it, so a saving the course
//! shows is one a run measured, never a figure typed into a script.
//!
//! Not generated: no chapter teaches a model's arithmetic, chapter 20
//! teaches the harness's side (where the marks go, a prefix that stays
//! the same, reading the figures). The rules are the API's, from its
//! prompt-caching page:
//!
//! - the prefix is `tools`, then `system`, then `messages`, block by block;
//! - a block marked `cache_control` is a breakpoint: the prefix up to and
//!   including it may be written to the cache, and a later request that
//!   begins with the same blocks reads it back;
//! - a breakpoint looks back at most 20 blocks for an earlier entry;
//! - a prefix shorter than the model's minimum is not cached at all;
//! - `input_tokens` is what follows the last breakpoint, and the total
//!   input is `cache_read + cache_creation + input`.
//!
//! Two simplifications, said where the book uses the figures: tokens are
//! counted with the course's tokenizer (`tokens`, cl100k_base; Claude's
//! own count differs), and a run is shorter than the 5-minute lifetime,
//! so no entry expires.

use std::collections::HashSet;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::sync::{Mutex, OnceLock};

use serde_json::{Value, json};

use crate::tokens;

/// What a scripted reply's `usage` says to leave the figures to the stub:
/// `"usage": "{cache}"`. Any other `usage` is sent as written.
pub const MARKER: &str = "{cache}";
/// The shortest prefix that is cached, in tokens: the documented minimum
/// of Claude Sonnet 4.5 (the model the course's transcripts name).
pub const MIN_CACHEABLE: usize = 1024;
/// How many blocks before a breakpoint the API looks for an earlier entry.
pub const LOOKBACK: usize = 20;

/// The entries earlier requests of one run wrote: a hash of the model and
/// of every block up to a breakpoint.
#[derive(Default)]
pub struct StubCache {
    written: Mutex<HashSet<u64>>,
}

/// One block of the prefix: its JSON without the mark, and whether it
/// carried one.
struct Piece {
    text: String,
    breakpoint: bool,
}

impl StubCache {
    /// Puts the computed figures in `reply` when its `usage` is the marker.
    pub fn fill(&self, request: &Value, reply: &mut Value) {
        if reply["usage"] == MARKER {
            reply["usage"] = self.usage(request);
        }
    }

    /// The `usage` of a reply to `request`, as the API would count it; the
    /// entries it writes are remembered for the requests after it.
    pub fn usage(&self, request: &Value) -> Value {
        let pieces = pieces(request);
        let counts: Vec<usize> = pieces.iter().map(|p| tokens::count(&p.text)).collect();
        let total: usize = counts.iter().sum();
        let mut hashes = Vec::with_capacity(pieces.len());
        let mut hasher = DefaultHasher::new();
        request["model"].to_string().hash(&mut hasher);
        for piece in &pieces {
            piece.text.hash(&mut hasher);
            hashes.push(hasher.finish());
        }
        let marks: Vec<usize> = (0..pieces.len())
            .filter(|&i| pieces[i].breakpoint)
            .collect();
        let upto = |end: usize| counts[..end].iter().sum::<usize>();
        let (read, write) = match marks.last() {
            Some(&last) if upto(last + 1) >= MIN_CACHEABLE => {
                let mut written = self.written.lock().unwrap_or_else(|e| e.into_inner());
                // The longest entry the request begins with, within the
                // look-back of one of its breakpoints.
                let hit = (1..=last + 1).rev().find(|&end| {
                    written.contains(&hashes[end - 1])
                        && marks
                            .iter()
                            .any(|&m| m + 1 >= end && m + 1 - end <= LOOKBACK)
                });
                let read = hit.map_or(0, upto);
                for &mark in &marks {
                    if upto(mark + 1) >= MIN_CACHEABLE {
                        written.insert(hashes[mark]);
                    }
                }
                (read, upto(last + 1) - read)
            }
            _ => (0, 0),
        };
        json!({
            "cache_creation_input_tokens": write,
            "cache_read_input_tokens": read,
            "input_tokens": total - read - write,
            "output_tokens": 0,
        })
    }
}

/// The scripted model's cache, one per run (every context shares it, as
/// one account's requests share the API's).
pub fn scripted() -> &'static StubCache {
    // Process-wide by nature: the stand-in for the API's one cache, which
    // every context and subagent of a run shares.
    static CACHE: OnceLock<StubCache> = OnceLock::new();
    CACHE.get_or_init(StubCache::default)
}

/// The request's blocks in the prefix's order, each as its JSON without
/// its mark, and whether it carried one: what a test of a stable prefix
/// compares from one request to the next.
pub fn blocks(request: &Value) -> Vec<(String, bool)> {
    let pieces = pieces(request).into_iter();
    pieces.map(|piece| (piece.text, piece.breakpoint)).collect()
}

/// The request's blocks in the prefix's order: each tool, each system
/// block, each message's blocks (a string content is one text block).
fn pieces(request: &Value) -> Vec<Piece> {
    let mut pieces = Vec::new();
    let mut push = |mut block: Value, role: Option<&str>| {
        let breakpoint = match block.as_object_mut() {
            Some(object) => object.remove("cache_control").is_some(),
            None => false,
        };
        let text = match role {
            Some(role) => json!({ "role": role, "block": block }).to_string(),
            None => block.to_string(),
        };
        pieces.push(Piece { text, breakpoint });
    };
    let text = |value: &Value| json!({ "type": "text", "text": value });
    for tool in request["tools"].as_array().into_iter().flatten() {
        push(tool.clone(), None);
    }
    match &request["system"] {
        Value::Array(blocks) => blocks.iter().for_each(|b| push(b.clone(), None)),
        Value::Null => {}
        other => push(text(other), None),
    }
    for message in request["messages"].as_array().into_iter().flatten() {
        let role = message["role"].as_str();
        match &message["content"] {
            Value::Array(blocks) => blocks.iter().for_each(|b| push(b.clone(), role)),
            other => push(text(other), role),
        }
    }
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(system: &str, messages: usize) -> Value {
        let long = "word ".repeat(1200);
        let mut turns: Vec<Value> = (0..messages)
            .map(|i| json!({ "role": "user", "content": format!("message {i}") }))
            .collect();
        if let Some(last) = turns.last_mut() {
            let text = last["content"].clone();
            last["content"] =
                json!([{ "type": "text", "text": text, "cache_control": { "type": "ephemeral" } }]);
        }
        json!({
            "model": "m",
            "system": [{ "type": "text", "text": format!("{system} {long}"), "cache_control": { "type": "ephemeral" } }],
            "messages": turns,
        })
    }

    #[test]
    fn a_repeated_prefix_is_read_and_the_rest_written() {
        let cache = StubCache::default();
        let first = cache.usage(&request("s", 1));
        assert_eq!(first["cache_read_input_tokens"], 0);
        let written = first["cache_creation_input_tokens"].as_u64().unwrap();
        assert!(written >= MIN_CACHEABLE as u64);
        let second = cache.usage(&request("s", 2));
        assert_eq!(second["cache_read_input_tokens"], written);
        assert!(second["cache_creation_input_tokens"].as_u64().unwrap() > 0);
        // A changed system prompt reads nothing.
        let other = cache.usage(&request("t", 2));
        assert_eq!(other["cache_read_input_tokens"], 0);
    }

    #[test]
    fn a_short_prefix_is_not_cached() {
        let cache = StubCache::default();
        let short = json!({ "model": "m", "system": [{ "type": "text", "text": "hi", "cache_control": {} }], "messages": [] });
        let usage = cache.usage(&short);
        assert_eq!(usage["cache_creation_input_tokens"], 0);
        assert!(usage["input_tokens"].as_u64().unwrap() > 0);
    }
}
