//! Resources: engineering notes that a client lists and reads by URI.
//!
//! Some notes are built into the binary (`note://KEY`); the files of the
//! folder given with `--notes-dir` are `folder:///PATH`. The same notes can
//! be searched with a tool, `search_notes`, at the end of this file: the
//! application reads resources, the model calls tools.

use std::fs;
use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::jsonrpc::RpcError;
use crate::tools;

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

const NOTE_SCHEME: &str = "note://";
const FOLDER_SCHEME: &str = "folder:///";
// ANCHOR_END: builtin

// ANCHOR: entry
/// One resource: what `resources/list` says about it, and where its bytes are.
struct Entry {
    uri: String,
    name: String,
    title: Option<&'static str>,
    description: &'static str,
    mime_type: &'static str,
    size: u64,
    body: Body,
}

enum Body {
    Text(&'static str),
    Bytes(&'static [u8]),
    /// A file that `confine` accepted: inside the notes folder.
    File(PathBuf),
}

impl Entry {
    /// The `Resource` object of `resources/list`.
    fn to_json(&self) -> Value {
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

    fn bytes(&self) -> std::io::Result<Vec<u8>> {
        match &self.body {
            Body::Text(text) => Ok(text.as_bytes().to_vec()),
            Body::Bytes(bytes) => Ok(bytes.to_vec()),
            Body::File(path) => fs::read(path),
        }
    }

    /// The text of a text resource; `None` for binary ones.
    fn text(&self) -> Option<String> {
        if !self.mime_type.starts_with("text/") {
            return None;
        }
        String::from_utf8(self.bytes().ok()?).ok()
    }
}

fn builtin_entries() -> Vec<Entry> {
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
fn file_entry(path: &str, file: PathBuf) -> Entry {
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

// ANCHOR: notes
pub struct Notes {
    /// The `--notes-dir` folder, canonical: absolute, with no `..` and no
    /// symlinks left, so that `starts_with` can tell inside from outside.
    folder: Option<PathBuf>,
}

impl Notes {
    pub fn new(folder: Option<PathBuf>) -> Result<Notes, String> {
        let Some(folder) = folder else {
            return Ok(Notes { folder: None });
        };
        let canonical = folder
            .canonicalize()
            .map_err(|err| format!("cannot use --notes-dir {}: {err}", folder.display()))?;
        if !canonical.is_dir() {
            return Err(format!("--notes-dir {} is not a folder", folder.display()));
        }
        Ok(Notes {
            folder: Some(canonical),
        })
    }
    // ANCHOR_END: notes

    // ANCHOR: entries
    /// Every resource, sorted by URI, so that pages are the same every time.
    fn entries(&self) -> Vec<Entry> {
        let mut entries = builtin_entries();
        if let Some(folder) = &self.folder {
            walk(folder, "", &mut entries);
        }
        entries.sort_by(|a, b| a.uri.cmp(&b.uri));
        entries
    }
    // ANCHOR_END: entries

    // ANCHOR: list
    pub fn list(&self, params: Option<Value>) -> Result<Value, RpcError> {
        let ListParams { cursor } = list_params(params)?;
        let entries = self.entries();
        let uris: Vec<&str> = entries.iter().map(|entry| entry.uri.as_str()).collect();
        let (range, next_cursor) = page(&uris, cursor.as_deref())?;
        let resources: Vec<Value> = entries[range].iter().map(Entry::to_json).collect();
        let mut result = json!({ "resources": resources });
        if let Some(next_cursor) = next_cursor {
            result["nextCursor"] = next_cursor.into();
        }
        Ok(result)
    }
    // ANCHOR_END: list

    // ANCHOR: templates
    /// URI patterns a client may fill in itself (RFC 6570; `{+path}` may
    /// contain `/`). Paginated like `resources/list`, with fewer items.
    pub fn templates(&self, params: Option<Value>) -> Result<Value, RpcError> {
        let ListParams { cursor } = list_params(params)?;
        let mut templates = vec![json!({
            "uriTemplate": "note://{key}",
            "name": "note",
            "title": "Engineering note",
            "description": "A built-in note by its key, such as note://backoff.",
        })];
        if self.folder.is_some() {
            templates.push(json!({
                "uriTemplate": "folder:///{+path}",
                "name": "folder-file",
                "title": "File in the notes folder",
                "description": "A file by its path inside the notes folder, \
                                such as folder:///runbooks/deploy.md.",
            }));
        }
        let keys: Vec<&str> = templates
            .iter()
            .map(|template| template["uriTemplate"].as_str().unwrap_or_default())
            .collect();
        let (range, next_cursor) = page(&keys, cursor.as_deref())?;
        let mut result = json!({ "resourceTemplates": templates[range] });
        if let Some(next_cursor) = next_cursor {
            result["nextCursor"] = next_cursor.into();
        }
        Ok(result)
    }
    // ANCHOR_END: templates

    // ANCHOR: read
    pub fn read(&self, params: Option<Value>) -> Result<Value, RpcError> {
        let params =
            params.ok_or_else(|| RpcError::invalid_params("resources/read needs a uri"))?;
        let ReadParams { uri } =
            serde_json::from_value(params).map_err(RpcError::invalid_params)?;
        // Exercise ch04/read: yours to write; see the Exercise section.
        Err(RpcError::new(
            -32603,
            format!("TODO(ch04/read): cannot read {uri} yet"),
        ))
    }
    // ANCHOR_END: read
}

// ANCHOR: params
/// `resources/list` and `resources/templates/list` take an optional cursor;
/// params may be absent.
#[derive(Deserialize)]
struct ListParams {
    cursor: Option<String>,
}

fn list_params(params: Option<Value>) -> Result<ListParams, RpcError> {
    let params = params.unwrap_or_else(|| json!({}));
    serde_json::from_value(params).map_err(RpcError::invalid_params)
}

#[derive(Deserialize)]
struct ReadParams {
    uri: String,
}
// ANCHOR_END: params

// ANCHOR: page
/// How many items one page holds: small, so that the built-in notes alone
/// take three pages. The client does not choose; the server does.
const PAGE_SIZE: usize = 3;

/// The page of `keys` (sorted) that `cursor` points at, and the cursor of
/// the page after it, if there is one. A cursor is the base64 of the first
/// key of its page: opaque to the client, easy to check for the server.
fn page(keys: &[&str], cursor: Option<&str>) -> Result<(Range<usize>, Option<String>), RpcError> {
    // Exercise ch04/list-page: yours to write; see the Exercise section.
    todo!(
        "ch04/list-page: start at 0 without a cursor, else at the key whose base64 is the cursor (none: -32602, the client must start again); take PAGE_SIZE keys; the next cursor is the base64 of the key after the page, and there is none after the last page."
    )
}
// ANCHOR_END: page

// ANCHOR: errors
/// -32002 with the URI in `data`, as 2025-06-18 and 2025-11-25 say.
/// (2026-07-28 moves "resource not found" to -32602.)
fn not_found(uri: &str) -> RpcError {
    RpcError::new(-32002, format!("Resource not found: {uri}")).with_data(json!({ "uri": uri }))
}

/// -32602: the URI asks for something this server never reads.
fn refused(uri: &str, why: &str) -> RpcError {
    RpcError::invalid_params(format!("{uri} is refused: {why}")).with_data(json!({ "uri": uri }))
}
// ANCHOR_END: errors

// ANCHOR: confine
/// The file that `path` (from a `folder:///` URI) names inside `folder`, or
/// an error. This is the only way to a file: listing and reading both use
/// it, so nothing outside the folder is ever opened.
fn confine(folder: &Path, path: &str, uri: &str) -> Result<PathBuf, RpcError> {
    // Exercise ch04/confine: yours to write; see the Exercise section.
    Err(refused(uri, "TODO(ch04/confine): not written yet"))
}

/// Adds the files under `relative` (a folder inside `folder`) to `entries`.
/// Symlinked folders are not followed; other symlinks go through `confine`.
fn walk(folder: &Path, relative: &str, entries: &mut Vec<Entry>) {
    let Ok(items) = fs::read_dir(folder.join(relative)) else {
        return;
    };
    for item in items.flatten() {
        let Ok(name) = item.file_name().into_string() else {
            continue; // A name that is not UTF-8 cannot be part of a URI here.
        };
        let path = match relative {
            "" => name,
            _ => format!("{relative}/{name}"),
        };
        if item.file_type().is_ok_and(|kind| kind.is_dir()) {
            walk(folder, &path, entries);
            continue;
        }
        let uri = format!("{FOLDER_SCHEME}{path}");
        match confine(folder, &path, &uri) {
            Ok(file) => entries.push(file_entry(&path, file)),
            Err(_) => eprintln!("ch04-resources: not listing {uri}: not a file inside the folder"),
        }
    }
}
// ANCHOR_END: confine

// ANCHOR: base64
const BASE64_ALPHABET: &[u8; 64] =
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64 (RFC 4648, padded with `=`): how `blob` carries bytes in
/// JSON, and how this server makes its cursors.
fn base64(bytes: &[u8]) -> String {
    // Exercise ch04/base64: yours to write; see the Exercise section.
    todo!(
        "ch04/base64: turn each group of 3 bytes (24 bits) into 4 characters of BASE64_ALPHABET (6 bits each). A last group of 1 or 2 bytes is padded with zero bits and gives 2 or 3 characters, then `=` up to 4."
    )
}
// ANCHOR_END: base64

// ANCHOR: search
impl Notes {
    /// The same notes as a tool: the model decides when to search.
    pub fn search_definition() -> Value {
        json!({
            "name": "search_notes",
            "title": "Search the engineering notes",
            "description": "Finds the notes whose text contains a word or phrase, ignoring case. \
                            Returns the first matching line of each note, and a link to the \
                            whole note.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "query": {
                        "type": "string",
                        "minLength": 1,
                        "description": "The word or phrase to look for, such as retry",
                    },
                },
                "required": ["query"],
                "additionalProperties": false,
            },
            "annotations": { "readOnlyHint": true },
        })
    }

    /// Runs `search_notes`: a text block with one line per match, then a
    /// `resource_link` per match (a Resource from resources/list, plus a type).
    pub fn search(&self, arguments: &Map<String, Value>) -> Value {
        if let Some(unknown) = arguments.keys().find(|key| *key != "query") {
            return tools::tool_error(format!(
                "Unknown argument \"{unknown}\": search_notes takes one string, query."
            ));
        }
        let query = match arguments.get("query") {
            Some(Value::String(query)) if !query.trim().is_empty() => query.trim(),
            Some(_) => {
                return tools::tool_error(
                    "Argument \"query\" must be a non-empty string, such as \"retry\".".to_string(),
                );
            }
            None => {
                return tools::tool_error(
                    "Missing argument \"query\": say what to look for, such as \"retry\"."
                        .to_string(),
                );
            }
        };
        let needle = query.to_lowercase();
        let mut lines = Vec::new();
        let mut content = Vec::new();
        for entry in self.entries() {
            let Some(text) = entry.text() else {
                continue; // Binary notes are not searched.
            };
            if let Some(line) = text
                .lines()
                .find(|line| line.to_lowercase().contains(&needle))
            {
                lines.push(format!("{}: {}", entry.uri, line.trim()));
                let mut link = entry.to_json();
                link["type"] = "resource_link".into();
                content.push(link);
            }
        }
        let summary = match lines.len() {
            0 => format!("No note contains \"{query}\"."),
            1 => format!("1 note contains \"{query}\":\n{}", lines.join("\n")),
            n => format!("{n} notes contain \"{query}\":\n{}", lines.join("\n")),
        };
        content.insert(0, json!({ "type": "text", "text": summary }));
        json!({ "content": content, "isError": false })
    }
}
// ANCHOR_END: search

#[cfg(test)]
mod tests {
    use super::base64;

    #[test]
    fn base64_matches_the_rfc_4648_examples() {
        let examples = [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ];
        for (bytes, encoded) in examples {
            assert_eq!(base64(bytes.as_bytes()), encoded, "base64({bytes:?})");
        }
        assert_eq!(base64(&[0x00, 0xff, 0xfe, 0x01, 0x02]), "AP/+AQI=");
    }
}
