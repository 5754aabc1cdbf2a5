//! `cargo xtask <command>`: the course's tooling. The justfile calls these;
//! everything works with plain cargo too.

mod bench;
mod bench_clone;
mod bench_http;
mod book;
mod bundle;
mod hint;
mod learner;
mod mutants;
mod starter_failures;

use std::fs;
use std::io::{self, BufRead, BufReader, Write};
use std::process::{Command, ExitCode, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use serde_json::Value;
use wire_tests::course::{self, Chapter};
use wire_tests::generate::{diagrams, gaps, generated, starters, support, views};
use wire_tests::run::target::{self, Kind, Target};
use wire_tests::run::transcript::{Direction, Runner, Transcript};
use wire_tests::run::{client_runner, http_runner, runner};
use wire_tests::textdiff;

const USAGE: &str = "\
usage: cargo xtask <command>     (NN: a chapter, written 3, 03 or ch03)

  check NN [FILTER] [--solution | --bin PATH]
                               your chapters/NN crate against the chapter's scenarios:
                               each gap's state, then the first failure in full
  check NN --stretch [FILTER]  the chapter's stretch exercises instead (opt-in): your crate
                               built with --features stretch, against their own scenarios
  watch NN [FILTER]            check again on every save
  progress                     every chapter's gaps and scenarios, and what to do next
  reset NN                     chapters/NN back to its starter (your files backed up first)
  run NN [--mine]              play chapter NN's tour and show every frame both ways
                               (hosts, from chapter 6: their demo, run with no arguments);
                               --mine: your chapters/NN crate instead of the solution
                               (--starter, its old name, still works)
  trace NN [--mine | --bin PATH] [--stretch] [-- SERVER-ARGS]
                               start chapter NN's server (with SERVER-ARGS, such as
                               --step 5); type frames, see both ways
  diff NN                      your chapters/NN crate against the solution, gap by gap
  measure skills|agents|tools|cache|fences [--mine | --bin PATH]
                               the book's token tables: what skills cost an idle turn
                               (chapter 8's binary), what a delegation saves (chapter 9's),
                               what tool definitions cost a first request (chapter 19's),
                               what the prompt cache saves and what breaks it (chapter 20's),
                               what three fences stop of a corpus of harms (chapter 24's)
  hint NN [GAP]                the next hint for a gap (the first one not written yet)
  starters [--check] [--force] regenerate chapters/ and support/ from the marked solutions; a file
                               you edited is left alone unless --force (backed up first)
  changes [--check]            regenerate the book's generated pages: \"what changed\" diffs,
                               frame views, sequence diagrams, listings, exercises
                               and the workshop schedule
  book [--no-open]             build the book (mdbook) and open it in your browser
  book-check                   after `mdbook build book`: no marker shown, solutions folded
  bless [NN]                   rewrite what the programs write in the transcripts (server
                               replies, a host's frames, HTTP responses) from the solutions
  bench [NN ...] [--runs N] [--json PATH]
                               measure start-up, round trip, throughput and memory
  bench --clone                the learner's time: a fresh clone's `cargo test`, cold and
                               warm, and CI's test step
  bench --http [--seconds N]   chapter 13 under load, beside bare hyper (and the Python SDK)
  mutants NN [--list]          mutate the code inside chapter NN's gaps (cargo-mutants) and
                               run its tests on each mutant: every rule must be pinned
  starter-failures [NN ...] [--write]
                               run each chapter's scenarios against its solution with one
                               gap at a time open: which gaps break which scenarios
                               (the gap column of tests/starter-failures.txt)
  bundle DIR                   a copy of the course for a room without internet:
                               the repository, vendored crates, the built book
  sizes                        each chapter against the small-lessons budgets, and how much
                               of it is the lesson: the learner's share, copied runs,
                               process-wide state, untaught support (exit 1: a target fails)
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rest = args.get(1..).unwrap_or_default();
    let result = match args.first().map(String::as_str) {
        // The learner's commands choose their own exit status (2: usage).
        Some("check") => return learner::check(rest),
        Some("progress") => return learner::progress(rest),
        Some("watch") => return learner::watch(rest),
        Some("reset") => return learner::reset(rest),
        Some("run") => {
            target::show_build_progress(); // A first build takes a while: show it.
            play(rest)
        }
        Some("trace") => {
            target::show_build_progress();
            trace(rest)
        }
        Some("diff") => diff(rest),
        Some("measure") => {
            target::show_build_progress();
            measure(rest)
        }
        Some("hint") => hint::run(rest),
        Some("starters") => starters(rest),
        Some("changes") => changes(rest),
        Some("book") => book::build(rest),
        Some("book-check") => book::check(),
        Some("bless") => bless(rest),
        Some("bench") if rest.iter().any(|arg| arg == "--http") => bench_http::run(rest),
        Some("bench") if rest.iter().any(|arg| arg == "--clone") => bench_clone::run(rest),
        Some("bench") => bench::run(rest),
        Some("bundle") => bundle::run(rest),
        Some("mutants") => mutants::run(rest),
        Some("starter-failures") => starter_failures::run(rest),
        Some("sizes") => sizes(),
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

/// `measure skills|agents|tools|cache|fences`: the book's measuring tool
/// (`tests/measure`, package `wire-measure`) driving chapter 8's binary
/// (skills), chapter 9's (agents), chapter 19's (tools) or chapter 20's
/// (cache): the reference solution's, or
/// `--mine`, or `--bin PATH`.
/// The chapter's binary starts its own servers, as `cargo run` would.
fn measure(args: &[String]) -> Result<(), String> {
    let (table, chapter) = match args.first().map(String::as_str) {
        Some("skills") => ("skills", "08"),
        Some("agents") => ("agents", "09"),
        Some("tools") => ("tools", "19"),
        Some("cache") => ("cache", "20"),
        Some("fences") => ("fences", "24"),
        _ => {
            return Err(
                "usage: cargo xtask measure skills|agents|tools|cache|fences [--mine | --bin PATH]"
                    .into(),
            );
        }
    };
    let chapter = Chapter::find(chapter)?;
    let target = target_arg(args, &chapter)?;
    let tool = target::build_bin("wire-measure", "wire-measure")?;
    let status = Command::new(&tool)
        .arg("--bin")
        .arg(&target.path)
        .arg(table)
        .current_dir(course::root())
        .status()
        .map_err(|err| format!("cannot start {}: {err}", tool.display()))?;
    match status.success() {
        true => Ok(()),
        false => Err(format!("wire-measure {table} on {} failed", target.label)),
    }
}

/// The binary chosen by `--mine` (your crate, chapters/NN; `--starter` is
/// the same) or `--bin PATH` (default: the solution).
fn target_arg(args: &[String], chapter: &Chapter) -> Result<Target, String> {
    Target::from_args(args, chapter, Kind::Solution)
}

/// Why no reply is due after a client frame, for `run` and `trace`:
/// a notification, or a batch of nothing but notifications, gets none.
fn no_reply_note(bytes: &[u8]) -> Option<&'static str> {
    let is_notification =
        |value: &Value| value.get("method").is_some() && value.get("id").is_none();
    match serde_json::from_slice::<Value>(bytes).ok()? {
        Value::Array(items) if !items.is_empty() && items.iter().all(is_notification) => {
            Some("(no reply: a batch of notifications)")
        }
        value if is_notification(&value) => Some("(no reply: a notification)"),
        _ => None,
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
    if transcript.runner == Runner::Http {
        // From chapter 13 on a server may listen on HTTP instead of stdin.
        println!(
            "chapter {} — {} — {}",
            chapter.dir, transcript.name, target.label
        );
        return wire_tests::run::http_runner::play(&transcript, &target);
    }
    if transcript.runner.is_host() {
        // From chapter 6 on the binary is a host: it starts its own servers,
        // and with no arguments at all runs its own demo. Any argument, even
        // --trace, makes it a run of the learner's own (chapter 10's demo
        // settings, hooks and note come only with none), so it gets none:
        // what plays here is what `cargo run -p …` with nothing after it plays.
        println!("chapter {} — its demo — {}\n", chapter.dir, target.label);
        let status = Command::new(&target.path)
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
    // A `{state}` the server sent (chapter 14's `requestState`) goes back
    // as the server wrote it, as the scenario tests send it (capture.rs).
    let mut state = wire_tests::run::capture::Bound::default();
    for (index, frame) in frames.iter().enumerate() {
        if frame.direction != Direction::ClientToServer {
            continue;
        }
        let bytes = wire_tests::run::capture::fill(&frame.bytes, &state);
        show("→", "client", &bytes);
        stdin
            .write_all(&bytes)
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
                Ok(line) => {
                    wire_tests::run::capture::bind(&line, &mut state);
                    show("←", "server", &line);
                }
                Err(_) => break,
            }
        }
        if expected == 0 {
            println!(
                "   {}",
                no_reply_note(&frame.bytes).unwrap_or("(no reply: none is due)")
            );
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
    // After `--`, the server's own arguments (`--step 5`, `--notes-dir DIR`).
    let (args, server_args) = match args.iter().position(|arg| arg == "--") {
        Some(at) => (&args[..at], &args[at + 1..]),
        None => (args, &[][..]),
    };
    let chapter = chapter_arg(args)?;
    let tour = Transcript::load(&chapter.transcript_path("tour")).map_err(|err| err.to_string())?;
    if tour.runner == Runner::Http {
        return Err(format!(
            "chapter {} speaks HTTP, not stdin: start it (`cargo run -p {}`) and send \
             requests with curl; `cargo xtask run {:02}` shows the tour",
            chapter.dir,
            chapter.solution_package(),
            chapter.number
        ));
    }
    if tour.runner.is_host() {
        return Err(format!(
            "chapter {} is a host: it writes the frames itself; `cargo xtask run {:02}` shows them",
            chapter.dir, chapter.number
        ));
    }
    let target = target_arg(args, &chapter)?;
    eprintln!(
        "tracing {} — type or paste one JSON-RPC message (a value may span lines);\n\
         end of input closes stdin: Ctrl-D (Windows: Ctrl-Z, then Enter).",
        target.label
    );
    let (mut child, replies) = spawn(&target, server_args)?;
    let printer = thread::spawn(move || {
        for line in replies {
            show("←", "server", &line);
        }
    });
    let mut stdin = child.stdin.take().expect("stdin is piped");
    let mut pending = String::new();
    for line in io::stdin().lock().split(b'\n') {
        let line = line.map_err(|err| err.to_string())?;
        let line = String::from_utf8_lossy(&line);
        let Some(frame) = gather(&mut pending, line.trim_end_matches('\r')) else {
            continue; // An unfinished JSON value: wait for its next line.
        };
        show("→", "client", &frame);
        if stdin
            .write_all(&frame)
            .and_then(|()| stdin.flush())
            .is_err()
        {
            break;
        }
        if let Some(note) = no_reply_note(&frame) {
            println!("   {note}");
        }
    }
    if !pending.is_empty() {
        eprintln!("(an unfinished JSON value was not sent: {pending})");
    }
    drop(stdin);
    let status = child.wait().map_err(|err| err.to_string())?;
    printer.join().ok();
    eprintln!("the server exited with {status}.");
    Ok(())
}

/// Collects typed lines into one frame. A line that starts a JSON value
/// (`{` or `[`) which is not complete yet is kept in `pending` until the
/// value is; a pasted, pretty-printed value is sent as one line, its lines
/// joined with spaces (a JSON string cannot span lines, so nothing inside
/// one changes). Anything else is sent as typed: bad input is a lesson too.
fn gather(pending: &mut String, line: &str) -> Option<Vec<u8>> {
    let starts_value = matches!(line.trim_start().chars().next(), Some('{' | '['));
    if pending.is_empty() && !starts_value {
        return Some(format!("{line}\n").into_bytes());
    }
    if !pending.is_empty() {
        pending.push(' ');
    }
    pending.push_str(if pending.is_empty() {
        line
    } else {
        line.trim()
    });
    match serde_json::from_str::<Value>(pending) {
        Err(err) if err.is_eof() => None,
        _ => Some(format!("{}\n", std::mem::take(pending)).into_bytes()),
    }
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
        "{differences} gap(s) differ from the reference. Different is not wrong: `cargo xtask check {:02}` decides.",
        chapter.number
    );
    Ok(())
}

/// `starters [--check] [--force]`: writes (or checks) every `chapters/NN-*`
/// crate. A chapter holding your edits is left alone unless `--force`, which
/// backs your files up first.
/// The budgets of every chapter (tests/tests/budgets.rs checks them from
/// chapter 07 on) and the lesson measures (tests/src/lessons.rs).
fn sizes() -> Result<(), String> {
    use wire_tests::budgets;
    let mut over = Vec::new();
    for chapter in Chapter::all() {
        let size = budgets::measure(&chapter);
        let grows = size
            .grows_from
            .map_or("-".into(), |number| format!("{number:02}"));
        let (length, name) = &size.longest_fn;
        println!(
            "{:02}: {} lines, {} changed vs {grows}, longest fn {length} ({name}), {} gaps",
            chapter.number, size.lines, size.changed, size.gaps
        );
        if chapter.number >= 7 && !size.over().is_empty() {
            over.push(format!(
                "{:02} ({})",
                chapter.number,
                size.over().join(", ")
            ));
        }
    }
    let lessons = wire_tests::lessons::measure();
    print!("{}", lessons.report());
    match (over.is_empty(), lessons.hold()) {
        (true, true) => Ok(()),
        (true, false) => Err("not every lesson target holds yet (see above)".into()),
        (false, _) => Err(format!("over a budget: {}", over.join("; "))),
    }
}

fn starters(args: &[String]) -> Result<(), String> {
    if args.iter().any(|arg| arg == "--check") {
        // The same check as the course test `starters_are_generated…`.
        let skipped = starters::check()?;
        for chapter in &skipped {
            println!("{}", starters::edited_note(chapter));
        }
        let stale = support::sync(true)?;
        if !stale.is_empty() {
            return Err(format!(
                "out of date with the chapters that teach them:\n  {}",
                stale.join("\n  ")
            ));
        }
        println!("up to date");
        return Ok(());
    }
    let force = args.iter().any(|arg| arg == "--force");
    // The support crates' settled code first: starters depend on it. These
    // files are never the learner's, so they are simply rewritten.
    let support = support::sync(false)?;
    if !support.is_empty() {
        println!("wrote:\n  {}", support.join("\n  "));
    }
    let done = starters::write(&Chapter::all(), force)?;
    if let Some(backup) = &done.backup {
        println!(
            "your edited files are saved in {}",
            course::relative(backup)
        );
    }
    if !done.written.is_empty() {
        println!("wrote:\n  {}", done.written.join("\n  "));
    }
    if !done.removed.is_empty() {
        println!(
            "removed (no longer part of the starter):\n  {}",
            done.removed.join("\n  ")
        );
    }
    if done.written.is_empty() && done.removed.is_empty() && done.refused.is_empty() {
        println!("up to date");
    }
    if done.refused.is_empty() {
        return Ok(());
    }
    Err(format!(
        "left alone, because you edited them since they were generated:\n  {}\n\
         Your work is safe. To start a chapter over: `cargo xtask reset NN` \
         (your files are backed up first); to regenerate everything anyway: \
         `cargo xtask starters --force` (same backup).",
        done.refused.join("\n  ")
    ))
}

/// `changes [--check]`: every generated page of the book (diffs, views,
/// diagrams, listings, exercises, the workshop schedule).
fn changes(args: &[String]) -> Result<(), String> {
    let stale = course::changes_to_write();
    let check = args.iter().any(|arg| arg == "--check");
    let mut names = Vec::new();
    for (name, path, diff) in stale {
        generated::write(&path, &diff, check)?;
        names.push(name);
    }
    // The frame views and sequence diagrams, drawn from the transcripts.
    names.extend(generated::sync(
        &views::files()?,
        &views::views_dir(),
        check,
    )?);
    names.extend(generated::sync(
        &diagrams::files()?,
        &diagrams::diagrams_dir(),
        check,
    )?);
    names.extend(wire_tests::generate::exercises::refresh(check)?);
    names.extend(wire_tests::generate::workshop::refresh(check)?);
    report_stale(check, &names, "cargo xtask changes")
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

/// `bless [NN]`: rewrites what the program under test writes, in every
/// transcript, from the reference solutions (every runner: server, host,
/// HTTP).
fn bless(args: &[String]) -> Result<(), String> {
    let chapters = match args.first() {
        Some(name) => vec![Chapter::find(name)?],
        None => Chapter::all(),
    };
    for chapter in chapters {
        // The core scenarios against the solution; the stretch scenarios
        // against it built with `--features stretch`.
        let sets = [
            (chapter.scenarios(), false),
            (chapter.stretch_scenarios(), true),
        ];
        for (scenarios, stretch) in sets {
            if scenarios.is_empty() {
                continue;
            }
            let target = Target::built(&chapter, Kind::Solution, stretch)?;
            for scenario in scenarios {
                let path = chapter.transcript_path(&scenario);
                let text = fs::read_to_string(&path).map_err(|err| err.to_string())?;
                let transcript = Transcript::parse(&path, &text).map_err(|err| err.to_string())?;
                // Each runner rewrites what the program under test writes:
                // a server's replies, a host's frames to its servers, model
                // and hooks and its stdout, an HTTP server's responses.
                let blessed = match transcript.runner {
                    Runner::Server => runner::bless(&transcript, &text, &target.path)?,
                    Runner::Client | Runner::Agent => {
                        // The recorded servers' replies first: the host's
                        // frames follow from them.
                        let served = client_runner::bless_recorded(&transcript, &text)?;
                        if served != text {
                            fs::write(&path, &served).map_err(|err| err.to_string())?;
                        }
                        let transcript =
                            Transcript::parse(&path, &served).map_err(|err| err.to_string())?;
                        let recording = client_runner::record(&transcript, &target)?;
                        client_runner::bless_text(&transcript, &served, &recording)?
                    }
                    Runner::Http => http_runner::bless(&transcript, &text, &target)?,
                };
                if blessed != text {
                    fs::write(&path, blessed).map_err(|err| err.to_string())?;
                    println!("blessed {}/{scenario}", chapter.id());
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pasted_value_is_one_frame() {
        let mut pending = String::new();
        assert_eq!(gather(&mut pending, "{"), None);
        assert_eq!(gather(&mut pending, "  \"jsonrpc\": \"2.0\","), None);
        assert_eq!(
            gather(&mut pending, "  \"method\": \"ping\", \"id\": 1 }"),
            Some(b"{ \"jsonrpc\": \"2.0\", \"method\": \"ping\", \"id\": 1 }\n".to_vec())
        );
        assert!(pending.is_empty());
        assert_eq!(gather(&mut pending, "hello"), Some(b"hello\n".to_vec()));
        assert_eq!(gather(&mut pending, "{bad"), Some(b"{bad\n".to_vec()));
    }

    #[test]
    fn notifications_get_no_reply() {
        let note = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        assert_eq!(no_reply_note(note), Some("(no reply: a notification)"));
        assert_eq!(
            no_reply_note(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#),
            None
        );
        assert_eq!(no_reply_note(b"not json"), None);
    }
}
