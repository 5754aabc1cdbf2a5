//! Chapter 14's file safety for `export_draft`: given code, as chapter 12's
//! state folder is. The chapter asks the client for its roots; this module
//! decides whether a path lies inside one, and writes a new file there
//! without following a symlink or replacing anything.
//!
//! A root is a `file://` URI naming a folder the user let the server work
//! in. A path is inside it when its folder, with every symlink and `..`
//! resolved by the operating system (`canonicalize`), starts with the
//! root's folder resolved the same way: `/work/notes/../secrets` and a
//! symlink in the root pointing out of it both end outside.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Component, Path, PathBuf};

/// The folder a `file://` root names, or why it names none. Percent signs
/// are refused rather than decoded: no root of ours needs one, and a
/// half-decoded path is how confinement goes wrong.
fn root_folder(uri: &str) -> Result<PathBuf, String> {
    let path = uri
        .strip_prefix("file://")
        .filter(|path| path.starts_with('/') && !path.contains('%'))
        .ok_or_else(|| format!("the root {uri:?} is not a plain file:// URI"))?;
    Path::new(path)
        .canonicalize()
        .map_err(|err| format!("the root {uri:?} cannot be used: {err}"))
}

/// `path` if it lies inside one of `roots` (file:// URIs), or why not.
pub fn confine(roots: &[String], path: &str) -> Result<PathBuf, String> {
    let wanted = Path::new(path);
    let name = match wanted.components().next_back() {
        Some(Component::Normal(name)) if wanted.is_absolute() => name,
        _ => return Err(format!("{path:?} is not an absolute path to a file")),
    };
    let folder = wanted
        .parent()
        .and_then(|parent| parent.canonicalize().ok())
        .ok_or_else(|| format!("the folder of {path:?} does not exist"))?;
    for uri in roots {
        if let Ok(root) = root_folder(uri)
            && folder.starts_with(&root)
        {
            return Ok(folder.join(name));
        }
    }
    Err(format!(
        "{path:?} is outside every root the client gave ({}); nothing was written",
        roots.join(", ")
    ))
}

/// Writes `text` to a new file at `path`: an existing file, or a symlink
/// planted there, is refused (`create_new` never follows one), so the tool
/// can never overwrite what the user already has.
pub fn write_new(path: &Path, text: &str) -> io::Result<()> {
    let mut file = File::options().write(true).create_new(true).open(path)?;
    file.write_all(text.as_bytes())?;
    file.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_that_leave_the_root_are_refused() {
        let base = std::env::temp_dir().join(format!("wire-roots-{}", std::process::id()));
        let root = base.join("root");
        std::fs::create_dir_all(root.join("inner")).unwrap();
        std::fs::create_dir_all(base.join("outside")).unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(base.join("outside"), root.join("link")).unwrap();
        let roots = [format!("file://{}", root.display())];
        let at = |rest: &str| format!("{}/{rest}", root.display());
        assert!(confine(&roots, &at("inner/a.md")).is_ok());
        assert!(confine(&roots, &at("a.md")).is_ok());
        assert!(confine(&roots, &at("inner/../../outside/a.md")).is_err());
        #[cfg(unix)]
        assert!(confine(&roots, &at("link/a.md")).is_err());
        assert!(confine(&roots, "relative.md").is_err());
        assert!(confine(&["https://example.com/".into()], &at("a.md")).is_err());
        let _ = std::fs::remove_dir_all(&base);
    }
}
