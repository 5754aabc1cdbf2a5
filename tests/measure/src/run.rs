//! One run of the chapter binary, and the two things read back from it: the
//! tokens of each request (from the loop's own line for it) and, with
//! `--trace`, the request bodies it sent the model.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// What one run printed.
pub struct Output {
    pub stdout: String,
    pub stderr: String,
}

/// Where the measurements' own files live (scripts, the notes, the agent).
pub fn data(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// Runs `bin` with `args` in `dir` and waits for it; a run that fails is
/// an error that quotes its stderr, since then no table would be true.
pub fn chapter(bin: &Path, dir: &Path, args: &[String]) -> Result<Output, String> {
    chapter_with(bin, dir, args, &[])
}

/// `chapter`, with environment variables set for the run (a setting that,
/// as in Claude Code, is an environment variable: ENABLE_TOOL_SEARCH).
pub fn chapter_with(
    bin: &Path,
    dir: &Path,
    args: &[String],
    envs: &[(&str, &str)],
) -> Result<Output, String> {
    let output = Command::new(bin)
        .args(args)
        .envs(envs.iter().copied())
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .map_err(|err| format!("cannot start {}: {err}", bin.display()))?;
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    if !output.status.success() {
        return Err(format!(
            "{} {} failed ({}):\n{stderr}",
            bin.display(),
            args.join(" "),
            output.status
        ));
    }
    Ok(Output { stdout, stderr })
}

/// The tokens of every request a run sent, in order: the main context's,
/// and its subagents'.
#[derive(Debug, Default)]
pub struct Requests {
    pub parent: Vec<usize>,
    pub subagents: Vec<usize>,
}

// ANCHOR: requests
/// Reads the requests' tokens out of a run's stdout.
pub fn requests(stdout: &str) -> Requests {
    let mut requests = Requests::default();
    for line in stdout.lines() {
        match request_tokens(line) {
            Some((false, tokens)) => requests.parent.push(tokens),
            Some((true, tokens)) => requests.subagents.push(tokens),
            None => {}
        }
    }
    requests
}

/// The tokens of one request, from the line the loop writes for it
/// (`turn 2: sending 3 messages, 2829 bytes: 655 tokens ...`), and whether
/// a subagent sent it: its lines come back labelled, `  [toolu_01] turn 1`.
fn request_tokens(line: &str) -> Option<(bool, usize)> {
    let subagent = line.starts_with("  [");
    let rest = if subagent {
        line.rsplit_once("] ")?.1
    } else {
        line
    };
    let (_, count) = rest.strip_prefix("turn ")?.split_once(" bytes: ")?;
    let tokens = count.split_once(" tokens")?.0.parse().ok()?;
    Some((subagent, tokens))
}
// ANCHOR_END: requests

/// The model requests of a run with `--trace`: its stderr lines `=> BODY`
/// (a subagent's are labelled `[id] => BODY`; only the main context's are
/// kept).
pub fn traced_requests(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter_map(|line| line.strip_prefix("=> "))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_tokens_of_each_request_line() {
        let main = "turn 2: sending 3 messages, 2829 bytes: 655 tokens (cl100k_base), ~708 by \
                    the 4-characters rule";
        assert_eq!(request_tokens(main), Some((false, 655)));
        let subagent = "  [toolu_01] turn 1: sending 1 messages, 548 bytes: 133 tokens (x)";
        assert_eq!(request_tokens(subagent), Some((true, 133)));
        let nested = "  [toolu_01]   [toolu_02] turn 1: sending 1 messages, 9 bytes: 4 tokens";
        assert_eq!(request_tokens(nested), Some((true, 4)));
        assert_eq!(request_tokens("  [toolu_01]   model: turn 1"), None);
        assert_eq!(
            request_tokens("  stop_reason end_turn, 0 tool call(s)"),
            None
        );
    }

    #[test]
    fn keeps_the_main_contexts_traced_requests() {
        let stderr = "-> {\"id\":1}\n=> {\"a\":1}\n<= {\"b\":2}\n[toolu_01] => {\"c\":3}\n";
        assert_eq!(traced_requests(stderr), ["{\"a\":1}"]);
    }
}
