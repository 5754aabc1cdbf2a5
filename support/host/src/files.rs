//! Reading files a harness did not write, safely: protective code that
//! chapter 8's skills and chapter 9's agent files both need, and neither
//! chapter's lesson. A file is read only when it is a regular file, up to a
//! limit, and as UTF-8 text; a folder is listed, not read, up to a limit.
//! Which folder a path may lead into is the caller's rule (chapter 8's
//! `confine` gap), not this module's. Support-own: no chapter generates it.

use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The largest text file a harness reads for its model (a SKILL.md, a
/// skill's reference): a reference, not a data set. 256 KiB of English is
/// about 64,000 tokens, already a third of a large context window.
pub const MAX_TEXT: u64 = 256 * 1024;

/// Why a file was not read, for the caller to word as its tool or report
/// needs; `Display` gives the short form (`not a regular file`).
#[derive(Debug)]
pub enum Unread {
    /// A folder, a device, a named pipe, a socket.
    NotAFile,
    /// Its size and the limit, in bytes.
    TooLarge {
        size: u64,
        limit: u64,
    },
    NotUtf8,
    Io(std::io::Error),
}

impl fmt::Display for Unread {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unread::NotAFile => write!(f, "not a regular file"),
            Unread::TooLarge { size, limit } => {
                write!(f, "{size} bytes, over the {limit}-byte limit")
            }
            Unread::NotUtf8 => write!(f, "not UTF-8 text"),
            Unread::Io(err) => write!(f, "cannot read it: {err}"),
        }
    }
}

impl Unread {
    /// The refusal a model reads when a tool could not read the file it
    /// named (`path`, as the model wrote it): what is wrong and what to do
    /// instead, so it can try again. `what` says what kind of file the
    /// tool reads, for the size limit (`a skill file`).
    pub fn for_model(self, path: &str, what: &str) -> String {
        let refusal = match self {
            Unread::NotAFile => "is not a regular file (a folder or a device): give a file".into(),
            Unread::TooLarge { size, limit } => {
                format!("is {size} bytes, over the {limit}-byte limit for {what}")
            }
            Unread::NotUtf8 => "is not UTF-8 text: this tool reads text files only".into(),
            Unread::Io(err) => return format!("{path:?}: {err}"),
        };
        format!("{path:?} {refusal}")
    }
}

/// [`read_text`] at most [`MAX_TEXT`] bytes, for a tool whose model named
/// the file `named`: a refusal is worded for that model (`for_model`).
pub fn read_for_model(path: &Path, named: &str, what: &str) -> Result<String, String> {
    read_text(path, MAX_TEXT).map_err(|unread| unread.for_model(named, what))
}

// ANCHOR: read_text
/// The text of the regular file at `path`, at most `limit` bytes.
pub fn read_text(path: &Path, limit: u64) -> Result<String, Unread> {
    // Look before opening (opening a named pipe waits for a writer), then
    // ask the open file again: what is read is what was checked.
    if !path.is_file() {
        return Err(Unread::NotAFile);
    }
    let mut opened = std::fs::File::open(path).map_err(Unread::Io)?;
    let meta = opened.metadata().map_err(Unread::Io)?;
    if !meta.is_file() {
        return Err(Unread::NotAFile);
    }
    if meta.len() > limit {
        let size = meta.len();
        return Err(Unread::TooLarge { size, limit });
    }
    // The file may grow after the look: read one byte past the limit at
    // most, and refuse what came out longer.
    let mut bytes = Vec::new();
    (&mut opened)
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(Unread::Io)?;
    if bytes.len() as u64 > limit {
        let size = bytes.len() as u64;
        return Err(Unread::TooLarge { size, limit });
    }
    String::from_utf8(bytes).map_err(|_| Unread::NotUtf8)
}
// ANCHOR_END: read_text

/// Every file under `dir` except those named in `leave_out` (paths relative
/// to `dir`), as sorted relative paths with `/`: listed, not read. Symlinks
/// are listed, not followed, so a link to `/` lists as one entry. Past
/// `max` files the list ends with a line `… and N more`, so a huge folder
/// cannot flood a model's context.
pub fn list(dir: &Path, leave_out: &[&str], max: usize) -> Vec<String> {
    let mut files = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).into_iter().flatten().flatten() {
            let path = entry.path();
            if entry.file_type().is_ok_and(|kind| kind.is_dir()) {
                folders.push(path);
            } else if let Ok(relative) = path.strip_prefix(dir) {
                let relative = relative.to_string_lossy().replace('\\', "/");
                if !leave_out.contains(&relative.as_str()) {
                    files.push(relative);
                }
            }
        }
    }
    files.sort();
    if files.len() > max {
        let more = files.len() - max;
        files.truncate(max);
        files.push(format!("… and {more} more"));
    }
    files
}

/// The entries of `folder` whose names do not start with `.`, sorted by
/// name; none when it cannot be read (the caller says what it expected).
pub fn visible_entries(folder: impl AsRef<Path>) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(folder)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|entry| !entry.file_name().to_string_lossy().starts_with('.'))
        .map(|entry| entry.path())
        .collect();
    paths.sort();
    paths
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("wire-files-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn only_small_regular_text_files_are_read() {
        let dir = scratch("read");
        std::fs::write(dir.join("ok.md"), "text").unwrap();
        std::fs::write(dir.join("big.md"), "12345").unwrap();
        std::fs::write(dir.join("bin"), [0xff, 0xfe]).unwrap();
        assert_eq!(read_text(&dir.join("ok.md"), 4).unwrap(), "text");
        assert!(matches!(
            read_text(&dir.join("big.md"), 4),
            Err(Unread::TooLarge { size: 5, limit: 4 })
        ));
        assert!(matches!(
            read_text(&dir.join("bin"), 4),
            Err(Unread::NotUtf8)
        ));
        assert!(matches!(read_text(&dir, 4), Err(Unread::NotAFile)));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_listing_is_sorted_and_bounded() {
        let dir = scratch("list");
        std::fs::create_dir(dir.join("sub")).unwrap();
        for name in ["SKILL.md", "b", "a", "sub/c"] {
            std::fs::write(dir.join(name), "").unwrap();
        }
        assert_eq!(list(&dir, &["SKILL.md"], 10), ["a", "b", "sub/c"]);
        assert_eq!(list(&dir, &["SKILL.md"], 2), ["a", "b", "… and 1 more"]);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
