//! The instructor layer and the questions stay true to the course:
//! - the workshop schedule is the one generated from the pages' minutes;
//! - each page's speaker notes add up to its minutes and are on the page;
//! - each chapter ends with its questions, its notes and a recap that points on;
//! - each question's answer names a frame that a transcript really holds.

use std::fs;

use wire_tests::course::Chapter;
use wire_tests::generate::workshop::{self, Notes};
use wire_tests::run::transcript::Transcript;

fn page_text(page: &str) -> String {
    fs::read_to_string(workshop::book_src().join(page))
        .unwrap_or_else(|err| panic!("book/src/{page}: {err}"))
}

fn page_name(chapter: &Chapter) -> String {
    format!("{}.md", chapter.dir)
}

#[test]
fn the_workshop_schedule_is_generated_from_the_minutes() {
    let expected = workshop::schedule().unwrap_or_else(|err| panic!("{err}"));
    let actual = fs::read_to_string(workshop::schedule_path()).unwrap_or_default();
    assert!(
        actual == expected,
        "book/src/generated/schedule.md is out of date with the minutes in \
         book/src/instructor/: run `cargo xtask changes`"
    );
}

#[test]
fn every_page_with_notes_includes_them_and_its_parts_add_up() {
    let mut problems = Vec::new();
    let pages = workshop::pages_with_notes();
    assert!(!pages.is_empty(), "no notes under book/src/instructor/");
    for page in pages {
        let notes = match Notes::load(&page) {
            Ok(notes) => notes,
            Err(err) => {
                problems.push(err);
                continue;
            }
        };
        if notes.parts.is_empty() {
            problems.push(format!(
                "instructor/{page} has no `- **Part (N min).**` lines"
            ));
        } else if notes.parts_total() != notes.minutes {
            problems.push(format!(
                "instructor/{page}: the parts add up to {} min, but `minutes: {}`",
                notes.parts_total(),
                notes.minutes
            ));
        }
        let include = format!("{{{{#include instructor/{page}}}}}");
        if !page_text(&page).contains(&include) {
            problems.push(format!(
                "book/src/{page} does not include its notes: {include}"
            ));
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

#[test]
fn every_chapter_ends_with_questions_notes_and_a_recap() {
    let mut problems = Vec::new();
    let chapters = Chapter::all();
    for (index, chapter) in chapters.iter().enumerate() {
        let page = page_name(chapter);
        let text = page_text(&page);
        let headings: Vec<&str> = text.lines().filter(|l| l.starts_with("## ")).collect();
        if headings.last() != Some(&"## Recap") {
            problems.push(format!("{page}: the last section is not `## Recap`"));
            continue;
        }
        let recap_at = text.rfind("## Recap").expect("found above");
        for folder in ["quiz", "instructor"] {
            let include = format!("{{{{#include {folder}/{page}}}}}");
            match text.find(&include) {
                Some(at) if at < recap_at => {}
                Some(_) => problems.push(format!("{page}: {include} comes after the recap")),
                None => problems.push(format!("{page} does not include {folder}/{page}")),
            }
        }
        let recap = &text[recap_at..];
        if recap.lines().skip(1).all(|line| line.trim().is_empty()) {
            problems.push(format!("{page}: the recap is empty"));
        }
        if let Some(next) = chapters.get(index + 1) {
            // The page the next chapter opens on (chapter 4 opens on a tour).
            let link = format!("({})", wire_tests::book::first_page(next));
            if !recap.contains(&link) {
                problems.push(format!("{page}: the recap does not link to {link}"));
            }
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

/// An answer's `` Frame: `ch03/call_add` #7, which contains `"sum":5}`. ``:
/// the 7th frame line (either direction) of tests/transcripts/ch03/call_add.wire.
#[derive(Debug, PartialEq)]
struct FrameReference {
    chapter: String,
    scenario: String,
    number: usize,
    /// Text the frame must hold, so that the answer cannot drift from it.
    contains: Option<String>,
}

/// `None` for a line that is no frame reference; an error for one that is
/// but cannot be read.
fn frame_reference(line: &str) -> Option<Result<FrameReference, String>> {
    let rest = line.strip_prefix("Frame: `")?;
    let parsed = (|| {
        let (name, rest) = rest.split_once('`')?;
        let (chapter, scenario) = name.split_once('/')?;
        let rest = rest.strip_prefix(" #")?;
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        let number = digits.parse().ok()?;
        let rest = &rest[digits.len()..];
        let contains = match rest.strip_prefix(", which contains `") {
            Some(quoted) => Some(quoted.split_once('`')?.0.to_string()),
            None => None,
        };
        Some(FrameReference {
            chapter: chapter.to_string(),
            scenario: scenario.to_string(),
            number,
            contains,
        })
    })();
    Some(parsed.ok_or_else(|| format!("cannot read the frame reference {line:?}")))
}

fn check_reference(reference: FrameReference) -> Result<(), String> {
    let FrameReference {
        chapter,
        scenario,
        number,
        contains,
    } = reference;
    let path = Chapter::find(&chapter)?.transcript_path(&scenario);
    let transcript = Transcript::load(&path).map_err(|err| err.to_string())?;
    let label = format!("{chapter}/{scenario} #{number}");
    let frame = number
        .checked_sub(1)
        .and_then(|index| transcript.frames.get(index))
        .ok_or_else(|| {
            format!(
                "{label}: the transcript has {} frames",
                transcript.frames.len()
            )
        })?;
    match contains {
        Some(text) if !String::from_utf8_lossy(&frame.bytes).contains(&text) => Err(format!(
            "{label} (line {}) does not contain {text:?}",
            frame.line
        )),
        _ => Ok(()),
    }
}

#[test]
fn every_question_is_answered_by_a_frame_the_tests_pin() {
    let mut problems = Vec::new();
    for chapter in Chapter::all() {
        let name = format!("quiz/{}", page_name(&chapter));
        let Ok(text) = fs::read_to_string(workshop::book_src().join(&name)) else {
            problems.push(format!("book/src/{name} does not exist"));
            continue;
        };
        let answers: Vec<&str> = text
            .split("<details class=\"quiz\">")
            .skip(1)
            .map(|block| block.split("</details>").next().unwrap_or_default())
            .collect();
        if !(3..=5).contains(&answers.len()) {
            problems.push(format!(
                "{name} has {} questions, not 3 to 5",
                answers.len()
            ));
        }
        for (index, answer) in answers.iter().enumerate() {
            let references: Vec<_> = answer.lines().filter_map(frame_reference).collect();
            if references.is_empty() {
                problems.push(format!("{name}, question {}: no `Frame:` line", index + 1));
            }
            for reference in references {
                if let Err(err) = reference.and_then(check_reference) {
                    problems.push(format!("{name}, question {}: {err}", index + 1));
                }
            }
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

#[test]
fn a_frame_reference_reads_as_written() {
    let line = "Frame: `ch03/call_add` #7, which contains `\"sum\":5}`.";
    assert_eq!(
        frame_reference(line).map(Result::unwrap),
        Some(FrameReference {
            chapter: "ch03".to_string(),
            scenario: "call_add".to_string(),
            number: 7,
            contains: Some("\"sum\":5}".to_string()),
        })
    );
    assert!(frame_reference("Frame: `ch03/call_add` seven").is_some_and(|r| r.is_err()));
    assert!(frame_reference("No frame here").is_none());
    // A reference that names a frame past the end of its transcript is refused.
    let past_end = FrameReference {
        chapter: "ch03".to_string(),
        scenario: "tour".to_string(),
        number: 999,
        contains: None,
    };
    assert!(check_reference(past_end).is_err());
}
