//! The sandbox's only way out (chapter 24), as sandbox-runtime builds it
//! for Claude Code: a command inside a sandbox has no network at all, and
//! reaches an HTTP proxy outside it through a Unix socket the sandbox can
//! see. The proxy reads one request head, asks the harness whether the
//! host is allowed, and either connects and passes the bytes both ways,
//! unread, or answers 403 with `X-Proxy-Error: blocked-by-allowlist`
//! (sandbox-runtime's header). Inside, a bridge listens where the proxy
//! variables point (127.0.0.1:3128) and forwards to the socket.
//! Support-own: plumbing; which hosts are allowed is the chapter's lesson.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::thread;

/// Where the bridge listens inside the sandbox, and the proxy variables
/// name: sandbox-runtime's port.
pub const BRIDGE_PORT: u16 = 3128;
/// The argument that makes a harness the bridge (`--sandbox-bridge SOCKET
/// COMMAND…`), inside the sandbox.
pub const BRIDGE: &str = "--sandbox-bridge";
/// The longest request head the proxy reads.
const MAX_HEAD: u64 = 16 * 1024;

/// Starts the proxy on a new Unix socket at `socket`, in threads of its
/// own; `allowed` decides each host. `program` names the harness in the
/// one line each decision writes on stderr.
pub fn start(
    program: &'static str,
    socket: &Path,
    allowed: impl Fn(&str) -> bool + Send + Sync + 'static,
) -> Result<(), String> {
    let _ = std::fs::remove_file(socket);
    let listener = UnixListener::bind(socket)
        .map_err(|err| format!("cannot listen on {}: {err}", socket.display()))?;
    let allowed = Arc::new(allowed);
    thread::spawn(move || {
        for client in listener.incoming().flatten() {
            let allowed = Arc::clone(&allowed);
            thread::spawn(move || {
                if let Err(err) = serve(program, client, &*allowed) {
                    eprintln!("{program}: proxy: {err}");
                }
            });
        }
    });
    Ok(())
}

/// One client: its head read, the host decided, the bytes passed on.
fn serve(program: &str, client: UnixStream, allowed: &dyn Fn(&str) -> bool) -> io::Result<()> {
    let mut reader = BufReader::new(client.try_clone()?);
    let mut head = Vec::new();
    let mut limited = (&mut reader).take(MAX_HEAD);
    while !head.ends_with(b"\r\n\r\n") && limited.read_until(b'\n', &mut head)? > 0 {}
    let head_text = String::from_utf8_lossy(&head).to_string();
    let first = head_text.lines().next().unwrap_or_default();
    let mut words = first.split_whitespace();
    let (method, target) = (words.next().unwrap_or(""), words.next().unwrap_or(""));
    let (host, port) = match method {
        "CONNECT" => split_host(target, 443),
        _ => split_host(
            target
                .strip_prefix("http://")
                .unwrap_or("")
                .split('/')
                .next()
                .unwrap_or(""),
            80,
        ),
    };
    let mut client = client;
    if host.is_empty() || !allowed(&host) {
        eprintln!("{program}: sandbox proxy: refused {host}:{port}: not an allowed domain");
        client.write_all(
            b"HTTP/1.1 403 Forbidden\r\nX-Proxy-Error: blocked-by-allowlist\r\n\
              Content-Length: 0\r\nConnection: close\r\n\r\n",
        )?;
        return Ok(());
    }
    eprintln!("{program}: sandbox proxy: {host}:{port} allowed");
    let Ok(mut server) = TcpStream::connect((host.as_str(), port)) else {
        client.write_all(
            b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
        )?;
        return Ok(());
    };
    match method {
        "CONNECT" => client.write_all(b"HTTP/1.1 200 Connection Established\r\n\r\n")?,
        _ => server.write_all(&head)?,
    }
    // What the reader already holds of the body goes first.
    server.write_all(reader.buffer())?;
    splice(client, server)
}

/// `host:port` (or `[v6]:port`), with `default` when there is no port.
fn split_host(target: &str, default: u16) -> (String, u16) {
    let (host, port) = match target.rsplit_once(':') {
        Some((host, port)) if !host.ends_with(']') || host.starts_with('[') => {
            (host, port.parse().unwrap_or(default))
        }
        _ => (target, default),
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    (host.trim_end_matches('.').to_lowercase(), port)
}

/// Copies bytes both ways; when one side stops sending, the other is told
/// (its write half shut), so that neither waits for the other forever.
fn splice(unix: UnixStream, tcp: TcpStream) -> io::Result<()> {
    let (mut unix_in, mut unix_out) = (unix.try_clone()?, unix);
    let (mut tcp_in, mut tcp_out) = (tcp.try_clone()?, tcp);
    let up = thread::spawn(move || {
        let _ = io::copy(&mut unix_in, &mut tcp_out);
        let _ = tcp_out.shutdown(Shutdown::Write);
    });
    let _ = io::copy(&mut tcp_in, &mut unix_out);
    let _ = unix_out.shutdown(Shutdown::Write);
    let _ = up.join();
    Ok(())
}

/// The bridge, run inside the sandbox as `HARNESS --sandbox-bridge SOCKET
/// COMMAND…`: listens on 127.0.0.1:3128, forwards each connection to the
/// proxy's socket, runs the command, and exits with its status.
pub fn bridge(socket: PathBuf, command: &[String]) -> i32 {
    match TcpListener::bind(("127.0.0.1", BRIDGE_PORT)) {
        Ok(listener) => {
            thread::spawn(move || {
                for client in listener.incoming().flatten() {
                    if let Ok(proxy) = UnixStream::connect(&socket) {
                        thread::spawn(move || splice(proxy, client));
                    }
                }
            });
        }
        Err(err) => eprintln!("sandbox bridge: cannot listen on port {BRIDGE_PORT}: {err}"),
    }
    let Some((program, args)) = command.split_first() else {
        return 2;
    };
    match std::process::Command::new(program).args(args).status() {
        Ok(status) => status.code().unwrap_or(1),
        Err(err) => {
            eprintln!("sandbox bridge: cannot run {program}: {err}");
            127
        }
    }
}
