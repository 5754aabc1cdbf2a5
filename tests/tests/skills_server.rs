//! Chapter 18's file safety, driven as a real binary over a skills folder
//! made for the test: a symlink that leads out of the folder, a FIFO, a
//! symlinked folder (read as a file and as a directory), a SKILL.md that
//! is a symlink out, and a `..` in a URI.
//! Each gets a precise error (or is left out of the manifest, and stderr
//! says so); the server never panics, never blocks on the FIFO, and never
//! sends a byte of the file outside the folder.

#![cfg(unix)]

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use wire_tests::course::Chapter;
use wire_tests::run::{runner, target};

const SECRET: &str = "the secret outside the skills folder";

fn binary() -> PathBuf {
    let chapter = Chapter::find("18").expect("the chapter exists");
    target::build(&chapter.solution_package()).unwrap_or_else(|err| panic!("{err}"))
}

fn skill(dir: &Path, name: &str) {
    fs::create_dir_all(dir).unwrap();
    let text = format!("---\nname: {name}\ndescription: A skill for the test.\n---\nBody.\n");
    fs::write(dir.join("SKILL.md"), text).unwrap();
}

/// `skills/` holds the skill `good` (with the traps inside it) and `sneaky`,
/// whose SKILL.md is a symlink out; `outside/` holds the secret.
fn folder() -> PathBuf {
    let base = std::env::temp_dir().join(format!("wire-ch18-safety-{}", std::process::id()));
    let _ = fs::remove_dir_all(&base);
    let (skills, outside) = (base.join("skills"), base.join("outside"));
    skill(&skills.join("good"), "good");
    skill(&outside, "sneaky");
    fs::write(outside.join("secret.txt"), SECRET).unwrap();
    let good = skills.join("good");
    fs::write(good.join("notes.md"), "Notes.\n").unwrap();
    std::os::unix::fs::symlink(outside.join("secret.txt"), good.join("leak.txt")).unwrap();
    std::os::unix::fs::symlink(&outside, good.join("linked")).unwrap();
    let fifo = std::ffi::CString::new(good.join("pipe").to_str().unwrap()).unwrap();
    // SAFETY: a valid, NUL-terminated path; mkfifo only creates a file.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0, "mkfifo");
    fs::create_dir_all(skills.join("sneaky")).unwrap();
    std::os::unix::fs::symlink(outside.join("SKILL.md"), skills.join("sneaky/SKILL.md")).unwrap();
    base
}

fn request(id: u64, method: &str, uri: &str) -> String {
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": { "name": "wire-by-wire-tests", "version": "1.0.0" },
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let params = json!({ "_meta": meta, "uri": uri });
    json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }).to_string() + "\n"
}

#[test]
fn nothing_outside_the_folder_is_read_and_nothing_blocks() {
    let base = folder();
    let input = [
        request(1, "skills/get", "skill://good/SKILL.md"),
        request(2, "resources/read", "skill://good/leak.txt"),
        request(3, "resources/read", "skill://good/pipe"),
        request(4, "resources/read", "skill://good/../../outside/secret.txt"),
        request(5, "resources/read", "skill://good/linked/secret.txt"),
        request(6, "skills/get", "skill://sneaky/SKILL.md"),
        request(7, "resources/read", "skill://sneaky/SKILL.md"),
        request(8, "resources/directory/read", "skill://good/linked"),
        request(9, "resources/directory/read", "skill://good"),
    ]
    .concat();
    let args = [
        "--skills-dir".to_string(),
        base.join("skills").display().to_string(),
    ];
    let run = runner::run(&binary(), &args, &[], input.into_bytes()).unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr),
    );
    assert_eq!(
        run.status,
        Some(0),
        "the server must exit by itself:\n{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(!stdout.contains(SECRET), "{stdout}");
    let replies: Vec<Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(replies.len(), 9, "{stdout}");
    // The manifest holds the two regular files inside the folder only.
    let uris: Vec<&str> = replies[0]["result"]["skill"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|resource| resource["uri"].as_str().unwrap())
        .collect();
    assert_eq!(uris, ["skill://good/SKILL.md", "skill://good/notes.md"]);
    let error = |index: usize| {
        let error = &replies[index]["error"];
        assert_eq!(error["code"], -32602, "{error}");
        error["message"].as_str().unwrap().to_string()
    };
    assert!(error(1).contains("leads outside"), "{}", error(1));
    assert!(error(2).contains("Resource not found"), "{}", error(2));
    assert!(error(3).contains("segments . and .."), "{}", error(3));
    assert!(error(4).contains("leads outside"), "{}", error(4));
    assert!(error(5).contains("No skill is served"), "{}", error(5));
    assert!(error(6).contains("Resource not found"), "{}", error(6));
    assert!(
        error(7).contains("not a directory resource"),
        "{}",
        error(7)
    );
    // The skill's root lists its two regular files only: not the link out,
    // the FIFO, or the symlinked folder.
    let children: Vec<&str> = replies[8]["result"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|child| child["uri"].as_str().unwrap())
        .collect();
    assert_eq!(children, ["skill://good/SKILL.md", "skill://good/notes.md"]);
    for left_out in [
        "skill://good/leak.txt",
        "skill://good/pipe",
        "skill://sneaky/SKILL.md",
    ] {
        assert!(
            stderr.contains(&format!("not serving {left_out}")),
            "{left_out}:\n{stderr}"
        );
    }
    let _ = fs::remove_dir_all(&base);
}

/// A SKILL.md edited after the server started, so that its frontmatter no
/// longer parses: its entry is an internal error (-32603), not a panic,
/// and the server goes on answering.
#[test]
fn a_skill_md_broken_after_the_start_is_an_internal_error() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command, Stdio};
    let base = std::env::temp_dir().join(format!("wire-ch18-edited-{}", std::process::id()));
    let _ = fs::remove_dir_all(&base);
    skill(&base.join("later"), "later");
    let mut child = Command::new(binary())
        .arg("--skills-dir")
        .arg(&base)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut ask = |id: u64| -> Value {
        stdin
            .write_all(request(id, "skills/get", "skill://later/SKILL.md").as_bytes())
            .unwrap();
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        serde_json::from_str(&line).unwrap()
    };
    assert_eq!(ask(1)["result"]["skill"]["frontmatter"]["name"], "later");
    fs::write(base.join("later/SKILL.md"), "no frontmatter any more\n").unwrap();
    let reply = ask(2);
    assert_eq!(reply["error"]["code"], -32603, "{reply}");
    drop(stdin); // as a client ends a stdio server: it then removes its state folder
    let _ = child.wait();
    let _ = fs::remove_dir_all(&base);
}
