//! Hints: three tiers for every gap and every stretch exercise, from
//! `tests/hints/chNN.md` (a stretch's section is headed by its id, like a
//! gap's, and its frames come from its own transcript).
//!
//! One file per chapter. Each gap has a section, and each section exactly
//! three tiers, in this order:
//!
//! ```text
//! # ch03/add
//! ## Where to look
//! …the file, the function, the book section…
//! ## The frame that must come out
//! …the frames the tests expect, in a fenced block copied from a transcript…
//! ## The shape of the code
//! …the outline of the code, not the code…
//! ```
//!
//! A section may end with a fourth heading, `## How the solution works`:
//! prose that walks through the reference code. The book shows it inside
//! the folded solution, after the code, so that no page explains lines it
//! does not show (issue 21); `cargo xtask hint` does not give it.
//!
//! Text before the first section is a note for maintainers and is not shown.
//! `cargo xtask hint NN` shows the tiers one at a time; the book folds each
//! into its own `<details>` on the chapter's exercise page.

use std::collections::BTreeSet;
use std::fs;
use std::path::PathBuf;

use crate::course::{self, Chapter};
use crate::generate::gaps::{self, Gap};
use crate::markers;

/// The tier headings, in the order a learner sees them.
pub const TIERS: [&str; 3] = [
    "Where to look",
    "The frame that must come out",
    "The shape of the code",
];

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hints {
    /// `ch03/add`.
    pub gap: String,
    /// The text of each tier, in the order of [`TIERS`], trimmed.
    pub tiers: [String; 3],
    /// The optional walk through the reference code, shown with it.
    pub explained: Option<String>,
}

/// The optional fourth heading: prose about the solution's lines.
pub const EXPLAINED: &str = "How the solution works";

/// `tests/hints/ch03.md`.
pub fn path(chapter: &Chapter) -> PathBuf {
    course::root()
        .join("tests/hints")
        .join(format!("{}.md", chapter.id()))
}

/// The hints of one chapter, in file order.
pub fn load(chapter: &Chapter) -> Result<Vec<Hints>, String> {
    let path = path(chapter);
    let text = fs::read_to_string(&path)
        .map_err(|err| format!("cannot read {}: {err}", path.display()))?;
    parse(&text).map_err(|errors| format!("{}: {}", path.display(), errors.join("; ")))
}

/// A tier as read: its heading and its lines.
type Tier<'a> = (String, Vec<&'a str>);

/// Reads a hints file, or says every way it breaks the format.
pub fn parse(text: &str) -> Result<Vec<Hints>, Vec<String>> {
    let mut sections: Vec<(String, Vec<Tier>)> = Vec::new();
    let mut errors = Vec::new();
    let mut in_fence = false;
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
        }
        let heading = (!in_fence).then_some(line).filter(|l| l.starts_with('#'));
        match heading {
            Some(line) if line.starts_with("# ") => {
                let gap = line[2..].trim().to_string();
                if sections.iter().any(|(seen, _)| *seen == gap) {
                    errors.push(format!("line {number}: a second section for {gap}"));
                }
                sections.push((gap, Vec::new()));
            }
            Some(line) if line.starts_with("## ") => match sections.last_mut() {
                Some((_, tiers)) => tiers.push((line[3..].trim().to_string(), Vec::new())),
                None => errors.push(format!("line {number}: a tier before any `# chNN/gap`")),
            },
            Some(_) => errors.push(format!(
                "line {number}: only `# chNN/gap` and `## tier` headings belong here"
            )),
            None => {
                if let Some((_, tiers)) = sections.last_mut() {
                    match tiers.last_mut() {
                        Some((_, lines)) => lines.push(line),
                        None if line.trim().is_empty() => {}
                        None => errors.push(format!(
                            "line {number}: text before the first tier of a section"
                        )),
                    }
                }
            }
        }
    }
    let mut hints = Vec::new();
    for (gap, mut tiers) in sections {
        let explained = match tiers.last() {
            Some((heading, _)) if heading == EXPLAINED && tiers.len() == TIERS.len() + 1 => tiers
                .pop()
                .map(|(_, lines)| lines.join("\n").trim().to_string())
                .filter(|text| !text.is_empty()),
            _ => None,
        };
        let headings: Vec<&str> = tiers.iter().map(|(heading, _)| heading.as_str()).collect();
        if headings != TIERS {
            errors.push(format!(
                "{gap}: the tiers must be exactly `## {}`, in this order, then optionally \
                 `## {EXPLAINED}` (found: {})",
                TIERS.join("`, `## "),
                if headings.is_empty() {
                    "none".to_string()
                } else {
                    headings.join(", ")
                }
            ));
            continue;
        }
        let bodies: Vec<String> = tiers
            .into_iter()
            .map(|(_, lines)| lines.join("\n").trim().to_string())
            .collect();
        for (tier, body) in TIERS.iter().zip(&bodies) {
            if body.is_empty() {
                errors.push(format!("{gap}: the tier `{tier}` is empty"));
            }
        }
        let tiers: [String; 3] = bodies.try_into().expect("three tiers");
        hints.push(Hints {
            gap,
            tiers,
            explained,
        });
    }
    if errors.is_empty() {
        Ok(hints)
    } else {
        Err(errors)
    }
}

/// Everything wrong with a chapter's hints: a gap without hints, a section
/// for a gap that does not exist, a broken format, or a frame in the second
/// tier that no transcript of the chapter holds.
pub fn problems(chapter: &Chapter) -> Vec<String> {
    let name = format!("tests/hints/{}.md", chapter.id());
    let gaps = match gaps::gaps(chapter).and_then(|mut gaps| {
        gaps.extend(gaps::stretches(chapter)?);
        Ok(gaps)
    }) {
        Ok(gaps) => gaps,
        Err(err) => return vec![err],
    };
    let hints = match load(chapter) {
        Ok(hints) => hints,
        Err(err) => return vec![err],
    };
    let mut problems = Vec::new();
    let ids: BTreeSet<&str> = gaps.iter().map(|gap| gap.id.as_str()).collect();
    for gap in &gaps {
        if !hints.iter().any(|hint| hint.gap == gap.id) {
            problems.push(format!("{name} has no hints for gap {}", gap.id));
        }
    }
    let transcript_lines = transcript_lines(chapter);
    for hint in &hints {
        if !ids.contains(hint.gap.as_str()) {
            problems.push(format!(
                "{name} has hints for {}, which is not a gap of {}",
                hint.gap, chapter.dir
            ));
        }
        let frames = fenced_lines(&hint.tiers[1]);
        if frames.is_empty() {
            problems.push(format!(
                "{name}, {}: the tier `{}` shows no frame (a fenced block of transcript lines)",
                hint.gap, TIERS[1]
            ));
        }
        for frame in frames {
            if !transcript_lines.contains(frame) {
                problems.push(format!(
                    "{name}, {}: this line is in no transcript of {} (copy frames from the transcripts): {frame}",
                    hint.gap,
                    chapter.id()
                ));
            }
        }
    }
    problems
}

/// Whether the learner has written `gap` in their crate: not while their
/// file still holds the starter's code for it (spacing aside) or its
/// `todo!`. A gap whose markers are gone counts as written.
pub fn is_written(chapter: &Chapter, gap: &Gap) -> bool {
    let mine = fs::read_to_string(chapter.starter_dir().join(&gap.file)).unwrap_or_default();
    let starter = gaps::starter_files(chapter)
        .unwrap_or_default()
        .into_iter()
        .find(|(file, _)| *file == gap.file)
        .map(|(_, text)| text)
        .unwrap_or_default();
    written(&gap.id, &mine, &starter)
}

/// [`is_written`] on the texts of the learner's file and of the starter's.
fn written(id: &str, mine: &str, starter: &str) -> bool {
    let body = |text: &str| {
        gaps::learner_regions(text)
            .into_iter()
            .find(|(region, _)| region == id)
            .map(|(_, body)| body)
    };
    let Some(mine) = body(mine) else {
        return !mine.trim().is_empty();
    };
    if markers::holds_todo_placeholder(&mine, id) {
        return false;
    }
    let bare = |text: &str| {
        text.chars()
            .filter(|c| !c.is_whitespace())
            .collect::<String>()
    };
    body(starter).is_none_or(|starter| bare(&starter) != bare(&mine))
}

/// The non-blank lines inside the fenced blocks of a tier.
fn fenced_lines(text: &str) -> Vec<&str> {
    let mut in_fence = false;
    let mut lines = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
        } else if in_fence && !line.trim().is_empty() {
            lines.push(line);
        }
    }
    lines
}

fn transcript_lines(chapter: &Chapter) -> BTreeSet<String> {
    chapter
        .scenarios()
        .iter()
        .chain(&chapter.stretch_scenarios())
        .filter_map(|scenario| fs::read_to_string(chapter.transcript_path(scenario)).ok())
        .flat_map(|text| text.lines().map(str::to_string).collect::<Vec<_>>())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = "A note for maintainers.\n\n# ch09/f\n## Where to look\nIn `f`.\n## The frame that must come out\n```text\n-> 1\n```\n## The shape of the code\n```rust\n# not a heading\n```\n";

    #[test]
    fn reads_three_tiers() {
        let hints = parse(GOOD).unwrap();
        assert_eq!(hints.len(), 1);
        assert_eq!(hints[0].gap, "ch09/f");
        assert_eq!(hints[0].tiers[0], "In `f`.");
        assert_eq!(hints[0].tiers[2], "```rust\n# not a heading\n```");
        assert_eq!(fenced_lines(&hints[0].tiers[1]), ["-> 1"]);
        assert_eq!(hints[0].explained, None);
    }

    #[test]
    fn reads_the_optional_walk_through_the_solution() {
        let text = format!("{GOOD}## How the solution works\n\n1. `f` does it.\n");
        let hints = parse(&text).unwrap();
        assert_eq!(hints[0].explained.as_deref(), Some("1. `f` does it."));
        let misplaced = GOOD.replace(
            "## The shape of the code",
            "## How the solution works\nx\n## The shape of the code",
        );
        assert!(
            parse(&misplaced).is_err(),
            "it comes last, after the three tiers"
        );
    }

    #[test]
    fn tells_a_written_gap_from_its_starter() {
        let starter = "fn g() {\n    // TODO(ch09/g): do g.\n    Err(\"TODO(ch09/g)\")\n    // END(ch09/g)\n}\n";
        let reformatted = starter.replace("Err(", "Err(  ");
        let mine = starter.replace("Err(\"TODO(ch09/g)\")", "Ok(())");
        let todo = starter.replace("Err(\"TODO(ch09/g)\")", "todo!(\"ch09/g: do g.\")");
        assert!(!written("ch09/g", starter, starter));
        assert!(!written("ch09/g", &reformatted, starter));
        assert!(!written("ch09/g", &todo, starter));
        assert!(written("ch09/g", &mine, starter));
        assert!(
            !written("ch09/g", "", starter),
            "a missing file is not written"
        );
    }

    #[test]
    fn refuses_a_missing_or_misplaced_tier() {
        let missing = GOOD.replace("## The frame that must come out\n", "");
        let errors = parse(&missing).unwrap_err();
        assert!(
            errors[0].contains("ch09/f: the tiers must be exactly"),
            "{errors:?}"
        );
        let swapped = GOOD
            .replace("## Where to look", "## X")
            .replace("## The shape of the code", "## Where to look")
            .replace("## X", "## The shape of the code");
        assert!(parse(&swapped).is_err());
        let empty = GOOD.replace("In `f`.", "");
        assert!(parse(&empty).unwrap_err()[0].contains("is empty"));
    }
}
