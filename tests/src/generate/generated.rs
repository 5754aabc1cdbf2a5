//! Files the course writes from its sources (the book's views, diagrams,
//! listings and exercises): written when they differ, removed when nothing
//! generates them any more, and only compared under `--check`. Every
//! generated file (the book's, the support crates', the workshop schedule)
//! is written here; the starters have their own writer, [`crate::generate::starters`],
//! because a learner's edits in them must never be overwritten.

use std::fs;
use std::path::{Path, PathBuf};

use crate::course::relative;

/// Writes `files` (or, with `check`, only compares them), and removes (or
/// reports) files in their folders that nothing generates any more.
/// Returns the paths that were stale, relative to the workspace root.
pub fn sync(files: &[(PathBuf, String)], dir: &Path, check: bool) -> Result<Vec<String>, String> {
    sync_among(files, files_under(dir), check)
}

/// [`sync`], where the files that may be left over are `on_disk` (for a
/// folder that also holds files nothing generates, like `support/`).
pub fn sync_among(
    files: &[(PathBuf, String)],
    on_disk: Vec<PathBuf>,
    check: bool,
) -> Result<Vec<String>, String> {
    let mut stale = Vec::new();
    for (path, content) in files {
        if write(path, content, check)? {
            stale.push(relative(path));
        }
    }
    for path in on_disk {
        if files.iter().any(|(wanted, _)| *wanted == path) {
            continue;
        }
        stale.push(format!("{} (no longer generated)", relative(&path)));
        if !check {
            fs::remove_file(&path).map_err(|err| format!("{}: {err}", path.display()))?;
        }
    }
    Ok(stale)
}

/// The one place a generated file is written: `content` goes to `path`
/// when it differs (with `check`, nothing is written). True when it differed.
pub fn write(path: &Path, content: &str, check: bool) -> Result<bool, String> {
    if fs::read_to_string(path).ok().as_deref() == Some(content) {
        return Ok(false);
    }
    if !check {
        fs::create_dir_all(path.parent().expect("a file has a folder"))
            .and_then(|()| fs::write(path, content))
            .map_err(|err| format!("{}: {err}", relative(path)))?;
    }
    Ok(true)
}

/// Every file below `dir`, sorted.
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}
