//! What a learner asks: which of my gaps are written, which scenarios pass,
//! what do I do next. `cargo xtask check`, `progress` and `watch` print it;
//! the scenarios run in this process, through the same runner as `cargo test`.

use std::fs;

use crate::course::{self, Chapter};
use crate::gaps::{self, Gap};
use crate::target::{Kind, Target};
use crate::transcript::Transcript;
use crate::{book, runner};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GapState {
    /// The code between the markers is still the starter's placeholder.
    NotWritten,
    /// Written, and every scenario that checks it passes.
    Written,
    /// Written, but these scenarios that check it fail.
    Failing(Vec<String>),
}

pub struct GapCheck {
    pub gap: Gap,
    pub state: GapState,
    /// The scenarios that check this gap (`tests/starter-failures.txt`).
    pub scenarios: Vec<String>,
}

/// One chapter checked against one target.
pub struct ChapterCheck {
    pub chapter: Chapter,
    /// The stretch exercises were checked (`--stretch`), not the core gaps:
    /// `gaps` holds the stretches.
    pub stretch: bool,
    pub target_label: String,
    /// The build failed: nothing ran. Shown once, in full.
    pub build_error: Option<String>,
    /// Each scenario that ran, with its report when it failed.
    pub results: Vec<(String, Result<(), String>)>,
    /// The learner's gaps (empty for `--bin`, where there is no source).
    pub gaps: Vec<GapCheck>,
}

impl ChapterCheck {
    pub fn passed(&self) -> usize {
        self.results
            .iter()
            .filter(|(_, result)| result.is_ok())
            .count()
    }
    pub fn done(&self) -> bool {
        self.build_error.is_none() && self.passed() == self.results.len()
    }
    /// The report to show in full: the first failure of a gap the learner
    /// wrote (that is what they are working on), else one of the next gap
    /// to write, else the tour (the chapter in one scenario), else the first.
    pub fn first_failure(&self) -> Option<(&str, &str)> {
        let written_failing: Vec<&String> = self
            .gaps
            .iter()
            .filter_map(|check| match &check.state {
                GapState::Failing(scenarios) => Some(scenarios),
                _ => None,
            })
            .flatten()
            .collect();
        let next: Vec<&String> = self
            .next_gap()
            .map(|gap| gap.scenarios.iter().collect())
            .unwrap_or_default();
        let failures = || {
            self.results
                .iter()
                .filter_map(|(name, result)| Some((name.as_str(), result.as_ref().err()?.as_str())))
        };
        // The next gap's scenarios in the order the manifest lists them
        // (a chapter's tour first), not alphabetically.
        let of_next_gap = || {
            next.iter()
                .find_map(|listed| failures().find(|(name, _)| name == listed))
        };
        failures()
            .find(|(name, _)| written_failing.iter().any(|failing| failing == name))
            .or_else(of_next_gap)
            .or_else(|| failures().find(|(name, _)| *name == "tour"))
            .or_else(|| failures().next())
    }
    /// The first gap that is not written, or written but failing.
    pub fn next_gap(&self) -> Option<&GapCheck> {
        self.gaps
            .iter()
            .find(|check| check.state == GapState::NotWritten)
            .or_else(|| {
                self.gaps
                    .iter()
                    .find(|check| check.state != GapState::Written)
            })
    }
}

/// The scenarios of `chapter` whose name contains `filter` (all without one).
/// A filter that matches nothing is an error naming the scenarios.
pub fn scenarios(chapter: &Chapter, filter: Option<&str>) -> Result<Vec<String>, String> {
    matching(
        chapter.scenarios(),
        filter,
        &format!("scenario of {}", chapter.id()),
    )
}

/// The stretch scenarios of `chapter` whose name contains `filter`; an
/// error when it has none, or none matches.
pub fn stretch_scenarios(chapter: &Chapter, filter: Option<&str>) -> Result<Vec<String>, String> {
    let all = chapter.stretch_scenarios();
    if all.is_empty() {
        return Err(format!(
            "chapter {:02} has no stretch exercises",
            chapter.number
        ));
    }
    matching(
        all,
        filter,
        &format!("stretch scenario of {}", chapter.id()),
    )
}

/// The names in `all` that contain `filter`, or an error that lists them.
fn matching(all: Vec<String>, filter: Option<&str>, what: &str) -> Result<Vec<String>, String> {
    let chosen: Vec<String> = all
        .iter()
        .filter(|name| filter.is_none_or(|filter| name.contains(filter)))
        .cloned()
        .collect();
    if chosen.is_empty() {
        return Err(format!(
            "no {what} matches {:?}; the names are: {}",
            filter.unwrap_or(""),
            all.join(", ")
        ));
    }
    Ok(chosen)
}

/// Builds the target (`None`: the learner's starter; with `stretch`, built
/// with `--features stretch`) and runs `scenarios`.
pub fn check(
    chapter: &Chapter,
    target: Option<Target>,
    scenarios: &[String],
    stretch: bool,
) -> ChapterCheck {
    let target = match target.map_or_else(|| Target::built(chapter, Kind::Starter, stretch), Ok) {
        Ok(target) => target,
        Err(error) => {
            return ChapterCheck {
                chapter: chapter.clone(),
                stretch,
                target_label: format!("your crate chapters/{}", chapter.dir),
                build_error: Some(error),
                results: Vec::new(),
                gaps: gap_checks(chapter, &[], stretch),
            };
        }
    };
    let results: Vec<(String, Result<(), String>)> = scenarios
        .iter()
        .map(|scenario| {
            let result = Transcript::load(&chapter.transcript_path(scenario))
                .map_err(|err| err.to_string())
                .and_then(|transcript| runner::check(&transcript, &target));
            (scenario.clone(), result)
        })
        .collect();
    let gaps = match target.kind {
        Kind::Starter => gap_checks(chapter, &results, stretch),
        Kind::Solution => marked(chapter, stretch)
            .into_iter()
            .map(|gap| GapCheck {
                gap,
                state: GapState::Written,
                scenarios: Vec::new(),
            })
            .collect(),
        Kind::Binary => Vec::new(),
    };
    ChapterCheck {
        chapter: chapter.clone(),
        stretch,
        target_label: target.label,
        build_error: None,
        results,
        gaps,
    }
}

/// The chapter's gaps, or with `stretch` its stretch exercises.
fn marked(chapter: &Chapter, stretch: bool) -> Vec<Gap> {
    if stretch {
        gaps::stretches(chapter)
    } else {
        gaps::gaps(chapter)
    }
    .unwrap_or_default()
}

/// Each gap of the learner's crate (with `stretch`, each stretch): written
/// or not (its regions still hold the starter's placeholder), and which of
/// its scenarios fail.
fn gap_checks(
    chapter: &Chapter,
    results: &[(String, Result<(), String>)],
    stretch: bool,
) -> Vec<GapCheck> {
    let manifest = course::starter_failures().unwrap_or_default();
    let generated = gaps::starter_files(chapter).unwrap_or_default();
    let regions = if stretch {
        gaps::stretch_regions(chapter).unwrap_or_default()
    } else {
        Vec::new()
    };
    marked(chapter, stretch)
        .into_iter()
        .map(|gap| {
            // Every file with a region of this id (a stretch may have several).
            let mut files = vec![gap.file.clone()];
            files.extend(
                regions
                    .iter()
                    .filter(|r| r.id == gap.id)
                    .map(|r| r.file.clone()),
            );
            files.dedup();
            let placeholder: Vec<Option<String>> = files
                .iter()
                .map(|file| {
                    generated
                        .iter()
                        .find(|(generated, _)| generated == file)
                        .and_then(|(_, content)| region(content, &gap.id))
                })
                .collect();
            let mine: Vec<Option<String>> = files
                .iter()
                .map(|file| {
                    fs::read_to_string(chapter.starter_dir().join(file))
                        .ok()
                        .and_then(|text| region(&text, &gap.id))
                })
                .collect();
            let written = mine.iter().any(Option::is_none) || mine != placeholder;
            let scenarios: Vec<String> = if stretch {
                vec![course::stretch_scenario(&gap.id)]
            } else {
                manifest
                    .iter()
                    .filter(|(_, _, listed)| *listed == gap.id)
                    .map(|(_, scenario, _)| scenario.clone())
                    .collect()
            };
            let failing: Vec<String> = scenarios
                .iter()
                .filter(|scenario| {
                    results
                        .iter()
                        .any(|(name, result)| name == *scenario && result.is_err())
                })
                .cloned()
                .collect();
            let state = match (written, failing.is_empty()) {
                (false, _) => GapState::NotWritten,
                (true, true) => GapState::Written,
                (true, false) => GapState::Failing(failing),
            };
            GapCheck {
                gap,
                state,
                scenarios,
            }
        })
        .collect()
}

/// The code between `TODO(id)` (or `STRETCH(id)`) and `END(id)` in a
/// starter file, spacing aside; every such region of the file, joined.
fn region(text: &str, id: &str) -> Option<String> {
    let bodies: Vec<String> = gaps::learner_regions(text)
        .into_iter()
        .filter(|(found, _)| found == id)
        .map(|(_, body)| body.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    (!bodies.is_empty()).then(|| bodies.join(" | "))
}

/// `[x] ch03/add   written`, one line per gap, then the scenario count.
pub fn summary(check: &ChapterCheck) -> String {
    let mut text = format!(
        "chapter {:02} ({}) — {}\n\n",
        check.chapter.number, check.chapter.dir, check.target_label
    );
    let width = check
        .gaps
        .iter()
        .map(|gap| gap.gap.id.len())
        .max()
        .unwrap_or(0);
    for gap in &check.gaps {
        let file = format!("chapters/{}/{}", check.chapter.dir, gap.gap.file.display());
        let id = format!("{:width$}", gap.gap.id);
        text += &match &gap.state {
            GapState::Written => format!("  [x] {id}  written\n"),
            GapState::NotWritten => format!("  [ ] {id}  not written yet ({file})\n"),
            GapState::Failing(scenarios) => format!(
                "  [!] {id}  written, but failing: {}\n",
                scenarios.join(", ")
            ),
        };
    }
    if !check.gaps.is_empty() {
        text.push('\n');
    }
    match &check.build_error {
        Some(_) => text += "  your crate does not build, so no scenario ran.\n",
        None => {
            let failing: Vec<&str> = check
                .results
                .iter()
                .filter(|(_, result)| result.is_err())
                .map(|(name, _)| name.as_str())
                .collect();
            text += &format!(
                "  scenarios: {} of {} pass",
                check.passed(),
                check.results.len()
            );
            if failing.is_empty() {
                text.push('\n');
            } else {
                text += &format!("; failing: {}\n", failing.join(", "));
            }
        }
    }
    text
}

/// The summary, then the build error or the first failure in full.
pub fn report(check: &ChapterCheck) -> String {
    let mut text = summary(check);
    if let Some(error) = &check.build_error {
        text += &format!("\n{error}\n");
    } else if let Some((name, report)) = check.first_failure() {
        text += &format!("\nfirst failure, in full: {name}\n\n{report}");
    }
    text
}

/// What to do after `check`: the next gap and where it is taught, or the
/// next chapter.
pub fn next_step(check: &ChapterCheck) -> String {
    let chapter = &check.chapter;
    if check.stretch {
        let page = format!("book/src/{}.md", chapter.dir);
        let core = gap_checks(chapter, &[], false);
        let unwritten = core
            .iter()
            .filter(|gap| gap.state == GapState::NotWritten)
            .count();
        if unwritten > 0 && check.target_label.starts_with("your crate") {
            return format!(
                "the stretches build on the core: {unwritten} of its {} gaps are not written \
                 yet; `cargo xtask check {:02}` first.",
                core.len(),
                chapter.number
            );
        }
        return match check.next_gap() {
            _ if check.done() => format!(
                "the stretch exercises of chapter {:02} are done.",
                chapter.number
            ),
            Some(next) => format!(
                "next: stretch {} in chapters/{}/{} (it is described under \"Stretch\" in {page}).",
                next.gap.id,
                chapter.dir,
                next.gap.file.display()
            ),
            None => format!(
                "next: make the failing stretch scenarios pass (`cargo xtask check {:02} --stretch`).",
                chapter.number
            ),
        };
    }
    if check.done() {
        return match Chapter::all()
            .into_iter()
            .find(|c| c.number > chapter.number)
        {
            Some(next) => format!(
                "chapter {:02} is done. Next: book/src/{}.md, then `cargo xtask check {:02}`.",
                chapter.number, next.dir, next.number
            ),
            None => format!(
                "chapter {:02} is done, and it is the last one so far.",
                chapter.number
            ),
        };
    }
    match check.next_gap() {
        Some(next) => format!(
            "next: gap {} in chapters/{}/{}; {}",
            next.gap.id,
            chapter.dir,
            next.gap.file.display(),
            book::why_line(&book::gap_section(chapter, &next.gap)).replacen("why: r", "r", 1)
        ),
        None => format!(
            "next: make the failing scenarios pass (`cargo xtask check {:02}`).",
            chapter.number
        ),
    }
}

/// `[#######-------------]`: `done` of `total` as a bar `width` wide.
pub fn bar(done: usize, total: usize, width: usize) -> String {
    let filled = (done * width).checked_div(total).unwrap_or(0).min(width);
    format!("[{}{}]", "#".repeat(filled), "-".repeat(width - filled))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_fill_in_proportion() {
        assert_eq!(bar(0, 4, 8), "[--------]");
        assert_eq!(bar(1, 4, 8), "[##------]");
        assert_eq!(bar(4, 4, 8), "[########]");
        assert_eq!(bar(0, 0, 4), "[----]");
    }

    #[test]
    fn a_region_compares_without_spacing() {
        let text = "// TODO(ch09/f): do\n    todo!(\"x\")\n// END(ch09/f)\n";
        let spaced = "// TODO(ch09/f): do\ntodo!(\"x\")\n\n// END(ch09/f)\n";
        assert_eq!(region(text, "ch09/f"), region(spaced, "ch09/f"));
        assert_eq!(region(text, "ch09/g"), None);
    }
}
