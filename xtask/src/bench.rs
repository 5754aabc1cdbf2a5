//! `cargo xtask bench`: how fast are the chapter servers?
//!
//! For each server chapter (each chapter whose tour opens with `initialize`,
//! or with 2026-07-28's `server/discover`),
//! the benchmark builds the reference solution in release mode and drives the binary over real pipes, exactly
//! as an MCP client would. It measures four things:
//!
//! 1. cold start: spawn the binary, send `initialize`, read the reply;
//! 2. round trip: write one request, read its reply, again and again;
//! 3. pipelined throughput: a writer thread streams requests while the main
//!    thread reads the replies;
//! 4. peak memory: the server's high-water mark (`VmHWM`, Linux only).
//!
//! Every reply is checked (right id, a result, the right answer), so a broken
//! server fails the benchmark instead of producing fast nonsense.
//!
//! Every run also measures a baseline, `plain-server` (tests/src/bin): a
//! server with the `add` tool written the obvious way (`serde_json::from_str`
//! a line, `writeln!` the reply). Each `tools/call add` row shows its
//! pipelined throughput as a ratio to the baseline's, measured in the same
//! run (first and last; the faster of the two counts), so the ratio means
//! something on any machine.
//!
//! Expect noise: a round trip wakes the server, then the client. When the
//! scheduler keeps both on one CPU that is a quick context switch; across two
//! CPUs (worse in a VM, where waking an idle CPU is slow) it costs much more,
//! while pipelining gains from the second CPU. Run it twice before believing
//! a difference.

use std::fmt::Write as _;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use wire_tests::course::Chapter;
use wire_tests::run::target;
use wire_tests::run::transcript::{Direction, Runner, Transcript};

const USAGE: &str = "\
Usage: cargo xtask bench [NN ...] [--runs N] [--json PATH]

Benchmarks the chapters that build an MCP server (their tour opens with
`initialize` or `server/discover`): all of them, unless chapter numbers are
given. A chapter that speaks 2026-07-28 also gets a `tools/call add` row in
that revision, `_meta` on every request. Every run
also measures a plain serde_json server (tests/src/bin/plain_server.rs) and
shows each `tools/call add` row's pipelined throughput as a ratio to it.

  --runs N     spawns for the cold-start measurement (default 200)
  --json PATH  also write the numbers as JSON to PATH

`cargo xtask bench --http` measures chapter 13's HTTP server instead
(`cargo xtask bench --http --help`); `cargo xtask bench --clone` the
learner's time, a fresh clone's `cargo test` cold and warm.
";

/// Spawns for the cold-start median, unless `--runs` says otherwise.
const DEFAULT_RUNS: usize = 200;
/// Round trips thrown away first, so caches and branch predictors are warm.
const WARM_UP: u64 = 1_000;
/// Round trips measured one by one.
const ROUND_TRIPS: u64 = 20_000;
/// Requests streamed in the pipelined run.
const PIPELINED: u64 = 200_000;
/// A server that leaves us waiting this long is killed and the run fails.
const HANG_LIMIT: Duration = Duration::from_secs(60);

/// What a small stdio server should manage on a 2-core machine (the book's
/// benchmark appendix gives the reasons); a miss is marked, never fatal.
const TARGET_COLD_START_MS: f64 = 2.0;
const TARGET_ROUND_TRIP_US: f64 = 30.0;
const TARGET_FRAMES_PER_S: f64 = 150_000.0;
const TARGET_PEAK_MIB: f64 = 4.0;
/// Pipelined throughput of a `tools/call add` row over the baseline's, at
/// least (issue 7: flushing only when no frame is buffered must keep chapter
/// 3 within reach of a plain serde_json server).
const TARGET_VS_PLAIN: f64 = 2.0 / 3.0;
/// A `tools/call add` round trip's median over the baseline's, at most: a
/// client that waits for each reply must not pay much for the chapter's
/// framing, checks and types over a plain serde_json server's.
const TARGET_RTT_VS_PLAIN: f64 = 1.25;

/// The baseline's package and binary, and its label in the table.
const PLAIN_PACKAGE: &str = "wire-tests";
const PLAIN_BIN: &str = "plain-server";
const PLAIN_LABEL: &str = "plain serde_json (baseline)";

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

// ANCHOR: requests
/// A request the benchmark knows how to time. A chapter gets every row whose
/// capability its `initialize` reply announces (the 2026-07-28 row only if
/// its tour speaks that revision); the row without a capability (`ping`) is
/// the fallback for a server that announces none of them.
/// To benchmark a new method, add a row.
struct RequestKind {
    /// The label in the table.
    label: &'static str,
    /// The server capability this row needs; `None` for the fallback.
    capability: Option<&'static str>,
    /// Sent in revision 2026-07-28: only to a server whose tour speaks it.
    modern: bool,
    /// The method and params to send; may ask the server first.
    prepare: fn(&mut Server) -> Result<(&'static str, Value), String>,
    /// Is this reply's `result` the right answer?
    check: fn(&Value) -> bool,
}

const REQUESTS: &[RequestKind] = &[
    RequestKind {
        label: "tools/call add",
        capability: Some("tools"),
        modern: false,
        prepare: |_| {
            Ok((
                "tools/call",
                json!({"name": "add", "arguments": {"a": 2, "b": 3}}),
            ))
        },
        check: |result| {
            result["isError"] != true && result["structuredContent"]["sum"].as_f64() == Some(5.0)
        },
    },
    RequestKind {
        label: "tools/call add, 2026-07-28",
        capability: Some("tools"),
        modern: true,
        // The same call with what this revision puts on every request: the
        // server checks it each time, and dresses each result.
        prepare: |_| {
            let meta = json!({
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
            });
            let arguments = json!({"a": 2, "b": 3});
            Ok((
                "tools/call",
                json!({"_meta": meta, "name": "add", "arguments": arguments}),
            ))
        },
        check: |result| {
            result["resultType"] == "complete"
                && result["isError"] != true
                && result["structuredContent"]["sum"].as_f64() == Some(5.0)
        },
    },
    RequestKind {
        label: "resources/read",
        capability: Some("resources"),
        modern: false,
        // Read the first resource the server lists, whatever its URI.
        prepare: |server| {
            let list = server.request("resources/list", json!({}))?;
            let uri = list["resources"][0]["uri"]
                .as_str()
                .ok_or("resources/list is empty")?;
            Ok(("resources/read", json!({"uri": uri})))
        },
        check: |result| result["contents"].as_array().is_some_and(|c| !c.is_empty()),
    },
    RequestKind {
        label: "ping",
        capability: None,
        modern: false,
        prepare: |_| Ok(("ping", json!({}))),
        check: |result| result.as_object().is_some_and(|o| o.is_empty()),
    },
];

fn requests_for(capabilities: &Value, modern: bool) -> Vec<&'static RequestKind> {
    let announced = |kind: &&RequestKind| {
        kind.capability
            .is_some_and(|c| capabilities.get(c).is_some())
            && (modern || !kind.modern)
    };
    let rows: Vec<_> = REQUESTS.iter().filter(announced).collect();
    if rows.is_empty() {
        REQUESTS
            .iter()
            .filter(|kind| kind.capability.is_none())
            .collect()
    } else {
        rows
    }
}
// ANCHOR_END: requests

/// One line of the table.
struct Row {
    chapter: String,
    request: &'static str,
    cold_start_median_ms: f64,
    cold_start_min_ms: f64,
    round_trip_min_us: f64,
    round_trip_median_us: f64,
    round_trip_p99_us: f64,
    frames_per_s: f64,
    /// `frames_per_s` over the baseline's, for the request the baseline serves.
    vs_plain: Option<f64>,
    /// `round_trip_median_us` over the baseline's, for the same request.
    rtt_vs_plain: Option<f64>,
    peak_mib: Option<f64>,
}

/// `cargo xtask bench [NN ...] [--runs N]`: args are what follows `bench`.
pub fn run(args: &[String]) -> Result<(), String> {
    bench(args).map_err(|err| format!("bench: {err}"))
}

fn bench(args: &[String]) -> Result<(), String> {
    let Some(options) = Options::parse(args)? else {
        print!("{USAGE}");
        return Ok(());
    };
    let chapters = server_chapters(&options.chapters)?;
    let started = Instant::now();
    // Every build first, so no compiler runs while the clock does.
    eprintln!("bench: building the baseline, {PLAIN_BIN}, in release mode");
    let plain = target::build_release_bin(PLAIN_PACKAGE, PLAIN_BIN)?;
    let mut binaries = Vec::new();
    for chapter in &chapters {
        let package = chapter.solution_package();
        eprintln!("bench: building {package} in release mode");
        binaries.push(target::build_release(&package)?);
    }

    let watchdog = Watchdog::start();
    // The baseline first: every ratio in the table is to this run's numbers.
    let mut rows = bench_server(PLAIN_LABEL, &plain, false, options.runs, &watchdog)?;
    for (chapter, exe) in chapters.iter().zip(&binaries) {
        let modern = first_method(chapter).as_deref() == Some("server/discover");
        rows.extend(bench_server(
            &chapter.dir,
            exe,
            modern,
            options.runs,
            &watchdog,
        )?);
    }
    // And once more at the end, keeping the faster of its two pipelined runs:
    // a busy moment during one run must not flatter the chapters.
    eprintln!("bench: {PLAIN_LABEL}: {} again", REQUESTS[0].label);
    let (mut round_trips, again, _) = measure(&plain, &REQUESTS[0], &watchdog)?;
    round_trips.sort_unstable();
    let again_median_us = percentile(&round_trips, 50.0) as f64 / 1e3;
    let baseline = rows
        .iter_mut()
        .find(|row| row.chapter == PLAIN_LABEL && row.request == REQUESTS[0].label)
        .ok_or("the baseline announced no tools")?;
    baseline.frames_per_s = baseline.frames_per_s.max(again);
    baseline.round_trip_median_us = baseline.round_trip_median_us.min(again_median_us);
    let plain_frames_per_s = baseline.frames_per_s;
    let plain_median_us = baseline.round_trip_median_us;
    for row in rows
        .iter_mut()
        .filter(|row| row.request.starts_with(REQUESTS[0].label))
    {
        row.vs_plain = Some(row.frames_per_s / plain_frames_per_s);
        row.rtt_vs_plain = Some(row.round_trip_median_us / plain_median_us);
    }
    eprintln!("bench: done in {:.1} s", started.elapsed().as_secs_f64());

    let machine = Machine::detect();
    print!("{}", table(&rows, &machine));
    if let Some(path) = &options.json {
        write_json(path, &rows, &machine, &options)?;
        eprintln!("bench: wrote {}", path.display());
    }
    Ok(())
}

/// Every measurement of one server: a row per request it serves.
fn bench_server(
    name: &str,
    exe: &Path,
    modern: bool,
    runs: usize,
    watchdog: &Watchdog,
) -> Result<Vec<Row>, String> {
    eprintln!("bench: {name}: {runs} cold starts");
    let (cold, capabilities) = cold_start(exe, runs, watchdog)?;
    let cold_median = percentile(&cold, 50.0) as f64 / 1e6;
    let cold_min = cold[0] as f64 / 1e6;
    let mut rows = Vec::new();
    for kind in requests_for(&capabilities, modern) {
        eprintln!("bench: {name}: {}", kind.label);
        let (round_trips, frames_per_s, peak_mib) = measure(exe, kind, watchdog)
            .map_err(|err| format!("{name} ({}): {err}", kind.label))?;
        rows.push(Row {
            chapter: name.to_string(),
            request: kind.label,
            cold_start_median_ms: cold_median,
            cold_start_min_ms: cold_min,
            round_trip_min_us: round_trips[0] as f64 / 1e3,
            round_trip_median_us: percentile(&round_trips, 50.0) as f64 / 1e3,
            round_trip_p99_us: percentile(&round_trips, 99.0) as f64 / 1e3,
            frames_per_s,
            vs_plain: None,
            rtt_vs_plain: None,
            peak_mib,
        });
    }
    Ok(rows)
}

// ---------------------------------------------------------------------------
// Options, chapters, building
// ---------------------------------------------------------------------------

struct Options {
    /// Chapters named on the command line; empty means "all of them".
    chapters: Vec<String>,
    runs: usize,
    json: Option<PathBuf>,
}

impl Options {
    /// `Ok(None)` means `--help`.
    fn parse(args: &[String]) -> Result<Option<Options>, String> {
        let mut options = Options {
            chapters: Vec::new(),
            runs: DEFAULT_RUNS,
            json: None,
        };
        let mut args = args.iter();
        while let Some(arg) = args.next() {
            // Accept both `--runs 50` and `--runs=50`.
            let (flag, inline) = match arg.split_once('=') {
                Some((flag, value)) if flag.starts_with("--") => (flag, Some(value.to_string())),
                _ => (arg.as_str(), None),
            };
            let mut value = || {
                inline
                    .clone()
                    .or_else(|| args.next().cloned())
                    .ok_or(format!("{flag} needs a value"))
            };
            match flag {
                "-h" | "--help" => return Ok(None),
                "--runs" => {
                    let runs = value()?;
                    options.runs = match runs.parse() {
                        Ok(n) if n > 0 => n,
                        _ => return Err(format!("--runs wants a positive number, not {runs:?}")),
                    };
                }
                "--json" => options.json = Some(PathBuf::from(value()?)),
                _ if arg.starts_with('-') => {
                    return Err(format!("unknown argument {arg:?}\n\n{USAGE}"));
                }
                _ => options.chapters.push(arg.clone()),
            }
        }
        Ok(Some(options))
    }
}

/// The chapters to benchmark: those named (each must build a server), or
/// every chapter that builds one.
fn server_chapters(wanted: &[String]) -> Result<Vec<Chapter>, String> {
    let servers: Vec<Chapter> = Chapter::all().into_iter().filter(is_server).collect();
    if wanted.is_empty() {
        return Ok(servers);
    }
    wanted
        .iter()
        .map(|name| {
            let chapter = Chapter::find(name)?;
            if servers.contains(&chapter) {
                return Ok(chapter);
            }
            let known: Vec<String> = servers.iter().map(|c| format!("{:02}", c.number)).collect();
            Err(format!(
                "chapter {:02} builds no MCP server; the servers are chapters {}",
                chapter.number,
                known.join(", ")
            ))
        })
        .collect()
}

/// A chapter builds an MCP server when its tour is played against a server
/// (not a host) and opens with `initialize`, or with `server/discover` (a
/// 2026-07-28 server, which takes the handshake too): chapter 01 echoes lines
/// but speaks no MCP, and Part II builds hosts.
fn is_server(chapter: &Chapter) -> bool {
    matches!(
        first_method(chapter).as_deref(),
        Some("initialize" | "server/discover")
    )
}

/// The method of the first request of a server chapter's tour.
fn first_method(chapter: &Chapter) -> Option<String> {
    let tour = Transcript::load(&chapter.transcript_path("tour")).ok()?;
    if tour.runner != Runner::Server {
        return None;
    }
    let first = tour.frames_in(Direction::ClientToServer).next()?;
    let request: Value = serde_json::from_slice(&first.bytes).ok()?;
    request["method"].as_str().map(str::to_string)
}

// ---------------------------------------------------------------------------
// Talking to a server
// ---------------------------------------------------------------------------

/// A running server and the two ends of its pipes.
struct Server {
    child: Arc<Mutex<Child>>,
    pid: u32,
    /// `None` once handed to the writer thread (or closed).
    stdin: Option<BufWriter<ChildStdin>>,
    stdout: BufReader<ChildStdout>,
    /// Reused for every reply, to keep allocation out of the timings.
    line: String,
    next_id: u64,
}

impl Server {
    fn spawn(exe: &Path, watchdog: &Watchdog) -> Result<Server, String> {
        let mut child = Command::new(exe)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null()) // The servers log to stderr; we don't need it.
            .spawn()
            .map_err(|err| format!("cannot start {}: {err}", exe.display()))?;
        let stdin = BufWriter::with_capacity(64 * 1024, child.stdin.take().unwrap());
        let stdout = BufReader::with_capacity(64 * 1024, child.stdout.take().unwrap());
        let pid = child.id();
        let child = Arc::new(Mutex::new(child));
        watchdog.watch(Some(Arc::clone(&child)));
        Ok(Server {
            child,
            pid,
            stdin: Some(stdin),
            stdout,
            line: String::new(),
            next_id: 2,
        })
    }

    /// Writes one frame (a line) and flushes it.
    fn send(&mut self, frame: &str) -> Result<(), String> {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{frame}")
            .and_then(|()| stdin.flush())
            .map_err(|err| format!("cannot write: {err}"))
    }

    /// Reads one reply frame into `self.line`.
    fn receive(&mut self) -> Result<(), String> {
        self.line.clear();
        match self.stdout.read_line(&mut self.line) {
            Ok(0) => Err("the server closed stdout (did it crash, or hang and get killed?)".into()),
            Ok(_) => Ok(()),
            Err(err) => Err(format!("cannot read: {err}")),
        }
    }

    /// `initialize` then `notifications/initialized`; returns the capabilities.
    fn handshake(&mut self) -> Result<Value, String> {
        self.send(INITIALIZE)?;
        self.receive()?;
        let result = result_of(&self.line, 1)?;
        self.send(INITIALIZED)?;
        Ok(result["capabilities"].clone())
    }

    /// One request, outside the timings; returns its result.
    fn request(&mut self, method: &str, params: Value) -> Result<Value, String> {
        let id = self.next_id;
        self.next_id += 1;
        self.send(
            &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string(),
        )?;
        self.receive()?;
        result_of(&self.line, id)
    }

    /// Closes stdin and waits for the server to exit, as it should, with 0.
    fn close(mut self, watchdog: &Watchdog) -> Result<(), String> {
        drop(self.stdin.take());
        // Poll rather than block in `wait`, so the watchdog can still get at
        // the child (and kill it) if it never exits.
        let status = loop {
            let status = self.child.lock().unwrap().try_wait();
            match status {
                Ok(Some(status)) => break status,
                Ok(None) => thread::sleep(Duration::from_micros(200)),
                Err(err) => return Err(format!("cannot wait for the server: {err}")),
            }
        };
        watchdog.watch(None);
        match status.success() {
            true => Ok(()),
            false => Err(format!(
                "the server exited with {status} after stdin closed"
            )),
        }
    }
}

/// Checks that `line` is a reply to request `id` with a result; returns it.
fn result_of(line: &str, id: u64) -> Result<Value, String> {
    let reply: Value = serde_json::from_str(line)
        .map_err(|err| format!("reply is not JSON ({err}): {}", line.trim_end()))?;
    if reply["id"] != id {
        return Err(format!(
            "expected the reply to id {id}, got: {}",
            line.trim_end()
        ));
    }
    match reply.get("result") {
        Some(result) => Ok(result.clone()),
        None => Err(format!("expected a result, got: {}", line.trim_end())),
    }
}

/// Kills the watched server when it goes `HANG_LIMIT` without being
/// released, so a hung server fails the run instead of hanging it. One thread
/// for the whole run, so watching a server costs a channel send, not a spawn.
struct Watchdog {
    watch: mpsc::Sender<Option<Arc<Mutex<Child>>>>,
}

impl Watchdog {
    fn start() -> Watchdog {
        let (watch, orders) = mpsc::channel::<Option<Arc<Mutex<Child>>>>();
        thread::spawn(move || {
            let mut watched = None;
            loop {
                match orders.recv_timeout(HANG_LIMIT) {
                    Ok(next) => watched = next,
                    Err(RecvTimeoutError::Timeout) => {
                        if let Some(child) = watched.take() {
                            eprintln!("bench: the server hung for {HANG_LIMIT:?}; killing it");
                            let _ = child.lock().unwrap().kill();
                        }
                    }
                    Err(RecvTimeoutError::Disconnected) => return,
                }
            }
        });
        Watchdog { watch }
    }

    /// Starts watching `child` (`None`: stop watching) and resets the clock.
    fn watch(&self, child: Option<Arc<Mutex<Child>>>) {
        let _ = self.watch.send(child);
    }
}

// ---------------------------------------------------------------------------
// The measurements
// ---------------------------------------------------------------------------

/// Spawn → `initialize` reply, `runs` times. Returns the times in ns,
/// sorted, and the capabilities from the first reply.
fn cold_start(exe: &Path, runs: usize, watchdog: &Watchdog) -> Result<(Vec<u64>, Value), String> {
    let mut times = Vec::with_capacity(runs);
    let mut capabilities = Value::Null;
    for _ in 0..runs {
        let start = Instant::now();
        let mut server = Server::spawn(exe, watchdog)?;
        server.send(INITIALIZE)?;
        server.receive()?;
        times.push(start.elapsed().as_nanos() as u64);
        // Check the reply after the clock stops: checking is our cost, not the server's.
        capabilities = result_of(&server.line, 1)?["capabilities"].clone();
        server.close(watchdog)?;
    }
    times.sort_unstable();
    Ok((times, capabilities))
}

/// Round trips and pipelined throughput on one server, then its peak memory.
/// Returns the sorted round-trip times in ns, frames/s and MiB.
fn measure(
    exe: &Path,
    kind: &'static RequestKind,
    watchdog: &Watchdog,
) -> Result<(Vec<u64>, f64, Option<f64>), String> {
    let mut server = Server::spawn(exe, watchdog)?;
    server.handshake()?;
    let (method, params) = (kind.prepare)(&mut server)?;
    // Every request is this frame with its own id: `{"jsonrpc":"2.0","id":N` + tail.
    let tail = format!(r#","method":{},"params":{params}}}"#, json!(method));
    let mut frame = String::new();
    let mut checker = ReplyChecker::new(kind);

    // Sequential round trips: the latency a client waiting on each reply sees.
    let mut round_trips = Vec::with_capacity(ROUND_TRIPS as usize);
    for i in 0..WARM_UP + ROUND_TRIPS {
        let id = server.next_id + i;
        frame.clear();
        write!(frame, r#"{{"jsonrpc":"2.0","id":{id}{tail}"#).unwrap();
        let start = Instant::now();
        server.send(&frame)?;
        server.receive()?;
        let elapsed = start.elapsed().as_nanos() as u64;
        checker.check(&server.line, id)?;
        if i >= WARM_UP {
            round_trips.push(elapsed);
        }
    }
    server.next_id += WARM_UP + ROUND_TRIPS;
    round_trips.sort_unstable();

    // Pipelined: a writer thread streams every request while this thread
    // reads and checks the replies, so the pipes never sit empty.
    let first = server.next_id;
    let mut stdin = server.stdin.take().unwrap();
    let start = Instant::now();
    let stdin = thread::scope(|scope| {
        let writer = scope.spawn(move || {
            for id in first..first + PIPELINED {
                write!(stdin, r#"{{"jsonrpc":"2.0","id":{id}{tail}"#)?;
                stdin.write_all(b"\n")?;
            }
            stdin.flush()?;
            Ok::<_, std::io::Error>(stdin) // Keep stdin open: we still read memory.
        });
        for id in first..first + PIPELINED {
            server.receive()?;
            checker.check(&server.line, id)?;
        }
        writer
            .join()
            .unwrap()
            .map_err(|err| format!("cannot write: {err}"))
    })?;
    let frames_per_s = PIPELINED as f64 / start.elapsed().as_secs_f64();

    // Peak memory, read while the server is still alive.
    let peak_mib = peak_memory_mib(server.pid);
    server.stdin = Some(stdin);
    server.close(watchdog)?;
    Ok((round_trips, frames_per_s, peak_mib))
}

/// Checks replies without letting the check dominate the timings: parsing
/// every reply as JSON (slow in a debug build of xtask) would make the client,
/// not the server, the bottleneck. The first reply is parsed and checked in
/// full and becomes a template; a later reply passes if it is the same bytes
/// with its own id. Any other reply is parsed and checked in full.
struct ReplyChecker {
    kind: &'static RequestKind,
    /// The checked reply, split around its id: `{"jsonrpc":"2.0","id":` and
    /// `,"result":{…}}\n`.
    template: Option<(String, String)>,
    id: String,
}

impl ReplyChecker {
    fn new(kind: &'static RequestKind) -> ReplyChecker {
        ReplyChecker {
            kind,
            template: None,
            id: String::new(),
        }
    }

    fn check(&mut self, line: &str, id: u64) -> Result<(), String> {
        self.id.clear();
        write!(self.id, "{id}").unwrap();
        if let Some((before, after)) = &self.template
            && line.len() == before.len() + self.id.len() + after.len()
            && line.starts_with(before.as_str())
            && line.ends_with(after.as_str())
            && line[before.len()..].starts_with(self.id.as_str())
        {
            return Ok(()); // The checked reply, byte for byte, with this id.
        }
        if !(self.kind.check)(&result_of(line, id)?) {
            return Err(format!("wrong answer: {}", line.trim_end()));
        }
        // Keep the reply as the template if `"id":N` occurs in it just once
        // (a compact top-level id); otherwise keep checking in full.
        let needle = format!(r#""id":{id}"#);
        if self.template.is_none() && line.matches(&needle).count() == 1 {
            let at = line.find(&needle).unwrap() + needle.len() - self.id.len();
            let after = at + self.id.len();
            self.template = Some((line[..at].to_string(), line[after..].to_string()));
        }
        Ok(())
    }
}

/// The process's resident-memory high-water mark, from `/proc` (Linux only).
fn peak_memory_mib(pid: u32) -> Option<f64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

/// The nearest-rank percentile of sorted samples: `p` = 50 is the median.
fn percentile(sorted: &[u64], p: f64) -> u64 {
    let rank = (p / 100.0 * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

// ---------------------------------------------------------------------------
// Reporting
// ---------------------------------------------------------------------------

struct Machine {
    cpus: usize,
    arch: String,
    rustc: String,
}

impl Machine {
    fn detect() -> Machine {
        // The first line a command prints, or `None` if it cannot run.
        let first_line = |program: &str, arg: &str| {
            let output = Command::new(program).arg(arg).output().ok()?;
            let text = String::from_utf8(output.stdout).ok()?;
            Some(text.lines().next()?.trim().to_string())
        };
        Machine {
            cpus: thread::available_parallelism().map_or(1, |n| n.get()),
            arch: first_line("uname", "-m").unwrap_or_else(|| std::env::consts::ARCH.to_string()),
            rustc: first_line("rustc", "--version")
                .unwrap_or_else(|| "rustc (unknown version)".into()),
        }
    }
}

/// The Markdown table; a cell that misses its target ends in `!`.
fn table(rows: &[Row], machine: &Machine) -> String {
    let mark = |cell: String, ok: bool| if ok { cell } else { cell + "!" };
    let mut out = String::new();
    out += "| chapter | request | cold start median (ms) | round trip median (µs) \
            | round trip vs plain | round trip p99 (µs) | pipelined (frames/s) \
            | pipelined vs plain | peak memory (MiB) |\n";
    out += "|---|---|--:|--:|--:|--:|--:|--:|--:|\n";
    for row in rows {
        let memory = match row.peak_mib {
            Some(mib) => mark(format!("{mib:.1}"), mib < TARGET_PEAK_MIB),
            None => "n/a".to_string(),
        };
        let vs_plain = match row.vs_plain {
            Some(ratio) => mark(format!("{ratio:.2}×"), ratio >= TARGET_VS_PLAIN),
            None => "–".to_string(),
        };
        let rtt_vs_plain = match row.rtt_vs_plain {
            Some(ratio) => mark(format!("{ratio:.2}×"), ratio <= TARGET_RTT_VS_PLAIN),
            None => "–".to_string(),
        };
        writeln!(
            out,
            "| {} | {} | {} | {} | {} | {:.1} | {} | {} | {} |",
            row.chapter,
            row.request,
            mark(
                format!("{:.2}", row.cold_start_median_ms),
                row.cold_start_median_ms < TARGET_COLD_START_MS
            ),
            mark(
                format!("{:.1}", row.round_trip_median_us),
                row.round_trip_median_us < TARGET_ROUND_TRIP_US
            ),
            rtt_vs_plain,
            row.round_trip_p99_us,
            mark(
                thousands(row.frames_per_s as u64),
                row.frames_per_s > TARGET_FRAMES_PER_S
            ),
            vs_plain,
            memory,
        )
        .unwrap();
    }
    out += "\ntargets on a 2-core machine: cold start < 2 ms, round trip median < 30 µs, \
            > 150,000 pipelined frames/s, < 4 MiB peak memory; for `tools/call add`, a round \
            trip median at most 1.25× and a pipelined rate at least 0.67× the plain serde_json \
            server's in the same run (`!` marks a miss)\n";
    writeln!(
        out,
        "machine: {} CPUs, {}, {}",
        machine.cpus, machine.arch, machine.rustc
    )
    .unwrap();
    out
}

/// 1234567 → "1,234,567".
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// The same numbers as JSON, for the book's appendix.
fn write_json(
    path: &Path,
    rows: &[Row],
    machine: &Machine,
    options: &Options,
) -> Result<(), String> {
    let round = |x: f64, digits: i32| (x * 10f64.powi(digits)).round() / 10f64.powi(digits);
    let results: Vec<Value> = rows
        .iter()
        .map(|row| {
            json!({
                "chapter": row.chapter,
                "request": row.request,
                "cold_start_ms": {
                    "median": round(row.cold_start_median_ms, 3),
                    "min": round(row.cold_start_min_ms, 3),
                },
                "round_trip_us": {
                    "min": round(row.round_trip_min_us, 2),
                    "median": round(row.round_trip_median_us, 2),
                    "p99": round(row.round_trip_p99_us, 2),
                },
                "pipelined_frames_per_s": row.frames_per_s.round() as u64,
                "pipelined_vs_plain": row.vs_plain.map(|ratio| round(ratio, 3)),
                "round_trip_vs_plain": row.rtt_vs_plain.map(|ratio| round(ratio, 3)),
                "peak_memory_mib": row.peak_mib.map(|mib| round(mib, 2)),
            })
        })
        .collect();
    let document = json!({
        "machine": { "cpus": machine.cpus, "arch": machine.arch, "rustc": machine.rustc },
        "settings": {
            "cold_start_runs": options.runs,
            "round_trip_warm_up": WARM_UP,
            "round_trips": ROUND_TRIPS,
            "pipelined_frames": PIPELINED,
        },
        "targets": {
            "cold_start_median_ms": TARGET_COLD_START_MS,
            "round_trip_median_us": TARGET_ROUND_TRIP_US,
            "pipelined_frames_per_s": TARGET_FRAMES_PER_S,
            "peak_memory_mib": TARGET_PEAK_MIB,
            "pipelined_vs_plain": round(TARGET_VS_PLAIN, 3),
            "round_trip_vs_plain": TARGET_RTT_VS_PLAIN,
        },
        "results": results,
    });
    if let Some(dir) = path.parent().filter(|dir| !dir.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|err| format!("cannot create {}: {err}", dir.display()))?;
    }
    let text = serde_json::to_string_pretty(&document).unwrap() + "\n";
    std::fs::write(path, text).map_err(|err| format!("cannot write {}: {err}", path.display()))
}
