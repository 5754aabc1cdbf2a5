//! Trace context: one W3C trace for the whole run. It continues the
//! caller's when `TRACEPARENT` holds one (a CI job, a script that traces
//! its own work), or starts a new one; every MCP request then carries it in
//! its `_meta` (SEP-414: `traceparent`, in both eras), each with a span id
//! of its own, so that a server's log line names the trace and the span of
//! the request that caused it. The seam is the transport's: every link
//! stamps its requests with `Trace::stamp` before they go out.

use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{Value, json};

/// Where a caller hands its trace to a process: OpenTelemetry's
/// environment carrier, the `traceparent` header's value.
pub const ENVIRONMENT: &str = "TRACEPARENT";

/// A `traceparent`'s fields (W3C Trace Context, "traceparent Header").
#[derive(Debug, PartialEq)]
pub struct TraceParent {
    /// 32 lowercase hex digits, not all zeros: the whole trace.
    pub trace_id: String,
    /// 16 lowercase hex digits, not all zeros: the caller's span.
    pub parent_id: String,
    /// 2 lowercase hex digits; bit 0 is "sampled".
    pub flags: String,
}

/// This run's trace, set once at the start.
pub struct Trace {
    trace_id: String,
    flags: String,
    /// What this run's span ids are made from (see `span_id`).
    seed: String,
    /// Requests stamped so far: each gets the next span.
    spans: AtomicU64,
}

// ANCHOR: parse
/// A `traceparent` value read by W3C's rules, or the rule it breaks. A
/// version above 00 may carry more fields after a fourth `-`: they are
/// ignored, the first four read the same way.
pub fn parse(value: &str) -> Result<TraceParent, String> {
    // TODO(ch25/parse): split at most five ways at '-': version, trace-id,
    // parent-id, flags, and whatever a later version adds. Refuse, in this
    // order and with these words: fewer than four ("not four fields
    // separated by -"); a field that is not lowercase hex of its length
    // ("the trace-id is not 32 lowercase hex digits", and so for the
    // version 2, parent-id 16, trace-flags 2); "version ff is invalid"; a
    // version-00 value with more ("a version-00 value ends after its
    // trace-flags"); an id of zeros ("the parent-id is all zeros").
    let _ = (value, is_lower_hex("", 0));
    Err("TODO(ch25/parse)".to_string())
    // END(ch25/parse)
}
// ANCHOR_END: parse

/// Exactly `digits` characters, each 0-9 or a-f.
fn is_lower_hex(field: &str, digits: usize) -> bool {
    field.len() == digits
        && field
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

// ANCHOR: start
/// This run's trace from the caller's `traceparent` (`caller`, read from
/// `TRACEPARENT`): its trace id and flags go on, and its span seeds ours.
/// Without one, or with one that breaks a rule, a new trace. With the line
/// the harness shows.
pub fn start(caller: Option<&str>, session_id: &str) -> (Trace, String) {
    // TODO(ch25/start): parse `caller`. A valid one: keep its trace_id and
    // flags, seed the spans with its parent_id and the session id, and say
    // "trace: ID, continued from TRACEPARENT". Otherwise `new_trace` (seeded
    // with the session id) and say "trace: a new one", adding
    // " (TRACEPARENT ignored: WHY)" when there was one.
    let _ = (caller.map(parse), session_id);
    (new_trace(session_id), "trace: TODO(ch25/start)".to_string())
    // END(ch25/start)
}
// ANCHOR_END: start

/// A trace of this run's own: 16 random bytes for its id, flagged sampled
/// (this run's output records it).
fn new_trace(session_id: &str) -> Trace {
    let trace_id = random_hex(16);
    Trace {
        seed: format!("{trace_id}/{session_id}"),
        trace_id,
        flags: "01".to_string(),
        spans: AtomicU64::new(0),
    }
}

// ANCHOR: stamp
impl Trace {
    /// Every request's params, as the link sends them: `_meta.traceparent`
    /// names this run's trace and a new span for this request, beside what
    /// `_meta` holds already (2026-07-28's keys, a progress token).
    pub fn stamp(&self, params: &mut Value) {
        // TODO(ch25/stamp): write "00-TRACE-SPAN-FLAGS" into
        // params["_meta"]["traceparent"], SPAN a new `span_id`; leave every
        // other key of `_meta` as it is.
        let _ = (params, self.span_id(), json!(null));
        // END(ch25/stamp)
    }
    // ANCHOR_END: stamp

    /// The next span id: 16 hex digits of a hash of the seed and a count.
    /// W3C asks for ids unique in practice, and does not say how; the seed
    /// holds the trace, the caller's span and the session (the course's
    /// choice: unique in effect across runs, and the same for the same
    /// seed, so a transcript can pin it). Never all zeros.
    fn span_id(&self) -> String {
        let count = self.spans.fetch_add(1, Ordering::Relaxed) + 1;
        let hash = mix(fnv1a(format!("{}/{count}", self.seed).as_bytes()));
        format!("{:016x}", hash.max(1))
    }
}

/// MurmurHash3's finalizer: every bit of the input moves every bit of the
/// output, so that consecutive counts give unrelated-looking ids.
fn mix(mut hash: u64) -> u64 {
    hash ^= hash >> 33;
    hash = hash.wrapping_mul(0xff51_afd7_ed55_8ccd);
    hash ^= hash >> 33;
    hash = hash.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    hash ^ (hash >> 33)
}

/// FNV-1a, 64 bits: a few lines, the same on every machine and release.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(*byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// `count` random bytes as hex: the system's random source, or (where
/// there is none) a hash of the clock and the process id.
fn random_hex(count: usize) -> String {
    use std::io::Read;
    let mut bytes = vec![0u8; count];
    let read = std::fs::File::open("/dev/urandom").and_then(|mut file| file.read_exact(&mut bytes));
    if read.is_err() {
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
        let clock = format!("{:?}/{}", now.unwrap_or_default(), std::process::id());
        for (index, byte) in bytes.iter_mut().enumerate() {
            *byte = fnv1a(format!("{clock}/{index}").as_bytes()) as u8;
        }
    }
    let hex: String = bytes.iter().map(|byte| format!("{byte:02x}")).collect();
    match hex.bytes().all(|digit| digit == b'0') {
        true => format!("{}1", &hex[1..]),
        false => hex,
    }
}
