//! Which binary is under test, chosen at run time:
//!
//! - the reference solution (the default): frames must match byte for byte;
//! - the learner's starter (`cargo xtask check NN`, or `MCP_TARGET=starter`
//!   for the plain `cargo test` form);
//! - any binary at all (`cargo xtask check NN --bin PATH`, or
//!   `MCP_BIN=/path/to/server`), for an instructor checking a student's build.
//!
//! The last two are compared frame by frame as JSON values (key order free).
//!
//! A chapter's stretch exercises are built in: the same crates, built with
//! `--features stretch` (`cargo xtask check NN --stretch`; in `cargo test`,
//! each scenario under `stretch/` asks for that build itself). Each build is
//! linked to a path of its own, so a stretch build never replaces the binary
//! the core scenarios run.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};

use crate::course::{self, Chapter};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    Solution,
    Starter,
    Binary,
}

#[derive(Clone, Debug)]
pub struct Target {
    pub kind: Kind,
    pub path: PathBuf,
    /// For reports: `solution solutions/03-add-tool`.
    pub label: String,
}

impl Target {
    /// The target `MCP_BIN` or `MCP_TARGET` names; `stretch`: built with
    /// the chapter's `stretch` feature (a stretch scenario).
    pub fn from_env(chapter: &Chapter, stretch: bool) -> Result<Target, String> {
        if let Some(bin) = std::env::var_os("MCP_BIN").filter(|bin| !bin.is_empty()) {
            return Ok(Target::binary(PathBuf::from(bin), " (from MCP_BIN)"));
        }
        match std::env::var("MCP_TARGET").unwrap_or_default().as_str() {
            "" | "solution" => Target::built(chapter, Kind::Solution, stretch),
            "starter" => Target::built(chapter, Kind::Starter, stretch),
            other => Err(format!(
                "MCP_TARGET={other:?}: use `solution` or `starter` (or set MCP_BIN)"
            )),
        }
    }

    /// The target a command line names: `--bin PATH`, `--starter`, or
    /// `--solution`; `default` when it names none; `--stretch` builds it with
    /// the chapter's stretch exercises. Shared by every command that runs a
    /// chapter's binary.
    pub fn from_args(args: &[String], chapter: &Chapter, default: Kind) -> Result<Target, String> {
        if let Some(index) = args.iter().position(|arg| arg == "--bin") {
            let path = PathBuf::from(args.get(index + 1).ok_or("--bin needs a path")?);
            return Ok(Target::binary(path, ""));
        }
        // `--mine`: the learner's crate, chapters/NN (`--starter`, its first
        // name, still works: the crate starts as the starter).
        let yours = |arg: &String| arg == "--mine" || arg == "--starter";
        let kind = if args.iter().any(yours) {
            Kind::Starter
        } else if args.iter().any(|arg| arg == "--solution") {
            Kind::Solution
        } else {
            default
        };
        Target::built(chapter, kind, args.iter().any(|arg| arg == "--stretch"))
    }

    /// Any binary, compared as JSON values; `source` says where it was named.
    pub fn binary(path: PathBuf, source: &str) -> Target {
        let label = format!("binary {}{source}", path.display());
        Target {
            kind: Kind::Binary,
            path,
            label,
        }
    }

    pub fn solution(chapter: &Chapter) -> Result<Target, String> {
        Target::built(chapter, Kind::Solution, false)
    }

    pub fn starter(chapter: &Chapter) -> Result<Target, String> {
        Target::built(chapter, Kind::Starter, false)
    }

    /// The solution or the learner's starter (`kind`), built by cargo; with
    /// `stretch`, built with the `stretch` feature.
    pub fn built(chapter: &Chapter, kind: Kind, stretch: bool) -> Result<Target, String> {
        let (package, mut label) = match kind {
            Kind::Starter => (
                chapter.starter_package(),
                format!("your crate chapters/{}", chapter.dir),
            ),
            _ => (
                chapter.solution_package(),
                format!("solution solutions/{}", chapter.dir),
            ),
        };
        if stretch {
            label += " --features stretch";
        }
        let path = build_with(&package, &package, stretch)?;
        Ok(Target { kind, path, label })
    }

    /// Solutions are the source of the golden files, so they must match them
    /// exactly; any other implementation only has to send the same values.
    pub fn exact(&self) -> bool {
        self.kind == Kind::Solution
    }
}

/// Builds one package's binary (once per test process) and returns its path.
/// Builds are serialized: cargo would serialize them anyway, noisily.
pub fn build(package: &str) -> Result<PathBuf, String> {
    build_bin(package, package)
}

/// The binaries built so far in this process, by `"package bin"`. Held
/// only to read or add an entry, never across a build: a test whose binary
/// is built already does not wait behind another test's build.
static BUILT: Mutex<Option<HashMap<String, Result<PathBuf, String>>>> = Mutex::new(None);

/// Held by every cargo build here from the build to the link of its binary
/// (see [`own_copy`]): cargo puts a package's binary at one path whatever
/// its features, so another build in between would leave the link pointing
/// at the other build's file. Cargo would serialize the builds anyway (one
/// lock on the target folder), noisily.
static BUILDING: Mutex<()> = Mutex::new(());

/// The builds so far, locked. A test that panicked while holding it leaves
/// the map as it was, so it is used anyway.
fn lock_built() -> MutexGuard<'static, Option<HashMap<String, Result<PathBuf, String>>>> {
    BUILT
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn lock_building() -> MutexGuard<'static, ()> {
    BUILDING
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The build of `key` remembered so far, if any.
fn remembered(key: &str) -> Option<Result<PathBuf, String>> {
    lock_built().as_ref()?.get(key).cloned()
}

fn remember(key: String, result: Result<PathBuf, String>) {
    lock_built()
        .get_or_insert_with(HashMap::new)
        .insert(key, result);
}

/// Forgets every build, so the next [`build`] runs cargo again: for
/// `cargo xtask watch`, which checks the same crate after each save.
pub fn forget_builds() {
    *lock_built() = None;
}

/// Builds binary `bin` of `package` (once per test process): the replay
/// server is `replay-server` of `wire-tests`. A build error is shown in full
/// once; every later caller gets one line that points to it.
pub fn build_bin(package: &str, bin: &str) -> Result<PathBuf, String> {
    build_with(package, bin, false)
}

/// [`build_bin`], with the `stretch` feature when `stretch` is set.
fn build_with(package: &str, bin: &str, stretch: bool) -> Result<PathBuf, String> {
    let key = format!("{package} {bin}{}", if stretch { " stretch" } else { "" });
    let failed = |_| {
        format!("`cargo build -p {package}` failed; its errors are shown once, in another report")
    };
    if let Some(result) = remembered(&key) {
        return result.map_err(failed);
    }
    let _building = lock_building();
    if !stretch && under_cargo_test() {
        prebuild_default_members();
    }
    // Built by another thread while this one waited, or just now.
    if let Some(result) = remembered(&key) {
        return result.map_err(failed);
    }
    let result =
        cargo_build(package, bin, false, stretch).and_then(|path| own_copy(&path, stretch));
    remember(key, result.clone());
    result
}

/// Whether this process is a test binary of this crate that `cargo test`
/// started (cargo sets `CARGO_PKG_NAME` for it): then the tests will ask
/// for nearly every default member's binary, so one build can make them
/// all. `cargo xtask` (whose `CARGO_PKG_NAME` is `xtask`) builds only what
/// it is asked for: a learner's first `cargo xtask check 03` must not
/// compile every solution first.
fn under_cargo_test() -> bool {
    std::env::var("CARGO_PKG_NAME").as_deref() == Ok(env!("CARGO_PKG_NAME"))
}

/// Asks cargo, once, for the binaries of every default member (the
/// solutions, the conformance binaries, the replay server) in one build,
/// and remembers them all. `cargo test`'s own build does not link them
/// (the solutions' binaries say `test = false`), so on a fresh clone this
/// compiles them, side by side, where a build per binary cost two to three
/// seconds each on two cores, twenty times over, each waiting for the one
/// before; when they are fresh it is one check (about a second). If the
/// joint build fails, nothing is remembered and each build reports its
/// own errors.
fn prebuild_default_members() {
    static DONE: OnceLock<()> = OnceLock::new();
    DONE.get_or_init(|| {
        let Some(binaries) = default_member_binaries() else {
            return;
        };
        let mut command = cargo();
        command.args(["build", "--quiet"]).args(selection(&[]));
        for (_, bin) in &binaries {
            command.args(["--bin", bin]);
        }
        let Ok(output) = command
            .arg("--message-format=json")
            .current_dir(course::root())
            .stderr(Stdio::null())
            .output()
        else {
            return;
        };
        if !output.status.success() {
            return;
        }
        for (bin, executable) in executables(&output.stdout) {
            if let Some((package, _)) = binaries.iter().find(|(_, name)| *name == bin) {
                remember(format!("{package} {bin}"), own_copy(&executable, false));
            }
        }
    });
}

/// `(binary, path)` of each binary in cargo's JSON messages. A binary's
/// name is unique in the workspace (they share one `target/debug`).
pub fn executables(stdout: &[u8]) -> Vec<(String, PathBuf)> {
    String::from_utf8_lossy(stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|message| message["reason"] == "compiler-artifact")
        .filter_map(|message| {
            let bin = message["target"]["name"].as_str()?;
            let executable = message["executable"].as_str()?;
            Some((bin.to_string(), PathBuf::from(executable)))
        })
        .collect()
}

/// Builds the binaries of several packages (each named as its package) in
/// one cargo invocation, and remembers them as [`build`] would: cargo then
/// compiles the crates side by side and links one while it compiles the
/// next, instead of starting once per crate. A test that needs many crates
/// calls it first; where the joint build fails (one crate has an error),
/// nothing is remembered and each [`build`] reports its own crate's errors.
pub fn build_all(packages: &[String]) -> Result<(), String> {
    build_together(packages, false)
}

/// [`build_all`] with each package's `stretch` feature, remembered as the
/// stretch builds [`Target::built`] makes (a stretch scenario's binary).
pub fn build_all_stretch(packages: &[String]) -> Result<(), String> {
    build_together(packages, true)
}

fn build_together(packages: &[String], stretch: bool) -> Result<(), String> {
    let _building = lock_building();
    let mut command = cargo();
    command.args(["build", "--quiet"]);
    command.args(selection(packages));
    for package in packages {
        command.args(["--bin", package]);
    }
    if stretch {
        let features: Vec<String> = packages
            .iter()
            .map(|package| format!("{package}/stretch"))
            .collect();
        command.arg(format!("--features={}", features.join(",")));
    }
    let output = command
        .arg("--message-format=json-render-diagnostics")
        .current_dir(course::root())
        .stderr(Stdio::piped())
        .output()
        .map_err(|err| format!("cannot run cargo: {err}"))?;
    if !output.status.success() {
        return Err(format!(
            "`cargo build` of {} packages failed",
            packages.len()
        ));
    }
    for (name, executable) in executables(&output.stdout) {
        if packages.contains(&name) {
            let path = own_copy(&executable, stretch)?;
            let key = format!("{name} {name}{}", if stretch { " stretch" } else { "" });
            remember(key, Ok(path));
        }
    }
    Ok(())
}

/// Builds `package`'s binary as `cargo run --package PACKAGE` builds it:
/// that package alone selected, so with its own features (see
/// [`selection`]), not the ones the other builds here share. For a demo that
/// starts a chapter's server through `cargo run`: the run then finds it
/// built instead of compiling it while the demo's client waits.
///
/// No other build of this process starts until the returned value is
/// dropped: hold it while the demo runs. Its `cargo run` takes cargo's lock
/// on the target folder, and behind a joint stretch build (over a minute
/// on two cores) it can wait past the demo's 30 s MCP timeout: the demo
/// tests failed now and then in a full `cargo test`, never alone.
pub fn build_for_cargo_run(package: &str) -> Result<BuildsPaused, String> {
    // It replaces the binary at the path the other builds link from: not
    // while one of them is between its build and its link.
    let building = lock_building();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let mut command = Command::new(cargo);
    not_incremental_under_cargo_test(&mut command);
    let output = command
        .args(["build", "--quiet", "--package", package, "--bin", package])
        .current_dir(course::root())
        .output()
        .map_err(|err| format!("cannot run cargo: {err}"))?;
    if !output.status.success() {
        return Err(format!(
            "`cargo build -p {package}` failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    Ok(BuildsPaused(building))
}

/// See [`build_for_cargo_run`]: while held, this process starts no build.
#[must_use = "hold it while the demo runs"]
pub struct BuildsPaused(#[allow(dead_code)] MutexGuard<'static, ()>);

/// When set, builds show cargo's progress on stderr (for interactive
/// commands like `cargo xtask run`, where a first build takes a while);
/// otherwise cargo is quiet and its errors go into the report.
static SHOW_PROGRESS: AtomicBool = AtomicBool::new(false);

/// Lets cargo show its progress (and its errors) on stderr from now on.
pub fn show_build_progress() {
    SHOW_PROGRESS.store(true, Ordering::Relaxed);
}

/// Builds one package's binary in release mode, for `cargo xtask bench`.
pub fn build_release(package: &str) -> Result<PathBuf, String> {
    build_release_bin(package, package)
}

/// Builds binary `bin` of `package` in release mode: the benchmark's
/// baseline is `plain-server` of `wire-tests`.
pub fn build_release_bin(package: &str, bin: &str) -> Result<PathBuf, String> {
    cargo_build(package, bin, true, false)
}

/// A link to a freshly built binary at a path of its own
/// (`target/debug/wire-tests/core/NAME`, or `…/stretch/NAME`): cargo puts a
/// package's binary at one path whatever its features, so the next build
/// with other features would replace the file a running test uses. A hard
/// link keeps this build's file as it is; it is not written, so no test
/// can find it half-copied (a copy is the fallback where links fail).
fn own_copy(built: &Path, stretch: bool) -> Result<PathBuf, String> {
    let (Some(dir), Some(name)) = (built.parent(), built.file_name()) else {
        return Ok(built.to_path_buf());
    };
    let dir = dir
        .join("wire-tests")
        .join(if stretch { "stretch" } else { "core" });
    let link = dir.join(name);
    // Linked under a name of this process, then renamed over the old link:
    // another process running the old one never finds the path missing.
    let mut temporary = name.to_os_string();
    temporary.push(format!(".{}", std::process::id()));
    let temporary = dir.join(temporary);
    let linked = fs::create_dir_all(&dir)
        .and_then(|()| match fs::remove_file(&temporary) {
            Err(err) if err.kind() != std::io::ErrorKind::NotFound => Err(err),
            _ => Ok(()),
        })
        .and_then(|()| {
            fs::hard_link(built, &temporary).or_else(|_| fs::copy(built, &temporary).map(drop))
        })
        .and_then(|()| fs::rename(&temporary, &link));
    linked.map_err(|err| {
        format!(
            "cannot link {} to {}: {err}",
            built.display(),
            link.display()
        )
    })?;
    Ok(link)
}

fn cargo_build(package: &str, bin: &str, release: bool, stretch: bool) -> Result<PathBuf, String> {
    let show = SHOW_PROGRESS.load(Ordering::Relaxed);
    // JSON messages tell us where the binary landed, whatever CARGO_TARGET_DIR
    // says; diagnostics are still rendered for humans on stderr.
    let output = cargo()
        .arg("build")
        .args(selection(&[package.to_string()]))
        .args(["--bin", bin])
        .args(if show { None } else { Some("--quiet") })
        .args(release.then_some("--release"))
        .args(stretch.then(|| format!("--features={package}/stretch")))
        .arg("--message-format=json-render-diagnostics")
        .current_dir(course::root())
        .stderr(if show {
            Stdio::inherit()
        } else {
            Stdio::piped()
        })
        .output()
        .map_err(|err| format!("cannot run cargo: {err}"))?;
    if !output.status.success() {
        let features = if stretch { " --features stretch" } else { "" };
        return Err(format!(
            "`cargo build -p {package}{features}` failed, so there is nothing to test yet{}",
            if show {
                " (cargo's errors are above).".to_string()
            } else {
                format!(":\n{}", String::from_utf8_lossy(&output.stderr))
            }
        ));
    }
    executables(&output.stdout)
        .into_iter()
        .filter(|(name, _)| name == bin)
        .map(|(_, executable)| executable)
        .next_back()
        .ok_or_else(|| format!("cargo built {package} but reported no executable"))
}

/// A cargo command for the builds here, without the variables cargo sets
/// for the test process that runs it (`CARGO_PKG_NAME=wire-tests`,
/// `CARGO_MANIFEST_DIR`, …). A build script that reruns when one of them
/// changes (ring's does, for `CARGO_PKG_NAME` among others) would otherwise
/// see them set here and unset in the `cargo test` that started the tests,
/// and rerun in each: every `cargo test` compiled ring, rustls, ureq, the
/// support crates and chapters 07 to 11 twice more, warm or not.
fn cargo() -> Command {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let mut command = Command::new(cargo);
    for (name, _) in std::env::vars_os() {
        let name = name.to_string_lossy();
        let set_for_the_tests = name.starts_with("CARGO_PKG_")
            || name.starts_with("CARGO_MANIFEST_")
            || [
                "CARGO_CRATE_NAME",
                "CARGO_BIN_NAME",
                "CARGO_PRIMARY_PACKAGE",
                "CARGO_TARGET_TMPDIR",
                "CARGO_RUSTC_CURRENT_DIR",
                "OUT_DIR",
            ]
            .contains(&name.as_ref());
        if set_for_the_tests {
            command.env_remove(name.as_ref());
        }
    }
    // Under `cargo test`, every crate here is built once (a fresh clone
    // builds each solution, starter and stretch in the tests), so
    // incremental compilation's caches are written and never read: on the
    // 2-core machine they cost about 40 s of a fresh clone's first `cargo
    // test` (CONTRIBUTING, "The learner's time"). Whether a build was
    // incremental is not part of cargo's fingerprint, so a learner's next
    // `cargo xtask check` (not under `cargo test`) reuses these builds and
    // is incremental from its first edit on. A value set outside wins.
    not_incremental_under_cargo_test(&mut command);
    command
}

/// See [`cargo`]: builds under `cargo test` are not incremental.
fn not_incremental_under_cargo_test(command: &mut Command) {
    if under_cargo_test() && std::env::var_os("CARGO_INCREMENTAL").is_none() {
        command.env("CARGO_INCREMENTAL", "0");
    }
}

/// The packages every build here selects (`--package` each), with `--bin`
/// then naming what is built: the workspace's default members (what the
/// README's `cargo test` builds), every starter, and `extra`.
///
/// Why not just the one package: cargo unifies the features of the
/// dependencies over the packages a command selects. `cargo build -p
/// ch07-agent-loop-solution` wants a tokio with fewer features than `cargo
/// test` at the root built, so it compiles tokio again, and with it serde,
/// syn, serde_json, ureq, regex-automata and a dozen more: on a fresh clone
/// the tests compiled a second copy of 18 dependencies. Selecting what `cargo
/// test` selects (the starters add no feature: they are the solutions'
/// copies) makes every dependency it compiled fit. `--examples` (the
/// workspace has none, so it builds nothing) makes cargo count the
/// dev-dependencies' features, as a test build does.
fn selection(extra: &[String]) -> Vec<String> {
    static SELECTED: OnceLock<Vec<String>> = OnceLock::new();
    let selected = SELECTED.get_or_init(|| workspace_selection().unwrap_or_default());
    let mut args = vec!["--examples".to_string()];
    for package in selected
        .iter()
        .chain(extra.iter().filter(|package| !selected.contains(package)))
    {
        args.extend(["--package".to_string(), package.clone()]);
    }
    args
}

/// The default members and the starters, by name, from `cargo metadata`;
/// `None` if it cannot say (then each build selects only its own package).
fn workspace_selection() -> Option<Vec<String>> {
    let metadata = metadata()?;
    let defaults = metadata["workspace_default_members"].as_array()?;
    let starters = course::root().join("chapters");
    let names = metadata["packages"]
        .as_array()?
        .iter()
        .filter(|package| {
            defaults.contains(&package["id"])
                || package["manifest_path"]
                    .as_str()
                    .is_some_and(|path| Path::new(path).starts_with(&starters))
        })
        .filter_map(|package| package["name"].as_str().map(str::to_string))
        .collect();
    Some(names)
}

/// `(package, binary)` for every binary of the default members.
fn default_member_binaries() -> Option<Vec<(String, String)>> {
    let metadata = metadata()?;
    let defaults = metadata["workspace_default_members"].as_array()?;
    let mut binaries = Vec::new();
    for package in metadata["packages"].as_array()? {
        if !defaults.contains(&package["id"]) {
            continue;
        }
        let name = package["name"].as_str()?;
        for target in package["targets"].as_array()? {
            let is_bin = target["kind"]
                .as_array()
                .is_some_and(|kinds| kinds.contains(&"bin".into()));
            if let (true, Some(bin)) = (is_bin, target["name"].as_str()) {
                binaries.push((name.to_string(), bin.to_string()));
            }
        }
    }
    Some(binaries)
}

/// The workspace's packages (`cargo metadata --no-deps`), asked once.
fn metadata() -> Option<&'static serde_json::Value> {
    static METADATA: OnceLock<Option<serde_json::Value>> = OnceLock::new();
    METADATA
        .get_or_init(|| {
            let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
            let output = Command::new(cargo)
                .args([
                    "metadata",
                    "--no-deps",
                    "--format-version",
                    "1",
                    "--offline",
                ])
                .current_dir(course::root())
                .stderr(Stdio::null())
                .output()
                .ok()
                .filter(|output| output.status.success())?;
            serde_json::from_slice(&output.stdout).ok()
        })
        .as_ref()
}
