//! What a folder of definitions turned out to be: chapter 8's skill
//! folders and chapter 9's agent files are both found on disk, read one by
//! one, reported when invalid, and skipped when an earlier one already took
//! their name. That bookkeeping is the same for both and neither chapter's
//! lesson (reading one definition is), so it lives here. Support-own: no
//! chapter generates it.

use std::fmt;
use std::path::{Path, PathBuf};

/// Why a path is not loaded: the path, and the reason (for a skill,
/// `FIELD: RULE`).
#[derive(Debug)]
pub struct Problem {
    pub path: PathBuf,
    pub reason: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.reason)
    }
}

/// What one path turned out to be.
pub enum Entry<T> {
    Valid(T),
    Invalid(Problem),
    /// Valid, but an earlier one already has its name: the first one wins.
    Duplicate(Problem),
}

// ANCHOR: load
/// Reads each of `paths` in order with `read`. A valid one whose name
/// (`name_of`) an earlier valid one already has is a duplicate: the first
/// one wins, so the order of the paths is the order of precedence.
pub fn load<T>(
    paths: impl IntoIterator<Item = PathBuf>,
    read: impl Fn(&Path) -> Result<T, String>,
    name_of: fn(&T) -> &str,
) -> Vec<(PathBuf, Entry<T>)> {
    let mut entries: Vec<(PathBuf, Entry<T>)> = Vec::new();
    for path in paths {
        let entry = match read(&path) {
            Err(reason) => Entry::Invalid(Problem {
                path: path.clone(),
                reason,
            }),
            Ok(item) => match first_named(&entries, name_of(&item), name_of) {
                Some(first) => Entry::Duplicate(Problem {
                    path: path.clone(),
                    reason: format!(
                        "name: {:?} is also the name of {}, which wins",
                        name_of(&item),
                        first.display()
                    ),
                }),
                None => Entry::Valid(item),
            },
        };
        entries.push((path, entry));
    }
    entries
}
// ANCHOR_END: load

/// The path of the valid entry called `name`, if there is one yet.
fn first_named<'a, T>(
    entries: &'a [(PathBuf, Entry<T>)],
    name: &str,
    name_of: fn(&T) -> &str,
) -> Option<&'a Path> {
    entries.iter().find_map(|(path, entry)| match entry {
        Entry::Valid(item) if name_of(item) == name => Some(path.as_path()),
        _ => None,
    })
}

/// The valid items among `entries`, in order.
pub fn valid<T>(entries: &[(PathBuf, Entry<T>)]) -> impl Iterator<Item = &T> {
    entries.iter().filter_map(|(_, entry)| match entry {
        Entry::Valid(item) => Some(item),
        _ => None,
    })
}

/// The valid items, for a run (not a check): every path left out is
/// reported on stderr, after the program's name, and the run goes on
/// without it.
pub fn usable<T: Clone>(program: &str, entries: &[(PathBuf, Entry<T>)]) -> Vec<T> {
    for (_, entry) in entries {
        if let Entry::Invalid(problem) | Entry::Duplicate(problem) = entry {
            eprintln!("{program}: skipped {problem}");
        }
    }
    valid(entries).cloned().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_of_a_name_wins() {
        let paths = ["a/x", "b/bad", "c/x"].map(PathBuf::from);
        let read = |path: &Path| match path.file_name().unwrap().to_str().unwrap() {
            "bad" => Err("broken".to_string()),
            name => Ok(name.to_string()),
        };
        let entries = load(paths, read, |name: &String| name.as_str());
        let shown: Vec<String> = entries
            .iter()
            .map(|(_, entry)| match entry {
                Entry::Valid(name) => format!("ok {name}"),
                Entry::Invalid(problem) => format!("invalid {problem}"),
                Entry::Duplicate(problem) => format!("skipped {problem}"),
            })
            .collect();
        assert_eq!(
            shown,
            [
                "ok x",
                "invalid b/bad: broken",
                "skipped c/x: name: \"x\" is also the name of a/x, which wins"
            ]
        );
        assert_eq!(valid(&entries).count(), 1);
    }
}
