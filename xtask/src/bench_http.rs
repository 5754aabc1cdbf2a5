//! `cargo xtask bench --http`: chapter 13's server under load on loopback.
//!
//! Several clients, each on its own keep-alive connection, send a modern
//! `tools/call` of `add` as fast as the replies come, for a bounded time.
//! Every reply is checked (status 200, a result and no error), so a broken
//! server fails the benchmark instead of looking fast. Beside it, in the
//! same run: the baseline, bare hyper answering every request with the same
//! constant bytes (`tests/plain-http`), measured first and again last, the
//! faster run counting; and the official Python SDK's Streamable HTTP server
//! with the same tool, when tests/peers/install.sh has put it in .peers/venv.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use wire_tests::course;
use wire_tests::run::http_runner;
use wire_tests::run::target;

const USAGE: &str = "\
Usage: cargo xtask bench --http [--seconds N] [--clients N]

  --seconds N  how long each server is measured (default 3)
  --clients N  concurrent clients, one connection each (default 4)
";

/// The Python SDK's server, with the same `add` tool; stateless, JSON replies.
const PYTHON_PEER: &str = r#"
import sys
from mcp.server import MCPServer
mcp = MCPServer("python-peer")
@mcp.tool()
def add(a: float, b: float) -> dict:
    """Adds two numbers."""
    return {"sum": a + b}
mcp.run("streamable-http", host="127.0.0.1", port=int(sys.argv[1]),
        json_response=True, stateless_http=True)
"#;

/// Chapter 13's target: at least this share of bare hyper's requests/s.
const TARGET_VS_BARE: f64 = 0.9;

const BODY: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"wire-bench","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":{}},"name":"add","arguments":{"a":2,"b":3}}}"#;

struct Row {
    name: String,
    requests: usize,
    failed: usize,
    seconds: f64,
    /// Latencies in microseconds, sorted.
    latencies: Vec<u64>,
}

impl Row {
    /// Answered requests per second.
    fn rate(&self) -> f64 {
        self.latencies.len() as f64 / self.seconds
    }
}

pub fn run(args: &[String]) -> Result<(), String> {
    let (mut seconds, mut clients) = (3u64, 4usize);
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let mut number = |name: &str| {
            args.next()
                .and_then(|value| value.parse::<u64>().ok())
                .filter(|value| *value > 0)
                .ok_or(format!("{name} wants a positive number"))
        };
        match arg.as_str() {
            "--http" => {}
            "--seconds" => seconds = number("--seconds")?.min(60),
            "--clients" => clients = number("--clients")?.min(64) as usize,
            "-h" | "--help" => {
                print!("{USAGE}");
                return Ok(());
            }
            _ => return Err(format!("bench --http: unknown argument {arg:?}\n{USAGE}")),
        }
    }
    let duration = Duration::from_secs(seconds);
    let exe = target::build_release("ch13-http-solution")?;
    let bare = target::build_release("plain-http-server")?;
    // The baseline runs first and again last; the faster run counts, so a
    // busy moment cannot flatter chapter 13.
    let first = measure_listener("bare hyper, constant reply", &bare, &[], duration, clients)?;
    let ours = measure_ours(&exe, duration, clients)?;
    let last = measure_listener("bare hyper, constant reply", &bare, &[], duration, clients)?;
    let baseline = if first.rate() >= last.rate() {
        first
    } else {
        last
    };
    let mut rows = vec![baseline, ours];
    match measure_python(duration, clients) {
        Ok(row) => rows.push(row),
        Err(why) => eprintln!("bench --http: no Python peer: {why}"),
    }
    println!("{}", table(&rows, seconds, clients));
    match rows.iter().find(|row| row.failed > 0) {
        Some(row) => Err(format!("{}: {} requests failed", row.name, row.failed)),
        None => Ok(()),
    }
}

fn measure_ours(exe: &Path, duration: Duration, clients: usize) -> Result<Row, String> {
    let state = std::env::temp_dir().join(format!("wire-bench-http-{}", std::process::id()));
    let state_arg = state.to_string_lossy().into_owned();
    let args = ["--listen", "127.0.0.1:0", "--state", state_arg.as_str()];
    let row = measure_listener("ch13-http (hyper)", exe, &args, duration, clients);
    let _ = std::fs::remove_dir_all(&state);
    row
}

/// Starts `exe`, reads where it listens from its first stderr line
/// (`listening on http://ADDR/mcp`, chapter 13's words), loads it, stops it.
fn measure_listener(
    name: &str,
    exe: &Path,
    args: &[&str],
    duration: Duration,
    clients: usize,
) -> Result<Row, String> {
    let mut child = Command::new(exe)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|err| format!("cannot start {}: {err}", exe.display()))?;
    let mut first = String::new();
    let stderr = child.stderr.take().expect("piped");
    BufReader::new(stderr)
        .read_line(&mut first)
        .map_err(|err| err.to_string())?;
    let address = http_runner::listening_address(&first)
        .ok_or(format!("unexpected first line {first:?}"))?
        .to_string();
    let row = load(name, &address, "/mcp", duration, clients);
    stop(&mut child);
    Ok(row)
}

fn measure_python(duration: Duration, clients: usize) -> Result<Row, String> {
    let python = course::root().join(".peers/venv/bin/python");
    if !python.exists() {
        return Err("run tests/peers/install.sh first".to_string());
    }
    // A free port, released just before the peer takes it.
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map_err(|err| err.to_string())?
        .port();
    let mut child = Command::new(python)
        .args(["-c", PYTHON_PEER, &port.to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|err| err.to_string())?;
    let address = format!("127.0.0.1:{port}");
    let ready = (0..100).any(|_| {
        thread::sleep(Duration::from_millis(100));
        TcpStream::connect(&address).is_ok()
    });
    if !ready {
        stop(&mut child);
        return Err("the Python server did not start listening".to_string());
    }
    let row = load("Python SDK mcp 2.3.0", &address, "/mcp", duration, clients);
    stop(&mut child);
    Ok(row)
}

fn stop(child: &mut Child) {
    let _ = child.kill();
    let _ = child.wait();
}

/// `clients` threads, each sending one request after another on its own
/// keep-alive connection until `duration` is over.
fn load(name: &str, address: &str, path: &str, duration: Duration, clients: usize) -> Row {
    let request = format!(
        "POST {path} HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: tools/call\r\nMcp-Name: add\r\nContent-Length: {}\r\n\r\n{BODY}",
        BODY.len()
    );
    let start = Instant::now();
    let workers: Vec<_> = (0..clients)
        .map(|_| {
            let (request, address) = (request.clone(), address.to_string());
            thread::spawn(move || client(&address, &request, start + duration))
        })
        .collect();
    let mut latencies = Vec::new();
    let mut failed = 0;
    for worker in workers {
        let (times, failures) = worker.join().unwrap_or_default();
        latencies.extend(times);
        failed += failures;
    }
    let seconds = start.elapsed().as_secs_f64();
    latencies.sort_unstable();
    Row {
        name: name.to_string(),
        requests: latencies.len() + failed,
        failed,
        seconds,
        latencies,
    }
}

fn client(address: &str, request: &str, deadline: Instant) -> (Vec<u64>, usize) {
    let (mut times, mut failed) = (Vec::new(), 0);
    let mut connection: Option<BufReader<TcpStream>> = None;
    while Instant::now() < deadline {
        let sent = Instant::now();
        let reader = match connection.take() {
            Some(reader) => Ok(reader),
            None => TcpStream::connect(address).map(BufReader::new),
        };
        match reader.and_then(|mut reader| exchange(&mut reader, request).map(|ok| (reader, ok))) {
            Ok((reader, true)) => {
                times.push(sent.elapsed().as_micros() as u64);
                connection = Some(reader);
            }
            Ok((_, false)) | Err(_) => failed += 1,
        }
    }
    (times, failed)
}

/// One request and its whole response; `Ok(false)` when it is not a
/// 200 with a result.
fn exchange(reader: &mut BufReader<TcpStream>, request: &str) -> std::io::Result<bool> {
    reader.get_mut().write_all(request.as_bytes())?;
    let mut status = String::new();
    reader.read_line(&mut status)?;
    let mut length = 0;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line)?;
        if line == "\r\n" || line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    let body = String::from_utf8_lossy(&body);
    Ok(status.starts_with("HTTP/1.1 200")
        && body.contains("\"result\"")
        && !body.contains("\"error\""))
}

fn percentile(sorted: &[u64], p: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn table(rows: &[Row], seconds: u64, clients: usize) -> String {
    let bare = rows.first().map_or(0.0, Row::rate);
    let mut out = format!(
        "{clients} clients, {seconds} s each, keep-alive, modern tools/call add on loopback\n\n\
         | server | requests | failed | requests/s | vs bare hyper | p50 µs | p90 µs | p99 µs |\n\
         |---|--:|--:|--:|--:|--:|--:|--:|\n"
    );
    for row in rows {
        let ratio = row.rate() / bare;
        // Only chapter 13 has a target; `!` marks a miss, as in `bench`.
        let miss = if row.name.starts_with("ch13") && ratio < TARGET_VS_BARE {
            "!"
        } else {
            ""
        };
        out += &format!(
            "| {} | {} | {} | {:.0} | {ratio:.2}×{miss} | {} | {} | {} |\n",
            row.name,
            row.requests,
            row.failed,
            row.rate(),
            percentile(&row.latencies, 0.5),
            percentile(&row.latencies, 0.9),
            percentile(&row.latencies, 0.99),
        );
    }
    out += &format!(
        "\ntarget: chapter 13 at least {TARGET_VS_BARE}× bare hyper's requests/s in the same run \
         (the faster of bare hyper's two runs counts; `!` marks a miss)\n"
    );
    out
}
