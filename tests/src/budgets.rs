//! The small-lessons budgets, measured the way
//! `../shared/tools/chapter_sizes.py` measures them, so the test and the
//! maintainers' tool agree: a chapter's own source (`src/**/*.rs` of its
//! solution; the support crates are not counted), the lines it adds or
//! changes against the chapter it grows from (the new side of a
//! `difflib.SequenceMatcher` diff, marker and anchor lines left out, so
//! deleting a copied file costs nothing), its longest function, its gaps,
//! and the `crate::` imports between its modules, which must not form a
//! circle.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs;
use std::path::Path;

use crate::course::Chapter;
use crate::generate::generated::files_under;
use crate::markers::{self, Marker, Opening};

/// The budgets, from chapter 07 on (DEVELOPERS.md, CONTRIBUTING.md).
pub const MAX_LINES: usize = 1500;
pub const MAX_CHANGED: usize = 500;
pub const MAX_FN: usize = 60;
pub const MIN_GAPS: usize = 3;

/// One chapter, measured.
#[derive(Debug)]
pub struct Size {
    pub lines: usize,
    pub changed: usize,
    pub grows_from: Option<u32>,
    /// (length, `file:line name`) of the longest function.
    pub longest_fn: (usize, String),
    pub gaps: usize,
}

impl Size {
    /// The budgets this size breaks, named as chapter_sizes.py names them.
    pub fn over(&self) -> Vec<&'static str> {
        let mut over = Vec::new();
        if self.lines > MAX_LINES {
            over.push("lines");
        }
        if self.changed > MAX_CHANGED {
            over.push("diff");
        }
        if self.longest_fn.0 > MAX_FN {
            over.push("fn");
        }
        if self.gaps < MIN_GAPS {
            over.push("gaps");
        }
        over
    }
}

/// `src/**/*.rs` of a crate: path relative to `src/`, and lines.
pub fn sources(crate_dir: &Path) -> BTreeMap<String, Vec<String>> {
    let src = crate_dir.join("src");
    files_under(&src)
        .into_iter()
        .filter(|path| path.extension().is_some_and(|ext| ext == "rs"))
        .map(|path| {
            let name = path.strip_prefix(&src).unwrap_or(&path);
            let text = fs::read_to_string(&path).unwrap_or_default();
            let lines = text.lines().map(str::to_string).collect();
            (name.to_string_lossy().replace('\\', "/"), lines)
        })
        .collect()
}

pub fn measure(chapter: &Chapter) -> Size {
    let files = sources(&chapter.solution_dir());
    let lines = files.values().map(Vec::len).sum();
    let base = chapter.grows_from();
    let changed = match &base {
        Some(base) => changed(&sources(&base.solution_dir()), &files),
        None => lines,
    };
    let all = files
        .values()
        .flatten()
        .cloned()
        .collect::<Vec<_>>()
        .join("\n");
    Size {
        lines,
        changed,
        grows_from: base.map(|base| base.number),
        longest_fn: longest_fn(&files),
        gaps: gap_ids(&all).len(),
    }
}

/// Lines added or changed in `new` against `old`, file by file.
pub fn changed(old: &BTreeMap<String, Vec<String>>, new: &BTreeMap<String, Vec<String>>) -> usize {
    let strip = |lines: Option<&Vec<String>>| -> Vec<String> {
        lines
            .into_iter()
            .flatten()
            .filter(|line| !markers::is_marker_comment(line))
            .cloned()
            .collect()
    };
    new.keys()
        .chain(old.keys())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .map(|name| {
            let (a, b) = (strip(old.get(name)), strip(new.get(name)));
            b.len() - matched(&a, &b)
        })
        .sum()
}

/// How many lines of `b` `difflib.SequenceMatcher(None, a, b,
/// autojunk=False)` matches with `a`: the same longest-match recursion, so
/// the counts equal the Python tool's.
fn matched(a: &[String], b: &[String]) -> usize {
    let mut b2j: HashMap<&str, Vec<usize>> = HashMap::new();
    for (j, line) in b.iter().enumerate() {
        b2j.entry(line.as_str()).or_default().push(j);
    }
    let mut total = 0;
    let mut queue = vec![(0, a.len(), 0, b.len())];
    while let Some((a_low, a_high, b_low, b_high)) = queue.pop() {
        let (i, j, k) = longest_match(a, &b2j, a_low, a_high, b_low, b_high);
        if k == 0 {
            continue;
        }
        total += k;
        if a_low < i && b_low < j {
            queue.push((a_low, i, b_low, j));
        }
        if i + k < a_high && j + k < b_high {
            queue.push((i + k, a_high, j + k, b_high));
        }
    }
    total
}

fn longest_match(
    a: &[String],
    b2j: &HashMap<&str, Vec<usize>>,
    a_low: usize,
    a_high: usize,
    b_low: usize,
    b_high: usize,
) -> (usize, usize, usize) {
    let (mut best_i, mut best_j, mut best_size) = (a_low, b_low, 0);
    let mut j2len: HashMap<usize, usize> = HashMap::new();
    for (i, line) in a.iter().enumerate().take(a_high).skip(a_low) {
        let mut next = HashMap::new();
        for &j in b2j.get(line.as_str()).into_iter().flatten() {
            if j < b_low {
                continue;
            }
            if j >= b_high {
                break;
            }
            let k = j.checked_sub(1).and_then(|p| j2len.get(&p)).unwrap_or(&0) + 1;
            next.insert(j, k);
            if k > best_size {
                (best_i, best_j, best_size) = (i + 1 - k, j + 1 - k, k);
            }
        }
        j2len = next;
    }
    (best_i, best_j, best_size)
}

/// The line without its string literals, char literals and `//` comment,
/// for counting braces: what chapter_sizes.py's
/// `re.sub(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)\'|//.*', '', line)` leaves, so
/// both count alike (a string must close on its line to be removed).
fn code_of(line: &str) -> String {
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == '/' && chars.get(i + 1) == Some(&'/') {
            break;
        }
        let skip = match chars[i] {
            '"' => string_end(&chars, i),
            '\'' => char_end(&chars, i),
            _ => None,
        };
        match skip {
            Some(end) => i = end + 1,
            None => {
                out.push(chars[i]);
                i += 1;
            }
        }
    }
    out
}

/// Where the string opened at `start` closes on this line.
fn string_end(chars: &[char], start: usize) -> Option<usize> {
    let mut i = start + 1;
    while i < chars.len() {
        match chars[i] {
            '"' => return Some(i),
            '\\' if i + 1 < chars.len() => i += 2,
            '\\' => return None,
            _ => i += 1,
        }
    }
    None
}

/// Where the char literal opened at `start` closes: one character, or a
/// backslash and one character.
fn char_end(chars: &[char], start: usize) -> Option<usize> {
    let at = |i: usize| chars.get(start + i).copied();
    match at(1)? {
        '\\' => (at(2).is_some() && at(3) == Some('\'')).then_some(start + 3),
        '\'' => None,
        _ => (at(2) == Some('\'')).then_some(start + 2),
    }
}

/// `fn name` at the start of a line, after `pub`, `pub(crate)`, `const`,
/// `async`, `unsafe`.
fn fn_name(line: &str) -> Option<&str> {
    let mut rest = line.trim_start();
    if let Some(after) = rest.strip_prefix("pub") {
        rest = match after.strip_prefix('(') {
            Some(inner) => inner.split_once(')')?.1,
            None => after,
        };
        if !rest.starts_with(char::is_whitespace) {
            return None;
        }
        rest = rest.trim_start();
    }
    for word in ["const", "async", "unsafe"] {
        if let Some(after) = rest.strip_prefix(word)
            && after.starts_with(char::is_whitespace)
        {
            rest = after.trim_start();
        }
    }
    let name = rest.strip_prefix("fn")?;
    if !name.starts_with(char::is_whitespace) {
        return None;
    }
    let name = name.trim_start();
    let end = name
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(name.len());
    (end > 0).then(|| &name[..end])
}

/// The longest function (lines from `fn` to its closing brace).
pub fn longest_fn(files: &BTreeMap<String, Vec<String>>) -> (usize, String) {
    let mut best = (0, String::new());
    for (file, lines) in files {
        let mut i = 0;
        while i < lines.len() {
            let Some(name) = fn_name(&lines[i]) else {
                i += 1;
                continue;
            };
            let (mut depth, mut started, mut j) = (0i64, false, i);
            while j < lines.len() {
                let code = code_of(&lines[j]);
                let opens = code.matches('{').count() as i64;
                depth += opens - code.matches('}').count() as i64;
                started |= opens > 0;
                if (started && depth <= 0) || (!started && code.trim_end().ends_with(';')) {
                    break;
                }
                j += 1;
            }
            let length = j - i + 1;
            if started && length > best.0 {
                best = (length, format!("{file}:{} {name}", i + 1));
            }
            i = if started { j + 1 } else { i + 1 };
        }
    }
    best
}

/// The distinct gap ids (`// GAP(chNN/name): …`) in a text.
pub fn gap_ids(text: &str) -> BTreeSet<String> {
    text.lines()
        .filter_map(|line| match Marker::parse(line) {
            Ok(Some(Marker::Open {
                opening: Opening::Gap,
                id,
                ..
            })) => Some(id.to_string()),
            _ => None,
        })
        .collect()
}

/// The modules of a crate that its other modules name with `crate::NAME`,
/// as edges `module → module`. The crate root (`main.rs`, `lib.rs`) is not
/// a module here: every module may use the root's items (`crate::PROGRAM`).
pub fn imports(files: &BTreeMap<String, Vec<String>>) -> BTreeMap<String, BTreeSet<String>> {
    let module = |file: &str| -> Option<String> {
        let first = file.split('/').next()?.trim_end_matches(".rs");
        (!matches!(first, "main" | "lib" | "bin")).then(|| first.to_string())
    };
    let modules: BTreeSet<String> = files.keys().filter_map(|file| module(file)).collect();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (file, lines) in files {
        let Some(from) = module(file) else {
            continue;
        };
        let code: String = lines.iter().map(|line| code_of(line) + "\n").collect();
        for (at, _) in code.match_indices("crate::") {
            let rest = &code[at + "crate::".len()..];
            let end = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            let mut names = vec![rest[..end].to_string()];
            // `use crate::{a, b::C};`
            if rest.starts_with('{') {
                let inner = &rest[1..rest.find('}').unwrap_or(rest.len())];
                names = inner
                    .split(',')
                    .filter_map(|part| part.trim().split("::").next())
                    .map(str::to_string)
                    .collect();
            }
            for name in names {
                if name != from && modules.contains(&name) {
                    edges.entry(from.clone()).or_default().insert(name);
                }
            }
        }
    }
    edges
}

/// A circle in the import edges, as `a → b → a`, if there is one.
pub fn circle(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<String> {
    fn visit(
        node: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<String> {
        if let Some(at) = path.iter().position(|seen| seen == node) {
            let mut circle = path[at..].to_vec();
            circle.push(node.to_string());
            return Some(circle.join(" → "));
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_string());
        for next in edges.get(node).into_iter().flatten() {
            if let Some(found) = visit(next, edges, path, done) {
                return Some(found);
            }
        }
        path.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    edges
        .keys()
        .find_map(|node| visit(node, edges, &mut Vec::new(), &mut done))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<String> {
        text.lines().map(str::to_string).collect()
    }

    #[test]
    fn the_diff_counts_added_and_changed_lines_of_the_new_side() {
        let old = lines("a\nb\nc\nd\n");
        assert_eq!(matched(&old, &lines("a\nb\nc\nd\n")), 4);
        assert_eq!(4 - matched(&old, &lines("a\nX\nc\nd\n")), 1);
        assert_eq!(6 - matched(&old, &lines("a\nb\nY\nZ\nc\nd\n")), 2);
        assert_eq!(2 - matched(&old, &lines("a\nd\n")), 0);
    }

    #[test]
    fn a_function_ends_at_its_closing_brace_not_at_one_in_a_string() {
        let files = BTreeMap::from([(
            "main.rs".to_string(),
            lines(
                "fn a() {\n    let s = \"}\";\n    let c = '{';\n}\npub(crate) async fn b() {\n}\n",
            ),
        )]);
        assert_eq!(longest_fn(&files), (4, "main.rs:1 a".to_string()));
    }

    #[test]
    fn a_circle_is_found_and_the_root_is_not_a_module() {
        let files = BTreeMap::from([
            ("main.rs".to_string(), lines("mod agent;\nmod delegate;")),
            (
                "agent.rs".to_string(),
                lines("use crate::{PROGRAM, delegate::run};"),
            ),
            ("delegate.rs".to_string(), lines("use crate::agent::Run;")),
        ]);
        let edges = imports(&files);
        assert_eq!(circle(&edges).as_deref(), Some("agent → delegate → agent"));
        let files = BTreeMap::from([
            (
                "agent.rs".to_string(),
                lines("use crate::PROGRAM; // crate::delegate"),
            ),
            ("delegate.rs".to_string(), lines("use crate::agent::Run;")),
        ]);
        assert_eq!(circle(&imports(&files)), None);
    }
}
