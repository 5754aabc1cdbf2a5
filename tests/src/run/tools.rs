//! The programs outside Rust that a chapter needs, checked rather than
//! assumed: `cargo xtask check NN` names a missing one (and how to install
//! it) instead of blaming a gap, and a scenario that needs one skips on a
//! learner's machine with the same sentence, but fails under `CI`, where
//! everything must run. README.md and book/src/how-to-use.md list the same
//! programs with the same install lines.

use std::process::{Command, Stdio};

use crate::course::Chapter;

/// One external program.
pub struct Tool {
    /// The command's name on `PATH`.
    pub name: &'static str,
    /// What needs it, for the message.
    pub why: &'static str,
    /// The chapters whose scenarios run it.
    pub chapters: &'static [u32],
    /// Arguments that make it print something and exit 0 when it is there.
    probe: &'static [&'static str],
    /// How to install it: Debian and Ubuntu (tried here), then Fedora,
    /// macOS and Windows (documented, not tried here).
    pub install: [(&'static str, &'static str); 4],
}

/// `jq`: chapter 10's hooks (`block-rm.sh` reads its input with it) and the
/// recording wrapper every fixture hook runs through (chapters 10 and 11,
/// and the hook scenarios of 15, 22, 23 and 24).
pub const JQ: Tool = Tool {
    name: "jq",
    why: "chapter 10's hooks and the wrapper that records the hooks of chapters 10, 11, 15, 22, 23 and 24",
    chapters: &[10, 11, 15, 22, 23, 24],
    probe: &["--version"],
    install: [
        ("Debian/Ubuntu", "sudo apt-get install jq"),
        ("Fedora", "sudo dnf install jq"),
        ("macOS", "brew install jq"),
        ("Windows", "winget install jqlang.jq"),
    ],
};

/// `bwrap` (bubblewrap): chapter 24's sandbox. Its probe runs a command
/// in a sandbox of the kind the chapter builds, so a machine where
/// unprivileged user namespaces are off counts as one without it.
pub const BWRAP: Tool = Tool {
    name: "bwrap",
    why: "chapter 24's sandbox (and a kernel that lets it make user namespaces)",
    chapters: &[24],
    probe: &[
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--unshare-net",
        "--unshare-pid",
        "--proc",
        "/proc",
        "--",
        "true",
    ],
    install: [
        ("Debian/Ubuntu", "sudo apt-get install bubblewrap"),
        ("Fedora", "sudo dnf install bubblewrap"),
        (
            "macOS",
            "none: macOS has no bubblewrap (Claude Code uses sandbox-exec there)",
        ),
        ("Windows", "none: run the chapter in WSL 2"),
    ],
};

/// `curl`: what chapter 24's measure and its proxy test reach the
/// network with, as a model's command would.
pub const CURL: Tool = Tool {
    name: "curl",
    why: "chapter 24's measure of a fence and its proxy test",
    chapters: &[24],
    probe: &["--version"],
    install: [
        ("Debian/Ubuntu", "sudo apt-get install curl"),
        ("Fedora", "sudo dnf install curl"),
        ("macOS", "none: macOS ships curl"),
        ("Windows", "none: run the chapter in WSL 2"),
    ],
};

/// Every program a chapter's scenarios need (the pty tests' `script` is
/// checked where it is used, in tests/tests/hooks.rs).
pub const ALL: [&Tool; 3] = [&JQ, &BWRAP, &CURL];

impl Tool {
    /// Whether the program starts and answers its probe.
    pub fn installed(&self) -> bool {
        Command::new(self.name)
            .args(self.probe)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|status| status.success())
    }

    /// `jq is not installed: sudo apt-get install jq (Debian/Ubuntu), …`.
    pub fn missing_message(&self) -> String {
        let lines: Vec<String> = self
            .install
            .iter()
            .enumerate()
            .map(|(index, (system, line))| {
                let tried = if index == 0 { "" } else { ", not tried here" };
                format!("{line} ({system}{tried})")
            })
            .collect();
        format!(
            "{} is not installed: {}. It is needed by {}.",
            self.name,
            lines.join("; "),
            self.why
        )
    }
}

/// The programs `chapter` needs that are not installed.
pub fn missing_for(chapter: &Chapter) -> Vec<&'static Tool> {
    ALL.into_iter()
        .filter(|tool| tool.chapters.contains(&chapter.number))
        .filter(|tool| !tool.installed())
        .collect()
}

/// For a test that needs `chapter`'s programs: `true` when they are all
/// installed. Otherwise it panics under `CI` (where every test must run)
/// and, on a learner's machine, says what is missing and returns `false`
/// (the test is skipped).
pub fn ready_for(chapter: &Chapter) -> bool {
    let missing = missing_for(chapter);
    if missing.is_empty() {
        return true;
    }
    let messages: Vec<String> = missing.iter().map(|tool| tool.missing_message()).collect();
    assert!(
        !crate::generate::starters::strict(),
        "CI runs every scenario: {}",
        messages.join(" ")
    );
    eprintln!("skipped: {}", messages.join(" "));
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_program_is_named_with_its_install_lines() {
        let message = JQ.missing_message();
        assert!(
            message.starts_with(
                "jq is not installed: sudo apt-get install jq (Debian/Ubuntu); \
                 sudo dnf install jq (Fedora, not tried here);"
            ),
            "{message}"
        );
        let absent = Tool {
            name: "wire-no-such-program",
            ..JQ
        };
        assert!(!absent.installed());
    }
}
