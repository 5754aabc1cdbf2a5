//! Drives a host (a client, chapter 6, or an agent, chapter 7) through a
//! transcript. The binary under test is the one that starts servers, so
//! the transcript has to play the servers, and the model:
//!
//! - each channel's server is a `replay-server` process (tests/src/bin),
//!   started by the host itself: `{replay:NAME}` in `# args:` becomes its
//!   command line. It checks every client frame and writes a verdict file;
//! - the model is a stub HTTP server on 127.0.0.1 in this process, when the
//!   transcript has `=>` frames: it checks method, path, headers and body
//!   of each request, and answers with the `<=` frame that follows.
//!
//! - hooks (chapter 10) are real processes the host runs. A fixture hook
//!   under tests/fixtures/hooks/ is run through `record`, which appends
//!   what the hook got (`~>`) and gave back (`<~`) to the file named by
//!   `WIRE_HOOK_LOG`; the runner compares that file with the transcript's
//!   hook frames, in order, once the host has exited. Paths that change
//!   from run to run are placeholders: `{workdir}` (a fresh folder, also
//!   in `# args:` and `|` lines), `{tmp}` (the host's TMPDIR), and
//!   `$WIRE_HOOKS` in settings files is the fixtures' folder.
//!
//! Frames are checked per channel, in order; how the channels interleave
//! is free (a host may talk to its servers in parallel). The model's frames
//! have channels too, one per context (chapter 9): `=>` without a channel
//! is the main conversation, `[toolu_01] =>` the subagent that the call
//! `toolu_01` started. Each context's requests are checked in order; a
//! request belongs to the context whose next expected request it is.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::Duration;

use crate::run::runner::{self, Run};
use crate::run::target::{self, Target};
use crate::run::transcript::{Direction, Frame, Transcript};
use crate::run::unprivileged;

/// The API key the stub model expects, unless the transcript sets another.
pub const TEST_API_KEY: &str = "wire-test-key";

/// The frames one replay server plays: its channel's `->` and `<-`.
pub fn replay_frames<'a>(transcript: &'a Transcript, channel: Option<&str>) -> Vec<&'a Frame> {
    transcript
        .frames
        .iter()
        .filter(|frame| {
            matches!(
                frame.direction,
                Direction::ClientToServer | Direction::ServerToClient
            ) && frame.channel.as_deref() == channel
        })
        .collect()
}

/// Checks `transcript` against the host binary `target`.
pub fn check(transcript: &Transcript, target: &Target) -> Result<(), String> {
    check_waiting(transcript, target, TOGETHER_WAIT)
}

/// [`check`], with the first requests of `# together:` contexts waiting
/// up to `together` for each other. For a test that expects a host to run
/// its subagents one after the other: that host never sends the second
/// request while the first waits, so any wait fails it, and a short one
/// fails it without waiting out the hang guard.
pub fn check_waiting(
    transcript: &Transcript,
    target: &Target,
    together: Duration,
) -> Result<(), String> {
    let fail =
        |run: Option<&Run>, problem: String| runner::report(transcript, target, run, &problem);
    let Played {
        dir,
        places,
        run,
        model,
    } = play(transcript, target, false, together).map_err(|e| fail(None, e))?;
    let model_verdict = model.map(|(verdict, _)| verdict);
    let ran = Some(&run);

    // The replay servers' verdicts first: they name the exact frame.
    let channels: BTreeSet<Option<String>> = transcript
        .frames
        .iter()
        .filter(|f| {
            matches!(
                f.direction,
                Direction::ClientToServer | Direction::ServerToClient
            )
        })
        .map(|frame| frame.channel.clone())
        .collect();
    for channel in channels {
        let label = channel.unwrap_or_else(|| "-".to_string());
        match std::fs::read_to_string(dir.0.join(format!("{label}.txt"))) {
            Ok(text) if text == "ok" => {}
            Ok(text) => {
                let also = runner::exit_also(&run, transcript.exit);
                return Err(fail(ran, format!("server [{label}]: {text}{also}")));
            }
            Err(_) => {
                let problem = format!(
                    "server [{label}] never finished: the client did not start it, \
                     or did not close its stdin before exiting."
                );
                return Err(fail(
                    ran,
                    problem + &runner::exit_also(&run, transcript.exit),
                ));
            }
        }
    }
    if let Some(Err(problem)) = model_verdict {
        let also = runner::exit_also(&run, transcript.exit);
        return Err(fail(ran, format!("the model: {problem}{also}")));
    }
    // The output first, then the exit status: a run that wrote the wrong
    // thing and then failed is reported for what it wrote, with its status.
    let also = runner::exit_also(&run, transcript.exit);
    if let Some(problem) = compare_hooks(transcript, &places) {
        return Err(fail(ran, problem + &also));
    }
    let stdout = places.hide(&String::from_utf8_lossy(&run.stdout));
    if let Some(problem) = compare_stdout(transcript, stdout.as_bytes()) {
        return Err(fail(ran, problem + &also));
    }
    if let Some(text) = runner::missing_stderr(transcript, &run.stderr) {
        let problem = format!("its stderr does not contain {text:?}");
        return Err(fail(ran, problem + &also));
    }
    if run.status != Some(transcript.exit) {
        let got = run
            .status
            .map_or("a signal (or the hang guard)".into(), |c| {
                format!("exit status {c}")
            });
        let problem = format!(
            "every frame and line matched, but the program ended with {got} instead of exit status {}.",
            transcript.exit
        );
        return Err(fail(ran, problem));
    }
    Ok(())
}

/// One run of a host against its transcript: the folder the replay servers
/// reported to (removed when dropped), the paths hooks saw, what the host
/// did, and the stub model's verdict with the request bodies it got.
struct Played {
    dir: ReportDir,
    places: Places,
    run: Run,
    model: Option<(Result<(), String>, Requests)>,
}

/// The request bodies the stub model got, per context, in order.
type Requests = BTreeMap<Option<String>, Vec<Vec<u8>>>;

/// Runs the host `target` with the transcript's servers and model played.
/// With `bless`, nothing is compared: the servers and the model answer in
/// the transcript's order whatever comes, and keep what came. The first
/// requests of `# together:` contexts wait up to `together` for each other.
fn play(
    transcript: &Transcript,
    target: &Target,
    bless: bool,
    together: Duration,
) -> Result<Played, String> {
    if !transcript.runner.is_host() {
        return Err(format!(
            "runner {} is not a host's",
            transcript.runner.name()
        ));
    }
    let replay = target::build_bin("wire-tests", "replay-server")?;
    let dir = ReportDir::create(transcript)?;
    let places = Places::create(&dir.0)?;
    places.fill(transcript)?;
    let args: Vec<String> = transcript
        .args
        .iter()
        .map(|arg| expand_replay(arg, &replay, &transcript.path))
        .map(|arg| arg.replace("{workdir}", &places.workdir))
        .map(|arg| arg.replace("{home}", &places.home))
        .collect();
    let mut env = vec![
        (
            "WIRE_REPLAY_REPORT".to_string(),
            dir.0.display().to_string(),
        ),
        (
            "WIRE_REPLAY_EXACT".to_string(),
            if target.exact() { "1" } else { "0" }.to_string(),
        ),
        (
            "WIRE_REPLAY_BLESS".to_string(),
            if bless { "1" } else { "0" }.to_string(),
        ),
    ];
    env.extend(places.env());
    let model = model_exchanges(transcript);
    // The key the host should send: ours, unless the transcript sets one.
    let key = transcript
        .env
        .iter()
        .rev()
        .find(|(name, _)| name == "ANTHROPIC_API_KEY")
        .map_or(TEST_API_KEY.to_string(), |(_, value)| value.clone());
    let stub = if model.is_empty() {
        None
    } else {
        let listener = TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
        let address = listener.local_addr().map_err(|e| e.to_string())?;
        env.push(("ANTHROPIC_BASE_URL".into(), format!("http://{address}")));
        env.push(("ANTHROPIC_API_KEY".into(), TEST_API_KEY.into()));
        let script = Script {
            contexts: model,
            exact: target.exact(),
            bless,
            key,
            together: transcript.together.clone(),
            together_wait: together,
            state: Mutex::new(State::default()),
            arrived: Condvar::new(),
            cache: Default::default(),
        };
        Some(StubModel::start(listener, script))
    };
    env.extend(transcript.env.iter().cloned());

    // A `# tool:` transcript runs that tool, which drives the binary under
    // test; the played servers and model reach the binary through it.
    let (program, args) = match &transcript.tool {
        Some(package) => {
            let tool = target::build_bin(package, package)?;
            let mut tool_args = vec!["--bin".to_string(), target.path.display().to_string()];
            tool_args.extend(args);
            (tool, tool_args)
        }
        None => (target.path.clone(), args),
    };
    // Chapter 24's sandbox scenarios: as root, the program runs as nobody.
    let (program, args) = match transcript.unprivileged {
        true => unprivileged::command(&program, args, &[&dir.0])?,
        false => (program, args),
    };
    let run = runner::run(&program, &args, &env, Vec::new());
    let model = stub.map(StubModel::finish);
    Ok(Played {
        dir,
        places,
        run: run?,
        model,
    })
}

/// What a host wrote, for `cargo xtask bless`: the frames it sent each
/// server and the model, the hook lines logged, its stdout; run paths
/// written as their placeholders.
#[derive(Debug, Default)]
pub struct Recording {
    /// Per channel, the client frames each replay server got.
    pub servers: BTreeMap<Option<String>, Vec<Vec<u8>>>,
    /// Per context, the request bodies the model got (each with a `\n`).
    pub model: Requests,
    /// The hook log's lines (`~> …`, `<~ …`).
    pub hooks: Vec<String>,
    /// The host's stdout.
    pub stdout: Vec<u8>,
}

/// Runs the host `target` (the reference solution) with nothing compared,
/// and returns what it wrote.
pub fn record(transcript: &Transcript, target: &Target) -> Result<Recording, String> {
    let Played {
        dir,
        places,
        run,
        model,
    } = play(transcript, target, true, TOGETHER_WAIT)?;
    let mut recording = Recording::default();
    for frame in &transcript.frames {
        if matches!(
            frame.direction,
            Direction::ClientToServer | Direction::ServerToClient
        ) && !recording.servers.contains_key(&frame.channel)
        {
            let label = frame.channel.clone().unwrap_or_else(|| "-".to_string());
            let got = std::fs::read(dir.0.join(format!("{label}.frames"))).unwrap_or_default();
            let lines = runner::split_lines(&got)
                .into_iter()
                .map(|line| places.hide(&String::from_utf8_lossy(line)).into_bytes())
                .collect();
            recording.servers.insert(frame.channel.clone(), lines);
        }
    }
    if let Some((verdict, requests)) = model {
        verdict.map_err(|problem| format!("the model: {problem}"))?;
        recording.model = requests
            .into_iter()
            .map(|(context, bodies)| {
                let bodies = bodies
                    .iter()
                    .map(|body| places.hide(&String::from_utf8_lossy(body)).into_bytes())
                    .collect();
                (context, bodies)
            })
            .collect();
    }
    let log = std::fs::read_to_string(&places.log).unwrap_or_default();
    recording.hooks = places.hide(&log).lines().map(str::to_string).collect();
    recording.stdout = places
        .hide(&String::from_utf8_lossy(&run.stdout))
        .into_bytes();
    Ok(recording)
}

/// The transcript `text` with every frame the host writes replaced by the
/// one `recording` holds in its place: the `->` frames of each channel, the
/// `=>` requests of each context, the hook lines and (when the transcript
/// pins stdout) the `|` lines. The frames the transcript plays (`<-`, `<=`)
/// and every comment stay. A frame that did not change keeps its line as it
/// was written. A count that differs is an error: bless rewrites frames, it
/// does not guess where to add or drop one.
pub fn bless_text(
    transcript: &Transcript,
    text: &str,
    recording: &Recording,
) -> Result<String, String> {
    let stdout: Vec<Vec<u8>> = runner::split_lines(&recording.stdout)
        .into_iter()
        .map(<[u8]>::to_vec)
        .collect();
    let hooks: Vec<Vec<u8>> = recording
        .hooks
        .iter()
        .map(|line| format!("{line}\n").into_bytes())
        .collect();
    let pins_stdout = transcript.frames_in(Direction::Stdout).next().is_some();
    // A server or model context that got nothing has no entry: none came.
    let none: Vec<Vec<u8>> = Vec::new();
    // Each sequence the host writes, and how many of its frames were used.
    let sequence = |frame: &Frame| -> Option<(String, &Vec<Vec<u8>>)> {
        let label = frame.channel.clone().unwrap_or_else(|| "-".to_string());
        match frame.direction {
            Direction::ClientToServer => Some((
                format!("the frames to server [{label}]"),
                recording.servers.get(&frame.channel).unwrap_or(&none),
            )),
            Direction::HostToModel => Some((
                format!("the requests of model context [{label}]"),
                recording.model.get(&frame.channel).unwrap_or(&none),
            )),
            Direction::HarnessToHook | Direction::HookToHarness => {
                Some(("the hook lines".to_string(), &hooks))
            }
            Direction::Stdout if pins_stdout => Some(("stdout".to_string(), &stdout)),
            _ => None,
        }
    };
    let mut used: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut out = String::new();
    for (index, line) in text.lines().enumerate() {
        let frame = transcript
            .frames
            .iter()
            .find(|frame| frame.line == index + 1);
        let Some((frame, (name, frames))) = frame.and_then(|f| Some((f, sequence(f)?))) else {
            out += line;
            out.push('\n');
            continue;
        };
        let count = used.entry(name.clone()).or_insert((0, frames.len()));
        let Some(got) = frames.get(count.0) else {
            count.0 += 1;
            continue; // Counted below: the host wrote fewer.
        };
        count.0 += 1;
        let hook = matches!(
            frame.direction,
            Direction::HarnessToHook | Direction::HookToHarness
        );
        let want = if hook {
            format!(
                "{} {}",
                frame.direction.arrow(),
                String::from_utf8_lossy(&frame.bytes)
            )
            .into_bytes()
        } else {
            frame.bytes.clone()
        };
        if *got == want {
            out += line;
        } else if hook {
            out += String::from_utf8_lossy(got).trim_end_matches('\n');
        } else {
            let prefix = frame
                .channel
                .as_ref()
                .map_or(String::new(), |name| format!("[{name}] "));
            out += &prefix;
            out += &runner::render_line(frame.direction.arrow(), got);
        }
        out.push('\n');
    }
    let wrong: Vec<String> = used
        .iter()
        .filter(|(_, (seen, had))| seen != had)
        .map(|(name, (seen, had))| {
            format!("{name}: the solution wrote {had}, the transcript has {seen}")
        })
        .collect();
    if !wrong.is_empty() {
        return Err(format!(
            "{}: {}; bless rewrites frames but does not add or remove them: edit those by hand.",
            transcript.name,
            wrong.join("; ")
        ));
    }
    Ok(out)
}

/// The transcript `text` with the `<-` frames of every `# recorded:`
/// channel rewritten from that chapter's solution server: its `->` frames
/// are sent to the real server, and its replies replace the `<-` lines in
/// order (each stays where the transcript put it). Blessing a host does this first, since what
/// the host writes follows from what its servers answered.
pub fn bless_recorded(transcript: &Transcript, text: &str) -> Result<String, String> {
    let mut replacements: BTreeMap<usize, Vec<u8>> = BTreeMap::new();
    for recorded in &transcript.recorded {
        let chapter = crate::course::Chapter::find(&recorded.chapter)?;
        let server = Target::solution(&chapter)?;
        let frames = replay_frames(transcript, Some(&recorded.channel));
        let (client, old): (Vec<&Frame>, Vec<&Frame>) = frames
            .iter()
            .partition(|frame| frame.direction == Direction::ClientToServer);
        let input: Vec<u8> = client.iter().flat_map(|f| f.bytes.clone()).collect();
        let run = runner::run(&server.path, &recorded.args, &[], input)?;
        let new = runner::split_lines(&run.stdout);
        // The replies in order; where each is written (which client frame
        // it waits for) is the transcript's choice, and stays.
        if new.len() != old.len() {
            return Err(format!(
                "{} [{}]: chapter {}'s server answers {} lines, the transcript has {}: \
                 edit those by hand.",
                transcript.name,
                recorded.channel,
                recorded.chapter,
                new.len(),
                old.len()
            ));
        }
        for (frame, bytes) in old.iter().zip(new) {
            if frame.bytes != bytes {
                replacements.insert(frame.line, bytes.to_vec());
            }
        }
    }
    let mut out = String::new();
    for (index, line) in text.lines().enumerate() {
        match replacements.get(&(index + 1)) {
            Some(bytes) => {
                let frame = transcript.frames.iter().find(|f| f.line == index + 1);
                if let Some(name) = frame.and_then(|f| f.channel.as_ref()) {
                    out += &format!("[{name}] ");
                }
                out += &runner::render_line("<-", bytes);
            }
            None => out += line,
        }
        out.push('\n');
    }
    Ok(out)
}

/// `--server add={replay:add}` → `--server add=/path/replay-server /path/t.wire add`.
fn expand_replay(arg: &str, replay: &Path, transcript: &Path) -> String {
    let quote = |path: &Path| {
        let text = path.display().to_string();
        if text.contains(char::is_whitespace) {
            format!("\"{text}\"")
        } else {
            text
        }
    };
    let command = format!("{} {}", quote(replay), quote(transcript));
    let mut out = arg.replace("{replay}", &command);
    while let Some(start) = out.find("{replay:") {
        let Some(end) = out[start..].find('}') else {
            break;
        };
        let channel = out[start + 8..start + end].to_string();
        out.replace_range(start..start + end + 1, &format!("{command} {channel}"));
    }
    out
}

/// The folder where the replay servers write their verdicts, one file per
/// channel. It is removed when dropped, so a failed check leaves none behind.
struct ReportDir(PathBuf);

impl ReportDir {
    fn create(transcript: &Transcript) -> Result<ReportDir, String> {
        static COUNT: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "wire-replay-{}-{}-{}",
            std::process::id(),
            transcript.name,
            COUNT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir)
            .map_err(|err| format!("cannot create {}: {err}", dir.display()))?;
        Ok(ReportDir(dir))
    }
}

impl Drop for ReportDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

// ANCHOR: places
/// The folders of one run that hooks see: a fresh working folder, the
/// host's TMPDIR, its HOME, and the log the fixture hooks write.
struct Places {
    workdir: String,
    tmp: String,
    /// A fresh, empty HOME unless `# home:` fills it, so that no file of
    /// the machine's own user (a `~/.claude/CLAUDE.md`, chapter 21) reaches
    /// the frames.
    home: String,
    log: PathBuf,
}

impl Places {
    fn create(dir: &Path) -> Result<Places, String> {
        let make = |name: &str| {
            let path = dir.join(name);
            std::fs::create_dir_all(&path)
                .and_then(|()| std::fs::canonicalize(&path))
                .map(|path| path.display().to_string())
                .map_err(|err| format!("cannot create {}: {err}", path.display()))
        };
        Ok(Places {
            workdir: make("work")?,
            tmp: make("tmp")?,
            home: make("home")?,
            log: dir.join("hooks.log"),
        })
    }

    /// Copies the transcript's `# workdir:` and `# home:` fixtures into the
    /// run's fresh folders.
    fn fill(&self, transcript: &Transcript) -> Result<(), String> {
        let fixtures = [
            (&transcript.workdir, &self.workdir),
            (&transcript.home, &self.home),
        ];
        for (fixture, folder) in fixtures {
            let Some(fixture) = fixture else { continue };
            runner::copy_folder(&crate::course::root().join(fixture), Path::new(folder))
                .map_err(|err| format!("{}: cannot copy {fixture}: {err}", transcript.name))?;
        }
        Ok(())
    }

    fn env(&self) -> Vec<(String, String)> {
        let hooks = crate::course::root().join("tests/fixtures/hooks");
        vec![
            ("WIRE_HOOK_LOG".into(), self.log.display().to_string()),
            ("WIRE_HOOKS".into(), hooks.display().to_string()),
            ("TMPDIR".into(), self.tmp.clone()),
            ("HOME".into(), self.home.clone()),
            // Chapter 21's managed policy folder (the course's switch): an
            // empty one, unless the transcript's `# env:` names another, so
            // that no machine's /etc/claude-code/CLAUDE.md reaches the frames.
            ("WIRE_MANAGED_DIR".into(), format!("{}/managed", self.home)),
        ]
    }

    /// `text` with this run's paths written as their placeholders.
    fn hide(&self, text: &str) -> String {
        let hooks = crate::course::root().join("tests/fixtures/hooks");
        text.replace(&self.workdir, "{workdir}")
            .replace(&self.tmp, "{tmp}")
            .replace(&self.home, "{home}")
            .replace(&hooks.display().to_string(), "$WIRE_HOOKS")
    }
}

/// The hook frames (`~>` and `<~`), in order, against what the fixture
/// hooks logged.
fn compare_hooks(transcript: &Transcript, places: &Places) -> Option<String> {
    let expected: Vec<&Frame> = transcript
        .frames
        .iter()
        .filter(|f| {
            matches!(
                f.direction,
                Direction::HarnessToHook | Direction::HookToHarness
            )
        })
        .collect();
    let log = std::fs::read_to_string(&places.log).unwrap_or_default();
    let log = places.hide(&log);
    let actual: Vec<&str> = log.lines().collect();
    for (index, want) in expected.iter().enumerate() {
        let want_line = format!(
            "{} {}",
            want.direction.arrow(),
            String::from_utf8_lossy(&want.bytes).trim_end_matches('\n')
        );
        match actual.get(index) {
            Some(got) if *got == want_line => {}
            Some(got) => {
                let window = crate::textdiff::first_difference(&want_line, got).unwrap_or_default();
                return Some(format!(
                    "hook frame {} (transcript line {}) differs.\n  expected: {want_line}\n  actual:   {got}\n  {window}",
                    index + 1,
                    want.line
                ));
            }
            None => {
                return Some(format!(
                    "hook frame {} (transcript line {}) never came: the hook did not run, \
                     or was killed before it answered.\n  expected: {want_line}",
                    index + 1,
                    want.line
                ));
            }
        }
    }
    actual.get(expected.len()).map(|extra| {
        format!(
            "the hooks logged {} frames, more than the {} expected. The first extra one:\n  {extra}",
            actual.len(),
            expected.len()
        )
    })
}
// ANCHOR_END: places

fn compare_stdout(transcript: &Transcript, stdout: &[u8]) -> Option<String> {
    let expected: Vec<&Frame> = transcript.frames_in(Direction::Stdout).collect();
    if expected.is_empty() {
        return None;
    }
    let actual = runner::split_lines(stdout);
    for (index, want) in expected.iter().enumerate() {
        match actual.get(index) {
            Some(got) if *got == want.bytes.as_slice() => {}
            Some(got) => {
                let window = crate::textdiff::first_difference(
                    &String::from_utf8_lossy(&want.bytes),
                    &String::from_utf8_lossy(got),
                )
                .unwrap_or_default();
                return Some(format!(
                    "stdout line {} (transcript line {}) differs.\n  expected: {}\n  actual:   {}\n  {window}",
                    index + 1,
                    want.line,
                    runner::shorten(&want.bytes),
                    runner::shorten(got)
                ));
            }
            None => {
                return Some(format!(
                    "stdout has {} lines; line {} (transcript line {}) never came:\n  expected: {}",
                    actual.len(),
                    index + 1,
                    want.line,
                    runner::shorten(&want.bytes)
                ));
            }
        }
    }
    actual.get(expected.len()).map(|extra| {
        format!(
            "stdout has {} lines, more than the {} expected. The first extra one:\n  {}",
            actual.len(),
            expected.len(),
            runner::shorten(extra)
        )
    })
}

/// One model turn: the request body expected (`=>`) and the reply (`<=`).
struct Exchange {
    request: Frame,
    reply: Option<Frame>,
}

/// The model turns per context (`None`: the main one), each in order.
fn model_exchanges(transcript: &Transcript) -> BTreeMap<Option<String>, Vec<Exchange>> {
    let mut contexts: BTreeMap<Option<String>, Vec<Exchange>> = BTreeMap::new();
    for frame in &transcript.frames {
        match frame.direction {
            Direction::HostToModel => {
                contexts
                    .entry(frame.channel.clone())
                    .or_default()
                    .push(Exchange {
                        request: frame.clone(),
                        reply: None,
                    })
            }
            Direction::ModelToHost => {
                let exchanges = contexts.entry(frame.channel.clone()).or_default();
                if let Some(last) = exchanges.last_mut() {
                    last.reply = Some(frame.clone());
                }
            }
            _ => {}
        }
    }
    contexts
}

// ANCHOR: stub_model
/// What the stub model expects: the transcript's model turns, per context.
struct Script {
    contexts: BTreeMap<Option<String>, Vec<Exchange>>,
    /// Compare bodies byte for byte (solutions) or as JSON values.
    exact: bool,
    /// Blessing: compare nothing; a request is the next one of the context
    /// it most looks like, and is kept in `State::got`.
    bless: bool,
    /// The `x-api-key` every request must carry.
    key: String,
    /// `# together:` contexts whose first requests are answered only once
    /// all of them have arrived: proof that they run at the same time.
    together: Vec<String>,
    /// How long those first requests wait for each other.
    together_wait: Duration,
    state: Mutex<State>,
    /// Signalled when a first request of a `together` context arrives.
    arrived: Condvar,
    /// The prompt cache of the run: a reply whose `usage` is
    /// `"{cache}"` gets the figures it computes from the request.
    cache: wire_host::stub_cache::StubCache,
}

#[derive(Default)]
struct State {
    /// How many requests of each context have been answered.
    next: BTreeMap<Option<String>, usize>,
    /// The `together` contexts whose first request has arrived.
    waiting: BTreeSet<String>,
    /// Blessing: every request body, per context, in order.
    got: Requests,
}

/// How long the first requests of `# together:` contexts wait for each
/// other before the stub calls them sequential: a hang guard, never a
/// measure of speed.
const TOGETHER_WAIT: Duration = Duration::from_secs(20);

/// A stub of the Messages API: plain HTTP/1.1 on 127.0.0.1, one request
/// per connection, each on its own thread (subagents ask at the same
/// time), checked against the transcript.
struct StubModel {
    done: Arc<AtomicBool>,
    thread: thread::JoinHandle<Result<(), String>>,
    script: Arc<Script>,
}

impl StubModel {
    fn start(listener: TcpListener, script: Script) -> StubModel {
        let done = Arc::new(AtomicBool::new(false));
        let stop = Arc::clone(&done);
        let script = Arc::new(script);
        let serving = Arc::clone(&script);
        let thread = thread::spawn(move || serve(listener, serving, &stop));
        StubModel {
            done,
            thread,
            script,
        }
    }

    /// Stops the stub once the host has exited, with its verdict and (when
    /// blessing) the requests it got.
    fn finish(self) -> (Result<(), String>, Requests) {
        self.done.store(true, Ordering::SeqCst);
        let verdict = self
            .thread
            .join()
            .unwrap_or_else(|_| Err("the stub model panicked".to_string()));
        let got = match self.script.state.lock() {
            Ok(mut state) => std::mem::take(&mut state.got),
            Err(_) => Requests::new(),
        };
        (verdict, got)
    }
}

fn serve(listener: TcpListener, script: Arc<Script>, done: &AtomicBool) -> Result<(), String> {
    listener.set_nonblocking(true).map_err(|e| e.to_string())?;
    let mut answering = Vec::new();
    loop {
        let stream = match listener.accept() {
            Ok((stream, _)) => stream,
            Err(err) if err.kind() == std::io::ErrorKind::WouldBlock => {
                if done.load(Ordering::SeqCst) {
                    break;
                }
                thread::sleep(Duration::from_millis(5));
                continue;
            }
            Err(err) => return Err(format!("accept failed: {err}")),
        };
        let script = Arc::clone(&script);
        answering.push(thread::spawn(move || answer(stream, &script)));
    }
    // The first problem, in the order the requests came.
    for handle in answering {
        handle
            .join()
            .unwrap_or_else(|_| Err("the stub model panicked".to_string()))?;
    }
    script.missing()
}

/// One HTTP request, as the stub read it.
struct Request {
    /// `POST /v1/messages HTTP/1.1`.
    line: String,
    /// Names in lower case.
    headers: Vec<(String, String)>,
    /// The body and a `\n`, to compare like a transcript frame.
    body: Vec<u8>,
}

impl Request {
    fn read(stream: &TcpStream) -> Result<Request, String> {
        let mut reader = BufReader::new(stream.try_clone().map_err(|e| e.to_string())?);
        let mut line = String::new();
        reader.read_line(&mut line).map_err(|e| e.to_string())?;
        let mut headers = Vec::new();
        loop {
            let mut header = String::new();
            reader.read_line(&mut header).map_err(|e| e.to_string())?;
            let header = header.trim_end();
            if header.is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':') {
                headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
            }
        }
        let mut request = Request {
            line,
            headers,
            body: Vec::new(),
        };
        let length: usize = request
            .header("content-length")
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        request.body = vec![0; length];
        reader
            .read_exact(&mut request.body)
            .map_err(|e| e.to_string())?;
        request.body.push(b'\n');
        Ok(request)
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Reads one request, finds its context and checks it, and answers it
/// (with a 400 on a mismatch).
fn answer(mut stream: TcpStream, script: &Script) -> Result<(), String> {
    stream.set_nonblocking(false).map_err(|e| e.to_string())?;
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .map_err(|e| e.to_string())?;
    let request = Request::read(&stream)?;
    let (problem, expected_reply) = match script.take(&request) {
        Ok(reply) => (None, reply),
        Err(problem) => (Some(problem), None),
    };
    let (reply, headers) = match (&problem, expected_reply) {
        (None, Some(reply)) => with_headers(script.usage(&request, reply)),
        (None, None) => (
            b"{\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"the transcript has no <= reply here\"}}".to_vec(),
            String::new(),
        ),
        (Some(problem), _) => {
            let error = serde_json::json!({"type": "error", "error": {"type": "invalid_request_error", "message": format!("wire-tests stub: {problem}")}});
            (error.to_string().into_bytes(), String::new())
        }
    };
    // The status the API sends with this body (`wire_host::api`).
    let body = serde_json::from_slice(&reply).unwrap_or_default();
    let status = wire_host::api::status_of(&body);
    let reply = reply.strip_suffix(b"\n").unwrap_or(&reply);
    let head = format!(
        "HTTP/1.1 {status} {}\r\ncontent-type: application/json\r\n{headers}content-length: {}\r\nconnection: close\r\n\r\n",
        if status == 200 { "OK" } else { "Error" },
        reply.len()
    );
    let _ = stream
        .write_all(head.as_bytes())
        .and_then(|()| stream.write_all(reply))
        .and_then(|()| stream.flush());
    match problem {
        Some(problem) => Err(problem),
        None => Ok(()),
    }
}

/// A reply's headers, from the stub's marker `"{headers}": {"retry-after":
/// "1"}` in an error reply (chapter 22): the body without the marker, and
/// the header lines, each ending in CRLF.
fn with_headers(reply: Vec<u8>) -> (Vec<u8>, String) {
    let Ok(serde_json::Value::Object(mut body)) = serde_json::from_slice(&reply) else {
        return (reply, String::new());
    };
    let Some(headers) = body.remove(HEADERS) else {
        return (reply, String::new());
    };
    let lines = (headers.as_object().into_iter().flatten())
        .map(|(name, value)| format!("{name}: {}\r\n", value.as_str().unwrap_or_default()))
        .collect();
    (
        serde_json::Value::Object(body).to_string().into_bytes(),
        lines,
    )
}

/// The key of a `<=` reply that the stub sends as headers, not in the body.
pub const HEADERS: &str = "{headers}";

/// `[toolu_01]` for a subagent's context, nothing for the main one.
fn context_label(context: &Option<String>) -> String {
    context
        .as_ref()
        .map_or(String::new(), |name| format!("[{name}] "))
}

/// Blessing: the context whose next request `body` most likely is, when
/// none matches: the one whose conversation so far (`messages`) is the
/// same, else whose first message is, else the only one left.
fn likeliest<'a, 'b>(
    heads: &'b [(&'a Option<String>, usize, &'a Exchange)],
    body: &[u8],
) -> Option<&'b (&'a Option<String>, usize, &'a Exchange)> {
    let value = |bytes: &[u8]| serde_json::from_slice::<serde_json::Value>(bytes).ok();
    let got = value(body)?;
    let want = |head: &(&Option<String>, usize, &Exchange)| value(&head.2.request.bytes);
    heads
        .iter()
        .find(|head| want(head).is_some_and(|want| want["messages"] == got["messages"]))
        .or_else(|| {
            heads.iter().find(|head| {
                want(head).is_some_and(|want| want["messages"][0] == got["messages"][0])
            })
        })
        .or_else(|| (heads.len() == 1).then(|| &heads[0]))
}

impl Script {
    /// Takes `request` as the next request of the context it matches, and
    /// returns that turn's reply; or says what is wrong with it.
    fn take(&self, request: &Request) -> Result<Option<&Frame>, String> {
        let mut words = request.line.split_whitespace();
        let (method, path) = (words.next().unwrap_or(""), words.next().unwrap_or(""));
        if method != "POST" || path != "/v1/messages" {
            return Err(format!("expected POST /v1/messages, got {method} {path}"));
        }
        for (name, want) in [
            ("x-api-key", self.key.as_str()),
            ("anthropic-version", "2023-06-01"),
            ("content-type", "application/json"),
        ] {
            let got = request.header(name);
            if got != Some(want) {
                return Err(format!("header {name} should be {want:?}, got {got:?}"));
            }
        }
        let mut state = self.state.lock().map_err(|e| e.to_string())?;
        // The next expected request of each context that has one left.
        let heads: Vec<(&Option<String>, usize, &Exchange)> = self
            .contexts
            .iter()
            .filter_map(|(context, exchanges)| {
                let index = state.next.get(context).copied().unwrap_or(0);
                exchanges
                    .get(index)
                    .map(|exchange| (context, index, exchange))
            })
            .collect();
        let matched = heads
            .iter()
            .find(|(_, _, exchange)| {
                runner::compare_line(&exchange.request.bytes, &request.body, self.exact).is_none()
            })
            .or_else(|| {
                self.bless
                    .then(|| likeliest(&heads, &request.body))
                    .flatten()
            });
        let Some(&(context, index, exchange)) = matched else {
            return Err(self.mismatch(&heads, request));
        };
        state.next.insert(context.clone(), index + 1);
        if self.bless {
            let body = request.body.clone();
            state.got.entry(context.clone()).or_default().push(body);
        }
        let name = context.clone().unwrap_or_default();
        if index == 0 && self.together.contains(&name) {
            state.waiting.insert(name);
            self.arrived.notify_all();
            let all_here =
                |state: &mut State| self.together.iter().all(|c| state.waiting.contains(c));
            let (state, _) = self
                .arrived
                .wait_timeout_while(state, self.together_wait, |state| !all_here(state))
                .map_err(|e| e.to_string())?;
            if !self.together.iter().all(|c| state.waiting.contains(c)) {
                return Err(format!(
                    "the first requests of contexts {} never were in flight at the same time: \
                     the host waited for one subagent before it started the next",
                    self.together.join(", ")
                ));
            }
        }
        Ok(exchange.reply.as_ref())
    }

    /// The reply's bytes as written, unless its `usage` is the marker
    /// (`"usage":"{cache}"`): then with the figures the run's cache
    /// computes from the request the host sent (chapter 20's scenarios).
    fn usage(&self, request: &Request, reply: &Frame) -> Vec<u8> {
        let mut value: serde_json::Value = match serde_json::from_slice(&reply.bytes) {
            Ok(value) => value,
            Err(_) => return reply.bytes.clone(),
        };
        if value["usage"] != wire_host::stub_cache::MARKER {
            return reply.bytes.clone();
        }
        let body = serde_json::from_slice(&request.body).unwrap_or_default();
        self.cache.fill(&body, &mut value);
        value.to_string().into_bytes()
    }

    /// Why `request` matches no context's next request: the difference
    /// from each one, or that none is left.
    fn mismatch(&self, heads: &[(&Option<String>, usize, &Exchange)], request: &Request) -> String {
        if heads.is_empty() {
            let total: usize = self.contexts.values().map(Vec::len).sum();
            return format!(
                "the host sent more requests than the {total} expected. The extra one:\n  {}",
                runner::shorten(&request.body)
            );
        }
        let mut text = String::from("a request that is no context's next one:");
        text += &format!("\n  actual:   {}", runner::shorten(&request.body));
        for (context, index, exchange) in heads {
            let difference =
                runner::compare_line(&exchange.request.bytes, &request.body, self.exact)
                    .unwrap_or_default();
            text += &format!(
                "\n  {}request {} (transcript line {}): {}\n  expected: {}",
                context_label(context),
                index + 1,
                exchange.request.line,
                difference,
                runner::shorten(&exchange.request.bytes)
            );
        }
        text
    }

    /// The first request that never came, if any, once the host has exited.
    fn missing(&self) -> Result<(), String> {
        let state = self.state.lock().map_err(|e| e.to_string())?;
        for (context, exchanges) in &self.contexts {
            let next = state.next.get(context).copied().unwrap_or(0);
            if let Some(missing) = exchanges.get(next) {
                return Err(format!(
                    "{}request {} of {} (transcript line {}) never came.\n  expected: {}",
                    context_label(context),
                    next + 1,
                    exchanges.len(),
                    missing.request.line,
                    runner::shorten(&missing.request.bytes)
                ));
            }
        }
        Ok(())
    }
}
// ANCHOR_END: stub_model

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bless_rewrites_what_the_host_writes_and_keeps_the_rest() {
        let text = "# runner: agent\n\
            # book: 07-agent-loop.md\n\
            [add] -> {\"id\":1,\"method\":\"tools/list\"}\n\
            [add] <- {\"id\":1,\"result\":{\"tools\":[{\"description\":\"Adds\"}]}}\n\
            => {\"tools\":[{\"description\":\"Adds\"}]}\n\
            <= {\"content\":[{\"type\":\"text\",\"text\":\"5\"}]}\n\
            # a comment stays\n\
            ~> {\"cwd\":\"{workdir}\"}\n\
            <~ {\"exit\":0}\n\
            | answer: 5\n\
            |\n";
        let transcript = Transcript::parse(Path::new("made_up.wire"), text).unwrap();
        let mut recording = Recording::default();
        recording.servers.insert(
            Some("add".into()),
            vec![b"{\"id\":1,\"method\":\"tools/list\"}\n".to_vec()],
        );
        recording.model.insert(
            None,
            vec![b"{\"tools\":[{\"description\":\"Adds two numbers\"}]}\n".to_vec()],
        );
        recording.hooks = vec![
            "~> {\"cwd\":\"{workdir}\",\"new\":1}".into(),
            "<~ {\"exit\":0}".into(),
        ];
        recording.stdout = b"answer: 5 \n\n".to_vec();
        let blessed = bless_text(&transcript, text, &recording).unwrap();
        let expected = text
            .replace(
                "=> {\"tools\":[{\"description\":\"Adds\"}]}",
                "=> {\"tools\":[{\"description\":\"Adds two numbers\"}]}",
            )
            .replace(
                "~> {\"cwd\":\"{workdir}\"}",
                "~> {\"cwd\":\"{workdir}\",\"new\":1}",
            )
            .replace("| answer: 5\n", "| answer: 5 \n");
        assert_eq!(blessed, expected);
        // Unchanged frames keep their lines: blessing twice changes nothing.
        let again = Transcript::parse(Path::new("made_up.wire"), &blessed).unwrap();
        assert_eq!(bless_text(&again, &blessed, &recording).unwrap(), blessed);
        // A host that wrote one line more is an error, not a guess.
        recording.stdout = b"answer: 5\n\nmore\n".to_vec();
        let error = bless_text(&transcript, text, &recording).unwrap_err();
        assert!(
            error.contains("stdout: the solution wrote 3, the transcript has 2"),
            "{error}"
        );
    }

    #[test]
    fn expands_replay_placeholders() {
        let arg = expand_replay(
            "add={replay:add}",
            Path::new("/r s/replay"),
            Path::new("/t.wire"),
        );
        assert_eq!(arg, "add=\"/r s/replay\" /t.wire add");
        let arg = expand_replay("x={replay}", Path::new("/r"), Path::new("/t"));
        assert_eq!(arg, "x=/r /t");
    }
}
