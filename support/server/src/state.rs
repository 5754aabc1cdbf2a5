//! The state folder: where drafts live between calls. Every instance started
//! with the same `--state DIR` reads and writes the same files, so any of
//! them can serve the next call; none keeps anything in memory. Chapter 12
//! uses it as given: its lesson is the handle, not the file safety here.
//!
//! The folder is shared with processes we do not control (another instance,
//! whoever else can write to it), so nothing here trusts a name in it: a
//! file is created only where no entry exists (`create_new`, which never
//! follows a symlink), and only regular files are read or locked. An entry
//! may be swapped between our look at it and our open, so the open itself
//! refuses a symlink and never waits (`O_NOFOLLOW | O_NONBLOCK` on unix), and
//! what it opened is checked again. Anything else is refused with its name,
//! at once, without waiting on it.

use std::fs::{self, File, TryLockError};
use std::hash::{BuildHasher, Hasher, RandomState};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::SERVER_NAME;

/// How long a writer waits for another writer's lock on a draft before it
/// gives up with an error that says so: a stuck process elsewhere costs one
/// call this long, never the whole server.
pub const LOCK_WAIT: Duration = Duration::from_secs(5);

/// The largest draft file read: a file bigger than this is damaged.
pub const MAX_DRAFT_BYTES: u64 = 16 * 1024 * 1024;

// ANCHOR: state
pub struct State {
    folder: PathBuf,
    /// True when no `--state` was given: the folder is ours alone, made at
    /// the start and removed at the end.
    private: bool,
    /// The highest number this process knows to be taken: where the search
    /// for a free one starts, so a new handle costs the same with 2 drafts
    /// or 2,000. Only a hint: the link decides who wins a number.
    taken: AtomicU64,
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
        let taken = AtomicU64::new(0);
        Ok(State {
            folder,
            private,
            taken,
        })
    }
    // ANCHOR_END: state

    // ANCHOR: files
    /// The text of the file `name`, or `None` if there is none.
    pub fn read(&self, name: &str) -> io::Result<Option<String>> {
        let path = self.folder.join(name);
        if !regular(&path, name)? {
            return Ok(None);
        }
        let file = match open_entry(File::options().read(true), &path, name) {
            Ok(file) => file,
            Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(err) => return Err(err),
        };
        same_file(&file, &path, name)?;
        let mut text = String::new();
        file.take(MAX_DRAFT_BYTES + 1)
            .read_to_string(&mut text)
            .map_err(|err| damaged(name, err))?;
        if text.len() as u64 > MAX_DRAFT_BYTES {
            return Err(damaged(name, format!("over {MAX_DRAFT_BYTES} bytes")));
        }
        Ok(Some(text))
    }

    /// Creates `{stem}N{suffix}` holding `text` under the first free number
    /// N from where this process last looked, and returns N. The text is
    /// written first, then linked in under its name: a link fails if the
    /// name is taken, so of two instances racing for one number exactly one
    /// wins, and nobody ever sees a half-written file. The free number is
    /// found by doubling and halving (a dozen looks for 2,000 drafts), and
    /// nothing is written or synced for the numbers that are taken.
    pub fn create_next(&self, stem: &str, suffix: &str, text: &str) -> io::Result<u64> {
        let written = self.write_aside(text)?;
        let name = |number: u64| format!("{stem}{number}{suffix}");
        let taken = |number: u64| fs::symlink_metadata(self.folder.join(name(number))).is_ok();
        let mut number = self.first_free(taken);
        let linked = loop {
            match fs::hard_link(&written, self.folder.join(name(number))) {
                Err(err) if err.kind() == io::ErrorKind::AlreadyExists => number += 1,
                other => break other,
            }
        };
        fs::remove_file(&written)?;
        linked?;
        self.taken.fetch_max(number, Ordering::Relaxed);
        Ok(number)
    }

    /// Replaces `name` with `text` all at once: written aside, then renamed
    /// over the old file. A reader sees the old text or the new, never half.
    pub fn replace(&self, name: &str, text: &str) -> io::Result<()> {
        let written = self.write_aside(text)?;
        let renamed = fs::rename(&written, self.folder.join(name));
        if renamed.is_err() {
            let _ = fs::remove_file(&written);
        }
        renamed
    }

    /// Waits until nobody else (another instance, say) holds the lock
    /// of `name`, and holds it until the returned file is dropped. The
    /// operating system lets go of it if the process dies, so a crash never
    /// leaves a draft locked for good. A lock held longer than `LOCK_WAIT`
    /// is an error naming the draft, not a wait without end.
    pub fn lock(&self, name: &str) -> io::Result<File> {
        let lock_name = format!(".{name}.lock");
        let path = self.folder.join(&lock_name);
        let file = match File::options().write(true).create_new(true).open(&path) {
            Ok(file) => file,
            Err(err) if err.kind() == io::ErrorKind::AlreadyExists => {
                // There already: only a regular file will do, and it must
                // still be the one we looked at when we open it.
                regular(&path, &lock_name)?;
                let file = open_entry(File::options().write(true), &path, &lock_name)?;
                same_file(&file, &path, &lock_name)?;
                file
            }
            Err(err) => return Err(err),
        };
        let start = Instant::now();
        loop {
            match file.try_lock() {
                Ok(()) => return Ok(file),
                Err(TryLockError::Error(err)) => return Err(err),
                Err(TryLockError::WouldBlock) if start.elapsed() >= LOCK_WAIT => {
                    let waited = LOCK_WAIT.as_secs();
                    return Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        format!("{name} is being changed by another writer for over {waited} s"),
                    ));
                }
                Err(TryLockError::WouldBlock) => std::thread::sleep(Duration::from_millis(10)),
            }
        }
    }

    /// Writes `text` to a new temporary file with a random name, created
    /// only if no entry of that name exists: no other process, not even
    /// one with our process id in another container, writes to it, and a
    /// symlink planted in the folder is never followed.
    fn write_aside(&self, text: &str) -> io::Result<PathBuf> {
        loop {
            let path = self.folder.join(format!(".{:016x}.tmp", random()));
            let mut file = match File::options().write(true).create_new(true).open(&path) {
                Ok(file) => file,
                Err(err) if err.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(err) => return Err(err),
            };
            let written = file
                .write_all(text.as_bytes())
                .and_then(|()| file.sync_all());
            if let Err(err) = written {
                let _ = fs::remove_file(&path);
                return Err(err);
            }
            return Ok(path); // On the disk before it gets its real name.
        }
    }
    // ANCHOR_END: files

    /// The secret key kept in the folder as `name` (64 hex digits), made
    /// on first use. Every instance sharing `--state` reads the same key, so
    /// any of them can open what another sealed; without `--state` the
    /// folder is this process's own, and so is the key. The key is written
    /// aside with mode 0600 (only our user may read it) and linked in under
    /// its name, which fails if the name is taken (`O_EXCL`'s promise): of
    /// two instances starting at once one makes the key, the other reads it,
    /// and nobody reads half a key. A symlink, a FIFO or a file of another
    /// length in its place is refused with its name.
    pub fn secret(&self, name: &str) -> io::Result<[u8; 32]> {
        if let Some(text) = self.read(name)? {
            return parse_key(name, &text);
        }
        let mut key = [0; 32];
        File::open("/dev/urandom")?.read_exact(&mut key)?; // the OS's random source
        let text: String = key.iter().map(|byte| format!("{byte:02x}")).collect();
        let aside = self.folder.join(format!(".{:016x}.tmp", random()));
        let mut options = File::options();
        options.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let written = options
            .open(&aside)
            .and_then(|mut file| file.write_all(text.as_bytes()).and(file.sync_all()));
        let linked = written.and_then(|()| fs::hard_link(&aside, self.folder.join(name)));
        let _ = fs::remove_file(&aside);
        match linked {
            Ok(()) => Ok(key),
            // Another instance made it first: its key is the one.
            Err(err) if err.kind() == io::ErrorKind::AlreadyExists => {
                let text = self.read(name)?.unwrap_or_default();
                parse_key(name, &text)
            }
            Err(err) => Err(err),
        }
    }

    /// A second handle on the same folder, for a chapter that keeps a file
    /// of its own beside the drafts (chapter 16's index) while chapter 12's
    /// `Server` owns the first. It never removes the folder: the first,
    /// if private, does that at the end.
    pub fn another(&self) -> State {
        State {
            folder: self.folder.clone(),
            private: false,
            taken: AtomicU64::new(0),
        }
    }

    /// The folder itself, for a record kept beside the drafts and the key
    /// (`request_state::Spent`, with the `asking` feature).
    #[cfg(feature = "asking")]
    pub(crate) fn folder(&self) -> &Path {
        &self.folder
    }

    /// The first number not `taken`, searched from the hint up: double the
    /// step while numbers are taken, then halve back to the first free one.
    /// Drafts are numbered densely, so this finds the first free number;
    /// a gap left by a removed file may be found instead, which is as good.
    fn first_free(&self, taken: impl Fn(u64) -> bool) -> u64 {
        let mut low = self.taken.load(Ordering::Relaxed); // taken, or 0
        let mut step = 1;
        while taken(low + step) {
            low += step;
            step *= 2;
        }
        let mut high = low + step; // free
        while high - low > 1 {
            let middle = low + (high - low) / 2;
            if taken(middle) {
                low = middle;
            } else {
                high = middle;
            }
        }
        high
    }
}

/// Creates the empty file `name` in `folder`, unless an entry of that name
/// is there already: `true` if this call made it. `create_new` (`O_EXCL`)
/// looks and creates in one step of the kernel, so of two processes
/// claiming one name exactly one gets `true` (a look first, then a create,
/// would let both win), and it never follows a symlink of that name. A
/// regular file there: `false`; a symlink, a FIFO or a folder is refused by
/// name, as every entry of the folder is.
pub fn claim(folder: &Path, name: &str) -> io::Result<bool> {
    let path = folder.join(name);
    match File::options().write(true).create_new(true).open(&path) {
        Ok(_) => Ok(true),
        Err(err) if err.kind() == io::ErrorKind::AlreadyExists => {
            regular(&path, name).map(|_| false)
        }
        Err(err) => Err(err),
    }
}

/// A key file's 64 hex digits as bytes; anything else is damaged.
fn parse_key(name: &str, text: &str) -> io::Result<[u8; 32]> {
    let digits = text.trim_end();
    let mut key = [0; 32];
    if digits.len() != 64 || !digits.bytes().all(|byte| byte.is_ascii_hexdigit()) {
        return Err(damaged(name, "not 64 hex digits"));
    }
    for (at, byte) in key.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&digits[2 * at..2 * at + 2], 16).unwrap_or_default();
    }
    Ok(key)
}

/// A damaged file in the folder, named, with what is wrong with it.
pub fn damaged(name: &str, problem: impl std::fmt::Display) -> io::Error {
    let problem =
        format!("{name} in the state folder is damaged ({problem}); no other is affected");
    io::Error::new(io::ErrorKind::InvalidData, problem)
}

/// Whether `path` is a regular file (`false`: there is nothing there). A
/// symlink, a FIFO, a folder or a device is refused by name: opening a FIFO
/// would wait for a writer, and a symlink leads out of the folder.
fn regular(path: &Path, name: &str) -> io::Result<bool> {
    match fs::symlink_metadata(path) {
        Ok(metadata) if metadata.is_file() => Ok(true),
        Ok(metadata) => Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "{name} in the state folder is not a regular file ({:?}); refused",
                metadata.file_type()
            ),
        )),
        Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(err) => Err(err),
    }
}

/// Opens the existing entry `path` (`name` in messages) as `options` say,
/// never through a symlink and never waiting: `regular` looked at the entry
/// a moment ago, but another process may have put a symlink or a FIFO
/// there since. With `O_NOFOLLOW` the open of a symlink fails (`ELOOP`)
/// instead of leading out of the folder; with `O_NONBLOCK` the open of a
/// FIFO returns at once (reading) or fails (`ENXIO`, writing with no
/// reader) instead of waiting for the other end, and `same_file` then
/// refuses it. On a regular file `O_NONBLOCK` changes nothing.
fn open_entry(options: &mut fs::OpenOptions, path: &Path, name: &str) -> io::Result<File> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    options.open(path).map_err(|err| {
        #[cfg(unix)]
        if matches!(err.raw_os_error(), Some(libc::ELOOP | libc::ENXIO)) {
            let problem =
                format!("{name} in the state folder is not a regular file ({err}); refused");
            return io::Error::new(io::ErrorKind::InvalidData, problem);
        }
        let _ = name;
        err
    })
}

/// Refuses an open file that is no longer what `path` names: someone
/// swapped the entry between our look and our open.
fn same_file(file: &File, path: &Path, name: &str) -> io::Result<()> {
    let opened = file.metadata()?;
    #[cfg(unix)]
    let same = {
        use std::os::unix::fs::MetadataExt;
        let named = fs::symlink_metadata(path)?;
        named.dev() == opened.dev() && named.ino() == opened.ino()
    };
    #[cfg(not(unix))]
    let same = fs::symlink_metadata(path)?.is_file();
    if opened.is_file() && same {
        Ok(())
    } else {
        let problem = format!("{name} in the state folder changed while opened; refused");
        Err(io::Error::new(io::ErrorKind::InvalidData, problem))
    }
}

/// 64 random bits for a temporary name, or a requestState's nonce: the
/// standard library's hasher keys come from the operating system's random
/// source, mixed with a counter.
pub(crate) fn random() -> u64 {
    // Process-wide by nature: two calls in one process, on any thread, must
    // never hash the same input.
    static COUNT: AtomicU64 = AtomicU64::new(0);
    let mut hasher = RandomState::new().build_hasher();
    hasher.write_u64(COUNT.fetch_add(1, Ordering::Relaxed));
    hasher.write_u32(std::process::id());
    hasher.finish()
}

impl Drop for State {
    fn drop(&mut self) {
        if self.private {
            let _ = fs::remove_dir_all(&self.folder);
        }
    }
}

/// The race `open_entry` closes, played step by step: the look finds a
/// regular file, another process swaps the entry, then we open it.
#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;
    use std::sync::mpsc;

    /// A fresh folder with `state/` inside and room beside it.
    fn scratch(name: &str) -> (PathBuf, PathBuf) {
        let dir =
            std::env::temp_dir().join(format!("wire-state-unit-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let state = dir.join("state");
        fs::create_dir_all(&state).unwrap();
        (dir, state)
    }

    /// Runs `open` in a thread: an open that waits fails the test instead
    /// of hanging it (the limit is a safety net, not a measure).
    fn without_waiting(
        open: impl FnOnce() -> io::Result<File> + Send + 'static,
    ) -> io::Result<File> {
        let (sender, receiver) = mpsc::channel();
        std::thread::spawn(move || sender.send(open()));
        receiver
            .recv_timeout(Duration::from_secs(10))
            .expect("the open waited for the other end of a FIFO")
    }

    #[test]
    fn a_symlink_swapped_in_after_the_look_is_not_followed() {
        let (dir, state) = scratch("swap-link");
        let outside = dir.join("secret");
        fs::write(&outside, "secret").unwrap();
        let path = state.join("draft-1.json");
        fs::write(&path, "{}").unwrap();
        assert!(regular(&path, "draft-1.json").unwrap()); // the look
        fs::remove_file(&path).unwrap(); // the swap
        symlink(&outside, &path).unwrap();
        for options in [File::options().read(true), File::options().write(true)] {
            let refused = open_entry(options, &path, "draft-1.json").unwrap_err();
            assert!(
                refused
                    .to_string()
                    .starts_with("draft-1.json in the state folder is not a regular file"),
                "{refused}"
            );
        }
        assert_eq!(fs::read_to_string(&outside).unwrap(), "secret");
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_claim_is_won_once_and_never_through_an_odd_entry() {
        let (dir, state) = scratch("claim");
        assert!(claim(&state, "spent-a").unwrap());
        assert!(!claim(&state, "spent-a").unwrap());
        // A symlink of that name is not followed: its target is not made.
        symlink(dir.join("elsewhere"), state.join("spent-b")).unwrap();
        let refused = claim(&state, "spent-b").unwrap_err();
        assert!(
            refused.to_string().contains("not a regular file"),
            "{refused}"
        );
        assert!(!dir.join("elsewhere").exists());
        fs::create_dir(state.join("spent-c")).unwrap();
        let refused = claim(&state, "spent-c").unwrap_err();
        assert!(
            refused
                .to_string()
                .starts_with("spent-c in the state folder"),
            "{refused}"
        );
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_fifo_swapped_in_after_the_look_is_refused_without_waiting() {
        let (dir, state) = scratch("swap-fifo");
        let path = state.join(".draft-1.json.lock");
        fs::write(&path, "").unwrap();
        assert!(regular(&path, ".draft-1.json.lock").unwrap()); // the look
        fs::remove_file(&path).unwrap(); // the swap
        let made = std::process::Command::new("mkfifo").arg(&path).status();
        assert!(made.unwrap().success());
        // Writing: no reader, so the open fails at once.
        let for_writing = path.clone();
        let refused = without_waiting(move || {
            open_entry(
                File::options().write(true),
                &for_writing,
                ".draft-1.json.lock",
            )
        })
        .unwrap_err();
        assert!(
            refused.to_string().contains("not a regular file"),
            "{refused}"
        );
        // Reading: the open returns at once, and what it opened is refused.
        let for_reading = path.clone();
        let opened = without_waiting(move || {
            open_entry(
                File::options().read(true),
                &for_reading,
                ".draft-1.json.lock",
            )
        })
        .unwrap();
        let refused = same_file(&opened, &path, ".draft-1.json.lock").unwrap_err();
        assert!(
            refused.to_string().contains("changed while opened"),
            "{refused}"
        );
        let _ = fs::remove_dir_all(&dir);
    }
}
