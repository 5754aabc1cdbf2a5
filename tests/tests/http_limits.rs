//! Chapter 12's server under attack (issue 19): one client must never cost
//! the others. Each test proves it by the order of events, never by a
//! wall-clock assertion: another client's reply arrives while the first
//! still waits, and a client that stalls is cut off by the server (the
//! read-timeout here is only a safety net that fails the test).
#![cfg(unix)]

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};
use wire_tests::course::Chapter;
use wire_tests::target;

const LIMIT: Duration = Duration::from_secs(30);

fn binary() -> PathBuf {
    let chapter = Chapter::find("12").expect("chapter 12 exists");
    target::build(&chapter.solution_package()).unwrap_or_else(|err| panic!("{err}"))
}

struct Server {
    child: Child,
    address: String,
}

impl Server {
    fn start(args: &[&str]) -> Server {
        let mut child = Command::new(binary())
            .args(["--listen", "127.0.0.1:0"])
            .args(args)
            .env_remove("WIRE_TOKEN")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the server starts");
        let mut log = BufReader::new(child.stderr.take().unwrap());
        let mut first = String::new();
        log.read_line(&mut first).unwrap();
        let address = first
            .trim_end()
            .strip_prefix("listening on http://")
            .and_then(|rest| rest.strip_suffix("/mcp"))
            .unwrap_or_else(|| panic!("unexpected first line: {first:?}"))
            .to_string();
        // Keep reading the log so the server never blocks on a full pipe.
        std::thread::spawn(move || std::io::copy(&mut log, &mut std::io::sink()));
        Server { child, address }
    }

    fn connect(&self) -> TcpStream {
        let stream = TcpStream::connect(&self.address).unwrap();
        stream.set_read_timeout(Some(LIMIT)).unwrap();
        stream
    }

    /// POSTs a `tools/call` and returns the reply's body.
    fn call(&self, tool: &str, arguments: Value, extra: &str) -> String {
        let meta = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
        });
        let params = json!({ "_meta": meta, "name": tool, "arguments": arguments });
        let body = json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params })
            .to_string();
        let mut stream = self.connect();
        write!(
            stream,
            "POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
             MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: {tool}\r\n\
             {extra}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).unwrap();
        response
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wire-http-limits-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Reads until the server closes the connection; panics (the safety net)
/// if it never does.
fn closed_by_server(mut stream: TcpStream, what: &str) -> String {
    let mut seen = Vec::new();
    match stream.read_to_end(&mut seen) {
        Ok(_) => String::from_utf8_lossy(&seen).into_owned(),
        Err(err) if err.kind() == std::io::ErrorKind::ConnectionReset => String::new(),
        Err(err) => panic!("the server kept {what} open: {err}"),
    }
}

#[test]
fn a_held_lock_never_keeps_another_client_waiting() {
    let state = scratch("held");
    let server = Server::start(&["--state", state.to_str().unwrap()]);
    for _ in 0..2 {
        let started = server.call("start_draft", json!({ "title": "T" }), "");
        assert!(started.contains("\"isError\":false"), "{started}");
    }
    // Another process (this test) holds draft-1's lock. More clients than
    // the server has threads append to draft-1 and wait for it.
    let lock = File::create(state.join(".draft-1.json.lock")).unwrap();
    lock.lock().unwrap();
    let (done, events) = mpsc::channel();
    let waiting = std::thread::available_parallelism().map_or(4, |n| n.get() * 2);
    std::thread::scope(|scope| {
        for n in 0..waiting {
            let (server, done) = (&server, done.clone());
            scope.spawn(move || {
                let key = format!("k-{n}");
                let arguments = json!({ "draft": "draft-1", "text": "x", "operation_key": key });
                let reply = server.call("append_to_draft", arguments, "");
                done.send(("append", reply)).unwrap();
            });
        }
        std::thread::sleep(Duration::from_millis(300)); // let them reach the lock
        let reply = server.call("read_draft", json!({ "draft": "draft-2" }), "");
        done.send(("read", reply)).unwrap();
        let (first, reply) = events.recv().unwrap();
        assert_eq!(
            first, "read",
            "an append under the held lock answered first: {reply}"
        );
        assert!(reply.contains("\"isError\":false"), "{reply}");
        // Each waiting append is told, in the end, that the draft is locked.
        for _ in 0..waiting {
            let (_, reply) = events.recv().unwrap();
            assert!(reply.contains("being changed by another writer"), "{reply}");
        }
    });
    drop(lock);
}

#[test]
fn a_declared_length_over_the_limit_is_refused_before_the_body() {
    let server = Server::start(&[]);
    let mut stream = server.connect();
    let too_long = 1024 * 1024 + 1;
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
         Content-Length: {too_long}\r\n\r\n"
    )
    .unwrap();
    // Not a byte of the body is sent: the answer comes anyway.
    let mut head = [0; 32];
    stream.read_exact(&mut head).unwrap();
    assert!(String::from_utf8_lossy(&head).starts_with("HTTP/1.1 413"));
}

#[test]
fn unfinished_headers_and_bodies_are_cut_off_while_others_are_served() {
    let server = Server::start(&[]);
    let mut head = server.connect();
    head.write_all(b"POST /mcp HTTP/1.1\r\nHost: x\r\n")
        .unwrap();
    let mut body = server.connect();
    body.write_all(
        b"POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
          Content-Length: 100\r\n\r\n{\"jsonrpc\"",
    )
    .unwrap();
    let idle = server.connect();
    // Meanwhile another client is served.
    let reply = server.call("add", json!({ "a": 2, "b": 3 }), "");
    assert!(reply.contains("{\\\"sum\\\":5}"), "{reply}");
    // And the server, not the client, ends each stalled connection.
    let (sender, receiver) = mpsc::channel();
    for (stream, what) in [(head, "headers"), (body, "a body")] {
        let sender = sender.clone();
        std::thread::spawn(move || sender.send((what, closed_by_server(stream, what))));
    }
    drop(sender); // a thread that panics ends the wait below
    for _ in 0..2 {
        let (what, seen) = receiver
            .recv()
            .expect("a stalled connection was never closed");
        assert!(!seen.contains("200 OK"), "{what}: {seen}");
    }
    drop(idle); // IDLE_TIMEOUT is 30 s: not waited for here.
}

#[test]
fn the_bearer_scheme_is_case_insensitive() {
    let server = Server::start(&["--token", "s3cret"]);
    let reply = server.call(
        "add",
        json!({ "a": 2, "b": 3 }),
        "Authorization: bearer s3cret\r\n",
    );
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    let reply = server.call(
        "add",
        json!({ "a": 2, "b": 3 }),
        "Authorization: bearer wrong\r\n",
    );
    assert!(reply.starts_with("HTTP/1.1 401"), "{reply}");
}

#[test]
fn two_values_of_one_mcp_header_are_a_header_mismatch() {
    let server = Server::start(&[]);
    for extra in [
        "Mcp-Name: sub\r\n",
        "Mcp-Method: tools/list\r\n",
        "MCP-Protocol-Version: 2025-11-25\r\n",
    ] {
        let reply = server.call("add", json!({ "a": 2, "b": 3 }), extra);
        assert!(reply.starts_with("HTTP/1.1 400"), "{extra}: {reply}");
        assert!(reply.contains("-32020"), "{extra}: {reply}");
    }
}

/// Two instances behind a real load balancer: nginx from the distribution,
/// started here on loopback ports, round-robin. Each call goes through
/// nginx, so the instances take turns as they would in production; the
/// retry lands on the other instance and gets the first outcome back.
#[test]
fn two_instances_behind_nginx_keep_the_retry_guarantee() {
    let Ok(found) = Command::new("nginx")
        .arg("-v")
        .stderr(Stdio::null())
        .status()
    else {
        let problem = "skipped: nginx is not installed (apt-get install -y nginx, or your \
                       system's package of it)";
        assert!(std::env::var_os("CI").is_none(), "{problem}");
        eprintln!("{problem}");
        return;
    };
    assert!(found.success());
    let dir = scratch("nginx");
    let state = dir.join("state");
    std::fs::create_dir_all(&state).unwrap();
    let instances = [0, 1].map(|_| Server::start(&["--state", state.to_str().unwrap()]));
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let config = dir.join("nginx.conf");
    let upstreams: String = instances
        .iter()
        .map(|server| format!("server {};", server.address))
        .collect();
    let d = dir.display();
    std::fs::write(
        &config,
        format!(
            "daemon off; master_process off; pid {d}/nginx.pid; error_log {d}/error.log;\n\
             events {{}}\n\
             http {{ access_log off; client_body_temp_path {d}/body; proxy_temp_path {d}/proxy;\n\
               upstream mcp {{ {upstreams} }}\n\
               server {{ listen 127.0.0.1:{port}; location / {{ proxy_pass http://mcp; }} }}\n\
             }}\n"
        ),
    )
    .unwrap();
    let mut nginx = Command::new("nginx")
        .args(["-p", &d.to_string(), "-c", config.to_str().unwrap()])
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let address = format!("127.0.0.1:{port}");
    for _ in 0..100 {
        if TcpStream::connect(&address).is_ok() {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let balancer = Server {
        child: Command::new("true").spawn().unwrap(),
        address,
    };
    let structured = |reply: String| -> Value {
        let body = reply.rsplit("\r\n").next().unwrap().to_string();
        let mut body: Value = serde_json::from_str(&body).unwrap_or_else(|_| panic!("{reply}"));
        body["result"]["structuredContent"].take()
    };
    let append = json!({ "draft": "draft-1", "text": "Back off.", "operation_key": "k-1" });
    let started = structured(balancer.call("start_draft", json!({ "title": "R" }), ""));
    assert_eq!(started, json!({ "draft": "draft-1" }));
    let first = structured(balancer.call("append_to_draft", append.clone(), ""));
    assert_eq!(first, json!({ "draft": "draft-1", "lines": 1 }));
    assert_eq!(
        structured(balancer.call("append_to_draft", append, "")),
        first
    );
    let read = structured(balancer.call("read_draft", json!({ "draft": "draft-1" }), ""));
    assert_eq!(read["lines"], json!(["Back off."]));
    let _ = nginx.kill();
    let _ = nginx.wait();
}
