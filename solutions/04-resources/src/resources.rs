//! Resources: the engineering notes, which a client lists and reads by URI.
//! What a note is lives in `notes.rs`, the folder's files come through
//! `folder.rs`, and pages through `paging.rs`; this file answers the three
//! `resources/*` methods.

use std::path::PathBuf;

use serde::Deserialize;
use serde_json::{Value, json};

use crate::SERVER_NAME;
use crate::base64;
use crate::folder::{confine, not_found, walk};
use crate::jsonrpc::RpcError;
use crate::notes::{Entry, FOLDER_SCHEME, builtin_entries, file_entry};
use crate::paging::{self, ListParams};

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
    pub fn entries(&self) -> Vec<Entry> {
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
        let ListParams { cursor } = paging::list_params(params)?;
        let entries = self.entries();
        let uris: Vec<&str> = entries.iter().map(|entry| entry.uri.as_str()).collect();
        let (range, next_cursor) = paging::page(&uris, cursor.as_deref())?;
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
        let ListParams { cursor } = paging::list_params(params)?;
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
        let (range, next_cursor) = paging::page(&keys, cursor.as_deref())?;
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
        // GAP(ch04/read): find the resource `uri` names: a built-in note, or a
        // file of the folder that `confine` accepts; anything else is
        // `not_found`. Answer with exactly one item in `contents`: `text` for
        // a text/* resource that is valid UTF-8, else `blob` (base64).
        // starter: Err(RpcError::new(-32603, format!("TODO(ch04/read): cannot read {uri} yet")))
        let entry = if let Some(path) = uri.strip_prefix(FOLDER_SCHEME) {
            let folder = self.folder.as_ref().ok_or_else(|| not_found(&uri))?;
            file_entry(path, confine(folder, path, &uri)?)
        } else {
            let mut builtin = builtin_entries().into_iter();
            builtin
                .find(|entry| entry.uri == uri)
                .ok_or_else(|| not_found(&uri))?
        };
        let bytes = entry.bytes().map_err(|err| {
            eprintln!("{SERVER_NAME}: cannot read {uri}: {err}");
            RpcError::internal(format!("cannot read {uri}"))
        })?;
        let content = match std::str::from_utf8(&bytes) {
            Ok(text) if entry.mime_type.starts_with("text/") => {
                json!({ "uri": uri, "mimeType": entry.mime_type, "text": text })
            }
            _ => json!({ "uri": uri, "mimeType": entry.mime_type, "blob": base64::encode(&bytes) }),
        };
        // Never an empty `contents`: a URI that names nothing is an error.
        Ok(json!({ "contents": [content] }))
        // END(ch04/read)
    }
    // ANCHOR_END: read
}

/// `resources/read` takes one URI.
#[derive(Deserialize)]
struct ReadParams {
    uri: String,
}
