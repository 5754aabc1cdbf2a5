//! Files the course writes from its sources (the book's views, diagrams,
//! listings and exercises): written when they differ, removed when nothing
//! generates them any more, and only compared under `--check`.

use std::fs;
use std::path::{Path, PathBuf};

use crate::course::relative;

/// Writes `files` (or, with `check`, only compares them), and removes (or
/// reports) files in their folders that nothing generates any more.
/// Returns the paths that were stale, relative to the workspace root.
pub fn sync(files: &[(PathBuf, String)], dir: &Path, check: bool) -> Result<Vec<String>, String> {
    let mut stale = Vec::new();
    for (path, content) in files {
        if fs::read_to_string(path).ok().as_deref() == Some(content.as_str()) {
            continue;
        }
        stale.push(relative(path));
        if !check {
            fs::create_dir_all(path.parent().expect("a file has a folder"))
                .map_err(|err| err.to_string())?;
            fs::write(path, content).map_err(|err| format!("{}: {err}", path.display()))?;
        }
    }
    for path in files_under(dir) {
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
