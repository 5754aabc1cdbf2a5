//! Reading files a harness did not write, safely: protective code that
//! chapter 8's skills and chapter 9's agent files both need, and neither
//! chapter's lesson. A file is read only when it is a regular file, up to a
//! limit, and as UTF-8 text; a folder is listed, not read, up to a limit.
//! Which folder a path may lead into is the caller's rule (chapter 8's
//! `confine` gap), not this module's. Support-own: no chapter generates it.

use std::fmt;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use serde_json::Value;

/// The most text a harness hands its model from one file in one answer (a
/// SKILL.md, a skill's reference), and the most it reads of a file it does
/// not hand on (an agent file): a reference, not a data set. 256 KiB of
/// English is about 64,000 tokens, already a third of a large context
/// window. A longer file given to the model is cut there, with a line that
/// says how to read on (`read_part`), as Claude Code's Read tool pages a
/// long file with `offset`.
pub const MAX_TEXT: u64 = 256 * 1024;

/// How far back a cut looks for a line end: a cut inside a line moves back
/// to the end of the line before when that gives up at most this much.
const NEAR_LINE_END: usize = 4 * 1024;

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
    /// Asked to start at a line past its last: how many lines it has.
    PastTheEnd {
        lines: u64,
    },
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
            Unread::PastTheEnd { lines } => write!(f, "it has only {lines} lines"),
            Unread::Io(err) => write!(f, "cannot read it: {err}"),
        }
    }
}

impl Unread {
    /// The refusal a model reads when a tool could not read the file it
    /// named (`path`, as the model wrote it): what is wrong and what to do
    /// instead, so it can try again.
    pub fn for_model(self, path: &str) -> String {
        let refusal = match self {
            Unread::NotAFile => "is not a regular file (a folder or a device): give a file".into(),
            Unread::TooLarge { size, limit } => {
                format!("is {size} bytes, over the {limit}-byte limit")
            }
            Unread::NotUtf8 => "is not UTF-8 text: this tool reads text files only".into(),
            Unread::PastTheEnd { lines } => {
                format!("has only {lines} lines: give an \"offset\" of {lines} or less")
            }
            Unread::Io(err) => return format!("{path:?}: {err}"),
        };
        format!("{path:?} {refusal}")
    }
}

/// For `read_skill_file`: the file the model named `named`, from the line
/// its `offset` gives (none: the first) on, at most [`MAX_TEXT`] bytes,
/// with a last line saying how to read on when the file goes on. A bad
/// offset or an unreadable file is a refusal worded for the model.
pub fn read_for_model(path: &Path, named: &str, offset: &Value) -> Result<String, String> {
    let first = match offset {
        Value::Null => 1,
        other => other.as_u64().filter(|&line| line >= 1).ok_or_else(|| {
            format!("\"offset\": {other} is not a line number: give 1 or more, or leave it out")
        })?,
    };
    let part = read_part(path, first, MAX_TEXT).map_err(|unread| unread.for_model(named))?;
    let read_on = format!("call read_skill_file again with \"path\": {named:?} and \"offset\":");
    Ok(part.noted(named, &read_on))
}

/// For a skill's SKILL.md, read once at start: its first [`MAX_TEXT`]
/// bytes, so a huge file costs no more than that (its frontmatter is at
/// the start), with a last line saying how the model can read on.
pub fn read_head(path: &Path) -> Result<String, Unread> {
    let part = read_part(path, 1, MAX_TEXT)?;
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let read_on = format!("call read_skill_file with \"path\": {name:?} and \"offset\":");
    Ok(part.noted(&name, &read_on))
}

/// The lines of a text file from one on, as many as fit in a limit.
#[derive(Debug)]
pub struct Part {
    pub text: String,
    /// The file's numbers (from 1) of the first and the last line shown.
    pub first: u64,
    pub last: u64,
    /// The whole file's size, in bytes.
    pub size: u64,
    /// Whether the file goes on after `text`.
    pub cut: bool,
}

impl Part {
    /// The text, and when the file goes on, one more line: that it was
    /// cut, how big the file is, which lines are shown, and how to read
    /// on (`read_on`, then the next line's number).
    pub fn noted(self, named: &str, read_on: &str) -> String {
        if !self.cut {
            return self.text;
        }
        let Part {
            text,
            first,
            last,
            size,
            ..
        } = self;
        // A line longer than the limit is cut inside: say so, and end it.
        let (newline, short) = match text.ends_with('\n') {
            true => ("", ""),
            false => ("\n", ", the last one cut short"),
        };
        let next = last + 1;
        format!(
            "{text}{newline}[cut: {named} is {size} bytes, more than the {MAX_TEXT} bytes one \
             answer holds; these are its lines {first} to {last}{short}. To read on, \
             {read_on} {next}]"
        )
    }
}

// ANCHOR: read_part
/// The regular file at `path` from line `first` (counted from 1) on: at
/// most `limit` bytes of it, as UTF-8 text, cut on a character's boundary,
/// at a line's end when one is near. Only what is kept and one buffer are
/// in memory, whatever the file's size.
pub fn read_part(path: &Path, first: u64, limit: u64) -> Result<Part, Unread> {
    // Look before opening (opening a named pipe waits for a writer), then
    // ask the open file again: what is read is what was checked.
    if !path.is_file() {
        return Err(Unread::NotAFile);
    }
    let opened = std::fs::File::open(path).map_err(Unread::Io)?;
    let meta = opened.metadata().map_err(Unread::Io)?;
    if !meta.is_file() {
        return Err(Unread::NotAFile);
    }
    let mut reader = BufReader::new(opened);
    for skipped in 1..first {
        if reader.skip_until(b'\n').map_err(Unread::Io)? == 0 {
            return Err(Unread::PastTheEnd { lines: skipped - 1 });
        }
    }
    // One byte past the limit says whether the file goes on.
    let mut bytes = Vec::new();
    let mut rest = reader.take(limit.saturating_add(1));
    rest.read_to_end(&mut bytes).map_err(Unread::Io)?;
    if first > 1 && bytes.is_empty() {
        return Err(Unread::PastTheEnd { lines: first - 1 });
    }
    let cut = bytes.len() as u64 > limit;
    if cut {
        let end = cut_at(&bytes, limit as usize);
        bytes.truncate(end);
    }
    let text = String::from_utf8(bytes).map_err(|_| Unread::NotUtf8)?;
    let lines = text.matches('\n').count() as u64 + u64::from(!text.ends_with('\n'));
    Ok(Part {
        last: (first + lines).saturating_sub(1).max(first),
        first,
        size: meta.len(),
        cut,
        text,
    })
}
// ANCHOR_END: read_part

/// Where to cut `bytes` to keep at most `limit` of them: after the last
/// line end within NEAR_LINE_END of the limit, else at the limit moved back
/// to the start of the character it falls in (a UTF-8 continuation byte is
/// `10xxxxxx`).
fn cut_at(bytes: &[u8], limit: usize) -> usize {
    let near = limit.saturating_sub(NEAR_LINE_END);
    if let Some(at) = bytes[near..limit].iter().rposition(|&byte| byte == b'\n') {
        return near + at + 1;
    }
    let mut end = limit;
    while end > 0
        && bytes
            .get(end)
            .is_some_and(|byte| byte & 0b1100_0000 == 0b1000_0000)
    {
        end -= 1;
    }
    end
}

/// The text of the regular file at `path`, at most `limit` bytes: a file
/// over it is refused whole (an agent file is read, not handed on).
pub fn read_text(path: &Path, limit: u64) -> Result<String, Unread> {
    let part = read_part(path, 1, limit)?;
    if part.cut {
        let size = part.size.max(limit + 1);
        return Err(Unread::TooLarge { size, limit });
    }
    Ok(part.text)
}

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
    fn a_long_file_is_cut_at_a_line_end_and_read_on_from_an_offset() {
        let dir = scratch("part");
        let text: String = (1..=3000).map(|n| format!("line {n}\n")).collect();
        std::fs::write(dir.join("long.md"), &text).unwrap();
        let head = read_part(&dir.join("long.md"), 1, 8192).unwrap();
        assert!(head.cut && head.text.ends_with('\n') && head.text.len() <= 8192);
        assert_eq!((head.first, head.size), (1, text.len() as u64));
        let next = read_part(&dir.join("long.md"), head.last + 1, MAX_TEXT).unwrap();
        assert!(!next.cut && next.last == 3000);
        assert_eq!(head.text + &next.text, text, "the parts add up to the file");
        let note = read_part(&dir.join("long.md"), 1, 100)
            .unwrap()
            .noted("long.md", "ask at");
        assert!(
            note.ends_with("these are its lines 1 to 13. To read on, ask at 14]"),
            "{note}"
        );
        assert!(matches!(
            read_part(&dir.join("long.md"), 3001, 10),
            Err(Unread::PastTheEnd { lines: 3000 })
        ));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_cut_inside_a_long_line_keeps_whole_characters() {
        let dir = scratch("chars");
        std::fs::write(dir.join("one-line.md"), "é".repeat(10_000)).unwrap();
        let part = read_part(&dir.join("one-line.md"), 1, 5001).unwrap();
        assert!(part.cut && part.text.len() == 5000 && part.last == 1);
        let note = part.noted("one-line.md", "ask at");
        assert!(
            note.contains("\n[cut: one-line.md is 20000 bytes"),
            "{note}"
        );
        assert!(
            note.contains("lines 1 to 1, the last one cut short."),
            "{note}"
        );
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
