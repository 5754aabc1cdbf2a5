//! How much of each chapter is its lesson, measured the way
//! `../shared/tools/lesson_share.py` measures it, so that the maintainers'
//! tool and `cargo xtask sizes` agree:
//!
//! - **share**: of a chapter crate's own code lines (`src/**/*.rs` of its
//!   solution, `main.rs` included; blank lines and comments left out), the
//!   ones the learner writes, inside a gap;
//! - **copies**: runs of 20 code lines (trimmed) that two chapter crates
//!   from 08 on both hold, whatever their files are called;
//! - **process-wide state**: a `static` of a lock, cell, once, lazy,
//!   atomic or semaphore type, `static mut`, `lazy_static!`,
//!   `thread_local!` or `env::set_var(` in `solutions/` or `support/`;
//! - **untaught support**: the code lines of support files that no
//!   chapter teaches (not in `support/taught.txt`), and those files that do
//!   not open with a `//!` line saying why.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs;
use std::path::Path;

use crate::course::{self, Chapter};
use crate::generate::generated::files_under;
use crate::generate::support;

/// The targets (issue: the harness and the server on seams).
pub const MIN_SHARE: f64 = 0.15;
pub const SHARE_FROM: u32 = 13;
pub const COPY_RUN: usize = 20;
pub const COPIES_FROM: u32 = 8;
pub const MAX_SUPPORT_STATICS: usize = 3;
pub const MAX_UNTAUGHT: usize = 5000;

/// The whole course, measured.
#[derive(Debug, Default)]
pub struct Lessons {
    /// (chapter, lines the learner writes, code lines of the crate).
    pub shares: Vec<(u32, usize, usize)>,
    /// `"13:http.rs ~ 14:http.rs"` and how many runs the files share.
    pub copies: Vec<(String, usize)>,
    /// `path:line` of each process-wide value, in chapters and in support.
    pub chapter_statics: Vec<String>,
    pub support_statics: Vec<String>,
    pub untaught_lines: usize,
    /// Untaught support files that do not say why.
    pub unexplained: Vec<String>,
}

/// A file's code lines: trimmed, without blank lines and comments.
fn code(text: &str) -> Vec<&str> {
    let lines = text.lines().map(str::trim);
    lines
        .filter(|line| !line.is_empty() && !line.starts_with("//"))
        .collect()
}

/// The `.rs` files of a chapter's solution crate, relative to its `src/`.
fn sources(chapter: &Chapter) -> Vec<(String, String)> {
    let src = chapter.solution_dir().join("src");
    let files = files_under(&src).into_iter();
    let rust = files.filter(|path| path.extension().is_some_and(|ext| ext == "rs"));
    rust.map(|path| {
        let name = path.strip_prefix(&src).unwrap_or(&path);
        let name = name.to_string_lossy().replace('\\', "/");
        (name, fs::read_to_string(&path).unwrap_or_default())
    })
    .collect()
}

/// The code lines inside the gaps of `text` (`// GAP(chNN/…)` to `// END(…)`).
fn gap_lines(text: &str) -> usize {
    let (mut inside, mut count) = (false, 0);
    for line in text.lines().map(str::trim) {
        if line.starts_with("//") && line.contains("GAP(ch") {
            inside = true;
        } else if line.starts_with("//") && line.contains("END(ch") {
            inside = false;
        } else if inside && !line.is_empty() && !line.starts_with("//") {
            count += 1;
        }
    }
    count
}

/// Whether a line keeps a value for the whole process.
fn is_process_wide(line: &str) -> bool {
    let line = line.trim();
    if line.starts_with("//") {
        return false;
    }
    if ["lazy_static!", "thread_local!", "env::set_var("]
        .iter()
        .any(|mark| line.contains(mark))
    {
        return true;
    }
    let rest = line.strip_prefix("pub").map_or(line, |rest| {
        let rest = rest.trim_start();
        rest.strip_prefix('(')
            .and_then(|rest| rest.split_once(')'))
            .map_or(rest, |(_, rest)| rest)
    });
    let Some(rest) = rest.trim_start().strip_prefix("static ") else {
        return false;
    };
    if rest.trim_start().starts_with("mut ") {
        return true;
    }
    let Some((_, kind)) = rest.split_once(':') else {
        return false;
    };
    let kind = kind.split('=').next().unwrap_or(kind);
    const KINDS: [&str; 11] = [
        "Mutex",
        "RwLock",
        "OnceLock",
        "OnceCell",
        "LazyLock",
        "LazyCell",
        "Lazy",
        "Cell",
        "RefCell",
        "UnsafeCell",
        "Semaphore",
    ];
    let words = kind.split(|c: char| !(c.is_alphanumeric() || c == '_'));
    words
        .filter(|word| !word.is_empty())
        .any(|word| KINDS.contains(&word) || word.starts_with("Atomic"))
}

pub fn measure() -> Lessons {
    let mut lessons = Lessons::default();
    let mut runs: HashMap<String, BTreeSet<(u32, String)>> = HashMap::new();
    for chapter in Chapter::all() {
        let files = sources(&chapter);
        if chapter.number >= SHARE_FROM {
            let total = files.iter().map(|(_, text)| code(text).len()).sum();
            let written = files.iter().map(|(_, text)| gap_lines(text)).sum();
            lessons.shares.push((chapter.number, written, total));
        }
        if chapter.number < COPIES_FROM {
            continue;
        }
        for (name, text) in &files {
            let lines = code(text);
            for window in lines.windows(COPY_RUN) {
                let place = (chapter.number, name.clone());
                runs.entry(window.join("\n")).or_default().insert(place);
            }
        }
    }
    let mut copies: BTreeMap<String, usize> = BTreeMap::new();
    for places in runs.values() {
        let chapters: BTreeSet<u32> = places.iter().map(|(number, _)| *number).collect();
        if chapters.len() > 1 {
            let names: BTreeSet<String> = places
                .iter()
                .map(|(number, name)| format!("{number:02}:{name}"))
                .collect();
            *copies
                .entry(names.into_iter().collect::<Vec<_>>().join(" ~ "))
                .or_default() += 1;
        }
    }
    lessons.copies = copies.into_iter().collect();
    lessons
        .copies
        .sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let root = course::root();
    for (folder, found) in [
        ("solutions", &mut lessons.chapter_statics),
        ("support", &mut lessons.support_statics),
    ] {
        for path in files_under(&root.join(folder)) {
            if path.extension().is_none_or(|ext| ext != "rs") || is_built(&path) {
                continue;
            }
            let text = fs::read_to_string(&path).unwrap_or_default();
            let shown = path
                .strip_prefix(&root)
                .unwrap_or(&path)
                .display()
                .to_string();
            let lines = text.lines().enumerate();
            let process_wide = lines.filter(|(_, line)| is_process_wide(line));
            found.extend(process_wide.map(|(at, _)| format!("{shown}:{}", at + 1)));
        }
    }
    untaught(&root, &mut lessons);
    lessons
}

/// A file under a `target/` folder, built rather than written.
fn is_built(path: &Path) -> bool {
    path.components().any(|part| part.as_os_str() == "target")
}

fn untaught(root: &Path, lessons: &mut Lessons) {
    let taught: BTreeSet<_> = support::rows()
        .unwrap_or_default()
        .into_iter()
        .map(|row| root.join(row.file))
        .collect();
    for path in files_under(&root.join("support")) {
        let rust = path.extension().is_some_and(|ext| ext == "rs");
        if !rust || is_built(&path) || taught.contains(&path) {
            continue;
        }
        let text = fs::read_to_string(&path).unwrap_or_default();
        lessons.untaught_lines += code(&text).len();
        if !text.starts_with("//!") {
            let shown = path.strip_prefix(root).unwrap_or(&path);
            lessons.unexplained.push(shown.display().to_string());
        }
    }
}

impl Lessons {
    /// The chapters whose learner writes under `MIN_SHARE` of the crate.
    pub fn thin(&self) -> Vec<String> {
        let share = |written: usize, total: usize| written as f64 / total.max(1) as f64;
        let thin = self
            .shares
            .iter()
            .filter(|(_, w, t)| share(*w, *t) < MIN_SHARE);
        thin.map(|(number, w, t)| format!("{number:02} {:.0}%", 100.0 * share(*w, *t)))
            .collect()
    }

    /// Whether every target holds.
    pub fn hold(&self) -> bool {
        self.thin().is_empty()
            && self.copies.is_empty()
            && self.chapter_statics.is_empty()
            && self.support_statics.len() <= MAX_SUPPORT_STATICS
            && self.untaught_lines <= MAX_UNTAUGHT
            && self.unexplained.is_empty()
    }

    /// The report, one line per measure and a summary.
    pub fn report(&self) -> String {
        let mut out = String::new();
        for (number, written, total) in &self.shares {
            let percent = 100.0 * *written as f64 / (*total).max(1) as f64;
            out += &format!(
                "share {number:02}: the learner writes {written} of {total} code lines = {percent:.0}%\n"
            );
        }
        let places: Vec<String> = self
            .copies
            .iter()
            .map(|(files, runs)| format!("{files} ({runs} runs)"))
            .collect();
        out += &format!(
            "copies (runs of {COPY_RUN} code lines in two chapter crates from {COPIES_FROM:02} on): {} places{}\n",
            places.len(),
            if places.is_empty() {
                String::new()
            } else {
                format!(": {}", places.join("; "))
            }
        );
        out += &format!(
            "process-wide state: {} in chapter crates {:?}; {} in support {:?}\n",
            self.chapter_statics.len(),
            self.chapter_statics,
            self.support_statics.len(),
            self.support_statics
        );
        out += &format!(
            "untaught support: {} code lines (want <= {MAX_UNTAUGHT}); files without a //! first line: {:?}\n",
            self.untaught_lines, self.unexplained
        );
        out += &format!(
            "lessons: chapters where the learner writes under {:.0}% of the crate: {:?}; {}\n",
            100.0 * MIN_SHARE,
            self.thin(),
            if self.hold() {
                "every target holds"
            } else {
                "not every target holds yet"
            }
        );
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_static_of_a_shared_type_is_process_wide_and_a_constant_is_not() {
        assert!(is_process_wide(
            "static COUNT: AtomicU64 = AtomicU64::new(0);"
        ));
        assert!(is_process_wide(
            "    pub(crate) static CACHE: OnceLock<X> = OnceLock::new();"
        ));
        assert!(is_process_wide(
            "pub static NAME: Mutex<String> = Mutex::new(String::new());"
        ));
        assert!(is_process_wide("static mut COUNT: u64 = 0;"));
        assert!(is_process_wide("thread_local! {"));
        assert!(is_process_wide(
            "    unsafe { std::env::set_var(\"X\", \"1\") };"
        ));
        assert!(!is_process_wide("static NAMES: &[&str] = &[\"a\"];"));
        assert!(!is_process_wide("pub const LIMIT: usize = 3;"));
        assert!(!is_process_wide(
            "// static COUNT: AtomicU64 = AtomicU64::new(0);"
        ));
    }

    #[test]
    fn only_code_lines_inside_a_gap_are_the_learners() {
        let text = "fn a() {\n    // GAP(ch13/x): do it\n    // starter: todo!()\n    let b = 1;\n\n    b\n    // END(ch13/x)\n}\n";
        assert_eq!(gap_lines(text), 2);
        assert_eq!(code(text).len(), 4);
    }
}
