//! A hook chapter's session (chapter 10 on): the working folder where Bash
//! and the hooks run, and a folder of the session's own, outside it, for
//! the transcript files and the hook scripts' snapshot. Plumbing, no
//! chapter's lesson: folders made fresh, and removed again however the run
//! ends (an error after the folder was made included), so nothing is left
//! behind in the temporary folder.

use std::fmt::Display;
use std::io::Write;
use std::path::{Path, PathBuf};

use async_trait::async_trait;
use serde_json::{Map, Value, json};

use crate::cli::HookOptions;
use crate::events::{Event, Outcome, common_fields};
use crate::settings::{self, Settings};

/// The session's folders. What it made, it removes when dropped.
pub struct Session {
    /// `--session-id`, or one made of the process id.
    pub id: String,
    /// Where `Bash` and the hooks run: `--workdir`, or a fresh folder.
    pub workdir: PathBuf,
    /// The session's own folder: `PROGRAM-SESSION_ID` in the temporary
    /// folder, outside the working folder, so the model's `Bash` never
    /// sees it.
    pub folder: PathBuf,
}

/// What fires hooks: chapter 10's `Hooks` (and chapter 11's, which reads
/// more events). The extensions that fire events (the fence, the
/// lifecycle, compaction) hold one.
#[async_trait(?Send)]
pub trait Fire {
    /// The session whose fields every event's input carries.
    fn session(&self) -> &Session;
    /// Runs the hooks of `event` (`inside`: the subagent's id and type when
    /// one fires it): what they decided, and one line per hook.
    async fn fire(&self, event: &Event<'_>, inside: Option<(&str, &str)>)
    -> (Outcome, Vec<String>);
}

/// A file the demo puts in its fresh working folder: the path under it,
/// the text, and whether it is a script to run.
pub struct DemoFile {
    pub path: &'static str,
    pub text: &'static str,
    pub executable: bool,
}

impl DemoFile {
    /// A file to read.
    pub const fn text(path: &'static str, text: &'static str) -> DemoFile {
        DemoFile {
            path,
            text,
            executable: false,
        }
    }

    /// A script to run (a hook, a test suite).
    pub const fn script(path: &'static str, text: &'static str) -> DemoFile {
        DemoFile {
            path,
            text,
            executable: true,
        }
    }
}

impl Session {
    /// Makes the session's folder, and the working folder when none is
    /// `chosen`; with `demo` files, writes them into the working folder.
    /// Prints the working folder (a fresh one's path changes every run,
    /// so it is named, not shown).
    pub fn open(
        program: &str,
        chosen: Option<&Path>,
        session_id: &str,
        demo: &[DemoFile],
    ) -> Result<Session, String> {
        let folder = std::env::temp_dir().join(format!("{program}-{session_id}"));
        fresh_folder(&folder)?;
        let mut session = Session {
            id: session_id.to_string(),
            workdir: folder.join("work"),
            folder,
        };
        match chosen {
            Some(dir) => session.workdir = dir.to_path_buf(),
            None => fresh_folder(&session.workdir)?,
        }
        // Hooks and the model see one absolute path, however it was given.
        session.workdir = std::fs::canonicalize(&session.workdir)
            .map_err(|err| format!("--workdir {}: {err}", session.workdir.display()))?;
        for file in demo {
            write_demo_file(&session.workdir, file)
                .map_err(|err| format!("cannot set up the demo: {err}"))?;
        }
        let shown = match chosen {
            None => "a fresh temporary folder".to_string(),
            Some(_) => session.workdir.display().to_string(),
        };
        println!("working folder: {shown}");
        Ok(session)
    }

    /// The JSON-lines file of the main conversation (`transcript_path`).
    pub fn transcript_path(&self) -> PathBuf {
        self.folder.join("transcript.jsonl")
    }

    /// The fields every hook event's input carries: the session's id, the
    /// main transcript, the working folder (`events::common_fields`).
    pub fn common_fields(&self) -> Map<String, Value> {
        common_fields(&self.id, &self.transcript_path(), &self.workdir)
    }
}

impl Session {
    /// A hook chapter's start: the session's folders, and the hooks of
    /// `--settings` (or none). The settings are read with the chapter's
    /// list of the events it fires (`fired`) and its matcher parser
    /// (`parse`); each event or handler they skip gets a line on stderr,
    /// and each hook script in the working folder is copied out of the
    /// model's reach (`Settings::snapshot`).
    pub fn with_hooks<M, E: Display>(
        program: &str,
        options: &HookOptions,
        demo: &[DemoFile],
        fired: &[&str],
        parse: impl Fn(&str) -> Result<M, E>,
    ) -> Result<(Session, Settings<M>), String> {
        let chosen = options.workdir.as_deref();
        let session = Session::open(program, chosen, &options.session_id, demo)?;
        let mut settings = match &options.settings {
            Some(path) => settings::load(path, fired, parse)?,
            None => Settings::default(),
        };
        for line in &settings.skipped {
            eprintln!("{program}: {line}");
        }
        let copies = settings.snapshot(&session.workdir, &session.folder.join("hooks"))?;
        copies
            .iter()
            .for_each(|line| eprintln!("{program}: {line}"));
        Ok((session, settings))
    }
}

impl Drop for Session {
    /// Removes the session's folder (and with it a fresh working folder);
    /// a `--workdir` the user named stays.
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.folder);
    }
}

/// One message appended to a transcript file (JSON lines, Claude Code's
/// shape: `{"type": ROLE, "message": …}`), which hooks may read at their
/// `transcript_path`. A file that cannot be written is reported, never
/// fatal.
pub fn record(program: &str, path: &Path, message: &Value) {
    let line = json!({ "type": message["role"], "message": message });
    let written = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .and_then(|mut file| writeln!(file, "{line}"));
    if let Err(err) = written {
        eprintln!(
            "{program}: cannot write the transcript {}: {err}",
            path.display()
        );
    }
}

fn write_demo_file(workdir: &Path, file: &DemoFile) -> std::io::Result<()> {
    let path = workdir.join(file.path);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(&path, file.text)?;
    #[cfg(unix)]
    if file.executable {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))?;
    }
    Ok(())
}

/// An empty folder at `path`: whatever a crashed run left there goes first.
fn fresh_folder(path: &Path) -> Result<(), String> {
    let _ = std::fs::remove_dir_all(path);
    std::fs::create_dir_all(path).map_err(|err| format!("cannot create {}: {err}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_removes_its_folder_when_dropped_even_after_an_error() {
        let id = format!("test-{}", std::process::id());
        let demo = [DemoFile {
            path: "a/b.txt",
            text: "x",
            executable: false,
        }];
        let session = Session::open("wire-session", None, &id, &demo).unwrap();
        let folder = session.folder.clone();
        assert_eq!(
            std::fs::read_to_string(session.workdir.join("a/b.txt")).unwrap(),
            "x"
        );
        drop(session);
        assert!(!folder.exists(), "{} left behind", folder.display());
    }
}
