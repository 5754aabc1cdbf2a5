//! Long work: `reindex_notes` reads the notes one step at a time, says how
//! far it is after each step (`notifications/progress`, when the request
//! asked for it with a `progressToken`), and listens for a cancel between
//! steps. It writes the index into the state folder only at the end, in
//! one rename, so a cancelled call leaves nothing behind. The index's file
//! and words, and `Work`, are given (`wire_server::long_work`).

use std::time::Duration;

use serde::Serialize;
use serde_json::{Value, json};

use crate::long_work::{self, Index, Work, notification, words};
use crate::resources::Notes;
use crate::state::State;

/// The params of `notifications/progress`: the request's token, how far,
/// out of how much, and a line a person can read.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Progress<'a> {
    progress_token: &'a Value,
    progress: usize,
    total: usize,
    message: String,
}

/// How a finished reindex went: its result, and what it changed.
pub struct Reindexed {
    pub result: Value,
    /// No index was there before: `search_index` is a new tool.
    pub created: bool,
    /// Notes whose words differ from the last index's: they were edited.
    pub edited: Vec<String>,
}

// ANCHOR: reindex
/// Indexes every text note, one step each, `pause` apart; `None` when the
/// call was cancelled, with nothing written. `token`: the request's
/// `_meta.progressToken`, if it sent one.
pub fn reindex(
    (notes, state): (&Notes, &State),
    token: Option<&Value>,
    pause: Duration,
    work: &mut dyn Work,
) -> Result<Option<Reindexed>, String> {
    let entries = notes.entries().into_iter();
    let texts: Vec<_> = entries
        .filter_map(|entry| Some((entry.text()?, entry.uri)))
        .collect();
    let total = texts.len();
    let mut index = Index::new();
    // STRETCH(ch16/throttle): at most one progress notification a second
    // (`throttle::EVERY`), and always the last: a `Throttle`, asked each step.
    #[cfg(feature = "stretch")]
    let mut throttle = crate::throttle::Throttle::default();
    // END(ch16/throttle)
    for (done, (text, uri)) in texts.iter().enumerate() {
        index.insert(uri.clone(), words(text));
        // STRETCH(ch16/throttle): a step the throttle holds back sends nothing.
        #[cfg(feature = "stretch")]
        let token = token.filter(|_| throttle.due(done + 1 == total));
        // END(ch16/throttle)
        // GAP(ch16/progress): with a `token`, tell the client how far the
        // work is: `work.notify` a "notifications/progress" whose params
        // are a `Progress` with the token, `done + 1` of `total` (it must
        // grow with each notification), and the message "Indexed URI".
        // Without a token, send nothing: the client did not ask.
        // starter: let _ = (token, done, total);
        if let Some(token) = token {
            let progress = Progress {
                progress_token: token,
                progress: done + 1,
                total,
                message: format!("Indexed {uri}"),
            };
            work.notify(&notification("notifications/progress", json!(progress)));
        }
        // END(ch16/progress)
        // ANCHOR: stop
        // GAP(ch16/stop): between two steps (not after the last), wait
        // `pause` through `work.cancelled`; cancelled, stop at once and
        // return `Ok(None)`: nothing is written yet, so nothing is half-done.
        // starter: let _ = pause;
        if done + 1 < total && work.cancelled(pause) {
            return Ok(None);
        }
        // END(ch16/stop)
    }
    // Only now, and all at once: a reader sees the old index or the new.
    let before = long_work::read(state)?;
    let edited = long_work::write(state, &index, before.as_ref())?;
    // ANCHOR_END: stop
    Ok(Some(Reindexed {
        result: long_work::reindexed(total, &index),
        created: before.is_none(),
        edited,
    }))
}
// ANCHOR_END: reindex
