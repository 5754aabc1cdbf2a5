//! The notes folder (`--notes-dir`): the only way from a `folder:///` URI
//! to a file, and the walk that lists the folder's files.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::json;

use crate::SERVER_NAME;
use crate::jsonrpc::RpcError;
use crate::notes::{Entry, FOLDER_SCHEME, file_entry};

// ANCHOR: errors
/// -32002 with the URI in `data`, as 2025-06-18 and 2025-11-25 say.
/// (2026-07-28 moves "resource not found" to -32602.)
pub fn not_found(uri: &str) -> RpcError {
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
pub fn confine(folder: &Path, path: &str, uri: &str) -> Result<PathBuf, RpcError> {
    if path.contains('%') {
        // We never decode %2e%2e or %2f: a name that needs them is not served.
        return Err(refused(uri, "percent-encoded characters are not accepted"));
    }
    if path.contains('\\') {
        return Err(refused(
            uri,
            "a backslash is not a path separator here; use /",
        ));
    }
    if path.starts_with('/') {
        return Err(refused(
            uri,
            "the path must be relative to the notes folder",
        ));
    }
    if path
        .split('/')
        .any(|segment| matches!(segment, "" | "." | ".."))
    {
        return Err(refused(
            uri,
            "the segments . and .. (and empty ones) are not accepted",
        ));
    }
    // canonicalize follows every symlink: a link that leaves the folder
    // shows up here as a path outside it.
    let file = folder
        .join(path)
        .canonicalize()
        .map_err(|_| not_found(uri))?;
    if !file.starts_with(folder) {
        return Err(refused(uri, "it leads outside the notes folder"));
    }
    if !file.is_file() {
        return Err(not_found(uri));
    }
    Ok(file)
}

/// Adds the files under `relative` (a folder inside `folder`) to `entries`.
/// Symlinked folders are not followed; other symlinks go through `confine`.
pub fn walk(folder: &Path, relative: &str, entries: &mut Vec<Entry>) {
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
            Err(_) => eprintln!("{SERVER_NAME}: not listing {uri}: not a file inside the folder"),
        }
    }
}
// ANCHOR_END: confine
