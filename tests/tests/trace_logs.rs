//! The servers of chapters 12 to 18 log a request's W3C trace context
//! (`params._meta.traceparent`, SEP-414) on stderr, one line a request,
//! and answer exactly as they would without it: a malformed value is
//! logged as ignored, with its rule, and fails nothing. Real binaries over
//! real pipes; the replies are compared whole with those of a run that
//! carries no trace context at all.

use std::io::Write;
use std::process::{Command, Stdio};

use wire_tests::course::{self, Chapter};
use wire_tests::run::target::Target;

const VALID: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
const UPPERCASE: &str = "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01";

/// A 2025-11-25 session: initialize, initialized, tools/list, each
/// request's `_meta` holding `traceparent` when one is given.
fn session(first: Option<&str>, second: Option<&str>) -> String {
    let meta = |value: Option<&str>| match value {
        Some(value) => format!(r#","_meta":{{"traceparent":"{value}"}}"#),
        None => String::new(),
    };
    [
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"2025-11-25","capabilities":{{}},"clientInfo":{{"name":"t","version":"1"}}{}}}}}"#,
            meta(first)
        ),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_string(),
        format!(r#"{{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{{"x":1{}}}}}"#, meta(second)),
    ]
    .join("\n")
        + "\n"
}

/// Runs the chapter's solution server with `input` on stdin: its stdout
/// and stderr.
fn serve(number: u32, args: &[&str], input: &str) -> (String, String) {
    let chapter = Chapter::find(&format!("{number:02}")).expect("the chapter exists");
    let target = Target::solution(&chapter).expect("the solution builds");
    let mut child = Command::new(&target.path)
        .args(args)
        .current_dir(course::root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the server starts");
    let mut stdin = child.stdin.take().expect("a pipe");
    stdin.write_all(input.as_bytes()).expect("the server reads");
    drop(stdin); // Closed: the server answers what it read, then exits.
    let output = child.wait_with_output().expect("the server exits");
    let text = |bytes: Vec<u8>| String::from_utf8_lossy(&bytes).into_owned();
    (text(output.stdout), text(output.stderr))
}

#[test]
fn servers_log_a_traceparent_and_answer_as_without_one() {
    let servers: [(u32, &[&str]); 6] = [
        (12, &[]),
        (13, &[]),
        (14, &[]),
        (16, &["--step", "0.01"]),
        (17, &["--step", "5"]),
        (18, &["--skills-dir", "tests/fixtures/skills-server"]),
    ];
    let mut problems = Vec::new();
    for (number, args) in servers {
        let (traced, log) = serve(number, args, &session(Some(VALID), Some(UPPERCASE)));
        let (plain, _) = serve(number, args, &session(None, None));
        if traced != plain {
            problems.push(format!(
                "ch{number}: replies differ\n  traced: {traced}\n  plain:  {plain}"
            ));
        }
        let name = log.split(':').next().unwrap_or_default().to_string();
        let wanted = [
            format!("{name}: initialize 1 traceparent={VALID}\n"),
            format!(
                "{name}: tools/list 2: traceparent ignored (fields of 2, 32, 16 and 2 \
                 lowercase hex digits): {UPPERCASE:?}\n"
            ),
        ];
        for line in wanted {
            if !log.contains(&line) {
                problems.push(format!("ch{number}: stderr lacks {line:?}; it was:\n{log}"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}
