//! Chapter 20's stable prefix, pinned on the requests the stub model really
//! got: across the turns of the tour, every request begins with the blocks
//! of the request before it, up to that one's last breakpoint, byte for
//! byte (the marks aside: a mark is no part of the cached content, and the
//! one on the last message moves forward each turn). The same check finds
//! the break when the system prompt carries a clock.

use serde_json::Value;
use wire_host::stub_cache;
use wire_tests::course::Chapter;
use wire_tests::run::client_runner::record;
use wire_tests::run::target::Target;
use wire_tests::run::transcript::Transcript;

/// The main context's request bodies of chapter 20's tour, played against
/// the solution with `env` added.
fn tour_requests(env: &[(&str, &str)]) -> Vec<Value> {
    let chapter = Chapter::find("20").unwrap();
    let mut transcript = Transcript::load(&chapter.transcript_path("tour")).unwrap();
    for (name, value) in env {
        transcript.env.push((name.to_string(), value.to_string()));
    }
    let target = Target::solution(&chapter).unwrap();
    let recording = record(&transcript, &target).unwrap();
    recording.model[&None]
        .iter()
        .map(|body| serde_json::from_slice(body).unwrap())
        .collect()
}

/// Where a request stops beginning with the one before it, up to that
/// one's last breakpoint: `(request, block)`, both counted from 1.
fn first_break(requests: &[Value]) -> Option<(usize, usize)> {
    for (at, pair) in requests.windows(2).enumerate() {
        let (before, after) = (stub_cache::blocks(&pair[0]), stub_cache::blocks(&pair[1]));
        let last = before.iter().rposition(|(_, mark)| *mark)?;
        for (block, (text, _)) in before.iter().enumerate().take(last + 1) {
            if after.get(block).map(|(after, _)| after) != Some(text) {
                return Some((at + 2, block + 1));
            }
        }
    }
    None
}

#[test]
fn the_cached_prefix_is_the_same_from_turn_to_turn() {
    let requests = tour_requests(&[]);
    assert_eq!(requests.len(), 3, "the tour sends three requests");
    assert_eq!(first_break(&requests), None);
    // Three marks each, the API allows four.
    for request in &requests {
        let marks = stub_cache::blocks(request)
            .iter()
            .filter(|(_, m)| *m)
            .count();
        assert_eq!(marks, 3, "{request}");
    }
}

#[test]
fn a_clock_in_the_system_prompt_breaks_it() {
    let requests = tour_requests(&[("WIRE_CACHE_BREAKER", "timestamp")]);
    let tools = requests[0]["tools"].as_array().map_or(0, Vec::len);
    // The second request differs at its system prompt, the first block
    // after the tools.
    assert_eq!(first_break(&requests), Some((2, tools + 1)));
}
