//! The book teaches before it tells: every gap has hints in three tiers,
//! the pages include the generated listings and exercises, and those are
//! up to date. (`cargo xtask book-check` checks the built book itself.)

use std::fs;

use wire_tests::course::{self, Chapter};
use wire_tests::{exercises, hints};

#[test]
fn every_gap_has_hints_in_three_tiers() {
    let problems: Vec<String> = Chapter::all().iter().flat_map(hints::problems).collect();
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

#[test]
fn the_generated_listings_and_exercises_are_up_to_date() {
    let stale = exercises::refresh(true).unwrap();
    assert!(
        stale.is_empty(),
        "out of date, run `cargo xtask changes`:\n  {}",
        stale.join("\n  ")
    );
}

#[test]
fn chapter_pages_show_listings_without_answers_and_end_the_exercise_with_hints() {
    let mut problems = Vec::new();
    for chapter in Chapter::all() {
        let page = fs::read_to_string(chapter.book_page()).unwrap();
        let name = format!("book/src/{}.md", chapter.dir);
        for line in page.lines().filter(|line| line.contains("{{#include")) {
            let Some(path) = line.split("../../solutions/").nth(1) else {
                continue;
            };
            let file = path.split([':', '}']).next().unwrap_or_default();
            let text =
                fs::read_to_string(course::root().join("solutions").join(file)).unwrap_or_default();
            if text.contains("// GAP(") || text.contains("// STRETCH(") {
                problems.push(format!(
                    "{name} includes solutions/{file}, which has gaps or stretches: answers \
                     and markers would show; include generated/listings/{file}.txt instead"
                ));
            }
        }
        let exercise = format!("{{{{#include generated/exercises/{}.md}}}}", chapter.id());
        let Some(section) = page.split("\n## Exercise\n").nth(1) else {
            problems.push(format!("{name} has no `## Exercise` section"));
            continue;
        };
        let section = section.split("\n## ").next().unwrap_or_default();
        if !section.contains(&exercise) {
            problems.push(format!(
                "{name}: its Exercise section does not include {exercise}"
            ));
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}
