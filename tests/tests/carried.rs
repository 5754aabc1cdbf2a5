//! Files carried forward unchanged stay unchanged: each copy listed in
//! `tests/carried-files.txt` equals the previous chapter's, so a fix made in
//! one copy cannot silently miss the others.

use std::fs;

use wire_tests::course::{self, Chapter};
use wire_tests::generate::gaps;
use wire_tests::textdiff;

/// One row of `tests/carried-files.txt`: `file` is carried unchanged from
/// chapter `from` through chapter `to`.
struct Row {
    file: String,
    from: Chapter,
    to: Chapter,
}

fn rows() -> Result<Vec<Row>, String> {
    let text = fs::read_to_string(course::root().join("tests/carried-files.txt"))
        .map_err(|err| format!("cannot read tests/carried-files.txt: {err}"))?;
    let mut rows = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let at = format!("tests/carried-files.txt:{}", index + 1);
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let [file, from, to] = line.split_whitespace().collect::<Vec<_>>()[..] else {
            return Err(format!(
                "{at}: write `src/file.rs  FROM  TO`, like `src/jsonrpc.rs 02 03`"
            ));
        };
        let (from, to) = (Chapter::find(from), Chapter::find(to));
        let (from, to) = (
            from.map_err(|e| format!("{at}: {e}"))?,
            to.map_err(|e| format!("{at}: {e}"))?,
        );
        if from.number >= to.number {
            return Err(format!("{at}: FROM must come before TO"));
        }
        rows.push(Row {
            file: file.to_string(),
            from,
            to,
        });
    }
    Ok(rows)
}

impl Row {
    /// Each (chapter, the chapter it grows from) from TO back to FROM. A
    /// chapter grows from the one before it unless its manifest says
    /// otherwise (`grows-from`): chapter 12 grows from 05, not from 08.
    fn steps(&self) -> Result<Vec<(Chapter, Chapter)>, String> {
        let mut steps = Vec::new();
        let mut chapter = self.to.clone();
        while chapter.number > self.from.number {
            let Some(parent) = chapter.grows_from() else {
                break;
            };
            steps.push((parent.clone(), chapter));
            chapter = parent;
        }
        if chapter.number != self.from.number {
            return Err(format!(
                "tests/carried-files.txt: {} {:02} {:02}: chapter {:02} does not grow from \
                 chapter {:02} (see `grows-from` in its Cargo.toml)",
                self.file, self.from.number, self.to.number, self.to.number, self.from.number
            ));
        }
        steps.reverse();
        Ok(steps)
    }
}

/// What must be equal between two copies: the text without gap markers and
/// without the first paragraph of the `//!` doc, where a copy may say
/// "Chapter 6's connection, copied unchanged".
fn comparable(text: &str) -> String {
    let text = gaps::without_markers(text);
    let mut lines = text.lines().peekable();
    while lines
        .next_if(|line| line.starts_with("//!") && line.trim() != "//!")
        .is_some()
    {}
    // A stretch at the end of a file leaves the blank line before it behind.
    let text: String = lines.map(|line| format!("{line}\n")).collect();
    format!("{}\n", text.trim_end())
}

/// `solutions/NN-slug/FILE`, relative to the root, and its text.
fn copy(chapter: &Chapter, file: &str) -> Result<(String, String), String> {
    let name = format!("solutions/{}/{file}", chapter.dir);
    fs::read_to_string(course::root().join(&name))
        .map(|text| (name.clone(), text))
        .map_err(|err| format!("{name}: cannot read it ({err}); fix tests/carried-files.txt"))
}

#[test]
fn carried_files_equal_the_previous_chapters_copy() {
    let mut problems = Vec::new();
    for row in rows().unwrap_or_else(|err| panic!("{err}")) {
        let steps = row.steps().unwrap_or_else(|err| panic!("{err}"));
        for (previous, chapter) in steps {
            let (old, new) = match (copy(&previous, &row.file), copy(&chapter, &row.file)) {
                (Ok(old), Ok(new)) => (old, new),
                (Err(problem), _) | (_, Err(problem)) => {
                    problems.push(problem);
                    continue;
                }
            };
            let diff = textdiff::unified(&old.0, &new.0, &comparable(&old.1), &comparable(&new.1));
            if let Some(diff) = diff {
                problems.push(format!(
                    "{} should be a copy of {} (tests/carried-files.txt says so). Make the same \
                     change in every copy, or end the row at chapter {:02}:\n{diff}",
                    new.0, old.0, previous.number
                ));
            }
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

/// The other direction: a file that is already the same as the chapter
/// before's is listed, so the list stays the one place to look.
#[test]
fn every_unchanged_copy_is_listed() {
    let rows = rows().unwrap_or_else(|err| panic!("{err}"));
    let mut problems = Vec::new();
    for chapter in Chapter::all() {
        let Some(previous) = chapter.grows_from() else {
            continue;
        };
        for file in course::crate_files(&chapter.solution_dir()) {
            let file = file.display().to_string();
            if !file.starts_with("src/") || file == "src/main.rs" {
                continue; // The manifest and main.rs name the chapter: never the same.
            }
            let (Ok(old), Ok(new)) = (copy(&previous, &file), copy(&chapter, &file)) else {
                continue;
            };
            let listed = rows.iter().any(|row| {
                row.file == file
                    && row.steps().is_ok_and(|steps| {
                        steps.iter().any(|(_, step)| step.number == chapter.number)
                    })
            });
            if !listed && comparable(&old.1) == comparable(&new.1) {
                problems.push(format!(
                    "{} is a copy of {}: add `{file}  {:02}  {:02}` to tests/carried-files.txt \
                     (or end at {:02} the row for it that ends at {:02})",
                    new.0, old.0, previous.number, chapter.number, chapter.number, previous.number
                ));
            }
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

#[test]
fn markers_and_the_first_doc_paragraph_do_not_count() {
    let solution = "//! One connection.\n//!\n//! Details.\nfn f() {\n    // GAP(ch06/f): do it.\n    // starter: todo!()\n    1\n    // END(ch06/f)\n}\n";
    let copy = "//! Chapter 6's connection, copied unchanged:\n//! one connection.\n//!\n//! Details.\nfn f() {\n    1\n}\n";
    assert_eq!(comparable(solution), comparable(copy));
    assert_eq!(comparable(copy), "//!\n//! Details.\nfn f() {\n    1\n}\n");
    assert_ne!(
        comparable(copy),
        comparable(&copy.replace("Details", "Other"))
    );
}
