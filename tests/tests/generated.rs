//! The book's pages drawn from transcripts: the frame views and the
//! sequence diagrams are fresh, and a chapter page, read as mdBook renders
//! it, has no unfolded code line a reader must scroll sideways to read.

use std::fs;
use std::path::{Path, PathBuf};

use wire_tests::generate::{diagrams, generated, views};
use wire_tests::{course, markers};

fn assert_fresh(files: &[(PathBuf, String)], dir: &Path) {
    // `sync` with `check` only compares: it writes and removes nothing.
    let stale = generated::sync(files, dir, true).unwrap_or_else(|err| panic!("{err}"));
    assert!(
        stale.is_empty(),
        "out of date, run `cargo xtask changes`:\n  {}",
        stale.join("\n  ")
    );
}

#[test]
fn the_frame_views_are_up_to_date() {
    let files = views::files().unwrap_or_else(|err| panic!("{err}"));
    assert_fresh(&files, &views::views_dir());
}

#[test]
fn the_sequence_diagrams_are_up_to_date() {
    let files = diagrams::files().unwrap_or_else(|err| panic!("{err}"));
    assert_fresh(&files, &diagrams::diagrams_dir());
}

/// The page with every `{{#include path}}` replaced by the file, as mdBook
/// does (relative to the including file, nested includes too). Anchored
/// includes (`path:name`) are listings of Rust code, which rustfmt already
/// keeps within 100 columns; they are replaced by the whole file's lines
/// between the anchors.
fn expand(path: &Path, depth: usize) -> String {
    let text = fs::read_to_string(path)
        .unwrap_or_else(|err| panic!("cannot read {}: {err}", path.display()));
    if depth > 8 {
        return text;
    }
    let mut out = String::new();
    let mut rest = text.as_str();
    while let Some(start) = rest.find("{{#include ") {
        let Some(length) = rest[start..].find("}}") else {
            break;
        };
        out += &rest[..start];
        let target = rest[start + "{{#include ".len()..start + length].trim();
        let (file, anchor) = match target.split_once(':') {
            Some((file, anchor)) => (file, Some(anchor)),
            None => (target, None),
        };
        let included = path.parent().expect("a page has a folder").join(file);
        let content = expand(&included, depth + 1);
        out += &match anchor {
            None => content,
            Some(anchor) => between_anchors(&content, anchor),
        };
        rest = &rest[start + length + 2..];
    }
    out + rest
}

fn between_anchors(content: &str, anchor: &str) -> String {
    markers::anchored(content, anchor)
        .map(|lines| lines.join("\n"))
        .unwrap_or_default()
}

/// A chapter's page, or a sub-page in a chapter's folder: `NN-slug`.
fn is_chapter(path: &Path) -> bool {
    let name = |path: &Path| {
        path.file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned()
    };
    let numbered = |name: String| name.len() > 3 && name[..2].bytes().all(|b| b.is_ascii_digit());
    numbered(name(path)) || path.parent().is_some_and(|dir| numbered(name(dir)))
}

/// The chapters' pages, sub-pages included; not the generated parts, which
/// are checked where a page includes them.
fn pages(src: &Path) -> Vec<PathBuf> {
    let mut pages = Vec::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() && path != src.join("generated") {
                stack.push(path);
            } else if path.extension().is_some_and(|ext| ext == "md") && is_chapter(&path) {
                pages.push(path);
            }
        }
    }
    pages.sort();
    pages
}

#[test]
fn no_unfolded_code_line_on_a_chapter_page_is_over_100_characters_but_one_string() {
    let mut problems = Vec::new();
    let src = course::root().join("book/src");
    for page in pages(&src) {
        let name = page.strip_prefix(&src).unwrap().display().to_string();
        let text = expand(&page, 0);
        for (line, length) in views::long_code_lines(&text) {
            let shown: String = text
                .lines()
                .nth(line - 1)
                .unwrap_or("")
                .chars()
                .take(60)
                .collect();
            problems.push(format!(
                "{name}, line {line} of the expanded page: {length} characters: {shown}…"
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "code lines over {} characters outside a folded <details> (fold them, wrap them, \
         or regenerate with `cargo xtask changes`):\n{}",
        views::MAX_LINE,
        problems.join("\n")
    );
}
