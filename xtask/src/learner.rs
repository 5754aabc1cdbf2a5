//! The learner's commands: `check`, `progress`, `watch` and `reset`.
//! Each runs the chapter's scenarios in this process through `wire_tests`,
//! the same runner `cargo test` uses, and exits 0 (all pass), 1 (something
//! fails) or 2 (a usage error).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::mpsc;
use std::time::Duration;

use notify_debouncer_mini::{new_debouncer, notify::RecursiveMode};
use wire_tests::course::{self, Chapter};
use wire_tests::generate::starters;
use wire_tests::learner::{self, ChapterCheck};
use wire_tests::run::target::{Kind, Target};

/// A usage error: the message and exit status 2.
fn usage(message: &str) -> ExitCode {
    eprintln!("{message}");
    ExitCode::from(2)
}

/// `check --help` and `watch --help`: the usage, on stdout, exit 0.
const CHECK_USAGE: &str = "\
usage: cargo xtask check NN [FILTER] [--stretch] [--solution | --bin PATH]
       cargo xtask watch NN [FILTER] [--stretch] [--solution | --bin PATH]

  NN          the chapter: 3, 03 or ch03
  FILTER      only the scenarios whose name contains it (`check 08 tour`)
  --stretch   the chapter's stretch exercises, built with --features stretch
  --solution  the reference solution instead of your chapters/NN crate
  --bin PATH  any binary (a student's build, say), compared as JSON values

check prints each gap's state, then the first failure in full, then what to
do next; it exits 0 when every scenario passes, 1 when one fails, 2 for a
usage error. watch checks again on every save.
";

/// Whether the arguments ask for the usage.
fn wants_help(args: &[String]) -> bool {
    args.iter().any(|arg| arg == "--help" || arg == "-h")
}

/// What `check NN [FILTER] [--stretch] [--solution | --bin PATH]` asks for.
struct Request {
    chapter: Chapter,
    filter: Option<String>,
    /// The chapter's stretch exercises instead of its core gaps.
    stretch: bool,
    /// `None`: the learner's crate.
    target: Option<Target>,
}

fn request(args: &[String]) -> Result<Request, String> {
    let mut words = Vec::new();
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "--bin" => {
                rest.next().ok_or("--bin needs a path")?;
            }
            "--solution" | "--starter" | "--mine" | "--stretch" => {}
            flag if flag.starts_with('-') => return Err(format!("unknown option {flag}")),
            word => words.push(word),
        }
    }
    let [name, filter @ ..] = words.as_slice() else {
        return Err(format!(
            "name a chapter, e.g. `cargo xtask check 03`; the chapters are {}",
            chapter_list()
        ));
    };
    if filter.len() > 1 {
        return Err("give at most one scenario filter".to_string());
    }
    let chapter = Chapter::find(name)?;
    let stretch = args.iter().any(|arg| arg == "--stretch");
    if stretch {
        learner::stretch_scenarios(&chapter, filter.first().copied())?;
    } else {
        learner::scenarios(&chapter, filter.first().copied())?;
    }
    let target = if args.iter().any(|arg| arg == "--bin" || arg == "--solution") {
        Some(Target::from_args(args, &chapter, Kind::Solution)?)
    } else {
        None
    };
    Ok(Request {
        chapter,
        filter: filter.first().map(|filter| filter.to_string()),
        stretch,
        target,
    })
}

fn chapter_list() -> String {
    Chapter::all()
        .iter()
        .map(|chapter| chapter.dir.clone())
        .collect::<Vec<_>>()
        .join(", ")
}

fn run_check(request: &Request) -> ChapterCheck {
    let filter = request.filter.as_deref();
    let scenarios = if request.stretch {
        learner::stretch_scenarios(&request.chapter, filter)
    } else {
        learner::scenarios(&request.chapter, filter)
    }
    .expect("checked when the request was read");
    eprintln!(
        "building and checking chapter {:02}{}…",
        request.chapter.number,
        if request.stretch {
            "'s stretch exercises"
        } else {
            ""
        }
    );
    learner::check(
        &request.chapter,
        request.target.clone(),
        &scenarios,
        request.stretch,
    )
}

/// `check NN [FILTER] [--stretch] [--solution | --bin PATH]`.
pub fn check(args: &[String]) -> ExitCode {
    if wants_help(args) {
        print!("{CHECK_USAGE}");
        return ExitCode::SUCCESS;
    }
    let request = match request(args) {
        Ok(request) => request,
        Err(message) => return usage(&message),
    };
    let check = run_check(&request);
    print!("{}", learner::report(&check));
    println!("\n{}", learner::next_step(&check));
    if check.done() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// `progress`: every chapter at a glance, and the next thing to do.
pub fn progress(args: &[String]) -> ExitCode {
    if let Some(arg) = args.first() {
        return usage(&format!(
            "`cargo xtask progress` takes no arguments, not {arg:?}"
        ));
    }
    let mut checks = Vec::new();
    for chapter in Chapter::all() {
        eprintln!("checking chapter {:02}…", chapter.number);
        let scenarios = chapter.scenarios();
        checks.push(learner::check(&chapter, None, &scenarios, false));
    }
    let (mut gaps_done, mut gaps_all, mut passed, mut scenarios) = (0, 0, 0, 0);
    println!();
    for check in &checks {
        let written = check
            .gaps
            .iter()
            .filter(|gap| gap.state != learner::GapState::NotWritten)
            .count();
        gaps_done += written;
        gaps_all += check.gaps.len();
        passed += check.passed();
        scenarios += check.chapter.scenarios().len();
        let state = if check.build_error.is_some() {
            "does not build".to_string()
        } else if check.missing_tools.is_some() && check.results.is_empty() {
            format!(
                "not checked: a program is missing (`cargo xtask check {:02}` names it)",
                check.chapter.number
            )
        } else if check.done() {
            "done".to_string()
        } else if check.missing_tools.is_some() {
            format!(
                "{} of {} scenarios pass; {} not run: a program is missing (`cargo xtask check {:02}` names it)",
                check.passed(),
                check.results.len(),
                check.not_run.len(),
                check.chapter.number
            )
        } else {
            format!(
                "{} of {} scenarios pass",
                check.passed(),
                check.results.len()
            )
        };
        println!(
            "  {:18} {} {written}/{} gaps written  {state}",
            check.chapter.dir,
            learner::bar(written, check.gaps.len(), 6),
            check.gaps.len()
        );
    }
    println!(
        "\n  {} {passed} of {scenarios} scenarios pass; {gaps_done} of {gaps_all} gaps written\n",
        learner::bar(passed, scenarios, 30)
    );
    match checks.iter().find(|check| !check.done()) {
        Some(check) => println!(
            "{}\nthen: `cargo xtask check {:02}` (or `cargo xtask watch {:02}`)",
            learner::next_step(check),
            check.chapter.number,
            check.chapter.number
        ),
        None => println!("every chapter is done."),
    }
    ExitCode::SUCCESS
}

/// `watch NN [FILTER]`: checks again on every save and redraws the summary.
///
/// File events come from `notify-debouncer-mini`: `notify` is the file
/// watcher that cargo-watch, bacon and rustlings use (inotify, FSEvents and
/// ReadDirectoryChangesW behind one API), and the debouncer folds an editor's
/// burst of writes for one save into one event. A hand-rolled poller would
/// either lag or spin.
pub fn watch(args: &[String]) -> ExitCode {
    if wants_help(args) {
        print!("{CHECK_USAGE}");
        return ExitCode::SUCCESS;
    }
    let request = match request(args) {
        Ok(request) => request,
        Err(message) => return usage(&message),
    };
    let dir = request.chapter.starter_dir();
    let (sender, events) = mpsc::channel();
    let mut debouncer = match new_debouncer(Duration::from_millis(300), sender) {
        Ok(debouncer) => debouncer,
        Err(err) => {
            eprintln!("cannot watch files: {err}");
            return ExitCode::FAILURE;
        }
    };
    for part in ["src", "Cargo.toml", "scripts"] {
        let path = dir.join(part);
        if path.exists()
            && let Err(err) = debouncer.watcher().watch(&path, RecursiveMode::Recursive)
        {
            eprintln!("cannot watch {}: {err}", path.display());
            return ExitCode::FAILURE;
        }
    }
    let mut checked = snapshot(&dir);
    loop {
        wire_tests::run::target::forget_builds(); // Build what was saved, not what was.
        let check = run_check(&request);
        // Clear the screen and its scrollback and go home, then draw the
        // summary afresh, under the time of this run: a report that did
        // not change still shows that it is new.
        print!("\x1b[2J\x1b[3J\x1b[H");
        println!("checked at {} UTC\n", clock());
        print!("{}", learner::summary(&check));
        if let Some((name, report)) = check.first_failure() {
            println!("\nfirst failure, in full: {name}\n\n{report}");
        } else if let Some(error) = &check.build_error {
            println!("\n{error}");
        }
        println!("\n{}", learner::next_step(&check));
        println!(
            "\nwatching {} — save a file to check again, Ctrl-C to stop.",
            course::relative(&dir)
        );
        // Wait for a save that changed a file. Events also come when a file
        // is only read (by the build, say), so compare the contents.
        loop {
            match events.recv() {
                Ok(Ok(_)) => {
                    let now = snapshot(&dir);
                    if now != checked {
                        checked = now;
                        break;
                    }
                }
                Ok(Err(err)) => eprintln!("watch error: {err}"),
                Err(_) => return ExitCode::FAILURE,
            }
        }
    }
}

/// The time of day now, `HH:MM:SS` in UTC (a time stamp for `watch`; the
/// standard library has no time zones, and UTC needs none).
fn clock() -> String {
    let seconds = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_secs())
        % 86_400;
    format!(
        "{:02}:{:02}:{:02}",
        seconds / 3600,
        seconds / 60 % 60,
        seconds % 60
    )
}

/// `reset NN`: the chapter's starter as generated, after a backup of every
/// file you changed.
pub fn reset(args: &[String]) -> ExitCode {
    let [name] = args else {
        return usage(&format!(
            "usage: cargo xtask reset NN (one chapter: {})",
            chapter_list()
        ));
    };
    let chapter = match Chapter::find(name) {
        Ok(chapter) => chapter,
        Err(message) => return usage(&message),
    };
    match starters::write(std::slice::from_ref(&chapter), true) {
        Ok(done) => {
            if let Some(backup) = &done.backup {
                println!("your files are saved in {}", course::relative(backup));
            }
            let files: Vec<&String> = done
                .written
                .iter()
                .filter(|name| name.starts_with("chapters/"))
                .collect();
            if files.is_empty() {
                println!("chapters/{} was already as generated.", chapter.dir);
            } else {
                println!(
                    "reset chapters/{} to its starter:\n  {}",
                    chapter.dir,
                    files
                        .iter()
                        .map(|name| name.as_str())
                        .collect::<Vec<_>>()
                        .join("\n  ")
                );
            }
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("{message}");
            ExitCode::FAILURE
        }
    }
}

/// The contents of the crate's files, to tell a save from a read.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Option<String>)> {
    wire_tests::course::crate_files(dir)
        .into_iter()
        .map(|file| {
            let hash = fs::read(dir.join(&file))
                .ok()
                .map(|bytes| starters::hash(&bytes));
            (file, hash)
        })
        .collect()
}
