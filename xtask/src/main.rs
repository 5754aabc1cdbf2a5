//! `cargo xtask <command>`: the course's tooling. The justfile calls these;
//! everything works with plain cargo too.

mod bench;
mod book;
mod bundle;
mod hint;

use std::fs;
use std::io::{self, BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, ExitCode, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use serde_json::Value;
use wire_tests::course::{self, Chapter};
use wire_tests::target::Target;
use wire_tests::transcript::{Direction, Transcript};
use wire_tests::{diagrams, gaps, runner, textdiff, views};

const USAGE: &str = "\
usage: cargo xtask <command>

  run NN [--starter]           play chapter NN's tour and show every frame both ways
                               (hosts, from chapter 6: run their demo with --trace)
  trace NN [--starter | --bin PATH]
                               start chapter NN's server; type frames, see both ways
  diff NN                      your chapters/NN crate against the solution, gap by gap
  hint NN [GAP]                the next hint for a gap (the first one not written yet)
  starters [--check]           regenerate chapters/ from the marked solutions
  changes [--check]            regenerate the book's generated pages: \"what changed\" diffs,
                               frame views, sequence diagrams, listings, exercises
                               and the workshop schedule
  book-check                   after `mdbook build book`: no marker shown, solutions folded
  bless [NN]                   rewrite the server frames of transcripts from the solutions
  bench [NN ...] [--runs N] [--json PATH]
                               measure start-up, round trip, throughput and memory
  bundle DIR                   a copy of the course for a room without internet:
                               the repository, vendored crates, the built book
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rest = args.get(1..).unwrap_or_default();
    let result = match args.first().map(String::as_str) {
        Some("run") => play(rest),
        Some("trace") => trace(rest),
        Some("diff") => diff(rest),
        Some("hint") => hint::run(rest),
        Some("starters") => starters(rest),
        Some("changes") => changes(rest),
        Some("book-check") => book::check(),
        Some("bless") => bless(rest),
        Some("bench") => bench::run(rest),
        Some("bundle") => bundle::run(rest),
        _ => Err(USAGE.to_string()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("{message}");
            ExitCode::FAILURE
        }
    }
}

fn chapter_arg(args: &[String]) -> Result<Chapter, String> {
    let name = args
        .iter()
        .find(|arg| !arg.starts_with("--"))
        .ok_or("name a chapter, e.g. 03")?;
    Chapter::find(name)
}

/// The binary chosen by `--starter` or `--bin PATH` (default: the solution).
fn target_arg(args: &[String], chapter: &Chapter) -> Result<Target, String> {
    if let Some(index) = args.iter().position(|arg| arg == "--bin") {
        let path = PathBuf::from(args.get(index + 1).ok_or("--bin needs a path")?);
        let label = format!("binary {}", path.display());
        return Ok(Target {
            kind: wire_tests::target::Kind::Binary,
            path,
            label,
        });
    }
    if args.iter().any(|arg| arg == "--starter") {
        Target::starter(chapter)
    } else {
        Target::solution(chapter)
    }
}

/// A frame for people: pretty JSON when it is JSON, the raw text otherwise.
fn pretty(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim_end_matches('\n');
    match serde_json::from_str::<Value>(text) {
        Ok(value) => serde_json::to_string_pretty(&value).unwrap_or_default(),
        Err(_) => runner::shorten(text.as_bytes()),
    }
}

fn show(arrow: &str, who: &str, bytes: &[u8]) {
    let body = pretty(bytes).replace('\n', "\n   ");
    println!("{arrow} {who}\n   {body}");
}

/// Starts the server with piped stdio; its stdout lines arrive on a channel.
fn spawn(
    target: &Target,
    args: &[String],
) -> Result<(std::process::Child, mpsc::Receiver<Vec<u8>>), String> {
    let mut child = Command::new(&target.path)
        .args(args)
        // Transcript arguments (fixture folders) are relative to the workspace root.
        .current_dir(course::root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|err| format!("cannot start {}: {err}", target.path.display()))?;
    let stdout = child.stdout.take().expect("stdout is piped");
    let (sender, receiver) = mpsc::channel();
    thread::spawn(move || {
        let mut reader = BufReader::new(stdout);
        loop {
            let mut line = Vec::new();
            match reader.read_until(b'\n', &mut line) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    if sender.send(line).is_err() {
                        break;
                    }
                }
            }
        }
    });
    Ok((child, receiver))
}

/// `run NN`: plays the chapter's `tour` transcript against a real server
/// process, waiting after each client frame for the replies the transcript
/// expects. A host (chapter 6 on) runs its own demo instead.
fn play(args: &[String]) -> Result<(), String> {
    let chapter = chapter_arg(args)?;
    let target = target_arg(args, &chapter)?;
    let transcript =
        Transcript::load(&chapter.transcript_path("tour")).map_err(|err| err.to_string())?;
    if transcript.runner != "server" {
        // From chapter 6 on the binary is a host: it starts its own servers,
        // and with no action runs its own demo; --trace shows every frame.
        println!(
            "chapter {} — its demo, with --trace — {}\n",
            chapter.dir, target.label
        );
        let status = Command::new(&target.path)
            .arg("--trace")
            .current_dir(course::root())
            .status()
            .map_err(|err| format!("cannot start {}: {err}", target.path.display()))?;
        return if status.success() {
            Ok(())
        } else {
            Err(format!("the host exited with {status}"))
        };
    }
    println!(
        "chapter {} — {} — {}\n",
        chapter.dir, transcript.name, target.label
    );
    let (mut child, replies) = spawn(&target, &transcript.args)?;
    let mut stdin = child.stdin.take().expect("stdin is piped");
    let frames = &transcript.frames;
    for (index, frame) in frames.iter().enumerate() {
        if frame.direction != Direction::ClientToServer {
            continue;
        }
        show("→", "client", &frame.bytes);
        stdin
            .write_all(&frame.bytes)
            .and_then(|()| stdin.flush())
            .map_err(|err| format!("server stopped reading: {err}"))?;
        let expected = frames[index + 1..]
            .iter()
            .take_while(|f| f.direction == Direction::ServerToClient)
            .count();
        // Wait for the replies the transcript expects; a short grace catches extras.
        for wait in
            std::iter::repeat_n(Duration::from_secs(5), expected).chain([Duration::from_millis(30)])
        {
            match replies.recv_timeout(wait) {
                Ok(line) => show("←", "server", &line),
                Err(_) => break,
            }
        }
        if expected == 0 {
            println!("   (no reply: none is due)");
        }
    }
    drop(stdin); // EOF: the server should exit.
    let status = child.wait().map_err(|err| err.to_string())?;
    println!("\nstdin closed; the server exited with {status}.");
    Ok(())
}

/// `trace NN`: an interactive pipe. Lines you type go to the server; both
/// directions are pretty-printed.
fn trace(args: &[String]) -> Result<(), String> {
    let chapter = chapter_arg(args)?;
    let tour = Transcript::load(&chapter.transcript_path("tour")).map_err(|err| err.to_string())?;
    if tour.runner != "server" {
        return Err(format!(
            "chapter {} is a host: it writes the frames itself; `cargo xtask run {:02}` shows them",
            chapter.dir, chapter.number
        ));
    }
    let target = target_arg(args, &chapter)?;
    eprintln!(
        "tracing {} — type one JSON-RPC message per line, Ctrl-D to close stdin.",
        target.label
    );
    let (mut child, replies) = spawn(&target, &[])?;
    let printer = thread::spawn(move || {
        for line in replies {
            show("←", "server", &line);
        }
    });
    let mut stdin = child.stdin.take().expect("stdin is piped");
    for line in io::stdin().lock().split(b'\n') {
        let mut line = line.map_err(|err| err.to_string())?;
        line.push(b'\n');
        show("→", "client", &line);
        if stdin.write_all(&line).and_then(|()| stdin.flush()).is_err() {
            break;
        }
    }
    drop(stdin);
    let status = child.wait().map_err(|err| err.to_string())?;
    printer.join().ok();
    eprintln!("the server exited with {status}.");
    Ok(())
}

/// `diff NN`: the learner's code for each gap next to the reference.
fn diff(args: &[String]) -> Result<(), String> {
    let chapter = chapter_arg(args)?;
    let mut differences = 0;
    for gap in gaps::gaps(&chapter)? {
        let mine = fs::read_to_string(chapter.starter_dir().join(&gap.file)).unwrap_or_default();
        let regions = gaps::learner_regions(&mine);
        let file = format!("chapters/{}/{}", chapter.dir, gap.file.display());
        println!("== {} ({file}) — {}", gap.id, gap.instruction);
        let Some((_, body)) = regions.iter().find(|(id, _)| *id == gap.id) else {
            println!(
                "   the markers TODO({0}) … END({0}) are gone from {file}; compare the whole file instead.\n",
                gap.id
            );
            differences += 1;
            continue;
        };
        let reference = format!(
            "solutions/{}/{} (gap {})",
            chapter.dir,
            gap.file.display(),
            gap.id
        );
        match textdiff::unified(&format!("{file} (yours)"), &reference, body, &gap.body) {
            None => println!("   same as the reference\n"),
            Some(text) => {
                differences += 1;
                println!("{text}");
            }
        }
    }
    println!(
        "{differences} gap(s) differ from the reference. Different is not wrong: `just check {:02}` decides.",
        chapter.number
    );
    Ok(())
}

/// `starters [--check]`: writes (or checks) every `chapters/NN-*` crate.
fn starters(args: &[String]) -> Result<(), String> {
    let check = args.iter().any(|arg| arg == "--check");
    let mut stale = Vec::new();
    for chapter in Chapter::all() {
        for (file, content) in gaps::starter_files(&chapter)? {
            let path = chapter.starter_dir().join(&file);
            if fs::read_to_string(&path).ok().as_deref() == Some(content.as_str()) {
                continue;
            }
            stale.push(format!("chapters/{}/{}", chapter.dir, file.display()));
            if !check {
                fs::create_dir_all(path.parent().expect("a file has a folder"))
                    .map_err(|err| err.to_string())?;
                fs::write(&path, content).map_err(|err| err.to_string())?;
            }
        }
    }
    report_stale(check, &stale, "cargo xtask starters")
}

/// `changes [--check]`: the book's per-chapter diffs.
fn changes(args: &[String]) -> Result<(), String> {
    let check = args.iter().any(|arg| arg == "--check");
    let mut stale = Vec::new();
    for chapter in Chapter::all() {
        let Some(diff) = course::changes(&chapter) else {
            continue;
        };
        let path = course::changes_path(&chapter);
        if fs::read_to_string(&path).ok().as_deref() == Some(diff.as_str()) {
            continue;
        }
        stale.push(
            path.strip_prefix(course::root())
                .unwrap_or(&path)
                .display()
                .to_string(),
        );
        if !check {
            fs::create_dir_all(path.parent().expect("a file has a folder"))
                .map_err(|err| err.to_string())?;
            fs::write(&path, diff).map_err(|err| err.to_string())?;
        }
    }
    // The frame views and sequence diagrams, drawn from the transcripts.
    stale.extend(views::sync(&views::files()?, &views::views_dir(), check)?);
    stale.extend(views::sync(
        &diagrams::files()?,
        &diagrams::diagrams_dir(),
        check,
    )?);
    stale.extend(wire_tests::exercises::refresh(check)?);
    stale.extend(wire_tests::workshop::refresh(check)?);
    report_stale(check, &stale, "cargo xtask changes")
}

fn report_stale(check: bool, stale: &[String], fix: &str) -> Result<(), String> {
    match (check, stale.is_empty()) {
        (true, false) => Err(format!(
            "out of date (run `{fix}`):\n  {}",
            stale.join("\n  ")
        )),
        (false, false) => {
            println!("wrote:\n  {}", stale.join("\n  "));
            Ok(())
        }
        _ => {
            println!("up to date");
            Ok(())
        }
    }
}

/// `bless [NN]`: regenerates server frames from the reference solutions.
fn bless(args: &[String]) -> Result<(), String> {
    let chapters = match args.first() {
        Some(name) => vec![Chapter::find(name)?],
        None => Chapter::all(),
    };
    for chapter in chapters {
        let target = Target::solution(&chapter)?;
        for scenario in chapter.scenarios() {
            let path = chapter.transcript_path(&scenario);
            let text = fs::read_to_string(&path).map_err(|err| err.to_string())?;
            let transcript = Transcript::parse(&path, &text).map_err(|err| err.to_string())?;
            if transcript.runner != "server" {
                continue;
            }
            let blessed = runner::bless(&transcript, &text, &target.path)?;
            if blessed != text {
                fs::write(&path, blessed).map_err(|err| err.to_string())?;
                println!("blessed {}/{scenario}", chapter.id());
            }
        }
    }
    Ok(())
}
