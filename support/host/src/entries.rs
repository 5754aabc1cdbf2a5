//! What a folder of definitions turned out to be: chapter 8's skill
//! folders and chapter 9's agent files are both found on disk, read one by
//! one, reported when invalid, and skipped when an earlier one already took
//! their name. That bookkeeping is the same for both and neither chapter's
//! lesson (reading one definition is), so it lives here. Support-own: no
//! chapter generates it.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// The most characters the tier-1 catalogue (chapter 8's
/// `<available_skills>`) may take: it rides in every request, so a folder
/// of ten thousand skills would put 1.6 MB in each. Claude Code budgets
/// its own skill listing at 1% of the context window, 8,000 characters
/// when the window is unknown (its skills page, "Skill descriptions are
/// cut short"); 8,000 characters is about 2,000 tokens (cl100k_base).
pub const MAX_CATALOGUE_CHARS: usize = 8_000;

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
    /// Valid, but the catalogue was full before its turn (`fit`).
    LeftOut(Problem),
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
    // The path of the first valid one of each name. Looked up, not found by
    // going over every entry so far: for ten thousand skills that was fifty
    // million comparisons of names, most of `--check-skills`' time.
    let mut first_named: HashMap<String, PathBuf> = HashMap::new();
    for path in paths {
        let entry = match read(&path) {
            Err(reason) => Entry::Invalid(Problem {
                path: path.clone(),
                reason,
            }),
            Ok(item) => match first_named.get(name_of(&item)) {
                Some(first) => Entry::Duplicate(Problem {
                    path: path.clone(),
                    reason: format!(
                        "name: {:?} is also the name of {}, which wins",
                        name_of(&item),
                        first.display()
                    ),
                }),
                None => {
                    first_named.insert(name_of(&item).to_string(), path.clone());
                    Entry::Valid(item)
                }
            },
        };
        entries.push((path, entry));
    }
    entries
}
// ANCHOR_END: load

// ANCHOR: fit
/// The entries, with the valid items that `catalogue` lists within
/// [`MAX_CATALOGUE_CHARS`] kept valid, in order, and each one after them
/// `LeftOut`: the first folders given win here too.
pub fn fit<T>(
    entries: Vec<(PathBuf, Entry<T>)>,
    catalogue: fn(&[T]) -> String,
) -> Vec<(PathBuf, Entry<T>)> {
    // The valid items, moved out to be measured; None marks their places.
    let mut items = Vec::new();
    let mut places = Vec::new();
    for (path, entry) in entries {
        match entry {
            Entry::Valid(item) => {
                items.push(item);
                places.push((path, None));
            }
            other => places.push((path, Some(other))),
        }
    }
    let kept = fitting(items.len(), |count| {
        catalogue(&items[..count]).chars().count() <= MAX_CATALOGUE_CHARS
    });
    let reason = format!(
        "catalogue: full after {kept} skills ({MAX_CATALOGUE_CHARS} characters at most, \
         wire_host::entries::MAX_CATALOGUE_CHARS), so {} are left out",
        items.len() - kept
    );
    let mut items = items.into_iter().enumerate();
    let mut fitted = Vec::new();
    for (path, entry) in places {
        let entry = match entry.ok_or_else(|| items.next()) {
            Ok(entry) => entry,
            Err(Some((index, item))) if index < kept => Entry::Valid(item),
            Err(_) => Entry::LeftOut(Problem {
                path: path.clone(),
                reason: reason.clone(),
            }),
        };
        fitted.push((path, entry));
    }
    fitted
}
// ANCHOR_END: fit

/// The largest count from 0 to `all` that `fits`, which holds for 0 and,
/// as the catalogue only grows with each item, for every count below one
/// that fits: found by halving, about 14 catalogues for 10,000 items.
fn fitting(all: usize, fits: impl Fn(usize) -> bool) -> usize {
    if fits(all) {
        return all;
    }
    // `fits(kept)` holds and `fits(over)` does not.
    let (mut kept, mut over) = (0, all);
    while over - kept > 1 {
        let middle = kept + (over - kept) / 2;
        match fits(middle) {
            true => kept = middle,
            false => over = middle,
        }
    }
    kept
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
/// Items left out of a full catalogue are reported once, with how many and
/// why: ten thousand lines would say nothing more.
pub fn usable<T: Clone>(program: &str, entries: &[(PathBuf, Entry<T>)]) -> Vec<T> {
    let mut left_out = None;
    for (_, entry) in entries {
        match entry {
            Entry::Invalid(problem) | Entry::Duplicate(problem) => {
                eprintln!("{program}: skipped {problem}");
            }
            Entry::LeftOut(problem) => left_out = left_out.or(Some(problem)),
            Entry::Valid(_) => {}
        }
    }
    if let Some(first) = left_out {
        eprintln!(
            "{program}: left out from {}: {}",
            first.path.display(),
            first.reason
        );
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
                Entry::LeftOut(problem) => format!("left out {problem}"),
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

    #[test]
    fn a_full_catalogue_leaves_the_later_items_out() {
        let paths = (0..10_001).map(|n| PathBuf::from(format!("s/{n:05}")));
        // One invalid item first: the places of the others stay right.
        let read = |path: &Path| match path.ends_with("00000") {
            true => Err("broken".to_string()),
            false => Ok(path.display().to_string()),
        };
        let entries = load(paths, read, |name: &String| name.as_str());
        // 100 characters an item: 80 fit in 8,000.
        let entries = fit(entries, |items| "x".repeat(100 * items.len()));
        assert_eq!(valid(&entries).count(), 80);
        assert!(matches!(entries[0].1, Entry::Invalid(_)));
        assert!(matches!(entries[80].1, Entry::Valid(_)));
        let Entry::LeftOut(problem) = &entries[81].1 else {
            panic!("the 81st item is not left out");
        };
        assert_eq!(
            problem.to_string(),
            "s/00081: catalogue: full after 80 skills (8000 characters at most, \
             wire_host::entries::MAX_CATALOGUE_CHARS), so 9920 are left out"
        );
        assert_eq!(fitting(5, |_| true), 5);
        assert_eq!(fitting(5, |count| count < 3), 2);
    }
}
