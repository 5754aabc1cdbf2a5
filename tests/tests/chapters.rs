//! Every chapter is registered everywhere it must be.
//!
//! The list of chapters is the folders in `solutions/` (`Chapter::all()`):
//! the workspace (globs), the scenario tests (build.rs), the benchmark and
//! the course checks all derive it from there. What cannot be derived, a
//! book page, a README row, is checked here, so a new chapter that misses a
//! place fails with the place and what to write. CONTRIBUTING.md has the
//! whole checklist.

use std::fs;

use wire_tests::course::{self, Chapter};

/// The text of a file under the root, or "" (a missing file then fails the
/// check that reads it, with that check's message).
fn read(relative: &str) -> String {
    fs::read_to_string(course::root().join(relative)).unwrap_or_default()
}

/// The value of the first `name = "..."` line of a Cargo.toml.
fn package_name(manifest: &str) -> Option<&str> {
    manifest
        .lines()
        .find_map(|line| line.trim().strip_prefix("name = "))
        .map(|value| value.trim_matches('"'))
}

#[test]
fn every_chapter_is_registered_everywhere() {
    let summary = read("book/src/SUMMARY.md");
    let readme = read("README.md");
    let starter_failures = course::starter_failures().unwrap_or_default();
    let mut problems = Vec::new();
    for chapter in Chapter::all() {
        let (dir, id) = (&chapter.dir, chapter.id());
        let mut missing = |place: String| problems.push(format!("{dir}: {place}"));

        let solution = read(&format!("solutions/{dir}/Cargo.toml"));
        let want = chapter.solution_package();
        if package_name(&solution) != Some(want.as_str()) {
            missing(format!(
                "solutions/{dir}/Cargo.toml must name the package `{want}` \
                 (the tests build it, and its binary, by that name)"
            ));
        }
        let starter = read(&format!("chapters/{dir}/Cargo.toml"));
        if package_name(&starter) != Some(chapter.starter_package().as_str()) {
            missing(format!(
                "chapters/{dir} is missing or stale: run `cargo xtask starters`"
            ));
        }
        if !chapter.transcript_path("tour").is_file() {
            missing(format!(
                "tests/transcripts/{id}/tour.wire is missing: every chapter has a tour \
                 (`cargo xtask run {:02}` plays it)",
                chapter.number
            ));
        }
        if !chapter.book_page().is_file() {
            missing(format!(
                "book/src/{dir}.md is missing: write the chapter's page"
            ));
        }
        if !summary.contains(&format!("]({dir}.md)")) {
            missing(format!(
                "book/src/SUMMARY.md has no `- [Title]({dir}.md)` line: add it under its part"
            ));
        }
        if !readme.contains(&format!("\n| {:02} |", chapter.number)) {
            missing(format!(
                "README.md's chapter table has no `| {:02} | … | … |` row",
                chapter.number
            ));
        }
        if !starter_failures.iter().any(|(listed, _, _)| *listed == id) {
            missing(format!(
                "tests/starter-failures.txt has no `{id} scenario {id}/gap` line: list the \
                 scenarios each gap breaks"
            ));
        }
        if chapter.previous().is_some() && !course::changes_path(&chapter).is_file() {
            missing(format!(
                "book/src/generated/changes-{:02}.diff is missing: run `cargo xtask changes`",
                chapter.number
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "\nnot registered everywhere (CONTRIBUTING.md, \"Adding a chapter\"):\n  {}\n",
        problems.join("\n  ")
    );
}

/// The other direction: a starter or a transcript folder whose chapter has
/// no solution would be silently skipped by everything that lists chapters.
#[test]
fn nothing_belongs_to_a_chapter_that_does_not_exist() {
    let known: Vec<(String, String)> = Chapter::all()
        .into_iter()
        .map(|chapter| (chapter.id(), chapter.dir))
        .collect();
    let names = |relative: &str| -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(course::root().join(relative))
            .map(|entries| {
                entries
                    .flatten()
                    .filter(|entry| entry.path().is_dir())
                    .map(|entry| entry.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    };
    let mut problems = Vec::new();
    for starter in names("chapters") {
        if !known.iter().any(|(_, dir)| *dir == starter) {
            problems.push(format!(
                "chapters/{starter} has no solutions/{starter}: starters are generated from \
                 solutions, so remove it or add the solution"
            ));
        }
    }
    for folder in names("tests/transcripts") {
        if !known.iter().any(|(id, _)| *id == folder) {
            problems.push(format!(
                "tests/transcripts/{folder} belongs to no chapter: a chapter is a folder \
                 solutions/NN-slug, and its transcripts go in tests/transcripts/chNN"
            ));
        }
    }
    assert!(problems.is_empty(), "\n{}\n", problems.join("\n"));
}
