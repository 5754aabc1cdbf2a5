//! Chapter 22's budget, pinned on the requests the stub model really got:
//! in the tour, whose session outgrows its `--context-budget` of 1,400
//! tokens, no request the harness sends is over it (counted as the harness
//! counts, cl100k_base over the request's JSON), the summary's request
//! included; and the one after the compaction begins with the task, the
//! summary added to it.

use serde_json::Value;
use wire_host::tokens;
use wire_tests::course::Chapter;
use wire_tests::run::client_runner::{check, record};
use wire_tests::run::target::{Kind, Target};
use wire_tests::run::transcript::Transcript;

const BUDGET: usize = 1400;

#[test]
fn no_request_is_over_the_budget() {
    let chapter = Chapter::find("22").unwrap();
    let transcript = Transcript::load(&chapter.transcript_path("tour")).unwrap();
    assert!(
        transcript
            .args
            .join(" ")
            .contains(&format!("--context-budget {BUDGET}"))
    );
    let target = Target::solution(&chapter).unwrap();
    let recording = record(&transcript, &target).unwrap();
    let requests: Vec<Value> = recording.model[&None]
        .iter()
        .map(|body| serde_json::from_slice(body).unwrap())
        .collect();
    tokens::load();
    for (index, request) in requests.iter().enumerate() {
        let size = tokens::count(&request.to_string());
        assert!(size <= BUDGET, "request {} is {size} tokens", index + 1);
    }
    // The summary's request: no tools, one message with the older turns.
    let summary = requests.iter().position(|r| r.get("tools").is_none());
    let summary = summary.expect("the tour compacts once");
    let next = &requests[summary + 1]["messages"];
    let first = next[0]["content"].as_array().unwrap();
    assert!(
        first.last().unwrap()["text"]
            .as_str()
            .unwrap()
            .starts_with("<conversation-summary>")
    );
    assert_eq!(
        next.as_array().unwrap().len(),
        3,
        "the task, then the last turn"
    );
}

/// The stretch `ch22/threshold` may lower the compaction threshold, never
/// raise it. Its scenario pins a value that lowers it; here the tour, whose
/// fourth request (over 1,400 tokens) is compacted, runs again with the
/// variable at 150: a stretch that honoured it would put the threshold at
/// 2,100 and send that request whole, and the tour's frames would differ.
#[test]
fn the_stretch_ignores_a_percentage_that_would_raise_the_threshold() {
    let chapter = Chapter::find("22").unwrap();
    let path = chapter.transcript_path("tour");
    let text = std::fs::read_to_string(&path).unwrap();
    let raised = text.replacen(
        "# runner: agent\n",
        "# runner: agent\n# env: CLAUDE_AUTOCOMPACT_PCT_OVERRIDE=150\n",
        1,
    );
    assert_ne!(raised, text, "the tour names its runner");
    let transcript = Transcript::parse(&path, &raised).unwrap();
    let stretch = Target::built(&chapter, Kind::Solution, true).unwrap();
    check(&transcript, &stretch).unwrap_or_else(|problem| panic!("{problem}"));
}
