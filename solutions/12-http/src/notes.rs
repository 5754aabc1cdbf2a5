//! The notes themselves: the ones built into the binary, and `Entry`, what
//! one resource is (built in or a file of the notes folder) and how it
//! describes itself.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

// ANCHOR: builtin
/// The notes built into the binary: key, title, and one line of text.
const NOTES: [(&str, &str, &str); 8] = [
    (
        "backoff",
        "Retry with backoff",
        "Retry a failed call after 100 ms, then 200 ms, then 400 ms, with random jitter; give up after five tries.",
    ),
    (
        "deadlines",
        "Every call has a deadline",
        "Give every network call a deadline: a call without one can hang for ever.",
    ),
    (
        "idempotency",
        "Safe retries",
        "Make a request safe to retry: the client sends a key, and the server answers a repeated key with its first answer.",
    ),
    (
        "logging",
        "Logs go to stderr",
        "A stdio server writes protocol frames on stdout and everything else on stderr.",
    ),
    (
        "pagination",
        "Opaque cursors",
        "Hand out cursors that the client sends back unchanged, and check every cursor that comes back.",
    ),
    (
        "postmortems",
        "Blameless postmortems",
        "Write down what happened, when, and what will change; leave out who to blame.",
    ),
    (
        "rollbacks",
        "Roll back first",
        "When a deploy goes wrong, roll back first and investigate second.",
    ),
    (
        "utf8",
        "UTF-8 at the edge",
        "JSON on the wire is UTF-8: reject invalid bytes where they arrive, not deep inside.",
    ),
];

/// The one binary note: the build status light, a PNG of one green pixel.
const STATUS_PNG: [u8; 69] = [
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x90, 0x77, 0x53,
    0xde, 0x00, 0x00, 0x00, 0x0c, 0x49, 0x44, 0x41, 0x54, 0x78, 0xda, 0x63, 0xd0, 0x5b, 0xe0, 0x0c,
    0x00, 0x02, 0x11, 0x01, 0x12, 0x8a, 0xbc, 0x97, 0x49, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e,
    0x44, 0xae, 0x42, 0x60, 0x82,
];

pub const NOTE_SCHEME: &str = "note://";
pub const FOLDER_SCHEME: &str = "folder:///";
// ANCHOR_END: builtin

// ANCHOR: entry
/// One resource: what `resources/list` says about it, and where its bytes are.
pub struct Entry {
    pub uri: String,
    pub name: String,
    pub title: Option<&'static str>,
    pub description: &'static str,
    pub mime_type: &'static str,
    pub size: u64,
    pub body: Body,
}

pub enum Body {
    Text(&'static str),
    Bytes(&'static [u8]),
    /// A file that `confine` accepted: inside the notes folder.
    File(PathBuf),
}

impl Entry {
    /// The `Resource` object of `resources/list`.
    pub fn to_json(&self) -> Value {
        let mut resource = json!({
            "uri": self.uri,
            "name": self.name,
            "description": self.description,
            "mimeType": self.mime_type,
            "size": self.size,
        });
        if let Some(title) = self.title {
            resource["title"] = title.into();
        }
        resource
    }

    pub fn bytes(&self) -> std::io::Result<Vec<u8>> {
        match &self.body {
            Body::Text(text) => Ok(text.as_bytes().to_vec()),
            Body::Bytes(bytes) => Ok(bytes.to_vec()),
            Body::File(path) => fs::read(path),
        }
    }

    /// The text of a text resource; `None` for binary ones.
    pub fn text(&self) -> Option<String> {
        if !self.mime_type.starts_with("text/") {
            return None;
        }
        String::from_utf8(self.bytes().ok()?).ok()
    }
}

pub fn builtin_entries() -> Vec<Entry> {
    let mut entries: Vec<Entry> = NOTES
        .iter()
        .map(|&(key, title, text)| Entry {
            uri: format!("{NOTE_SCHEME}{key}"),
            name: key.to_string(),
            title: Some(title),
            description: "A built-in engineering note: one line of plain text.",
            mime_type: "text/plain",
            size: text.len() as u64,
            body: Body::Text(text),
        })
        .collect();
    entries.push(Entry {
        uri: format!("{NOTE_SCHEME}status.png"),
        name: "status.png".to_string(),
        title: Some("Build status light"),
        description: "A PNG of one pixel: green means the last build passed.",
        mime_type: "image/png",
        size: STATUS_PNG.len() as u64,
        body: Body::Bytes(&STATUS_PNG),
    });
    entries
}

/// A file of the notes folder; `path` is relative to the folder.
pub fn file_entry(path: &str, file: PathBuf) -> Entry {
    let mime_type = match Path::new(path)
        .extension()
        .and_then(|extension| extension.to_str())
    {
        Some("md") => "text/markdown",
        Some("txt") => "text/plain",
        _ => "application/octet-stream",
    };
    Entry {
        uri: format!("{FOLDER_SCHEME}{path}"),
        name: path.to_string(),
        title: None,
        description: "A file in the notes folder.",
        mime_type,
        size: fs::metadata(&file).map_or(0, |metadata| metadata.len()),
        body: Body::File(file),
    }
}
// ANCHOR_END: entry
