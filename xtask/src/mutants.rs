//! `cargo xtask mutants NN`: proves that the chapter's scenarios pin every
//! rule its gaps teach. cargo-mutants changes the reference code one small
//! way at a time (a `<` for a `<=`, a condition negated, a function that
//! returns a default) and runs the chapter's tests against each change; a
//! change no test notices (a mutant that *survives*) is a rule the book
//! states and no scenario checks.
//!
//! Only the code inside the chapter's gaps is mutated: the mutants are
//! limited to the lines of a diff that adds each gap's body to its file
//! (cargo-mutants' `--in-diff`), written here from the gap markers, so the
//! set follows the markers as they move. The tests are the chapter's
//! scenarios (`binary(all) & test(/^scenarios::chNN::/)`) and the test files
//! that drive its binary beyond them (`test(/^agent::/)`: each file is a
//! module of the one test binary `all`), run by cargo-nextest so that one
//! filter expression can name both.
//!
//! A maintainer's tool, not part of CI: each mutant is a build and a test
//! run, minutes per chapter. Results go in CONTRIBUTING's table.

use std::fmt::Write as _;
use std::fs;
use std::process::Command;

use wire_tests::course::{self, Chapter};
use wire_tests::markers::{self, Opening, Part, Source};

const USAGE: &str = "\
Usage: cargo xtask mutants NN [--list] [--jobs N] [-- CARGO_MUTANTS_ARGS...]

Mutates the code inside chapter NN's gaps (its reference solution) with
cargo-mutants and runs the chapter's tests against every mutant. Prints
cargo-mutants' summary; its full report is in target/mutants/NN/mutants.out/.

  --list     list the mutants, run nothing
  --jobs N   build and test N mutants at once (default 1)

Needs cargo-mutants and cargo-nextest:
  cargo install cargo-mutants cargo-nextest --locked
";

/// The test files that drive a chapter's binary beyond its transcripts,
/// by chapter: their tests name the rules the scenarios cannot show.
fn extra_tests(number: u32) -> &'static [&'static str] {
    match number {
        7 => &["agent"],
        8 => &["skills"],
        9 => &["agents"],
        10 | 11 => &["hooks"],
        12 => &["stateless", "state_folder"],
        13 => &["http", "http_limits"],
        14 => &["asking"],
        15 => &["host_http"],
        16 => &["long_work"],
        17 => &["tasks"],
        18 => &["skills_server"],
        20 => &["prompt_cache"],
        _ => &[],
    }
}

pub fn run(args: &[String]) -> Result<(), String> {
    if args.iter().any(|arg| arg == "-h" || arg == "--help") {
        print!("{USAGE}");
        return Ok(());
    }
    let (ours, passed) = match args.iter().position(|arg| arg == "--") {
        Some(at) => (&args[..at], &args[at + 1..]),
        None => (args, &[][..]),
    };
    let name = ours
        .iter()
        .find(|arg| !arg.starts_with("--") && arg.parse::<u32>().is_ok())
        .ok_or(format!("mutants: name a chapter, e.g. 03\n{USAGE}"))?;
    let chapter = Chapter::find(name)?;
    let jobs = match ours.iter().position(|arg| arg == "--jobs") {
        Some(at) => ours
            .get(at + 1)
            .and_then(|value| value.parse::<u32>().ok())
            .filter(|jobs| *jobs > 0)
            .ok_or("mutants: --jobs wants a positive number")?,
        None => 1,
    };
    let diff = gap_diff(&chapter)?;
    let diff_path = course::root()
        .join("target")
        .join(format!("mutants-{}.diff", chapter.dir));
    fs::create_dir_all(diff_path.parent().expect("a file has a folder"))
        .and_then(|()| fs::write(&diff_path, &diff))
        .map_err(|err| format!("cannot write {}: {err}", diff_path.display()))?;

    // Each chapter's report in a folder of its own, so runs of several
    // chapters keep theirs: target/mutants/NN/mutants.out/.
    let output = course::root()
        .join("target")
        .join("mutants")
        .join(format!("{:02}", chapter.number));
    fs::create_dir_all(&output)
        .map_err(|err| format!("cannot create {}: {err}", output.display()))?;
    let mut command = Command::new("cargo");
    command
        .current_dir(course::root())
        .args(["mutants", "--package", &chapter.solution_package()])
        .arg("--output")
        .arg(&output)
        .arg("--in-diff")
        .arg(&diff_path)
        .args(["--test-package", "wire-tests"])
        // cargo-mutants tests its unmutated baseline with the mutated
        // package's own tests, whatever --test-package says, and a chapter
        // has no `scenarios` target: no baseline (CI runs the unmutated
        // tests), so the timeout is ours: a scenario run takes seconds.
        .args(["--baseline", "skip", "--timeout", "300"])
        .args(["--jobs", &jobs.to_string()]);
    if ours.iter().any(|arg| arg == "--list") {
        command.arg("--list");
    }
    command.args(passed);
    // The tests run under cargo-nextest, whose filter expression can keep
    // this chapter's scenarios *and* whole test files: a libtest name filter
    // (`-- chNN::`) would reach every test binary and run none of the files'
    // tests (it did, and a mutant survived that the file's test catches).
    let mut filter = format!(
        "(binary(all) & test(/^scenarios::ch{:02}::/))",
        chapter.number
    );
    for test in extra_tests(chapter.number) {
        filter += &format!(" | (binary(all) & test(/^{test}::/))");
    }
    command.args(["--test-tool", "nextest", "--", "-E", &filter]);
    eprintln!("mutants: {}", describe(&command));
    let status = command.status().map_err(|err| {
        format!("mutants: cannot run cargo mutants ({err}); install it: cargo install cargo-mutants cargo-nextest --locked")
    })?;
    match status.code() {
        Some(0) => Ok(()),
        // cargo-mutants' own codes: 2 some mutants survived, 3 some timed out.
        Some(2) => Err(format!(
            "mutants: some mutants survived (see above and {}/mutants.out/missed.txt)",
            output.display()
        )),
        Some(3) => Err("mutants: some mutants timed out (mutants.out/timeout.txt)".into()),
        _ => Err(format!("mutants: cargo mutants failed ({status})")),
    }
}

/// A unified diff that adds every gap body of the chapter's solution to its
/// file: one hunk per gap, whose added lines are the gap's lines as they
/// stand in the file now (cargo-mutants checks them against the source).
pub fn gap_diff(chapter: &Chapter) -> Result<String, String> {
    let mut files: Vec<_> = wire_tests::generate::gaps::gaps(chapter)?
        .into_iter()
        .map(|gap| gap.file)
        .collect();
    files.sort();
    files.dedup();
    let mut diff = String::new();
    for file in files {
        let relative = format!("solutions/{}/{}", chapter.dir, file.display());
        let text = fs::read_to_string(chapter.solution_dir().join(&file))
            .map_err(|err| format!("cannot read {relative}: {err}"))?;
        let hunks = gap_hunks(&text);
        if hunks.is_empty() {
            continue;
        }
        writeln!(diff, "--- a/{relative}\n+++ b/{relative}").unwrap();
        // Hunks of pure additions: the old side has none of the gap lines, so
        // each hunk's old start shifts by the lines added before it.
        let mut added_before = 0;
        for (first, lines) in hunks {
            let old_start = first - 1 - added_before;
            writeln!(diff, "@@ -{old_start},0 +{first},{} @@", lines.len()).unwrap();
            for line in &lines {
                writeln!(diff, "+{line}").unwrap();
            }
            added_before += lines.len();
        }
    }
    if diff.is_empty() {
        return Err(format!("chapter {} has no gaps to mutate", chapter.dir));
    }
    Ok(diff)
}

/// The lines strictly between each `// GAP(` marker and its `// END(`, as
/// (1-based number of the first, the lines); empty regions are left out.
fn gap_hunks(text: &str) -> Vec<(usize, Vec<&str>)> {
    let lines: Vec<&str> = text.lines().collect();
    markers::regions(text, Source::Solution)
        .0
        .into_iter()
        .filter_map(|part| match part {
            Part::Region(region) if region.opening == Opening::Gap => {
                // Without an END the gap parser reports it; nothing to mutate.
                let body = &lines[region.line..region.end? - 1];
                (!body.is_empty()).then(|| (region.line + 1, body.to_vec()))
            }
            _ => None,
        })
        .collect()
}

fn describe(command: &Command) -> String {
    let mut text = command.get_program().to_string_lossy().into_owned();
    for arg in command.get_args() {
        text.push(' ');
        text.push_str(&arg.to_string_lossy());
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hunk_holds_the_lines_between_the_markers() {
        let text = "fn f() {\n    // GAP(ch03/f): do it.\n    // starter: todo!()\n    1\n    \
                    // END(ch03/f)\n}\nfn g() {\n    // GAP(ch03/g): and this.\n    2\n    \
                    // END(ch03/g)\n}\n";
        let hunks = gap_hunks(text);
        assert_eq!(
            hunks,
            vec![
                (3, vec!["    // starter: todo!()", "    1"]),
                (9, vec!["    2"]),
            ]
        );
    }
}
