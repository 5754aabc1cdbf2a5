//! Checks that keep the course honest: starters are generated and fail
//! exactly where their gaps are, and the book can never drift from the code.

use std::collections::BTreeSet;
use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use wire_tests::course::{self, Chapter};
use wire_tests::generate::{gaps, starters};
use wire_tests::run::runner;
use wire_tests::run::target::{self, Kind, Target};
use wire_tests::run::transcript::Transcript;
use wire_tests::{book, learner, markers};

/// Says something even when the test passes: libtest captures `print!` and
/// `eprint!`, not a direct write to the process's stderr.
fn tell(line: &str) {
    std::io::stderr()
        .write_all(format!("{line}\n").as_bytes())
        .ok();
}

/// `cargo test` compiles a binary crate a second time, as a test harness,
/// unless its `[[bin]]` says `test = false`. That second compile is wasted
/// on a crate that holds no `#[test]` (the scenarios run the binary), and
/// `test = false` on a crate that holds some would keep them from ever
/// running: so each binary the workspace tests says it exactly when it
/// holds none.
#[test]
fn a_binary_is_compiled_as_a_test_harness_exactly_when_it_holds_tests() {
    let root = course::root();
    let mut crates: Vec<PathBuf> = Chapter::all().iter().map(Chapter::solution_dir).collect();
    // And the binaries that serve or drive the conformance suite.
    for entry in fs::read_dir(root.join("tests")).unwrap() {
        let dir = entry.unwrap().path();
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with("conformance") && dir.join("Cargo.toml").is_file() {
            crates.push(dir);
        }
    }
    let mut wrong = Vec::new();
    for dir in crates {
        let manifest = fs::read_to_string(dir.join("Cargo.toml")).unwrap();
        let untested = manifest.contains("\ntest = false\n");
        let tests = rust_files(&dir.join("src")).iter().any(|file| {
            let text = fs::read_to_string(file).unwrap();
            text.contains("#[test]") || text.contains("#[tokio::test]")
        });
        let name = dir.strip_prefix(&root).unwrap_or(&dir).display();
        match (tests, untested) {
            (true, true) => wrong.push(format!(
                "{name}: holds #[test]s, but its [[bin]] says `test = false`: they never run"
            )),
            (false, false) => wrong.push(format!(
                "{name}: holds no #[test]: give it a [[bin]] with `test = false` \
                 (see solutions/07-agent-loop/Cargo.toml), or `cargo test` compiles it twice"
            )),
            _ => {}
        }
    }
    // A starter keeps the harness, for the learner's own tests.
    for chapter in Chapter::all() {
        let manifest = fs::read_to_string(chapter.starter_dir().join("Cargo.toml")).unwrap();
        if manifest.contains("test = false") {
            wrong.push(format!(
                "{}: a starter must keep its test harness",
                chapter.dir
            ));
        }
    }
    assert!(wrong.is_empty(), "\n{}", wrong.join("\n"));
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            files.push(path);
        }
    }
    files
}

#[test]
fn starters_are_generated_from_the_solutions() {
    // A chapter with the learner's edits is theirs: it is skipped, with one
    // line that says so (never under CI, which checks a clean checkout).
    match starters::check() {
        Ok(skipped) => skipped
            .iter()
            .for_each(|chapter| tell(&starters::edited_note(chapter))),
        Err(problems) => panic!("{problems}"),
    }
}

#[test]
fn every_starter_fails_exactly_the_scenarios_of_its_gaps() {
    let manifest = course::starter_failures().unwrap();
    let edited = starters::edited_chapters().unwrap();
    // Every starter in one cargo build (a failed one is built, and its
    // errors shown, on its own below), then the chapters and their
    // scenarios side by side: most of a starter's failures are waits (a
    // reply that never comes), which need no CPU, so they overlap.
    let chapters = Chapter::all();
    let packages: Vec<String> = chapters
        .iter()
        .filter(|chapter| !edited.contains(chapter))
        .map(Chapter::starter_package)
        .collect();
    let _ = target::build_all(&packages);
    let problems: Vec<String> = std::thread::scope(|scope| {
        let threads: Vec<_> = chapters
            .iter()
            .map(|chapter| scope.spawn(|| starter_problems(chapter, &manifest, &edited)))
            .collect();
        threads
            .into_iter()
            .flat_map(|thread| thread.join().expect("a chapter's check panicked"))
            .collect()
    });
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

/// How many starter scenarios run at the same time.
const RUNNING: usize = 8;

/// One of [`RUNNING`] places to run a scenario in, given back when dropped.
struct Permit;

static FREE: std::sync::Mutex<usize> = std::sync::Mutex::new(RUNNING);
static FREED: std::sync::Condvar = std::sync::Condvar::new();

impl Permit {
    fn take() -> Permit {
        let mut free = FREE.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        while *free == 0 {
            free = FREED
                .wait(free)
                .unwrap_or_else(|poisoned| poisoned.into_inner());
        }
        *free -= 1;
        Permit
    }
}

impl Drop for Permit {
    fn drop(&mut self) {
        *FREE.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) += 1;
        FREED.notify_one();
    }
}

/// What is wrong with `chapter`'s starter and its lines in the manifest.
fn starter_problems(
    chapter: &Chapter,
    manifest: &[(String, String, String)],
    edited: &[Chapter],
) -> Vec<String> {
    let mut problems = Vec::new();
    let chapter = chapter.clone();
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
    if edited.contains(&chapter) {
        return problems; // The learner's work; `starters_are_generated…` says so.
    }
    // A scenario whose programs are missing is skipped, with what to
    // install (never under CI); its rows are neither confirmed nor denied.
    let (runnable, skipped): (Vec<String>, Vec<String>) =
        chapter.scenarios().into_iter().partition(|scenario| {
            let transcript = Transcript::load(&chapter.transcript_path(scenario)).unwrap();
            let who = format!("the {} starter's {scenario}", chapter.id());
            wire_tests::run::tools::ready(&transcript.needs, &who)
        });
    let listed: BTreeSet<String> = listed
        .into_iter()
        .filter(|scenario| !skipped.contains(scenario))
        .collect();
    if runnable.is_empty() {
        return problems;
    }
    let target = Target::starter(&chapter).unwrap();
    // Each scenario on a thread of its own, at most RUNNING at a time in
    // the whole test: a starter's failures are mostly waits.
    let failing: BTreeSet<String> = std::thread::scope(|scope| {
        let threads: Vec<_> = runnable
            .into_iter()
            .map(|scenario| {
                let (chapter, target) = (&chapter, &target);
                scope.spawn(move || {
                    let _permit = Permit::take();
                    let transcript = Transcript::load(&chapter.transcript_path(&scenario)).unwrap();
                    runner::check(&transcript, target)
                        .is_err()
                        .then_some(scenario)
                })
            })
            .collect();
        threads
            .into_iter()
            .filter_map(|thread| thread.join().expect("a scenario's check panicked"))
            .collect()
    });
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
    problems
}

/// Each stretch exercise `chNN/NAME` has its transcript
/// `tests/transcripts/chNN/stretch/NAME.wire` and each such transcript a
/// stretch; the solution without the `stretch` feature fails every stretch
/// scenario (so each pins something only the stretch code does); and the
/// starter builds with the feature, its stretches left to write.
#[test]
fn every_stretch_has_its_scenario_which_only_the_stretch_passes() {
    let edited = starters::edited_chapters().unwrap();
    build_stretches(&edited);
    let mut problems = Vec::new();
    for chapter in Chapter::all() {
        let stretches: BTreeSet<String> = gaps::stretches(&chapter)
            .unwrap()
            .into_iter()
            .map(|stretch| course::stretch_scenario(&stretch.id))
            .collect();
        let scenarios: BTreeSet<String> = chapter.stretch_scenarios().into_iter().collect();
        for missing in stretches.difference(&scenarios) {
            problems.push(format!(
                "a stretch of solutions/{} has no transcript tests/transcripts/{}/{missing}.wire",
                chapter.dir,
                chapter.id()
            ));
        }
        for orphan in scenarios.difference(&stretches) {
            problems.push(format!(
                "tests/transcripts/{}/{orphan}.wire is the scenario of no STRETCH in solutions/{}",
                chapter.id(),
                chapter.dir
            ));
        }
        if scenarios.is_empty() {
            continue;
        }
        let core = Target::solution(&chapter).unwrap();
        for scenario in &scenarios {
            let transcript = Transcript::load(&chapter.transcript_path(scenario)).unwrap();
            let who = format!("{}/{scenario} without the stretch", chapter.id());
            if !wire_tests::run::tools::ready(&transcript.needs, &who) {
                continue; // Skipped, with what to install (never under CI).
            }
            if runner::check(&transcript, &core).is_ok() {
                problems.push(format!(
                    "{}/{scenario} passes without the stretch feature: it pins nothing new",
                    chapter.id()
                ));
            }
        }
        if !edited.contains(&chapter)
            && let Err(error) = Target::built(&chapter, Kind::Starter, true)
        {
            problems.push(error);
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

/// Every chapter's solution and (unless the learner edited it) starter with
/// their stretches, in one cargo build: side by side instead of one after
/// the other as each check asks for its own. Where it fails, each check
/// builds its own crate and reports that crate's errors.
fn build_stretches(edited: &[Chapter]) {
    let packages: Vec<String> = Chapter::all()
        .iter()
        .filter(|chapter| !chapter.stretch_scenarios().is_empty())
        .flat_map(|chapter| {
            let starter = (!edited.contains(chapter)).then(|| chapter.starter_package());
            std::iter::once(chapter.solution_package()).chain(starter)
        })
        .collect();
    let _ = target::build_all_stretch(&packages);
}

/// Whether the programs `scenarios` need are installed; if not, the
/// chapter's stretch checks are skipped with what to install (never
/// under CI).
fn stretch_tools_ready(chapter: &Chapter, scenarios: &[String]) -> bool {
    let needs: Vec<&'static wire_tests::run::tools::Tool> = scenarios
        .iter()
        .flat_map(|scenario| {
            Transcript::load(&chapter.transcript_path(scenario))
                .unwrap()
                .needs
        })
        .collect();
    let who = format!("`cargo xtask check {:02} --stretch`", chapter.number);
    wire_tests::run::tools::ready(&needs, &who)
}

/// `cargo xtask check NN --stretch`: against the solution every stretch is
/// written and passes; against an untouched starter the report says which
/// stretch is not written yet.
#[test]
fn check_stretch_reports_each_stretch() {
    let edited = starters::edited_chapters().unwrap();
    build_stretches(&edited);
    for chapter in Chapter::all() {
        let scenarios = chapter.stretch_scenarios();
        if scenarios.is_empty() || !stretch_tools_ready(&chapter, &scenarios) {
            continue;
        }
        let solution = Target::built(&chapter, Kind::Solution, true).unwrap();
        let check = learner::check(&chapter, Some(solution), &scenarios, true);
        assert!(check.done(), "{}", learner::report(&check));
        if edited.contains(&chapter) {
            continue;
        }
        let check = learner::check(&chapter, None, &scenarios, true);
        let summary = learner::summary(&check);
        assert!(!check.done(), "{summary}");
        for stretch in gaps::stretches(&chapter).unwrap() {
            let line = format!("[ ] {}", stretch.id);
            assert!(
                summary.contains(&line) && summary.contains("not written yet"),
                "{summary}"
            );
        }
        // An untouched starter's core gaps come first.
        assert!(learner::next_step(&check).contains("the stretches build on the core"));
    }
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
    Some(
        markers::anchored(content, anchor)?
            .into_iter()
            .filter(|line| !markers::is_anchor(line))
            .collect::<Vec<_>>()
            .join("\n"),
    )
}

fn heading_ids(page: &str) -> BTreeSet<String> {
    book::heading_ids(page).into_iter().collect()
}

#[test]
fn every_transcript_points_at_a_book_section_that_exists() {
    let mut problems = Vec::new();
    for chapter in Chapter::all() {
        let scenarios = chapter.scenarios();
        if scenarios.is_empty() {
            problems.push(format!("{} has no transcripts", chapter.id()));
        }
        // A stretch's heading is in the generated index the chapter's page
        // includes (the stretch page has it again, in full).
        let exercises = fs::read_to_string(wire_tests::generate::exercises::stretch_index_path(
            &chapter,
        ))
        .unwrap_or_default();
        for scenario in scenarios.into_iter().chain(chapter.stretch_scenarios()) {
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
            let included = if scenario.starts_with(course::STRETCH) {
                heading_ids(&exercises)
            } else {
                BTreeSet::new()
            };
            if !heading_ids(&text).contains(section) && !included.contains(section) {
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
        // The task on the exercise page names each gap it asks for.
        let path = chapter
            .book_page()
            .with_file_name(wire_tests::generate::exercises::exercise_page(&chapter));
        let page = fs::read_to_string(&path).unwrap_or_default();
        for gap in gaps::gaps(&chapter).unwrap() {
            if !page.contains(&gap.id) {
                problems.push(format!("{} does not mention gap {}", rel(&path), gap.id));
            }
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

#[test]
fn the_changes_pages_are_up_to_date() {
    let stale = course::stale_changes();
    assert!(
        stale.is_empty(),
        "out of date, run `cargo xtask changes`: {}",
        stale.join(", ")
    );
}

#[test]
fn every_gap_has_a_section_that_teaches_it() {
    let mut problems = Vec::new();
    for chapter in Chapter::all() {
        for gap in gaps::gaps(&chapter).unwrap() {
            // The section may be on the chapter's page or on a sub-page.
            let section = book::gap_section(&chapter, &gap);
            let found = section.split_once('#').is_some_and(|(page, id)| {
                let text = fs::read_to_string(course::root().join("book/src").join(page));
                heading_ids(&text.unwrap_or_default()).contains(id)
            });
            if !found {
                problems.push(format!("gap {}: no section found ({section})", gap.id));
            }
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
    // The section that includes the gap's listing, not the exercise list.
    let echo = Chapter::find("01").unwrap();
    let gap = gaps::gaps(&echo).unwrap().remove(0);
    assert_eq!(
        book::gap_section(&echo, &gap),
        "01-echo-tour.md#one-line-in-one-line-out"
    );
    // A listing on a sub-page (nested under its chapter in SUMMARY.md).
    let resources = Chapter::find("04").unwrap();
    let base64 = gaps::gaps(&resources)
        .unwrap()
        .into_iter()
        .find(|gap| gap.id == "ch04/base64")
        .expect("chapter 4 has the gap ch04/base64");
    assert_eq!(
        book::gap_section(&resources, &base64),
        "04-resources-blobs.md#binary-resources-base64-blobs"
    );
}

#[test]
fn a_chapters_pages_are_its_page_then_its_sub_pages_in_summary_order() {
    let pages = book::chapter_pages(&Chapter::find("04").unwrap());
    assert_eq!(pages.first().map(String::as_str), Some("04-resources.md"));
    assert!(
        pages.contains(&"04-resources-confinement.md".to_string()),
        "{pages:?}"
    );
    assert!(!pages.contains(&"05-prompts.md".to_string()), "{pages:?}");
    for page in &pages {
        let path = course::root().join("book/src").join(page);
        assert!(
            path.is_file(),
            "SUMMARY.md names {page}, which does not exist"
        );
    }
    assert_eq!(
        book::chapter_pages(&Chapter::find("01").unwrap()),
        [
            "01-echo.md",
            "01-echo-tour.md",
            "01-echo-framing.md",
            "01-echo-shutdown.md",
            "01-echo-exercise.md",
            "01-echo-stretch.md"
        ]
    );
}

#[test]
fn the_flush_section_exists() {
    let (page, id) = runner::FLUSH_SECTION.split_once('#').unwrap();
    let text = fs::read_to_string(course::root().join("book/src").join(page)).unwrap();
    assert!(heading_ids(&text).contains(id), "{}", runner::FLUSH_SECTION);
    assert!(text.contains("flush"), "{page} no longer teaches the flush");
}

#[test]
fn every_negotiated_version_is_the_transcripts_revision() {
    let mut problems = Vec::new();
    for chapter in Chapter::all() {
        for scenario in chapter
            .scenarios()
            .into_iter()
            .chain(chapter.stretch_scenarios())
        {
            let transcript = Transcript::load(&chapter.transcript_path(&scenario)).unwrap();
            let versions: Vec<(usize, String)> = negotiated_versions(&transcript);
            if versions.is_empty() {
                continue;
            }
            let Some(revision) = &transcript.revision else {
                problems.push(format!(
                    "{}/{scenario} negotiates a version but has no `# revision:` line",
                    chapter.id()
                ));
                continue;
            };
            // A scenario that mixes eras names each: `2026-07-28 and 2025-11-25`.
            let revisions: Vec<&str> = revision.split(" and ").collect();
            for (line, version) in versions {
                if !revisions.contains(&version.as_str()) {
                    problems.push(format!(
                        "{}/{scenario}:{line}: the server agrees on {version}, but `# revision:` says {revision}",
                        chapter.id()
                    ));
                }
            }
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

/// The `protocolVersion` of each result that answers an `initialize`
/// request, with its transcript line.
fn negotiated_versions(transcript: &Transcript) -> Vec<(usize, String)> {
    use serde_json::Value;
    use wire_tests::run::transcript::Direction;
    let mut initialize_ids = Vec::new();
    let mut versions = Vec::new();
    for frame in &transcript.frames {
        let Ok(value) = serde_json::from_slice::<Value>(&frame.bytes) else {
            continue;
        };
        match frame.direction {
            Direction::ClientToServer if value["method"] == "initialize" => {
                initialize_ids.push((frame.channel.clone(), value["id"].clone()));
            }
            Direction::ServerToClient => {
                let answers =
                    initialize_ids.contains(&(frame.channel.clone(), value["id"].clone()));
                if let (true, Some(version)) =
                    (answers, value["result"]["protocolVersion"].as_str())
                {
                    versions.push((frame.line, version.to_string()));
                }
            }
            _ => {}
        }
    }
    versions
}

fn rel(path: &Path) -> String {
    path.strip_prefix(course::root())
        .unwrap_or(path)
        .display()
        .to_string()
}

/// A scenario's `# guards:` line names gaps of its own chapter, and only
/// gaps whose placeholder passes it (one that fails it is in
/// `tests/starter-failures.txt` already, where the blame comes from).
#[test]
fn a_guarded_gap_is_its_chapters_and_not_a_starter_failure() {
    let manifest = course::starter_failures().unwrap();
    let mut problems = Vec::new();
    for chapter in Chapter::all() {
        let ids: BTreeSet<String> = gaps::gaps(&chapter)
            .unwrap()
            .into_iter()
            .map(|gap| gap.id)
            .collect();
        for scenario in chapter.scenarios() {
            let transcript = Transcript::load(&chapter.transcript_path(&scenario)).unwrap();
            for guarded in &transcript.guards {
                let listed = manifest
                    .iter()
                    .any(|(_, name, gap)| *name == scenario && gap == guarded);
                if !ids.contains(guarded) {
                    problems.push(format!(
                        "{}/{scenario}: guards {guarded}, no gap of its chapter",
                        chapter.id()
                    ));
                } else if listed {
                    problems.push(format!(
                        "{}/{scenario}: guards {guarded}, whose placeholder already fails it \
                         (tests/starter-failures.txt): drop the # guards: line",
                        chapter.id()
                    ));
                }
            }
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}
