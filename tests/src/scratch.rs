//! A test's own folder in the temporary folder, removed when the test ends,
//! a failing test's too. A test that leaves its folders behind leaves a
//! learner's `/tmp` a few dozen fuller at every `cargo test`.

use std::ffi::OsStr;
use std::ops::Deref;
use std::path::{Path, PathBuf};

/// `$TMPDIR/wire-{kind}-{pid}-{name}`, fresh and empty; removed on drop.
/// It reads as a [`Path`] (`dir.join(...)`, `.arg(&dir)`).
pub struct Scratch(PathBuf);

impl Scratch {
    pub fn new(kind: &str, name: &str) -> Scratch {
        let file = format!("wire-{kind}-{}-{name}", std::process::id());
        let dir = std::env::temp_dir().join(file);
        let _ = std::fs::remove_dir_all(&dir); // a crashed run's, with our pid
        std::fs::create_dir_all(&dir)
            .unwrap_or_else(|err| panic!("cannot make {}: {err}", dir.display()));
        Scratch(dir)
    }
}

impl Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<OsStr> for Scratch {
    fn as_ref(&self) -> &OsStr {
        self.0.as_os_str()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
