//! `cargo xtask bench --clone`: the learner's time. How long the README's
//! `cargo test` takes on a fresh clone, cold (a clone into a temporary
//! folder, with a target folder of its own, so nothing is built yet) and
//! warm (the same command again), and `.ci/run`'s test step (`cargo test`
//! with `CI` set, warm). The clone is of the committed HEAD: commit first.
//!
//! The numbers depend on the machine and on what else runs on it: the
//! table says how many CPUs there are and the load average before and
//! after, so two tables can be compared only under the same load.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use wire_tests::course;

const USAGE: &str = "\
Usage: cargo xtask bench --clone [--keep]

Clones the committed HEAD into a temporary folder and times the README's
`cargo test` there: cold (nothing built) and warm (again), then `.ci/run`'s
test step (`CI=true cargo test`, warm). Prints a Markdown table.

  --keep   leave the clone (and its target folder) behind, and say where
";

/// One timed command, and the `test result:` totals it printed.
struct Timed {
    label: &'static str,
    seconds: f64,
    passed: u64,
    failed: u64,
}

pub fn run(args: &[String]) -> Result<(), String> {
    if args.iter().any(|arg| arg == "--help" || arg == "-h") {
        print!("{USAGE}");
        return Ok(());
    }
    let keep = args.iter().any(|arg| arg == "--keep");
    let dir = std::env::temp_dir().join(format!("wire-bench-clone-{}", std::process::id()));
    let clone = dir.join("wire-by-wire");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)
        .map_err(|err| format!("cannot create {}: {err}", dir.display()))?;
    eprintln!("bench: cloning HEAD into {}", clone.display());
    let status = Command::new("git")
        .args(["clone", "--quiet", "--no-hardlinks"])
        .arg(course::root())
        .arg(&clone)
        .status()
        .map_err(|err| format!("cannot run git: {err}"))?;
    if !status.success() {
        return Err(format!("git clone failed: {status}"));
    }
    let load_before = load_average();
    let mut rows = Vec::new();
    for (label, ci) in [
        ("`cargo test`, fresh clone, cold", false),
        ("`cargo test`, warm (the second run)", false),
        ("`.ci/run`'s test step (`CI=true cargo test`), warm", true),
    ] {
        eprintln!("bench: {label}");
        let row = cargo_test(&clone, label, ci)?;
        // Each row as it comes: a long run that is stopped keeps its rows.
        eprintln!(
            "bench: {label}: {:.0} s, {} passed, {} failed (load average {})",
            row.seconds,
            row.passed,
            row.failed,
            load_average()
        );
        rows.push(row);
    }
    let load_after = load_average();
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!("| what | seconds | tests passed | failed |");
    println!("|---|--:|--:|--:|");
    for row in &rows {
        println!(
            "| {} | {:.0} | {} | {} |",
            row.label, row.seconds, row.passed, row.failed
        );
    }
    println!(
        "\n{cpus} CPUs; load average {load_before} before, {load_after} after \
         (other work on the machine slows every row)."
    );
    if keep {
        eprintln!("bench: the clone is in {}", clone.display());
    } else {
        let _ = std::fs::remove_dir_all(&dir);
    }
    Ok(())
}

/// `cargo test` in `clone`, with the clone's own target folder; `ci`: with
/// `CI=true`, as `.ci/run` runs it.
fn cargo_test(clone: &Path, label: &'static str, ci: bool) -> Result<Timed, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let mut command = Command::new(cargo);
    command
        // Every test binary runs, whatever fails: the time is of them all.
        .args(["test", "--no-fail-fast"])
        .current_dir(clone)
        .env("CARGO_TARGET_DIR", clone.join("target"))
        // What this xtask was started with must not leak into the clone's run.
        .env_remove("MCP_BIN")
        .env_remove("MCP_TARGET")
        .env_remove("CARGO_BUILD_JOBS");
    if ci {
        command.env("CI", "true");
    } else {
        command.env_remove("CI");
    }
    let started = Instant::now();
    let output = command
        .output()
        .map_err(|err| format!("cannot run cargo test: {err}"))?;
    let seconds = started.elapsed().as_secs_f64();
    let text = String::from_utf8_lossy(&output.stdout);
    let (mut passed, mut failed) = (0, 0);
    for line in text.lines().filter(|line| line.starts_with("test result:")) {
        let words: Vec<&str> = line.split_whitespace().collect();
        let count = |name: &str| {
            words
                .iter()
                .position(|word| word.trim_end_matches([';', ',']) == name)
                .and_then(|at| words.get(at.checked_sub(1)?)?.parse::<u64>().ok())
                .unwrap_or(0)
        };
        passed += count("passed");
        failed += count("failed");
    }
    if !output.status.success() {
        let failed_tests: Vec<&str> = text
            .lines()
            .filter(|line| line.starts_with("test ") && line.ends_with("FAILED"))
            .collect();
        eprintln!(
            "bench: {label}: cargo test failed ({}); failing: {}\n{}",
            output.status,
            failed_tests.join(", "),
            String::from_utf8_lossy(&output.stderr)
                .lines()
                .rev()
                .take(20)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
    Ok(Timed {
        label,
        seconds,
        passed,
        failed,
    })
}

/// The 1-minute load average (Linux), or `?`.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|text| text.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "?".to_string())
}
