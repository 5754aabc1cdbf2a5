//! Checks that keep the course honest: starters are generated and fail
//! exactly where their gaps are, and the book can never drift from the code.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use wire_tests::course::{self, Chapter};
use wire_tests::target::Target;
use wire_tests::transcript::Transcript;
use wire_tests::{gaps, runner};

#[test]
fn starters_are_generated_from_the_solutions() {
    let mut stale = Vec::new();
    for chapter in Chapter::all() {
        for (file, content) in gaps::starter_files(&chapter).unwrap() {
            let path = chapter.starter_dir().join(&file);
            if fs::read_to_string(&path).ok().as_deref() != Some(content.as_str()) {
                stale.push(format!("chapters/{}/{}", chapter.dir, file.display()));
            }
        }
    }
    assert!(
        stale.is_empty(),
        "these starter files are out of date; run `cargo xtask starters`:\n  {}",
        stale.join("\n  ")
    );
}

#[test]
fn every_starter_fails_exactly_the_scenarios_of_its_gaps() {
    let manifest = course::starter_failures().unwrap();
    let mut problems = Vec::new();
    for chapter in Chapter::all() {
        let gap_ids: BTreeSet<String> = gaps::gaps(&chapter)
            .unwrap()
            .into_iter()
            .map(|gap| gap.id)
            .collect();
        if gap_ids.is_empty() {
            problems.push(format!(
                "{} has no gaps: a starter must leave something to write",
                chapter.id()
            ));
        }
        let listed: BTreeSet<String> = manifest
            .iter()
            .filter(|(id, _, _)| *id == chapter.id())
            .map(|(_, scenario, gap)| {
                if !gap_ids.contains(gap) {
                    problems.push(format!(
                        "starter-failures.txt names {gap}, which is not a gap of {}",
                        chapter.dir
                    ));
                }
                scenario.clone()
            })
            .collect();
        let target = Target::starter(&chapter).unwrap();
        let failing: BTreeSet<String> = chapter
            .scenarios()
            .into_iter()
            .filter(|scenario| {
                let transcript = Transcript::load(&chapter.transcript_path(scenario)).unwrap();
                runner::check(&transcript, &target).is_err()
            })
            .collect();
        for scenario in failing.difference(&listed) {
            problems.push(format!(
                "the {} starter fails {scenario}, which starter-failures.txt does not list",
                chapter.id()
            ));
        }
        for scenario in listed.difference(&failing) {
            problems.push(format!(
                "the {} starter passes {scenario}, which starter-failures.txt says it must fail",
                chapter.id()
            ));
        }
        for gap in &gap_ids {
            if !manifest.iter().any(|(_, _, listed)| listed == gap) {
                problems.push(format!(
                    "no scenario checks gap {gap}: list the scenarios it breaks"
                ));
            }
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

/// `{{#include path:anchor}}` and `{{#rustdoc_include …}}` in a page.
fn includes(page: &str) -> Vec<(String, Option<String>)> {
    let mut found = Vec::new();
    for piece in page.split("{{#").skip(1) {
        let Some(body) = piece.split("}}").next() else {
            continue;
        };
        let mut words = body.split_whitespace();
        if !matches!(words.next(), Some("include" | "rustdoc_include")) {
            continue;
        }
        let Some(target) = words.next() else { continue };
        let (path, anchor) = match target.split_once(':') {
            Some((path, anchor)) => (path, Some(anchor.to_string())),
            None => (target, None),
        };
        found.push((path.to_string(), anchor));
    }
    found
}

fn book_pages() -> Vec<PathBuf> {
    let mut pages = Vec::new();
    let mut stack = vec![course::root().join("book/src")];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|ext| ext == "md") {
                pages.push(path);
            }
        }
    }
    pages.sort();
    pages
}

#[test]
fn every_book_include_resolves_to_something() {
    let mut problems = Vec::new();
    for page in book_pages() {
        let text = fs::read_to_string(&page).unwrap();
        let name = page
            .strip_prefix(course::root())
            .unwrap()
            .display()
            .to_string();
        for (path, anchor) in includes(&text) {
            let file = page.parent().unwrap().join(&path);
            let Ok(content) = fs::read_to_string(&file) else {
                problems.push(format!("{name} includes {path}, which does not exist"));
                continue;
            };
            let region = match &anchor {
                None => content,
                Some(anchor) => anchored(&content, anchor).unwrap_or_default(),
            };
            if region.trim().is_empty() {
                problems.push(format!(
                    "{name} includes {path}:{} which is empty or missing",
                    anchor.unwrap_or_default()
                ));
            }
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

/// The lines between `ANCHOR: name` and `ANCHOR_END: name`, or `None`.
fn anchored(content: &str, anchor: &str) -> Option<String> {
    let start = content
        .lines()
        .position(|line| line.trim_end().ends_with(&format!("ANCHOR: {anchor}")))?;
    let lines: Vec<&str> = content.lines().collect();
    let end = lines[start..]
        .iter()
        .position(|line| line.trim_end().ends_with(&format!("ANCHOR_END: {anchor}")))?;
    Some(
        lines[start + 1..start + end]
            .iter()
            .filter(|line| !line.contains("ANCHOR"))
            .copied()
            .collect::<Vec<_>>()
            .join("\n"),
    )
}

/// The ids mdBook gives a page's headings.
fn heading_ids(page: &str) -> BTreeSet<String> {
    page.lines()
        .filter_map(|line| line.strip_prefix('#'))
        .map(|heading| {
            heading
                .trim_start_matches('#')
                .trim()
                .chars()
                .filter_map(|c| match c {
                    ' ' => Some('-'),
                    c if c.is_alphanumeric() || c == '-' || c == '_' => {
                        Some(c.to_ascii_lowercase())
                    }
                    _ => None,
                })
                .collect()
        })
        .collect()
}

#[test]
fn every_transcript_points_at_a_book_section_that_exists() {
    let mut problems = Vec::new();
    for chapter in Chapter::all() {
        let scenarios = chapter.scenarios();
        if scenarios.is_empty() {
            problems.push(format!("{} has no transcripts", chapter.id()));
        }
        for scenario in scenarios {
            let transcript = Transcript::load(&chapter.transcript_path(&scenario)).unwrap();
            let Some(book) = &transcript.book else {
                problems.push(format!("{}/{scenario} has no `# book:` line", chapter.id()));
                continue;
            };
            let (page, section) = book.split_once('#').unwrap_or((book, ""));
            let Ok(text) = fs::read_to_string(course::root().join("book/src").join(page)) else {
                problems.push(format!(
                    "{}/{scenario}: book page {page} does not exist",
                    chapter.id()
                ));
                continue;
            };
            if !heading_ids(&text).contains(section) {
                problems.push(format!(
                    "{}/{scenario}: {page} has no heading with id #{section}",
                    chapter.id()
                ));
            }
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

#[test]
fn every_gap_is_named_in_its_chapter_page() {
    let mut problems = Vec::new();
    for chapter in Chapter::all() {
        let page = fs::read_to_string(chapter.book_page()).unwrap_or_default();
        for gap in gaps::gaps(&chapter).unwrap() {
            if !page.contains(&gap.id) {
                problems.push(format!(
                    "{} does not mention gap {}",
                    rel(&chapter.book_page()),
                    gap.id
                ));
            }
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

#[test]
fn the_changes_pages_are_up_to_date() {
    let mut stale = Vec::new();
    for chapter in Chapter::all() {
        if let Some(diff) = course::changes(&chapter) {
            if fs::read_to_string(course::changes_path(&chapter)).ok() != Some(diff) {
                stale.push(rel(&course::changes_path(&chapter)));
            }
        }
    }
    assert!(
        stale.is_empty(),
        "out of date, run `cargo xtask changes`: {}",
        stale.join(", ")
    );
}

fn rel(path: &Path) -> String {
    path.strip_prefix(course::root())
        .unwrap_or(path)
        .display()
        .to_string()
}
