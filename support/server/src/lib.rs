//! The server side's settled code: what a chapter taught and every later
//! chapter uses unchanged. Most modules are generated from the chapter that
//! teaches them (`support/taught.txt`; each file's first line names its
//! source): the learner writes them there, and from the next chapter on
//! `use`s them from here. A chapter brings them into its own crate with
//! `use wire_server::{jsonrpc, resources, …};` in its `main.rs`, so its
//! files keep saying `crate::resources::Notes` as before.
//!
//! Some modules are this crate's own, code no chapter asks the learner to
//! write: `stdio.rs` (chapter 5's loop, as a function chapters 12 and 13
//! call), `state.rs` (the file safety of chapter 12's state folder: atomic
//! writes, locks), `draft_tools.rs` (the draft tools' schemas and
//! argument checks) and `flags.rs` (a later server's own flag, taken out
//! before chapter 13's `options` reads the rest); with the `http` feature, which only chapter 13 turns
//! on, `http_util.rs` (chapter 13's HTTP plumbing: responses, headers,
//! signals), so that chapters before it never build hyper; with `asking`,
//! which only chapter 14 turns on, `request_state.rs` (the HMAC seal on a
//! 2026-07-28 `requestState`, and the record of spent states that chapter
//! 14's stretch keeps in the state folder), `roots.rs` (a path kept inside the roots),
//! `asking.rs` (a question, and the stdio connection that carries the
//! server's requests), `asking_http.rs` (the same over an SSE stream) and `asking_tools.rs` (its tools' schemas and reads); `long_work.rs`
//! (chapter 16's given code) and `task_waiting.rs` (chapter 17's: a call that
//! waits for its user as a task).

use std::fmt;
use std::sync::OnceLock;

// Generated from chapter 04 and 05 (the notes server).
pub mod base64;
pub mod folder;
pub mod jsonrpc;
pub mod notes;
pub mod paging;
pub mod prompts;
pub mod resources;

// Generated from chapter 12 (both eras; drafts).
pub mod drafts;
pub mod modern;
pub mod server;
pub mod tools;

// Generated from chapter 13 (Streamable HTTP): the command line every later
// server keeps, and its transport, which chapter 18 serves on unchanged.
#[cfg(feature = "http")]
pub mod http13;
pub mod options;

// Generated from chapter 14 (the server asks back), for chapter 16.
#[cfg(feature = "asking")]
pub mod ask;
#[cfg(feature = "asking")]
pub mod asking_calls;
#[cfg(feature = "asking")]
pub mod legacy;
#[cfg(feature = "asking")]
pub mod rounds;

// Generated from chapter 16 (long work), for chapter 17.
#[cfg(feature = "asking")]
pub mod reindex;
#[cfg(feature = "asking")]
pub mod subscriptions;
// Its transport, with the `http` feature too: chapter 17 serves on it.
#[cfg(all(feature = "http", feature = "asking"))]
pub mod http16;
// Its server, which chapter 17 hands every request that is not a task's.
#[cfg(all(feature = "http", feature = "asking"))]
pub mod dispatch16;
// The name chapter 16's files give its transport (`crate::http`), as in a
// chapter's crate.
#[cfg(all(feature = "http", feature = "asking"))]
use http16 as http;

// This crate's own.
#[cfg(feature = "asking")]
pub mod asking;
#[cfg(feature = "asking")]
pub mod asking_http;
#[cfg(feature = "asking")]
pub mod asking_tools;
pub mod draft_tools;
pub mod flags;
#[cfg(feature = "http")]
pub mod http_util;
#[cfg(feature = "asking")]
pub mod long_work;
#[cfg(feature = "asking")]
pub mod request_state;
#[cfg(feature = "asking")]
pub mod roots;
pub mod state;
pub mod stdio;
#[cfg(feature = "asking")]
pub mod task_waiting;
/// A request's W3C trace context, logged on stderr (not generated:
/// operating plumbing; chapter 25 shows it from the host's side).
pub mod trace;
#[cfg(feature = "asking")]
pub mod watched;

/// The program's name, for log lines and `serverInfo`. The chapters' files
/// say `crate::SERVER_NAME`, which in a chapter is a `const` of its
/// `main.rs`; here, where one library serves several programs, it is set
/// once at the start: `wire_server::SERVER_NAME.set(SERVER_NAME)`.
pub static SERVER_NAME: ProgramName = ProgramName(OnceLock::new());

pub struct ProgramName(OnceLock<&'static str>);

impl ProgramName {
    /// Names the program; a second call changes nothing.
    pub fn set(&self, name: &'static str) {
        let _ = self.0.set(name);
    }

    pub fn get(&self) -> &'static str {
        self.0.get().copied().unwrap_or("wire-server")
    }
}

impl fmt::Display for ProgramName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.get())
    }
}

impl serde::Serialize for ProgramName {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.get())
    }
}
