//! Chapter 21's memory files, read from a working folder made for the test
//! with the traps a real repository can hold: a `CLAUDE.md` that is a
//! FIFO, a `CLAUDE.local.md` over Claude Code's 4 MiB limit, an import of
//! a FIFO, and an import through a symlink that leads out of the working
//! folder. The harness never blocks on a pipe, never sends a byte of the
//! file outside, names each file it skips and why, and still loads the
//! rest and answers.

#![cfg(unix)]

use std::fs;
use std::path::{Path, PathBuf};

use wire_tests::course::Chapter;
use wire_tests::run::{runner, target};

const SECRET: &str = "the secret outside the working folder";

fn binary() -> PathBuf {
    let chapter = Chapter::find("21").expect("the chapter exists");
    target::build(&chapter.solution_package()).unwrap_or_else(|err| panic!("{err}"))
}

fn fifo(path: &Path) {
    let name = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: a valid, NUL-terminated path; mkfifo only creates a file.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o644) }, 0, "mkfifo");
}

/// `work/` is the working folder, `outside/` holds the secret; `work/app`
/// is where the harness runs, below a top folder whose CLAUDE.md is a FIFO.
fn folder() -> PathBuf {
    let base = std::env::temp_dir().join(format!("wire-ch21-memory-{}", std::process::id()));
    let _ = fs::remove_dir_all(&base);
    let (work, outside) = (base.join("work"), base.join("outside"));
    fs::create_dir_all(work.join("app/docs")).unwrap();
    fs::create_dir_all(&outside).unwrap();
    fs::write(outside.join("secret.md"), SECRET).unwrap();
    fifo(&work.join("CLAUDE.md"));
    fifo(&work.join("app/docs/pipe.md"));
    std::os::unix::fs::symlink(outside.join("secret.md"), work.join("app/docs/link.md")).unwrap();
    let imports = "Kept. @docs/pipe.md @docs/link.md @docs/real.md\n";
    fs::write(work.join("app/CLAUDE.md"), imports).unwrap();
    fs::write(work.join("app/docs/real.md"), "Really kept.\n").unwrap();
    let big = "x".repeat(4 * 1024 * 1024 + 1);
    fs::write(work.join("app/CLAUDE.local.md"), big).unwrap();
    let script = r#"{"prompt": "hello", "replies": [{"id": "msg_01", "type": "message",
        "role": "assistant", "model": "scripted", "stop_reason": "end_turn",
        "stop_sequence": null, "usage": {"input_tokens": 1, "output_tokens": 1},
        "content": [{"type": "text", "text": "hello"}]}]}"#;
    fs::write(base.join("script.json"), script).unwrap();
    base
}

#[test]
fn pipes_big_files_and_links_out_are_named_and_skipped() {
    let base = folder();
    let args: Vec<String> = [
        "--script",
        base.join("script.json").to_str().unwrap(),
        "--workdir",
        base.join("work/app").to_str().unwrap(),
        "--skills",
        "tests/fixtures/hooks/none",
        "--agents",
        "tests/fixtures/hooks/none",
        "--trace",
    ]
    .map(str::to_string)
    .to_vec();
    let home = base.join("home");
    fs::create_dir_all(&home).unwrap();
    let env = [
        ("HOME".to_string(), home.display().to_string()),
        ("WIRE_MANAGED_DIR".to_string(), home.display().to_string()),
    ];
    let run = runner::run(&binary(), &args, &env, Vec::new()).unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr),
    );
    assert_eq!(run.status, Some(0), "{stdout}\n{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    // --trace puts every request on stderr: the secret is in none.
    assert!(
        !stdout.contains(SECRET) && !stderr.contains(SECRET),
        "{stderr}"
    );
    for line in [
        "memory: skipped docs/pipe.md: not a regular file",
        "memory: CLAUDE.md: @docs/link.md skipped, outside the working folder",
        "memory: project docs/real.md (1 line)",
        "memory: project CLAUDE.md (1 line)",
        "memory: skipped CLAUDE.local.md: 4194305 bytes, over the 4194304-byte limit",
        "answer: hello",
    ] {
        assert!(stdout.contains(line), "no {line:?} in:\n{stdout}");
    }
    // The FIFO named CLAUDE.md above the working folder is no memory file.
    assert!(!stdout.contains("../CLAUDE.md"), "{stdout}");
    assert!(stderr.contains("Really kept."), "{stderr}");
    let _ = fs::remove_dir_all(&base);
}
