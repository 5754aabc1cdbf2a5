//! Chapter 24's way out: the sandbox has no network, and its proxy lets a
//! command reach the allowed domains alone. A loopback listener stands for
//! the web; `localhost` is allowed, `127.0.0.1` (the same listener, by
//! another name) is not. The command inside uses curl, as a model's would,
//! through the proxy variables the sandbox sets; a third call tells curl
//! to skip the proxy, and finds no network at all.

#![cfg(target_os = "linux")]

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

use serde_json::json;
use wire_tests::course::{self, Chapter};
use wire_tests::run::transcript::Transcript;
use wire_tests::run::{runner, target, tools, unprivileged};

#[test]
fn the_proxy_lets_through_the_allowed_name_alone() {
    let chapter = Chapter::find("24").expect("the chapter exists");
    let who = "sandbox::the_proxy_lets_through_the_allowed_name_alone";
    if !tools::ready(&[&tools::BWRAP, &tools::CURL], who) {
        return;
    }
    let binary = target::build(&chapter.solution_package()).unwrap_or_else(|err| panic!("{err}"));
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let reached = Arc::new(Mutex::new(Vec::new()));
    let noted = Arc::clone(&reached);
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            let mut line = String::new();
            let _ = BufReader::new(&stream).read_line(&mut line);
            noted
                .lock()
                .unwrap()
                .push(line.split_whitespace().nth(1).unwrap_or("").to_string());
            let _ = stream.write_all(b"HTTP/1.0 200 OK\r\nContent-Length: 3\r\n\r\nyes");
        }
    });
    let base = std::env::temp_dir().join(format!("wire-ch24-proxy-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    std::fs::create_dir_all(base.join("work")).unwrap();
    let settings =
        json!({ "sandbox": { "enabled": true, "network": { "allowedDomains": ["localhost"] } } });
    std::fs::write(base.join("settings.json"), settings.to_string()).unwrap();
    let curl = |path: &str, host: &str, extra: &str| {
        format!("curl -s --max-time 5 {extra}http://{host}:{port}/{path}; echo \" exit $?\"")
    };
    let commands = [
        curl("allowed", "localhost", ""),
        curl("refused", "127.0.0.1", ""),
        curl("direct", "127.0.0.1", "--noproxy '*' "),
    ];
    let uses: Vec<_> = (commands.iter().enumerate())
        .map(|(i, command)| json!({ "type": "tool_use", "id": format!("toolu_{i}"), "name": "Bash", "input": { "command": command } }))
        .collect();
    let reply = |content: serde_json::Value, stop: &str| {
        json!({ "id": "m", "type": "message", "role": "assistant", "model": "scripted", "content": content,
                "stop_reason": stop, "stop_sequence": null, "usage": { "input_tokens": 1, "output_tokens": 1 } })
    };
    let done = json!([{ "type": "text", "text": "Done." }]);
    let script = json!({ "prompt": "Fetch.", "replies": [reply(json!(uses), "tool_use"), reply(done, "end_turn")] });
    std::fs::write(base.join("script.json"), script.to_string()).unwrap();
    let path = |name: &str| base.join(name).display().to_string();
    let args: Vec<String> = [
        "--script",
        &path("script.json"),
        "--settings",
        &path("settings.json"),
        "--workdir",
        &path("work"),
        "--skills",
        "tests/fixtures/hooks/none",
        "--agents",
        "tests/fixtures/hooks/none",
    ]
    .map(String::from)
    .to_vec();
    // As root (CI), the harness runs as nobody: the sandbox's own path.
    let (program, args) = unprivileged::command(&binary, args, &[&base]).unwrap();
    let run = runner::run(&program, &args, &[], Vec::new()).unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr),
    );
    assert_eq!(run.status, Some(0), "{stdout}\n{stderr}");
    // One request reached the listener, the allowed one (in the absolute
    // form a proxy passes on).
    let reached = reached.lock().unwrap().clone();
    assert_eq!(reached.len(), 1, "{reached:?}\n{stdout}\n{stderr}");
    assert!(reached[0].ends_with("/allowed"), "{reached:?}");
    assert!(
        stdout.contains(r#"/direct; echo \" exit $?\""} ->  exit 7"#),
        "{stdout}"
    );
    assert!(
        stdout.contains("network: through the proxy, to localhost"),
        "{stdout}"
    );
    assert!(
        stdout.contains(r#"/allowed; echo \" exit $?\""} -> yes exit 0"#),
        "{stdout}"
    );
    assert!(
        stderr.contains(&format!(
            "sandbox proxy: refused 127.0.0.1:{port}: not an allowed domain"
        )),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&base);
}

/// Every scenario of chapter 24 that can start bubblewrap (its settings
/// enable the sandbox, or it runs the measure of a fence) says
/// `# unprivileged: yes`, so that under root it runs as nobody.
#[test]
fn every_scenario_that_starts_the_sandbox_runs_as_nobody_under_root() {
    let chapter = Chapter::find("24").expect("the chapter exists");
    let names = (chapter.scenarios().into_iter()).chain(chapter.stretch_scenarios());
    let mut missing = Vec::new();
    for name in names {
        let transcript = Transcript::load(&chapter.transcript_path(&name)).unwrap();
        let settings = (transcript.args.iter())
            .skip_while(|arg| *arg != "--settings")
            .nth(1)
            .and_then(|file| std::fs::read_to_string(course::root().join(file)).ok());
        let enabled = settings
            .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
            .is_some_and(|settings| settings["sandbox"]["enabled"] == true);
        if (enabled || transcript.tool.is_some()) && !transcript.unprivileged {
            missing.push(name);
        }
    }
    assert!(
        missing.is_empty(),
        "add `# unprivileged: yes` to tests/transcripts/ch24/ {missing:?}"
    );
}
