//! Retries: a model API that is overloaded (529) or rate-limited (429)
//! answers with an error that a later try may not get. An hour-long session
//! meets some; a harness that stops at the first one loses the hour. So
//! each request is tried again, a bounded number of times, after a wait:
//! the one the server asks for (`retry-after`), or a growing one with some
//! randomness, so that many clients refused at the same moment do not all
//! come back at the same moment. The official SDKs' rules, as Claude Code
//! uses them (`CLAUDE_CODE_MAX_RETRIES`, 10 by default).

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::time::Duration;

use async_trait::async_trait;
use serde_json::Value;
use wire_host::api::{self, Answer};
use wire_host::model::Model;
use wire_host::seams::{Extension, Harness};
use wire_host::show::Log;

/// Retries, as an extension of the harness: it sends every model request.
pub struct Retries<'a> {
    /// The model, whose whole HTTP answer (status, headers) a retry reads.
    pub model: &'a Model,
}

#[async_trait(?Send)]
impl Extension for Retries<'_> {
    async fn send(
        &self,
        _: &Harness<'_>,
        key: &str,
        request: &Value,
        log: &mut Log,
    ) -> Option<Result<Value, String>> {
        Some(send(self.model, key, request, log).await)
    }
}

/// Claude Code's setting, its default and its cap (v2.1.186 on).
pub const SETTING: &str = "CLAUDE_CODE_MAX_RETRIES";
pub const DEFAULT_MAX_RETRIES: u32 = 10;
const MOST_RETRIES: u32 = 15;
/// The first backoff, and the longest (seconds): the SDKs' numbers.
const INITIAL_DELAY: f64 = 0.5;
const MAX_DELAY: f64 = 8.0;
/// A server's `retry-after` is honoured up to a minute; a longer one is
/// treated as none (the SDKs' rule: the client backs off on its own).
const MAX_RETRY_AFTER: f64 = 60.0;

// ANCHOR: retryable
/// Whether a failed answer is worth another try. The server may say so
/// itself (`x-should-retry`); else a timeout (408), a conflict (409), a
/// rate limit (429) and the server's own errors (500 and up, 529
/// overloaded among them) are, and the request's own faults (400, 401,
/// 403, 404, 413) are not: sent again, they fail again.
pub fn retryable(answer: &Answer) -> bool {
    // GAP(ch22/retryable): "true" or "false" in the x-should-retry header
    // decides; without it, 408, 409, 429 and every status from 500 up are
    // retryable.
    // starter: let _ = answer;
    // starter: true
    match answer.header("x-should-retry") {
        Some("true") => true,
        Some("false") => false,
        _ => matches!(answer.status, 408 | 409 | 429) || answer.status >= 500,
    }
    // END(ch22/retryable)
}
// ANCHOR_END: retryable

// ANCHOR: delay
/// How long to wait before retry number `retry` (0 for the first), and why:
/// the server's `retry-after-ms` or `retry-after` (seconds) when it gives
/// one above 0 and up to a minute; else the backoff, 0.5 s doubled per
/// retry up to 8 s, times a random factor between 0.75 and 1.
pub fn delay(retry: u32, answer: &Answer) -> (Duration, String) {
    let header = |name: &str| answer.header(name)?.trim().parse::<f64>().ok();
    let asked = header("retry-after-ms").map(|ms| ms / 1000.0);
    // GAP(ch22/delay): use `asked`, else header("retry-after"), when it is
    // above 0 and at most MAX_RETRY_AFTER: (that many seconds,
    // format!("retry-after, {seconds} s")).
    // Otherwise: backoff = INITIAL_DELAY * 2^retry, at most MAX_DELAY, times
    // (1 - 0.25 * random()); why: format!("backoff, up to {backoff} s").
    // starter: let _ = (asked, INITIAL_DELAY, MAX_DELAY, MAX_RETRY_AFTER, random());
    // starter: (Duration::ZERO, "no wait".to_string())
    let asked = asked.or_else(|| header("retry-after"));
    if let Some(seconds) = asked.filter(|&seconds| seconds > 0.0 && seconds <= MAX_RETRY_AFTER) {
        return (
            Duration::from_secs_f64(seconds),
            format!("retry-after, {seconds} s"),
        );
    }
    let backoff = (INITIAL_DELAY * 2f64.powi(retry as i32)).min(MAX_DELAY);
    let jittered = backoff * (1.0 - 0.25 * random());
    (
        Duration::from_secs_f64(jittered),
        format!("backoff, up to {backoff} s"),
    )
    // END(ch22/delay)
}
// ANCHOR_END: delay

/// `CLAUDE_CODE_MAX_RETRIES`, read where it is used, at most 15; or the
/// default.
pub fn max_retries() -> Result<u32, String> {
    match std::env::var(SETTING) {
        Err(_) => Ok(DEFAULT_MAX_RETRIES),
        Ok(value) => (value.trim().parse::<u32>())
            .map(|retries| retries.min(MOST_RETRIES))
            .map_err(|_| format!("{SETTING}={value:?}: give a number of retries, such as 3")),
    }
}

/// A number between 0 and 1, different each call: the standard library's
/// hasher keys are random, which is all a jitter needs.
fn random() -> f64 {
    let bits = RandomState::new().build_hasher().finish();
    (bits >> 11) as f64 / (1u64 << 53) as f64
}

// ANCHOR: send
/// Sends one request, and again after each failure worth another try, up
/// to `max_retries()` more times. A success is the reply (chapter 20's
/// extension reads its usage, as the harness hands every reply round);
/// the last failure, or one not worth a retry, is the error.
pub async fn send(
    model: &Model,
    key: &str,
    request: &Value,
    log: &mut Log,
) -> Result<Value, String> {
    let (max_retries, mut retry) = (max_retries()?, 0);
    loop {
        let answer = api::post(model, key, request).await?;
        if answer.status == 200 {
            return Ok(answer.body);
        }
        if !retryable(&answer) {
            return Err(answer.error());
        }
        if retry == max_retries {
            return Err(format!("{} (after {retry} retries)", answer.error()));
        }
        let (wait, why) = delay(retry, &answer);
        let kind = answer.body["error"]["type"].as_str().unwrap_or("an error");
        retry += 1;
        log.say(format!(
            "  the model API answered {} {kind}: retry {retry} of {max_retries} ({why})",
            answer.status
        ));
        tokio::time::sleep(wait).await;
    }
}
// ANCHOR_END: send
