//! The state folder: where drafts live between calls. Every instance started
//! with the same `--state DIR` reads and writes the same files, so any of
//! them can serve the next call; none keeps anything in memory. Chapter 11
//! uses it as given: its lesson is the handle, not the file safety here.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::PathBuf;

use crate::SERVER_NAME;

// ANCHOR: state
pub struct State {
    folder: PathBuf,
    /// True when no `--state` was given: the folder is ours alone, made at
    /// the start and removed at the end.
    private: bool,
}

impl State {
    /// The `--state` folder (made if missing), or a fresh private one.
    pub fn open(folder: Option<PathBuf>) -> Result<State, String> {
        let (folder, private) = match folder {
            Some(folder) => (folder, false),
            None => {
                let name = format!("{SERVER_NAME}-{}", std::process::id());
                let folder = std::env::temp_dir().join(name);
                // A folder left by an earlier process with our id is stale.
                let _ = fs::remove_dir_all(&folder);
                (folder, true)
            }
        };
        fs::create_dir_all(&folder)
            .map_err(|err| format!("cannot use --state {}: {err}", folder.display()))?;
        Ok(State { folder, private })
    }
    // ANCHOR_END: state

    // ANCHOR: files
    /// The text of the file `name`, or `None` if there is none.
    pub fn read(&self, name: &str) -> io::Result<Option<String>> {
        match fs::read_to_string(self.folder.join(name)) {
            Ok(text) => Ok(Some(text)),
            Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(err) => Err(err),
        }
    }

    /// Creates `name` holding `text`, unless it exists (then `Ok(false)`).
    /// The text is written first, then linked in under its name: a link
    /// fails if the name is taken, so of two instances racing for one name
    /// exactly one wins, and nobody ever sees a half-written file.
    pub fn create(&self, name: &str, text: &str) -> io::Result<bool> {
        let written = self.write_aside(name, text)?;
        let linked = fs::hard_link(&written, self.folder.join(name));
        fs::remove_file(&written)?;
        match linked {
            Ok(()) => Ok(true),
            Err(err) if err.kind() == io::ErrorKind::AlreadyExists => Ok(false),
            Err(err) => Err(err),
        }
    }

    /// Replaces `name` with `text` all at once: written aside, then renamed
    /// over the old file. A reader sees the old text or the new, never half.
    pub fn replace(&self, name: &str, text: &str) -> io::Result<()> {
        let written = self.write_aside(name, text)?;
        fs::rename(&written, self.folder.join(name))
    }

    /// Waits until nobody else (another instance, say) holds the lock
    /// of `name`, and holds it until the returned file is dropped. The
    /// operating system lets go of it if the process dies, so a crash never
    /// leaves a draft locked for good.
    pub fn lock(&self, name: &str) -> io::Result<File> {
        let path = self.folder.join(format!(".{name}.lock"));
        let file = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)?;
        file.lock()?;
        Ok(file)
    }

    /// Writes `text` to a temporary file next to `name`. Our process id is
    /// in its name, so two instances never write the same temporary file.
    fn write_aside(&self, name: &str, text: &str) -> io::Result<PathBuf> {
        let path = self
            .folder
            .join(format!(".{name}.{}.tmp", std::process::id()));
        let mut file = File::create(&path)?;
        file.write_all(text.as_bytes())?;
        file.sync_all()?; // On the disk before it gets its real name.
        Ok(path)
    }
    // ANCHOR_END: files
}

impl Drop for State {
    fn drop(&mut self) {
        if self.private {
            let _ = fs::remove_dir_all(&self.folder);
        }
    }
}
