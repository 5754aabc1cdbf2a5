//! Where things live: chapters, their crates, transcripts and book pages.
//! One naming scheme ties them together: `NN-slug` in `solutions/`,
//! `chapters/` and `book/src/`, and `chNN` under `tests/transcripts/`.

use std::fs;
use std::path::{Path, PathBuf};

/// The workspace root (the folder above `tests/`).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ sits inside the workspace")
        .to_path_buf()
}

/// `path` relative to the workspace root, for messages (as it is when it
/// lies elsewhere).
pub fn relative(path: &Path) -> String {
    path.strip_prefix(root())
        .unwrap_or(path)
        .display()
        .to_string()
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chapter {
    /// 1 for `01-echo`.
    pub number: u32,
    /// `01-echo`.
    pub dir: String,
}

impl Chapter {
    /// Every chapter that has a reference solution, in order.
    pub fn all() -> Vec<Chapter> {
        let mut chapters: Vec<Chapter> = fs::read_dir(root().join("solutions"))
            .map(|entries| {
                entries
                    .flatten()
                    .filter_map(|e| Chapter::from_dir(&e.file_name().to_string_lossy()))
                    .collect()
            })
            .unwrap_or_default();
        chapters.sort_by_key(|chapter| chapter.number);
        chapters
    }

    fn from_dir(dir: &str) -> Option<Chapter> {
        let (number, slug) = dir.split_once('-')?;
        if number.len() != 2 || slug.is_empty() {
            return None;
        }
        Some(Chapter {
            number: number.parse().ok()?,
            dir: dir.to_string(),
        })
    }

    /// Finds a chapter by `3`, `03`, `ch03` or `03-add-tool`; the error
    /// names the chapters that exist.
    pub fn find(name: &str) -> Result<Chapter, String> {
        let known = || {
            Chapter::all()
                .iter()
                .map(|c| c.dir.clone())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let number = chapter_number(name).ok_or_else(|| {
            format!(
                "{name:?} is not a chapter: write its number, like 3, 03 or ch03; the chapters are {}",
                known()
            )
        })?;
        Chapter::all()
            .into_iter()
            .find(|chapter| chapter.number == number)
            .ok_or_else(|| {
                format!(
                    "there is no chapter {number:02}; the chapters are {}",
                    known()
                )
            })
    }

    /// `ch03`.
    pub fn id(&self) -> String {
        format!("ch{:02}", self.number)
    }
    /// `ch03-add-tool`: the starter's package and binary.
    pub fn starter_package(&self) -> String {
        format!("ch{}", self.dir)
    }
    /// `ch03-add-tool-solution`: the solution's package and binary.
    pub fn solution_package(&self) -> String {
        format!("ch{}-solution", self.dir)
    }
    pub fn solution_dir(&self) -> PathBuf {
        root().join("solutions").join(&self.dir)
    }
    pub fn starter_dir(&self) -> PathBuf {
        root().join("chapters").join(&self.dir)
    }
    pub fn transcripts_dir(&self) -> PathBuf {
        root().join("tests").join("transcripts").join(self.id())
    }
    pub fn transcript_path(&self, scenario: &str) -> PathBuf {
        self.transcripts_dir().join(format!("{scenario}.wire"))
    }
    /// `book/src/03-add-tool.md`.
    pub fn book_page(&self) -> PathBuf {
        root()
            .join("book")
            .join("src")
            .join(format!("{}.md", self.dir))
    }
    /// The chapter before this one, if any.
    pub fn previous(&self) -> Option<Chapter> {
        Chapter::all().into_iter().rfind(|c| c.number < self.number)
    }

    /// The chapter whose solution this one starts as a copy of: the one
    /// before it, unless the solution's `Cargo.toml` says otherwise with
    /// `grows-from = "05"` under `[package.metadata.course]`, or
    /// `grows-from = "nothing"` for a chapter that starts a new crate
    /// (chapter 6's client follows five servers).
    pub fn grows_from(&self) -> Option<Chapter> {
        let manifest =
            fs::read_to_string(self.solution_dir().join("Cargo.toml")).unwrap_or_default();
        let declared = manifest
            .lines()
            .skip_while(|line| line.trim() != "[package.metadata.course]")
            .find_map(|line| line.trim().strip_prefix("grows-from"))
            .and_then(|rest| rest.trim().strip_prefix('='))
            .map(|value| value.trim().trim_matches('"').to_string());
        match declared.as_deref() {
            None => self.previous(),
            Some("nothing") => None,
            Some(name) => Chapter::find(name).ok(),
        }
    }

    /// The scenario names of this chapter, sorted.
    pub fn scenarios(&self) -> Vec<String> {
        wire_names(&self.transcripts_dir())
    }

    /// The stretch scenarios of this chapter, sorted, each named
    /// `stretch/NAME` for `tests/transcripts/chNN/stretch/NAME.wire`: the
    /// transcript of stretch exercise `chNN/NAME`, run against the crate
    /// built with `--features stretch`.
    pub fn stretch_scenarios(&self) -> Vec<String> {
        wire_names(&self.transcripts_dir().join(STRETCH.trim_end_matches('/')))
            .into_iter()
            .map(|name| format!("{STRETCH}{name}"))
            .collect()
    }
}

/// The folder of a chapter's stretch transcripts, as a scenario name prefix.
pub const STRETCH: &str = "stretch/";

/// The scenario of stretch exercise `id`: `ch02/used-ids` is checked by
/// `stretch/used_ids` (`tests/transcripts/ch02/stretch/used_ids.wire`; a
/// scenario name is a Rust identifier, so `-` becomes `_`).
pub fn stretch_scenario(id: &str) -> String {
    let name = id.split_once('/').map_or(id, |(_, name)| name);
    format!("{STRETCH}{}", name.replace('-', "_"))
}

/// The names of the `.wire` files in `dir`, without the extension, sorted.
fn wire_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .filter_map(|entry| {
                    entry
                        .file_name()
                        .to_str()?
                        .strip_suffix(".wire")
                        .map(str::to_string)
                })
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// The number in `3`, `03`, `ch03`, `ch3` or `03-add-tool`.
pub fn chapter_number(name: &str) -> Option<u32> {
    let rest = name.strip_prefix("ch").unwrap_or(name);
    let end = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    let (digits, tail) = rest.split_at(end);
    if digits.is_empty() || digits.len() > 2 || !(tail.is_empty() || tail.starts_with('-')) {
        return None;
    }
    digits.parse().ok()
}

/// The files of a crate that the course generates or compares, relative to
/// the crate folder, sorted: `Cargo.toml` and everything in its folders:
/// `src/`, and the data a chapter reads at run time (chapter 7's `scripts/`,
/// chapter 8's `skills/`, chapter 9's `agents/`), so that a starter built
/// from `chapters/` finds the same files as the solution.
pub fn crate_files(crate_dir: &Path) -> Vec<PathBuf> {
    let mut files = vec![PathBuf::from("Cargo.toml")];
    let mut stack: Vec<PathBuf> = fs::read_dir(crate_dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|entry| entry.path().is_dir())
        .map(|entry| PathBuf::from(entry.file_name()))
        .collect();
    while let Some(dir) = stack.pop() {
        let Ok(entries) = fs::read_dir(crate_dir.join(&dir)) else {
            continue;
        };
        for entry in entries.flatten() {
            let relative = dir.join(entry.file_name());
            if entry.path().is_dir() {
                stack.push(relative);
            } else {
                files.push(relative);
            }
        }
    }
    files.sort();
    files
}

/// "What changed since the last chapter": a unified diff of the previous
/// chapter's solution against this one's (`Cargo.toml` and `src/`).
/// The book includes it from `book/src/generated/changes-NN.diff`.
pub fn changes(chapter: &Chapter) -> Option<String> {
    let previous = chapter.previous()?;
    let Some(previous) = chapter.grows_from() else {
        // A new crate: a diff would show the old one removed, line by line.
        return Some(new_crate(chapter, &previous));
    };
    let mut files = crate_files(&previous.solution_dir());
    files.extend(crate_files(&chapter.solution_dir()));
    files.sort();
    files.dedup();
    let mut out = String::new();
    for file in files {
        // Without the gap markers and the listings' `ANCHOR` lines: the book
        // shows no generator comments.
        let old = without_anchors(&without_course_metadata(&without_untested_bin(
            &crate::generate::exercises::solution_text(&previous, &file),
        )));
        let new = without_anchors(&without_course_metadata(&without_untested_bin(
            &crate::generate::exercises::solution_text(chapter, &file),
        )));
        let old_name = format!("solutions/{}/{}", previous.dir, file.display());
        let new_name = format!("solutions/{}/{}", chapter.dir, file.display());
        if let Some(diff) = crate::textdiff::unified(&old_name, &new_name, &old, &new) {
            out += &diff;
        }
    }
    Some(out)
}

/// A file without the `// ANCHOR: name` and `// ANCHOR_END: name` lines
/// that mark the regions the book's listings include.
fn without_anchors(text: &str) -> String {
    text.lines()
        .filter(|line| !crate::markers::is_anchor(line))
        .map(|line| format!("{line}\n"))
        .collect()
}

/// A manifest without its `[package.metadata.course]` table and the comment
/// above it: notes for the tooling, not a change a reader should study.
fn without_course_metadata(text: &str) -> String {
    without_table(text, "[package.metadata.course]", |_| true)
}

/// A manifest without the `[[bin]]` table of a crate that holds no
/// `#[test]` (`test = false`: `cargo test` need not compile it twice), and
/// the comment above it. Neither a starter, which keeps cargo's default for
/// the learner's own tests, nor the book's diffs show it.
pub fn without_untested_bin(text: &str) -> String {
    without_table(text, "[[bin]]", |table| {
        table.iter().any(|line| line.trim() == "test = false")
    })
}

/// A manifest without the first table whose header line is `header`, and
/// the comment lines right above it, when `drop` says so of its lines.
fn without_table(text: &str, header: &str, drop: impl Fn(&[&str]) -> bool) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let Some(at) = lines.iter().position(|line| line.trim() == header) else {
        return text.to_string();
    };
    let end = lines[at + 1..]
        .iter()
        .position(|line| line.starts_with('['))
        .map_or(lines.len(), |offset| at + 1 + offset);
    if !drop(&lines[at..end]) {
        return text.to_string();
    }
    let mut start = at;
    while start > 0 && lines[start - 1].starts_with('#') {
        start -= 1;
    }
    let mut kept: Vec<&str> = lines[..start].to_vec();
    if end == lines.len() {
        // The table ended the file: so do the lines before it.
        while kept.last().is_some_and(|line| line.trim().is_empty()) {
            kept.pop();
        }
    }
    kept.extend(&lines[end..]);
    kept.iter().map(|line| format!("{line}\n")).collect()
}

/// What the "what changed" page says for a chapter that starts a new crate:
/// that it does, and the files it starts with.
fn new_crate(chapter: &Chapter, previous: &Chapter) -> String {
    let mut out = format!(
        "Chapter {:02} starts a new crate instead of growing chapter {:02}'s: every file is new.\n\n",
        chapter.number, previous.number
    );
    for file in crate_files(&chapter.solution_dir()) {
        let lines = crate::generate::exercises::solution_text(chapter, &file)
            .lines()
            .count();
        out += &format!(
            "  solutions/{}/{}  ({lines} lines)\n",
            chapter.dir,
            file.display()
        );
    }
    out
}

/// Where [`changes`] is stored for the book.
pub fn changes_path(chapter: &Chapter) -> PathBuf {
    root()
        .join("book/src/generated")
        .join(format!("changes-{:02}.diff", chapter.number))
}

/// The "what changed" pages that differ from [`changes`], as paths relative
/// to the root, with the fresh text of each. Shared by the course test and
/// `cargo xtask changes [--check]`.
pub fn changes_to_write() -> Vec<(String, PathBuf, String)> {
    let mut stale = Vec::new();
    for chapter in Chapter::all() {
        let Some(diff) = changes(&chapter) else {
            continue;
        };
        let path = changes_path(&chapter);
        if fs::read_to_string(&path).ok().as_deref() != Some(diff.as_str()) {
            let name = path
                .strip_prefix(root())
                .unwrap_or(&path)
                .display()
                .to_string();
            stale.push((name, path, diff));
        }
    }
    stale
}

/// The names of the out-of-date "what changed" pages.
pub fn stale_changes() -> Vec<String> {
    changes_to_write()
        .into_iter()
        .map(|(name, _, _)| name)
        .collect()
}

/// The scenarios each starter must fail, from `tests/starter-failures.txt`:
/// `(chapter id, scenario, gap id)` triples.
pub fn starter_failures() -> Result<Vec<(String, String, String)>, String> {
    let path = root().join("tests/starter-failures.txt");
    let text = fs::read_to_string(&path)
        .map_err(|err| format!("cannot read {}: {err}", path.display()))?;
    let mut rows = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        match line.split_whitespace().collect::<Vec<_>>()[..] {
            [chapter, scenario, gap] => {
                rows.push((chapter.to_string(), scenario.to_string(), gap.to_string()))
            }
            _ => {
                return Err(format!(
                    "tests/starter-failures.txt:{}: write `chNN scenario chNN/gap`",
                    index + 1
                ));
            }
        }
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_chapter_number_in_every_spelling() {
        for name in ["3", "03", "ch03", "ch3", "03-add-tool"] {
            assert_eq!(chapter_number(name), Some(3), "{name}");
        }
        for name in ["", "ch", "x3", "3x", "003", "three", "--solution"] {
            assert_eq!(chapter_number(name), None, "{name}");
        }
    }

    #[test]
    fn an_unknown_chapter_names_the_chapters_that_exist() {
        let err = Chapter::find("99").unwrap_err();
        assert!(err.contains("no chapter 99"), "{err}");
        assert!(err.contains("01-echo"), "{err}");
        let err = Chapter::find("x").unwrap_err();
        assert!(err.contains("01-echo"), "{err}");
    }
}
