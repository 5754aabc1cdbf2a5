//! What a learner asks: which of my gaps are written, which scenarios pass,
//! what do I do next. `cargo xtask check`, `progress` and `watch` print it;
//! the scenarios run in this process, through the same runner as `cargo test`.
//! [`hints`] holds the three tiers of hints `cargo xtask hint` gives (the
//! exercise pages show the same).

use std::fs;

use crate::book;
use crate::course::{self, Chapter};
use crate::generate::gaps::{self, Gap};
use crate::run::target::{Kind, Target};
use crate::run::transcript::Transcript;
use crate::run::{runner, tools};

pub mod hints;

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
    /// A program some scenarios need is not installed (`jq`): what to
    /// install. Those scenarios did not run (`not_run`), and no gap is
    /// blamed for them.
    pub missing_tools: Option<String>,
    /// The scenarios left out for a missing program.
    pub not_run: Vec<String>,
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
        self.build_error.is_none()
            && self.missing_tools.is_none()
            && self.passed() == self.results.len()
    }
    /// The report to show in full: a failure of the gap the evidence
    /// blames (so the detail never contradicts the `next:` line), else one
    /// of the next gap to write, else the tour (the chapter in one
    /// scenario), else the first.
    pub fn first_failure(&self) -> Option<(&str, &str)> {
        let suspects = self.suspects();
        let failures = || {
            self.results
                .iter()
                .filter_map(|(name, result)| Some((name.as_str(), result.as_ref().err()?.as_str())))
        };
        // A scenario that a gap not written yet also breaks says less
        // about the written ones than one that only they explain.
        let by_placeholder = |scenario: &str| {
            self.gaps.iter().any(|gap| {
                gap.state == GapState::NotWritten && gap.scenarios.iter().any(|s| s == scenario)
            })
        };
        // A gap's scenarios in the order the manifest lists them (a
        // chapter's tour first), not alphabetically; first those that only
        // written gaps explain.
        let of = |gaps: &[&GapCheck]| {
            gaps.iter().find_map(|gap| {
                let failing: Vec<(&str, &str)> = gap
                    .scenarios
                    .iter()
                    .filter_map(|listed| failures().find(|(name, _)| name == listed))
                    .collect();
                let telling = failing.iter().find(|(name, _)| !by_placeholder(name));
                telling.or(failing.first()).copied()
            })
        };
        let next: Vec<&GapCheck> = self.next_gap().into_iter().collect();
        of(&suspects)
            .or_else(|| of(&next))
            .or_else(|| failures().find(|(name, _)| *name == "tour"))
            .or_else(|| failures().next())
    }

    /// The written gaps the failing scenarios blame (`tests/starter-failures.txt`
    /// maps each scenario to the gaps whose placeholders break it). A failing
    /// scenario that lists a gap not written yet is explained by that
    /// placeholder; the others are evidence against written gaps. A failing
    /// scenario that lists one gap alone blames it; a scenario shared by
    /// several blames those of them none of whose own scenarios pass (a gap
    /// with a passing scenario is ruled out), or all of them when that rules
    /// everyone out; the likeliest first (the largest share of its own
    /// scenarios failing). Empty: nothing written is to blame.
    pub fn suspects(&self) -> Vec<&GapCheck> {
        let ran = |scenario: &str, passed: bool| {
            self.results
                .iter()
                .any(|(name, result)| name == scenario && result.is_ok() == passed)
        };
        let gaps_of = |scenario: &str| -> Vec<&GapCheck> {
            self.gaps
                .iter()
                .filter(|gap| gap.scenarios.iter().any(|listed| listed == scenario))
                .collect()
        };
        let unexplained: Vec<Vec<&GapCheck>> = self
            .results
            .iter()
            .filter(|(_, result)| result.is_err())
            .map(|(name, _)| gaps_of(name))
            .filter(|gaps| {
                !gaps.is_empty() && gaps.iter().all(|gap| gap.state != GapState::NotWritten)
            })
            .collect();
        let in_order = |chosen: Vec<&GapCheck>| -> Vec<&GapCheck> {
            self.gaps
                .iter()
                .filter(|gap| chosen.iter().any(|c| c.gap.id == gap.gap.id))
                .collect()
        };
        let alone: Vec<&GapCheck> = unexplained
            .iter()
            .filter(|gaps| gaps.len() == 1)
            .map(|gaps| gaps[0])
            .collect();
        if !alone.is_empty() {
            return in_order(alone);
        }
        let listed: Vec<&GapCheck> = unexplained.into_iter().flatten().collect();
        let kept: Vec<&GapCheck> = listed
            .iter()
            .filter(|gap| !gap.scenarios.iter().any(|scenario| ran(scenario, true)))
            .copied()
            .collect();
        let mut chosen = in_order(if kept.is_empty() { listed } else { kept });
        // The likeliest first: the gap the largest share of whose own
        // scenarios fail (a stable sort keeps the gaps' order in a tie).
        let share = |gap: &GapCheck| {
            let failed = gap.scenarios.iter().filter(|s| ran(s, false)).count();
            (failed * 1000)
                .checked_div(gap.scenarios.len())
                .unwrap_or(0)
        };
        chosen.sort_by_key(|gap| std::cmp::Reverse(share(gap)));
        chosen
    }

    /// The gaps not written yet that every one of `failing` lists too, so
    /// that the placeholders explain each failure; empty when one of them
    /// fails with every gap it lists written (the evidence is against them).
    pub fn waiting_on(&self, failing: &[String]) -> Vec<&str> {
        let unwritten = |scenario: &String| -> Vec<&str> {
            self.gaps
                .iter()
                .filter(|gap| gap.state == GapState::NotWritten && gap.scenarios.contains(scenario))
                .map(|gap| gap.gap.id.as_str())
                .collect()
        };
        if failing
            .iter()
            .any(|scenario| unwritten(scenario).is_empty())
        {
            return Vec::new();
        }
        // In the chapter's order of gaps, each once.
        self.gaps
            .iter()
            .filter(|gap| {
                failing
                    .iter()
                    .any(|s| unwritten(s).contains(&gap.gap.id.as_str()))
            })
            .map(|gap| gap.gap.id.as_str())
            .collect()
    }

    /// The gap to work on next: the one the evidence blames, else the
    /// first that is not written, else the first written but failing.
    /// `None` when several are blamed (see [`ChapterCheck::suspects`]).
    pub fn next_gap(&self) -> Option<&GapCheck> {
        match self.suspects()[..] {
            [one] => return Some(one),
            [] => {}
            _ => return None,
        }
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
    // A scenario whose programs are missing is not run: it would fail
    // whatever the gaps hold, and blame them.
    let (runnable, not_run): (Vec<String>, Vec<String>) =
        scenarios.iter().cloned().partition(|scenario| {
            Transcript::load(&chapter.transcript_path(scenario))
                .is_ok_and(|transcript| tools::missing(&transcript.needs).is_empty())
        });
    let missing_tools = missing_tools(chapter, &not_run);
    if runnable.is_empty() && missing_tools.is_some() {
        return ChapterCheck {
            chapter: chapter.clone(),
            stretch,
            target_label: target
                .map_or(format!("your crate chapters/{}", chapter.dir), |t| t.label),
            build_error: None,
            missing_tools,
            not_run,
            results: Vec::new(),
            gaps: Vec::new(),
        };
    }
    let target = match target.map_or_else(|| Target::built(chapter, Kind::Starter, stretch), Ok) {
        Ok(target) => target,
        Err(error) => {
            return ChapterCheck {
                chapter: chapter.clone(),
                stretch,
                target_label: format!("your crate chapters/{}", chapter.dir),
                build_error: Some(error),
                missing_tools: None,
                not_run: Vec::new(),
                results: Vec::new(),
                gaps: gap_checks(chapter, &[], stretch),
            };
        }
    };
    let results: Vec<(String, Result<(), String>)> = runnable
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
        missing_tools,
        not_run,
        results,
        gaps,
    }
}

/// What to install for the scenarios of `not_run`: each missing program
/// once, with every system's line.
fn missing_tools(chapter: &Chapter, not_run: &[String]) -> Option<String> {
    let needs: Vec<&'static tools::Tool> = not_run
        .iter()
        .filter_map(|scenario| Transcript::load(&chapter.transcript_path(scenario)).ok())
        .flat_map(|transcript| transcript.needs)
        .collect();
    let lines: Vec<String> = tools::missing(&needs)
        .iter()
        .map(|tool| tool.missing_message())
        .collect();
    (!lines.is_empty()).then(|| lines.join("\n  "))
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

/// The scenarios of `chapter` whose `# guards:` line names `gap`.
fn guarding(chapter: &Chapter, gap: &str) -> Vec<String> {
    let scenarios = chapter.scenarios().into_iter();
    scenarios
        .filter(|scenario| {
            let transcript = Transcript::load(&chapter.transcript_path(scenario));
            transcript.is_ok_and(|transcript| transcript.guards.iter().any(|id| id == gap))
        })
        .collect()
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
                let listed = manifest.iter().filter(|(_, _, listed)| *listed == gap.id);
                let listed = listed.map(|(_, scenario, _)| scenario.clone());
                listed.chain(guarding(chapter, &gap.id)).collect()
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
    let suspects = check.suspects();
    let suspect_ids: Vec<&str> = suspects.iter().map(|gap| gap.gap.id.as_str()).collect();
    // With no suspect, every failing gap is shown as failing.
    let blamed = |gap: &GapCheck| suspects.is_empty() || suspect_ids.contains(&gap.gap.id.as_str());
    for gap in &check.gaps {
        let file = format!("chapters/{}/{}", check.chapter.dir, gap.gap.file.display());
        let id = format!("{:width$}", gap.gap.id);
        text += &match &gap.state {
            GapState::Written => format!("  [x] {id}  written\n"),
            GapState::NotWritten => format!("  [ ] {id}  not written yet ({file})\n"),
            GapState::Failing(scenarios) if !check.waiting_on(scenarios).is_empty() => format!(
                "  [~] {id}  written; {} also {} {}, not written yet\n",
                scenarios.join(", "),
                if scenarios.len() == 1 {
                    "needs"
                } else {
                    "need"
                },
                check.waiting_on(scenarios).join(" and ")
            ),
            GapState::Failing(scenarios) if !blamed(gap) => format!(
                "  [?] {id}  written; {} fail(s) too, but the evidence points at {}\n",
                scenarios.join(", "),
                suspect_ids.join(" and ")
            ),
            GapState::Failing(scenarios) => format!(
                "  [!] {id}  written, but failing: {}\n",
                scenarios.join(", ")
            ),
        };
    }
    if !check.gaps.is_empty() {
        text.push('\n');
    }
    if let Some(missing) = &check.missing_tools
        && check.results.is_empty()
        && check.build_error.is_none()
    {
        return text + &format!("  no scenario ran: {missing}\n");
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
            if let Some(missing) = &check.missing_tools {
                text += &format!(
                    "  not run: {}, for a missing program: {missing}\n",
                    check.not_run.join(", ")
                );
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
    if check.build_error.is_some() {
        return format!(
            "next: make your crate build (cargo's errors are above), then `cargo xtask check {:02}` again.",
            chapter.number
        );
    }
    // The scenarios that ran pass: what is left needs the program.
    if check.missing_tools.is_some() && check.passed() == check.results.len() {
        return format!(
            "next: install what is missing, then `cargo xtask check {:02}` again; your gaps are not to blame.",
            chapter.number
        );
    }
    if check.stretch {
        let page = format!("book/src/{}-stretch.md", chapter.dir);
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
                "next: stretch {} in chapters/{}/{} (its page: {page}).",
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
                "chapter {:02} is done. Next: book/src/{}-tour.md, then `cargo xtask check {:02}`.",
                chapter.number, next.dir, next.number
            ),
            None => format!(
                "chapter {:02} is done, and it is the last one so far.",
                chapter.number
            ),
        };
    }
    let suspects = check.suspects();
    if suspects.len() > 1 {
        let names: Vec<String> = suspects
            .iter()
            .map(|gap| {
                format!(
                    "{} (chapters/{}/{})",
                    gap.gap.id,
                    chapter.dir,
                    gap.gap.file.display()
                )
            })
            .collect();
        return format!(
            "next: several gaps may be the cause, and the failing scenarios do not single one \
             out: {}. Start with the first, whose scenarios fail most; \
             `cargo xtask check {:02} SCENARIO` reruns one scenario.",
            names.join(", "),
            chapter.number
        );
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

    /// A chapter 08 check: gaps with their own scenarios (as the manifest
    /// lists them) and states, and which scenarios failed.
    fn made_up(gaps: &[(&str, &[&str], GapState)], failing: &[&str]) -> ChapterCheck {
        let gaps: Vec<GapCheck> = gaps
            .iter()
            .map(|(id, scenarios, state)| GapCheck {
                gap: Gap {
                    id: id.to_string(),
                    file: "src/skills.rs".into(),
                    line: 1,
                    instruction: String::new(),
                    body: String::new(),
                },
                state: state.clone(),
                scenarios: scenarios.iter().map(|s| s.to_string()).collect(),
            })
            .collect();
        let mut names: Vec<&str> = gaps
            .iter()
            .flat_map(|gap| gap.scenarios.iter().map(String::as_str))
            .collect();
        names.sort();
        names.dedup();
        let results = names
            .iter()
            .map(|name| {
                let result = match failing.contains(name) {
                    true => Err("differs".to_string()),
                    false => Ok(()),
                };
                (name.to_string(), result)
            })
            .collect();
        ChapterCheck {
            chapter: Chapter::find("08").unwrap(),
            stretch: false,
            target_label: "your crate".into(),
            build_error: None,
            missing_tools: None,
            not_run: Vec::new(),
            results,
            gaps,
        }
    }

    fn failing(names: &[&str]) -> GapState {
        GapState::Failing(names.iter().map(|s| s.to_string()).collect())
    }

    fn ids(check: &ChapterCheck) -> Vec<&str> {
        check
            .suspects()
            .iter()
            .map(|gap| gap.gap.id.as_str())
            .collect()
    }

    #[test]
    fn the_failure_shown_is_one_only_written_gaps_explain() {
        // Chapter 17's route written with a mistake, the store not yet: the
        // tour fails for both, legacy (which the route guards) for the
        // route alone, so legacy is the failure shown.
        let check = made_up(
            &[
                (
                    "ch17/route",
                    &["tour", "legacy"],
                    failing(&["tour", "legacy"]),
                ),
                ("ch17/create", &["tour"], GapState::NotWritten),
            ],
            &["tour", "legacy"],
        );
        assert_eq!(check.next_gap().unwrap().gap.id, "ch17/route");
        assert_eq!(check.first_failure().unwrap().0, "legacy");
    }

    #[test]
    fn blame_follows_the_scenario_that_fails_alone() {
        // A wrong name check: check_invalid (validate-name's alone) fails,
        // and so does the tour, which catalogue and activate share.
        let check = made_up(
            &[
                (
                    "ch08/catalogue",
                    &["tour", "check_valid"],
                    failing(&["tour"]),
                ),
                ("ch08/activate", &["tour", "escape"], failing(&["tour"])),
                (
                    "ch08/validate-name",
                    &["check_invalid", "no_skills"],
                    failing(&["check_invalid"]),
                ),
            ],
            &["tour", "check_invalid"],
        );
        assert_eq!(ids(&check), ["ch08/validate-name"]);
        assert_eq!(check.next_gap().unwrap().gap.id, "ch08/validate-name");
        assert_eq!(check.first_failure().unwrap().0, "check_invalid");
        let summary = summary(&check);
        assert!(summary.contains("[?] ch08/catalogue"), "{summary}");
        assert!(summary.contains("[!] ch08/validate-name"), "{summary}");
    }

    #[test]
    fn a_written_gap_whose_failures_need_an_unwritten_one_is_not_blamed() {
        // Chapter 16's shape: progress written (rightly), deliver not yet;
        // the tour lists both, so its failure says nothing of progress.
        let check = made_up(
            &[
                ("ch08/catalogue", &["tour", "escape"], failing(&["tour"])),
                (
                    "ch08/activate",
                    &["tour", "no_skills"],
                    GapState::NotWritten,
                ),
            ],
            &["tour", "no_skills"],
        );
        let summary = summary(&check);
        assert!(
            summary.contains(
                "[~] ch08/catalogue  written; tour also needs ch08/activate, not written yet"
            ),
            "{summary}"
        );
        // A failure with every gap it lists written is evidence: `[!]`.
        let check = made_up(
            &[
                (
                    "ch08/catalogue",
                    &["tour", "escape"],
                    failing(&["tour", "escape"]),
                ),
                ("ch08/activate", &["tour"], GapState::NotWritten),
            ],
            &["tour", "escape"],
        );
        let summary = super::summary(&check);
        assert!(
            summary.contains("[!] ch08/catalogue  written, but failing: tour, escape"),
            "{summary}"
        );
    }

    #[test]
    fn a_passing_scenario_rules_a_shared_gap_out() {
        // Only shared scenarios fail; activate's escape passes, so the tour
        // blames catalogue.
        let check = made_up(
            &[
                ("ch08/catalogue", &["tour"], failing(&["tour"])),
                ("ch08/activate", &["tour", "escape"], failing(&["tour"])),
            ],
            &["tour"],
        );
        assert_eq!(ids(&check), ["ch08/catalogue"]);
        // Nothing rules either out: several gaps, and no single `next:`.
        let check = made_up(
            &[
                ("ch08/catalogue", &["tour"], failing(&["tour"])),
                (
                    "ch08/activate",
                    &["tour", "escape"],
                    failing(&["tour", "escape"]),
                ),
            ],
            &["tour", "escape"],
        );
        assert_eq!(ids(&check), ["ch08/activate"]);
        let check = made_up(
            &[
                ("ch08/catalogue", &["tour", "x"], failing(&["tour"])),
                ("ch08/activate", &["tour", "y"], failing(&["tour"])),
            ],
            &["tour"],
        );
        assert_eq!(ids(&check), ["ch08/catalogue", "ch08/activate"]);
        assert!(check.next_gap().is_none());
        // Ruled out all round: all three, the largest failing share first.
        let check = made_up(
            &[
                (
                    "ch12/complete",
                    &["meta_errors", "a", "b"],
                    failing(&["meta_errors"]),
                ),
                (
                    "ch12/meta",
                    &["meta_errors", "c"],
                    failing(&["meta_errors"]),
                ),
                (
                    "ch12/era",
                    &["meta_errors", "d", "e", "f"],
                    failing(&["meta_errors"]),
                ),
            ],
            &["meta_errors"],
        );
        assert_eq!(ids(&check), ["ch12/meta", "ch12/complete", "ch12/era"]);
        assert!(next_step(&check).starts_with("next: several gaps"));
    }

    #[test]
    fn a_gap_every_scenario_of_which_fails_is_blamed_over_gaps_with_one_passing() {
        // Chapter 3's shape, each scenario listing every gap whose
        // placeholder breaks it: the result leaves out structuredContent,
        // so every scenario that calls add fails, the tour included. The
        // definition's tools_list passes and so does add's
        // call_add_bad_arguments: the result is to blame, alone.
        let check = made_up(
            &[
                (
                    "ch03/tool-definition",
                    &["tour", "tools_list"],
                    failing(&["tour"]),
                ),
                (
                    "ch03/tool-result",
                    &["tour", "call_add", "call_errors"],
                    failing(&["tour", "call_add", "call_errors"]),
                ),
                (
                    "ch03/add",
                    &["tour", "call_add", "call_add_bad_arguments", "call_errors"],
                    failing(&["tour", "call_add", "call_errors"]),
                ),
            ],
            &["tour", "call_add", "call_errors"],
        );
        assert_eq!(ids(&check), ["ch03/tool-result"]);
        assert_eq!(check.next_gap().unwrap().gap.id, "ch03/tool-result");
        let summary = summary(&check);
        assert!(summary.contains("[!] ch03/tool-result"), "{summary}");
        assert!(summary.contains("[?] ch03/add"), "{summary}");
    }

    #[test]
    fn a_placeholder_explains_its_own_failures() {
        // catalogue is written and right; activate is not written yet, so
        // the tour they share is activate's to fix: no written gap is blamed.
        let check = made_up(
            &[
                (
                    "ch08/catalogue",
                    &["tour", "check_valid"],
                    failing(&["tour"]),
                ),
                ("ch08/activate", &["tour", "escape"], GapState::NotWritten),
            ],
            &["tour", "escape"],
        );
        assert!(ids(&check).is_empty());
        assert_eq!(check.next_gap().unwrap().gap.id, "ch08/activate");
    }

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
