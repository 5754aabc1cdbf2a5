//! `cargo xtask starter-failures`: which gaps break which scenarios, found
//! by running them, for the gap column of `tests/starter-failures.txt`.
//!
//! `cargo xtask check` blames a failing scenario on the written gaps that
//! file lists for it, so each scenario must list every gap it exercises,
//! not only the first placeholder the starter reaches: chapter 3's tour
//! lists `ch03/tool-definition` (whose `todo!` stops it at `tools/list`),
//! but a learner whose result leaves out `structuredContent` fails the
//! tour too, in `ch03/tool-result`. So, for every gap, the solution is built
//! with that gap alone as the starter has it (its placeholder) and every
//! scenario of its chapter is run against it: each one that fails is a
//! line `chNN scenario chNN/gap`.
//!
//! The variants are built in a copy of the workspace under
//! `target/starter-failures/` with a target folder of their own (the
//! solutions' binaries in `target/debug` stay the solutions'). One round
//! per gap position: round k opens the k-th gap of every chapter at once,
//! so a chapter's crate is compiled once per gap and the rounds are as
//! many as the most gaps a chapter has. A maintainer's tool: minutes.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;

use wire_tests::course::{self, Chapter};
use wire_tests::generate::gaps::{self, Gap};
use wire_tests::generate::starters;
use wire_tests::run::runner;
use wire_tests::run::target::{self, Target};
use wire_tests::run::tools;
use wire_tests::run::transcript::Transcript;

const USAGE: &str = "\
Usage: cargo xtask starter-failures [NN ...] [--write]

Builds each chapter's solution with one gap at a time left as the starter
has it, runs the chapter's scenarios against each, and prints the lines of
tests/starter-failures.txt that result: every scenario each gap's placeholder
breaks. Without --write, also prints how they differ from the file and fails
when they do; with --write, puts them in the file (the chapters named, or
all).
";

/// How many scenarios run at the same time (as in the starter test).
const RUNNING: usize = 8;

/// `(chapter id, scenario, gap id)`, as `course::starter_failures` reads them.
type Row = (String, String, String);

pub fn run(args: &[String]) -> Result<(), String> {
    if args.iter().any(|arg| arg == "--help" || arg == "-h") {
        return Err(USAGE.to_string());
    }
    let write = args.iter().any(|arg| arg == "--write");
    let named: Vec<Chapter> = args
        .iter()
        .filter(|arg| !arg.starts_with("--"))
        .map(|arg| Chapter::find(arg))
        .collect::<Result<_, _>>()?;
    let chapters = if named.is_empty() {
        Chapter::all()
    } else {
        named
    };
    // A chapter whose programs are missing (chapter 10's jq) would fail
    // every scenario, each gap's alike: left out, and its rows kept.
    let (chapters, unready): (Vec<Chapter>, Vec<Chapter>) = chapters
        .into_iter()
        .partition(|chapter| tools::missing_for(chapter).is_empty());
    for chapter in &unready {
        let missing: Vec<String> = tools::missing_for(chapter)
            .iter()
            .map(|tool| tool.missing_message())
            .collect();
        if starters::strict() {
            return Err(format!("CI checks every chapter: {}", missing.join(" ")));
        }
        eprintln!("skipped {}: {}", chapter.id(), missing.join(" "));
    }
    let scratch = course::root().join("target/starter-failures");
    let workspace = scratch.join("workspace");
    copy_workspace(&workspace)?;
    let with_gaps: Vec<(Chapter, Vec<Gap>)> = chapters
        .iter()
        .map(|chapter| Ok((chapter.clone(), gaps::gaps(chapter)?)))
        .collect::<Result<_, String>>()?;
    let rounds = with_gaps
        .iter()
        .map(|(_, gaps)| gaps.len())
        .max()
        .unwrap_or(0);
    let mut found: Vec<Row> = Vec::new();
    for round in 0..rounds {
        eprintln!(
            "round {} of {rounds}: each chapter's gap {}",
            round + 1,
            round + 1
        );
        let open: Vec<(&Chapter, &Gap)> = with_gaps
            .iter()
            .filter_map(|(chapter, gaps)| Some((chapter, gaps.get(round)?)))
            .collect();
        for (chapter, gaps) in &with_gaps {
            write_variant(&workspace, chapter, gaps.get(round))?;
        }
        let binaries = build(&workspace, &scratch, &open, round)?;
        let mut targets = Vec::new();
        for (chapter, gap) in &open {
            let Some(binary) = binaries.get(&chapter.solution_package()) else {
                return Err(format!(
                    "no binary built for {}",
                    chapter.solution_package()
                ));
            };
            let target = Target::binary(binary.clone(), &format!(" ({} open)", gap.id));
            targets.push((*chapter, *gap, target));
        }
        for (chapter, gap, failing) in failing_scenarios(&targets) {
            let shown = if failing.is_empty() {
                "-".to_string()
            } else {
                failing.join(", ")
            };
            eprintln!("  {}: {shown}", gap.id);
            found.extend(
                failing
                    .into_iter()
                    .map(|scenario| (chapter.id(), scenario, gap.id.clone())),
            );
        }
    }
    let ids: BTreeSet<String> = chapters.iter().map(Chapter::id).collect();
    let listed = course::starter_failures()?;
    let rows = ordered(&chapters, &listed, found);
    report(&listed, &rows, &ids, write)
}

/// Every file git knows of (tracked, or new and not ignored) copied into
/// `workspace`, each written only when it differs, so that cargo rebuilds
/// only what changed since the last run.
fn copy_workspace(workspace: &Path) -> Result<(), String> {
    let root = course::root();
    let output = Command::new("git")
        .args([
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ])
        .current_dir(&root)
        .output()
        .map_err(|err| format!("cannot run git: {err}"))?;
    if !output.status.success() {
        return Err("`git ls-files` failed: run this in the course's git checkout".into());
    }
    let mut copied = BTreeSet::new();
    for name in String::from_utf8_lossy(&output.stdout).split('\0') {
        let source = root.join(name);
        // Deleted in the working tree but still tracked, or not a file.
        if name.is_empty() || !source.is_file() {
            continue;
        }
        let bytes = fs::read(&source).map_err(|err| format!("{name}: {err}"))?;
        write_if_changed(&workspace.join(name), &bytes)?;
        copied.insert(workspace.join(name));
    }
    // A file an earlier run copied and the checkout no longer has (a
    // chapter renamed) would still be a workspace member here.
    remove_others(workspace, &copied)
}

fn remove_others(folder: &Path, keep: &BTreeSet<PathBuf>) -> Result<(), String> {
    let entries = fs::read_dir(folder).map_err(|err| format!("{}: {err}", folder.display()))?;
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            remove_others(&path, keep)?;
            // An emptied folder under a `members` glob is still a member,
            // and cargo would look for its Cargo.toml.
            if fs::read_dir(&path).is_ok_and(|mut rest| rest.next().is_none()) {
                fs::remove_dir(&path).map_err(|err| format!("{}: {err}", path.display()))?;
            }
        } else if !keep.contains(&path) {
            fs::remove_file(&path).map_err(|err| format!("{}: {err}", path.display()))?;
        }
    }
    Ok(())
}

/// The chapter's solution files in the copy: as written, except that
/// `gap`'s file has that gap open.
fn write_variant(workspace: &Path, chapter: &Chapter, gap: Option<&Gap>) -> Result<(), String> {
    for file in course::crate_files(&chapter.solution_dir()) {
        let path = chapter.solution_dir().join(&file);
        let text = fs::read_to_string(&path).map_err(|err| format!("{}: {err}", path.display()))?;
        let variant = gap
            .filter(|gap| gap.file == file)
            .and_then(|gap| gaps::with_one_gap_open(&text, &gap.id))
            .unwrap_or(text);
        let copy = workspace.join("solutions").join(&chapter.dir).join(&file);
        write_if_changed(&copy, variant.as_bytes())?;
    }
    Ok(())
}

fn write_if_changed(path: &Path, bytes: &[u8]) -> Result<(), String> {
    if fs::read(path).is_ok_and(|old| old == bytes) {
        return Ok(());
    }
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).map_err(|err| format!("{}: {err}", parent.display()))?;
    }
    fs::write(path, bytes).map_err(|err| format!("{}: {err}", path.display()))
}

/// Builds the open chapters' solutions in the copy, in one cargo run, and
/// keeps each binary under a name of this round's (the next round's build
/// replaces cargo's own). By package.
fn build(
    workspace: &Path,
    scratch: &Path,
    open: &[(&Chapter, &Gap)],
    round: usize,
) -> Result<std::collections::HashMap<String, PathBuf>, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let mut command = Command::new(cargo);
    command
        .args([
            "build",
            "--quiet",
            "--message-format=json-render-diagnostics",
        ])
        .env("CARGO_TARGET_DIR", scratch.join("target"))
        // A variant's unused code warns; the warnings say nothing here.
        .env("RUSTFLAGS", "-A warnings")
        .current_dir(workspace)
        .stderr(Stdio::inherit());
    for (chapter, _) in open {
        let package = chapter.solution_package();
        command.args(["--package", &package, "--bin", &package]);
    }
    let output = command
        .output()
        .map_err(|err| format!("cannot run cargo: {err}"))?;
    if !output.status.success() {
        let gaps: Vec<&str> = open.iter().map(|(_, gap)| gap.id.as_str()).collect();
        return Err(format!(
            "the solutions with {} open do not build (cargo's errors are above): a placeholder must compile on its own",
            gaps.join(", ")
        ));
    }
    let kept = scratch.join("bin");
    fs::create_dir_all(&kept).map_err(|err| format!("{}: {err}", kept.display()))?;
    let mut binaries = std::collections::HashMap::new();
    for (bin, executable) in target::executables(&output.stdout) {
        let copy = kept.join(format!("{bin}-{round}"));
        fs::copy(&executable, &copy).map_err(|err| format!("{}: {err}", copy.display()))?;
        binaries.insert(bin, copy);
    }
    Ok(binaries)
}

/// Each chapter's scenarios that fail against its target, all chapters'
/// scenarios in one pool [`RUNNING`] at a time: most failures are a
/// placeholder's panic, some a wait for a reply that never comes, and the
/// waits overlap.
fn failing_scenarios<'a>(
    targets: &[(&'a Chapter, &'a Gap, Target)],
) -> Vec<(&'a Chapter, &'a Gap, Vec<String>)> {
    let jobs: Vec<(usize, String)> = targets
        .iter()
        .enumerate()
        .flat_map(|(index, (chapter, _, _))| {
            chapter
                .scenarios()
                .into_iter()
                .map(move |scenario| (index, scenario))
        })
        .collect();
    let next = Mutex::new(jobs.into_iter());
    let failed = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..RUNNING {
            scope.spawn(|| {
                loop {
                    let job = next.lock().unwrap_or_else(|p| p.into_inner()).next();
                    let Some((index, scenario)) = job else { break };
                    let (chapter, _, target) = &targets[index];
                    let fails = Transcript::load(&chapter.transcript_path(&scenario))
                        .map_err(|err| err.to_string())
                        .and_then(|transcript| runner::check(&transcript, target))
                        .is_err();
                    if fails {
                        failed
                            .lock()
                            .unwrap_or_else(|p| p.into_inner())
                            .push((index, scenario));
                    }
                }
            });
        }
    });
    let mut failed = failed.into_inner().unwrap_or_else(|p| p.into_inner());
    failed.sort();
    targets
        .iter()
        .enumerate()
        .map(|(index, (chapter, gap, _))| {
            let of_this = failed
                .iter()
                .filter(|(at, _)| *at == index)
                .map(|(_, scenario)| scenario.clone())
                .collect();
            (*chapter, *gap, of_this)
        })
        .collect()
}

/// The rows of the chapters checked, each chapter's scenarios in the order
/// the file lists them (its tour first; `cargo xtask check` shows the
/// first failing one of a gap's in full), new ones after in name order, and
/// a scenario's gaps in the chapter's order. Then the file's rows of the
/// chapters not checked, where they were.
fn ordered(chapters: &[Chapter], listed: &[Row], found: Vec<Row>) -> Vec<Row> {
    let checked: BTreeSet<String> = chapters.iter().map(Chapter::id).collect();
    let mut rows = Vec::new();
    let mut chapter_ids: Vec<String> = Vec::new();
    for (id, _, _) in listed.iter().chain(&found) {
        if !chapter_ids.contains(id) {
            chapter_ids.push(id.clone());
        }
    }
    for id in chapter_ids {
        if !checked.contains(&id) {
            rows.extend(listed.iter().filter(|row| row.0 == id).cloned());
            continue;
        }
        let mut scenarios: Vec<&String> = Vec::new();
        for (_, scenario, _) in listed.iter().filter(|row| row.0 == id) {
            if !scenarios.contains(&scenario) {
                scenarios.push(scenario);
            }
        }
        let mut new: Vec<&String> = found
            .iter()
            .filter(|row| row.0 == id && !scenarios.contains(&&row.1))
            .map(|row| &row.1)
            .collect();
        new.sort();
        new.dedup();
        scenarios.extend(new);
        for scenario in scenarios {
            // `found` is in gap order already: round by round, one gap each.
            let mut of_scenario: Vec<&Row> = found
                .iter()
                .filter(|row| row.0 == id && row.1 == *scenario)
                .collect();
            of_scenario.sort_by_key(|row| gap_position(chapters, row));
            rows.extend(of_scenario.into_iter().cloned());
        }
    }
    rows
}

fn gap_position(chapters: &[Chapter], row: &Row) -> usize {
    chapters
        .iter()
        .find(|chapter| chapter.id() == row.0)
        .and_then(|chapter| gaps::gaps(chapter).ok())
        .and_then(|gaps| gaps.iter().position(|gap| gap.id == row.2))
        .unwrap_or(usize::MAX)
}

/// Prints the rows that differ from the file's; writes the file with
/// `write` (its comment lines kept), else fails when any differ.
fn report(
    listed: &[Row],
    rows: &[Row],
    checked: &BTreeSet<String>,
    write: bool,
) -> Result<(), String> {
    let of_checked = |row: &&Row| checked.contains(&row.0);
    let removed: Vec<&Row> = listed
        .iter()
        .filter(of_checked)
        .filter(|row| !rows.contains(row))
        .collect();
    let added: Vec<&Row> = rows
        .iter()
        .filter(of_checked)
        .filter(|row| !listed.contains(row))
        .collect();
    for row in &removed {
        println!("- {}", line(row));
    }
    for row in &added {
        println!("+ {}", line(row));
    }
    let path = course::root().join("tests/starter-failures.txt");
    if write {
        let text = fs::read_to_string(&path).map_err(|err| format!("{}: {err}", path.display()))?;
        let mut out: String = text
            .lines()
            .take_while(|line| line.starts_with('#'))
            .map(|line| format!("{line}\n"))
            .collect();
        for row in rows {
            out += &format!("{}\n", line(row));
        }
        fs::write(&path, out).map_err(|err| format!("{}: {err}", path.display()))?;
        println!("wrote {} rows to tests/starter-failures.txt", rows.len());
        return Ok(());
    }
    if removed.is_empty() && added.is_empty() {
        println!("tests/starter-failures.txt lists every gap each scenario exercises");
        Ok(())
    } else {
        Err(format!(
            "{} rows to remove, {} to add: `cargo xtask starter-failures --write` writes them",
            removed.len(),
            added.len()
        ))
    }
}

fn line((chapter, scenario, gap): &Row) -> String {
    format!("{chapter:<10} {scenario:<25} {gap}")
}
