//! The programs outside Rust that some tests need, checked rather than
//! assumed. A scenario names what it needs in its header (`# needs: bwrap
//! curl`); a test in `tests/tests/` asks [`ready`] itself. On a learner's
//! machine a test whose program is missing is skipped, and says so on a
//! line of its own that shows in a passing run (`skipped: bwrap is not
//! installed (install: …): ch25/tour and every other test that needs
//! bwrap`, once per program); under `CI`, where
//! everything must run, it fails instead. `cargo xtask check NN` runs the
//! scenarios it can, and names what to install for the others instead of
//! blaming a gap. README.md and book/src/how-to-use.md list the same
//! programs with the same install lines.

use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::Mutex;

use crate::course::Chapter;

/// One external program.
#[derive(Debug)]
pub struct Tool {
    /// Its name in `# needs:` lines and in every message.
    pub name: &'static str,
    /// The commands on `PATH` that are this program, the first that
    /// answers its probe is used (skills-ref 0.1.1 installs `agentskills`).
    commands: &'static [&'static str],
    /// Arguments that make it print something and exit 0 when it is there.
    probe: &'static [&'static str],
    /// Text its probe must print (stdout or stderr), where a program of
    /// the same name is not the one meant (BSD `script` is not util-linux's).
    probe_says: Option<&'static str>,
    /// What needs it, for `cargo xtask check`'s message.
    pub why: &'static str,
    /// How to install it: Debian and Ubuntu (tried here), then Fedora,
    /// macOS and Windows (documented, not tried here).
    pub install: [(&'static str, &'static str); 4],
}

/// `jq`: chapter 10's hooks (`block-rm.sh` reads its input with it) and the
/// recording wrapper every fixture hook runs through (chapters 10 and 11,
/// and the hook scenarios of 15, 22, 23 and 24).
pub const JQ: Tool = Tool {
    name: "jq",
    commands: &["jq"],
    probe: &["--version"],
    probe_says: None,
    why: "chapter 10's hooks and the wrapper that records the hooks of chapters 10, 11, 15, 22, 23 and 24",
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
    commands: &["bwrap"],
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
    probe_says: None,
    why: "chapter 24's sandbox, which chapter 25's demo runs its script in (and a kernel that \
          lets it make user namespaces)",
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
    commands: &["curl"],
    probe: &["--version"],
    probe_says: None,
    why: "chapter 24's measure of a fence and its proxy test",
    install: [
        ("Debian/Ubuntu", "sudo apt-get install curl"),
        ("Fedora", "sudo dnf install curl"),
        ("macOS", "none: macOS ships curl"),
        ("Windows", "none: run the chapter in WSL 2"),
    ],
};

/// `nginx`: the load balancer in front of chapter 13's two instances.
pub const NGINX: Tool = Tool {
    name: "nginx",
    commands: &["nginx"],
    probe: &["-v"],
    probe_says: None,
    why: "chapter 13's two instances behind a real load balancer (tests/tests/http_limits.rs)",
    install: [
        ("Debian/Ubuntu", "sudo apt-get install nginx"),
        ("Fedora", "sudo dnf install nginx"),
        ("macOS", "brew install nginx"),
        ("Windows", "none: run the test in WSL 2"),
    ],
};

/// util-linux's `script`: a pseudo-terminal for chapter 10's `ask`.
pub const SCRIPT: Tool = Tool {
    name: "script",
    commands: &["script"],
    probe: &["--version"],
    probe_says: Some("util-linux"),
    why: "chapter 10's terminal tests (`ask`, in tests/tests/hooks.rs)",
    install: [
        ("Debian/Ubuntu", "sudo apt-get install bsdutils"),
        ("Fedora", "sudo dnf install util-linux-script"),
        ("macOS", "none: macOS's BSD script differs"),
        ("Windows", "none"),
    ],
};

/// The Agent Skills reference validator, beside chapter 8's own check.
pub const SKILLS_REF: Tool = Tool {
    name: "skills-ref",
    commands: &["agentskills", "skills-ref"],
    probe: &["--help"],
    probe_says: None,
    why: "chapter 8's skills compared with the reference validator (tests/tests/skills.rs)",
    install: [
        ("Debian/Ubuntu", "python3 -m pip install skills-ref==0.1.1"),
        ("Fedora", "python3 -m pip install skills-ref==0.1.1"),
        ("macOS", "python3 -m pip install skills-ref==0.1.1"),
        ("Windows", "python3 -m pip install skills-ref==0.1.1"),
    ],
};

/// Every program a test may need: the names `# needs:` takes.
pub const ALL: [&Tool; 6] = [&JQ, &BWRAP, &CURL, &NGINX, &SCRIPT, &SKILLS_REF];

/// The program called `name` in a `# needs:` line.
pub fn named(name: &str) -> Option<&'static Tool> {
    ALL.into_iter().find(|tool| tool.name == name)
}

impl Tool {
    /// The command that is this program here, if one answers its probe.
    pub fn command(&self) -> Option<&'static str> {
        self.commands.iter().copied().find(|command| {
            Command::new(command)
                .args(self.probe)
                .stdin(Stdio::null())
                .output()
                .is_ok_and(|output| {
                    output.status.success()
                        && self.probe_says.is_none_or(|text| {
                            String::from_utf8_lossy(&output.stdout).contains(text)
                                || String::from_utf8_lossy(&output.stderr).contains(text)
                        })
                })
        })
    }

    /// Whether the program starts and answers its probe.
    pub fn installed(&self) -> bool {
        self.command().is_some()
    }

    /// How to install it on this system.
    pub fn install_line(&self) -> &'static str {
        self.install[system()].1
    }

    /// `bwrap is not installed (install: sudo apt-get install bubblewrap)`.
    pub fn not_installed(&self) -> String {
        format!(
            "{} is not installed (install: {})",
            self.name,
            self.install_line()
        )
    }

    /// `jq is not installed: sudo apt-get install jq (Debian/Ubuntu); …. It
    /// is needed by …`: every system's line, for `cargo xtask check`.
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

/// Which of `Tool::install`'s lines fits this machine: 0 Debian and
/// Ubuntu (and any other Linux), 1 Fedora and its kin, 2 macOS, 3 Windows.
fn system() -> usize {
    if cfg!(target_os = "macos") {
        return 2;
    }
    if cfg!(windows) {
        return 3;
    }
    let release = std::fs::read_to_string("/etc/os-release").unwrap_or_default();
    let fedora = release.lines().any(|line| {
        (line.starts_with("ID=") || line.starts_with("ID_LIKE="))
            && ["fedora", "rhel", "centos"]
                .iter()
                .any(|name| line.contains(name))
    });
    usize::from(fedora)
}

/// The programs of `needs` that are not installed.
pub fn missing(needs: &[&'static Tool]) -> Vec<&'static Tool> {
    let mut missing: Vec<&'static Tool> = Vec::new();
    for tool in needs {
        if !missing.iter().any(|known| known.name == tool.name) && !tool.installed() {
            missing.push(tool);
        }
    }
    missing
}

/// For a test that needs `needs`: `true` when they are all installed.
/// Otherwise it fails under `CI` (where every test must run) and, on a
/// learner's machine, returns `false` (the test is skipped) after the
/// first test to miss a program has written, once per program and run,
/// `skipped: jq is not installed (install: …): WHO and every other test
/// that needs it`.
///
/// The line goes straight to the process's stderr, past the test
/// harness's capture (which takes only `print!` and `eprint!`), so that
/// it shows in a passing run: a skip nobody sees is a test that silently
/// stopped testing. Once per program, so that the line stands out.
pub fn ready(needs: &[&'static Tool], who: &str) -> bool {
    let missing = missing(needs);
    if missing.is_empty() {
        return true;
    }
    let names: Vec<String> = missing.iter().map(|tool| tool.not_installed()).collect();
    assert!(
        !crate::generate::starters::strict(),
        "CI runs every test: {}: {who} needs {}",
        names.join("; "),
        if missing.len() == 1 { "it" } else { "them" }
    );
    // Process-wide by nature: the programs this test process has already
    // said are missing.
    static SAID: Mutex<Vec<&str>> = Mutex::new(Vec::new());
    let mut said = SAID.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    for tool in missing {
        if !said.contains(&tool.name) {
            said.push(tool.name);
            // On a line of its own: under `cargo test --quiet` the
            // harness's progress dots share the line it would start on.
            let line = format!(
                "\nskipped: {}: {who} and every other test that needs {}\n",
                tool.not_installed(),
                tool.name
            );
            let _ = std::io::stderr().lock().write_all(line.as_bytes());
        }
    }
    false
}

/// The programs `chapter`'s scenarios (its stretch scenarios too) need
/// that are not installed, each once.
pub fn missing_for(chapter: &Chapter) -> Vec<&'static Tool> {
    let needs: Vec<&'static Tool> = chapter
        .scenarios()
        .into_iter()
        .chain(chapter.stretch_scenarios())
        .filter_map(|scenario| {
            crate::run::transcript::Transcript::load(&chapter.transcript_path(&scenario)).ok()
        })
        .flat_map(|transcript| transcript.needs)
        .collect();
    missing(&needs)
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
            commands: &["wire-no-such-program"],
            ..JQ
        };
        assert!(!absent.installed());
    }

    #[test]
    fn every_program_is_found_by_its_name() {
        for tool in ALL {
            assert_eq!(named(tool.name).map(|found| found.name), Some(tool.name));
        }
        assert!(named("wire-no-such-program").is_none());
    }

    #[test]
    fn a_program_of_the_same_name_that_does_not_say_what_the_probe_wants_is_not_it() {
        // `sh -c true` answers, but prints nothing a probe could want.
        let impostor = Tool {
            commands: &["sh"],
            probe: &["-c", "echo BSD"],
            probe_says: Some("util-linux"),
            ..SCRIPT
        };
        assert!(!impostor.installed());
        let real = Tool {
            probe: &["-c", "echo util-linux 2.38"],
            ..impostor
        };
        assert!(real.installed());
    }
}
