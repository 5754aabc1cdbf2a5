//! Chapter 24's sandbox is built for an ordinary user: bubblewrap needs
//! unprivileged user namespaces to start as one, and root needs none. CI
//! runs the tests as root, so a transcript that starts the sandbox says
//! `# unprivileged: yes`, and there the runner starts the program as user
//! nobody (`setpriv`, util-linux) and hands it the run's folders first: the
//! path a learner's machine takes is the one CI tests. As any other user,
//! nothing changes.
//!
//! Nobody must be able to reach the checkout (the binary, the fixtures the
//! arguments name). Where it cannot, on a learner's machine the run stays
//! root's, with a note; under `CI` that is an error that says what to fix.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::course;
use crate::generate::starters;

/// The user and group nobody, on Debian and most Linux systems.
pub const NOBODY: u32 = 65534;

/// The words that start `program` as nobody when this process is root:
/// none otherwise, or where nobody cannot run it (outside `CI`).
pub fn prefix(program: &Path) -> Result<Vec<String>, String> {
    let root = std::fs::metadata("/proc/self").is_ok_and(|me| me.uid() == 0);
    if !root {
        return Ok(Vec::new());
    }
    let nobody = format!("{NOBODY}");
    let words: Vec<String> = ["setpriv", "--reuid", &nobody, "--regid", &nobody]
        .into_iter()
        .chain(["--clear-groups", "--"])
        .map(String::from)
        .collect();
    // Can nobody run the program, from the checkout, and read it?
    let checkout = course::root().join("Cargo.toml");
    let probe = Command::new(&words[0])
        .args(&words[1..])
        .arg("test")
        .arg("-x")
        .arg(program)
        .args(["-a", "-r"])
        .arg(&checkout)
        .status();
    let problem = match probe {
        Ok(status) if status.success() => return Ok(words),
        Ok(_) => format!(
            "user nobody cannot run {} or read {} (`chmod o+x` the folders above the checkout)",
            program.display(),
            checkout.display()
        ),
        Err(err) => format!("setpriv: {err} (Debian/Ubuntu: sudo apt-get install util-linux)"),
    };
    if starters::strict() {
        return Err(format!(
            "the sandbox's scenarios run as user nobody when the tests run as root: {problem}"
        ));
    }
    eprintln!("note: running as root, not as user nobody: {problem}");
    Ok(Vec::new())
}

/// Gives `folder`, and everything in it, to nobody: the run's working
/// folder, home and temporary folder, which the program writes.
pub fn hand_over(folder: &Path) -> Result<(), String> {
    let give = |path: &Path| {
        std::os::unix::fs::lchown(path, Some(NOBODY), Some(NOBODY))
            .map_err(|err| format!("cannot give {} to nobody: {err}", path.display()))
    };
    give(folder)?;
    if folder.is_symlink() || !folder.is_dir() {
        return Ok(());
    }
    let entries = std::fs::read_dir(folder).map_err(|err| err.to_string())?;
    for entry in entries {
        hand_over(&entry.map_err(|err| err.to_string())?.path())?;
    }
    Ok(())
}

/// What to start for `program` with `args`: itself, or, when this process
/// is root, setpriv starting it as nobody, `folders` given to nobody first.
pub fn command(
    program: &Path,
    args: Vec<String>,
    folders: &[&Path],
) -> Result<(PathBuf, Vec<String>), String> {
    let mut words = prefix(program)?;
    if words.is_empty() {
        return Ok((program.to_path_buf(), args));
    }
    for folder in folders {
        hand_over(folder)?;
    }
    let setpriv = PathBuf::from(words.remove(0));
    words.push(program.display().to_string());
    words.extend(args);
    Ok((setpriv, words))
}
