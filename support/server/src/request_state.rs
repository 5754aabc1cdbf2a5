//! The seal on chapter 14's `requestState` (2026-07-28's input-required
//! results): given code, not the chapter's lesson. The chapter decides what
//! goes into the state and what to check when it comes back; this module
//! only turns a payload into an opaque string that the client cannot alter
//! unseen, and back.
//!
//! The string is `PAYLOAD.TAG`, both base64url without padding: the payload
//! is readable by anyone (it holds nothing secret, only answers the client
//! itself gave), and the tag is HMAC-SHA256 over it with a key the client
//! never sees. Change one byte of either and the tag no longer matches.

use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::jsonrpc::RpcError;

type HmacSha256 = Hmac<Sha256>;

/// The length of the key, in bytes: as long as SHA-256's block of output.
pub const KEY_BYTES: usize = 32;

/// Seals and opens request states with one key: per instance, or shared
/// by every instance that shares `--state` (`State::secret`).
pub struct Sealer {
    key: [u8; KEY_BYTES],
}

impl Sealer {
    pub fn new(key: [u8; KEY_BYTES]) -> Sealer {
        Sealer { key }
    }

    fn mac(&self) -> HmacSha256 {
        // HMAC takes a key of any length; ours is always 32 bytes.
        HmacSha256::new_from_slice(&self.key).expect("HMAC accepts any key length")
    }

    /// `payload`, readable, with the tag that proves we wrote it.
    pub fn seal(&self, payload: &[u8]) -> String {
        let mut mac = self.mac();
        mac.update(payload);
        let tag = mac.finalize().into_bytes();
        format!("{}.{}", encode(payload), encode(&tag))
    }

    /// The payload of a state we sealed, or `None` for anything else: a
    /// string that is not two base64url parts, or whose tag does not match.
    /// The tags are compared in constant time (`verify_slice`), so how long
    /// a refusal takes says nothing about how much of a forged tag was right.
    pub fn open(&self, state: &str) -> Option<Vec<u8>> {
        let (payload, tag) = state.split_once('.')?;
        let (payload, tag) = (decode(payload)?, decode(tag)?);
        let mut mac = self.mac();
        mac.update(&payload);
        mac.verify_slice(&tag).ok()?;
        Some(payload)
    }
}

/// The key and the lifetime of every state an instance seals.
pub struct Seal {
    pub sealer: Sealer,
    /// `--input-ttl`: seconds a state stays good for a retry.
    pub ttl_secs: u64,
    /// The states spent so far: used by chapter 14's stretch only.
    pub spent: Spent,
}

/// The file in the state folder that holds the key of every state.
const KEY_FILE: &str = "request-state.key";

impl Seal {
    /// The key of the state folder (made on first use: `State::secret`),
    /// so every instance sharing `--state` opens what another sealed.
    pub fn open(state: &crate::state::State, ttl: std::time::Duration) -> Result<Seal, String> {
        let key = state
            .secret(KEY_FILE)
            .map_err(|err| format!("cannot use the key in the state folder: {err}"))?;
        Ok(Seal {
            sealer: Sealer::new(key),
            ttl_secs: ttl.as_secs(),
            spent: Spent {
                folder: state.folder().to_path_buf(),
            },
        })
    }
}

/// The record of the states spent (chapter 14's stretch, `ch14/spent-once`):
/// an empty file per state, `spent-DIGEST`, in the state folder beside the
/// key. Instances sharing `--state` share the record as they share the key;
/// without `--state` the folder is the instance's own, and so is the
/// record (it goes when the instance ends). Nothing here removes a file: a
/// real server would sweep those older than the longest `--input-ttl`,
/// whose states the expiry refuses anyway.
pub struct Spent {
    folder: std::path::PathBuf,
}

impl Spent {
    /// Records `payload`, the bytes a state's tag covers, as spent: `true`
    /// the first time, `false` ever after, whichever instance spent it. A
    /// fault of the folder is -32603, logged; an entry there that is not a
    /// regular file is named in the error too, as a damaged draft is.
    pub fn first_time(&self, payload: &[u8]) -> Result<bool, RpcError> {
        let name = format!("spent-{}", encode(&Sha256::digest(payload)));
        crate::state::claim(&self.folder, &name).map_err(|err| {
            eprintln!("{}: state folder: {err}", crate::SERVER_NAME);
            let shown = match err.kind() {
                std::io::ErrorKind::InvalidData => err.to_string(),
                _ => "cannot use the state folder".to_string(),
            };
            RpcError::internal(shown)
        })
    }
}

/// What chapter 14 seals into a state: which call it belongs to, how far
/// it got, when it lapses, and what the client answered in earlier rounds,
/// so that a third round needs nothing stored.
#[derive(Serialize, Deserialize)]
pub struct Payload {
    /// The method and the tool: `tools/call publish_draft`.
    pub call: String,
    /// `digest` of the arguments.
    pub arguments: String,
    /// 1 for the state of the first input-required result.
    pub round: u32,
    /// Seconds since 1970 after which the state is refused.
    pub expires: u64,
    /// Every answer gathered so far, by key.
    pub answers: Map<String, Value>,
    /// The keys the last round asked: the only responses read from the retry.
    pub asked: Vec<String>,
    /// Random, drawn once per call: without it, two calls alike within one
    /// second would get the very same state, and a state spent once
    /// (chapter 14's stretch) would refuse a fresh call too.
    pub nonce: u64,
}

impl Payload {
    /// The state of a call's first round: nothing asked yet. A client that
    /// knows the questions may bring answers all the same (`inputResponses`
    /// without a `requestState`, as the conformance suite's
    /// ignore-extra-params scenario does): they are the client's word, as
    /// every answer is, so the tool takes those it asks for, by key, and
    /// never reads the others. Answers that are not an object: none.
    pub fn first(
        call: String,
        arguments: &Map<String, Value>,
        params: &Map<String, Value>,
    ) -> Payload {
        let arguments = digest(&Value::Object(arguments.clone()));
        let answers = match params.get("inputResponses") {
            Some(Value::Object(answers)) => answers.clone(),
            _ => Map::new(),
        };
        let (round, expires, asked) = (0, 0, Vec::new());
        Payload {
            call,
            arguments,
            round,
            expires,
            answers,
            asked,
            nonce: crate::state::random(),
        }
    }

    /// The state after `last`, verified: its answers, and those of
    /// `responses` that answer what it asked. Any other response is
    /// ignored; one that is missing is simply not there, and asked again.
    pub fn after(mut last: Payload, responses: &Map<String, Value>) -> Payload {
        for key in std::mem::take(&mut last.asked) {
            if let Some(answer) = responses.get(&key) {
                last.answers.insert(key, answer.clone());
            }
        }
        last
    }
}

/// A digest of a JSON value, base64url: what the state keeps of a call's
/// arguments, so that it cannot be replayed with others. serde_json keeps
/// an object's keys sorted, so equal arguments always print alike.
pub fn digest(value: &Value) -> String {
    encode(&Sha256::digest(value.to_string().as_bytes()))
}

/// Seconds since 1970: the clock the expiry in a state is read against.
pub fn now_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|since| since.as_secs())
        .unwrap_or_default()
}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// base64url without padding (RFC 4648, section 5): safe in JSON strings,
/// URLs and headers alike.
pub fn encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, byte)| n | (u32::from(*byte) << (16 - 8 * i)));
        for i in 0..=chunk.len() {
            out.push(char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize]));
        }
    }
    out
}

/// The bytes of base64url text without padding; `None` for any other text.
pub fn decode(text: &str) -> Option<Vec<u8>> {
    let sextet = |byte: u8| ALPHABET.iter().position(|c| *c == byte).map(|at| at as u32);
    let mut out = Vec::with_capacity(text.len() / 4 * 3 + 2);
    for chunk in text.as_bytes().chunks(4) {
        if chunk.len() == 1 {
            return None; // Six bits cannot end a byte.
        }
        let mut n = 0;
        for (i, byte) in chunk.iter().enumerate() {
            n |= sextet(*byte)? << (18 - 6 * i);
        }
        for i in 0..chunk.len() - 1 {
            out.push((n >> (16 - 8 * i)) as u8);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64url_round_trips_and_refuses_other_text() {
        for bytes in [&b""[..], b"f", b"fo", b"foo", b"foob", b"\xff\xfe\x00"] {
            assert_eq!(decode(&encode(bytes)).as_deref(), Some(bytes));
        }
        assert_eq!(encode(b"\xfb\xff"), "-_8");
        assert_eq!(decode("Zm9v+"), None);
        assert_eq!(decode("Zm9vY"), None);
    }

    #[test]
    fn a_changed_byte_breaks_the_seal() {
        let sealer = Sealer::new([7; KEY_BYTES]);
        let state = sealer.seal(b"{\"round\":1}");
        assert_eq!(sealer.open(&state).as_deref(), Some(&b"{\"round\":1}"[..]));
        assert_eq!(sealer.open(&format!("{state}-TAMPERED")), None);
        let forged = state.replacen("eyJyb3VuZCI6MX0", "eyJyb3VuZCI6Mn0", 1);
        assert_eq!(sealer.open(&forged), None);
        assert_eq!(Sealer::new([8; KEY_BYTES]).open(&state), None);
    }
}
