//! Generates one `#[test]` per transcript, so `cargo test` lists every
//! scenario by name (`ch03::tools_call ... ok`) and a filter like `ch03::`
//! picks one chapter.

use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;
use std::{env, fs};

fn main() -> ExitCode {
    let transcripts = Path::new("transcripts");
    // A folder here means everything under it: any change reruns this script.
    println!("cargo:rerun-if-changed=transcripts");
    let mut code = String::new();
    let mut problems = Vec::new();
    let mut chapters: Vec<_> = fs::read_dir(transcripts)
        .map(|entries| {
            entries
                .flatten()
                .map(|entry| entry.path())
                .filter(|path| path.is_dir())
                .collect()
        })
        .unwrap_or_default();
    chapters.sort();
    for dir in chapters {
        let chapter = dir.file_name().unwrap().to_string_lossy().into_owned();
        if let Some(problem) = bad_name(&chapter) {
            problems.push(format!(
                "tests/transcripts/{chapter}/ cannot be a test module: {problem}. \
                 Name it chNN, like ch03."
            ));
            continue;
        }
        writeln!(code, "mod {chapter} {{").unwrap();
        for scenario in wire_names(&dir, &chapter, &mut problems) {
            writeln!(code, "    #[test]\n    fn {scenario}() {{\n        wire_tests::run::check({chapter:?}, {scenario:?});\n    }}").unwrap();
        }
        // Stretch exercises: `ch03::stretch::multiply`, run against the
        // crate built with `--features stretch`.
        let stretch = wire_names(
            &dir.join("stretch"),
            &format!("{chapter}/stretch"),
            &mut problems,
        );
        if !stretch.is_empty() {
            writeln!(code, "    mod stretch {{").unwrap();
            for name in stretch {
                writeln!(code, "        #[test]\n        fn {name}() {{\n            wire_tests::run::check_stretch({chapter:?}, {name:?});\n        }}").unwrap();
            }
            writeln!(code, "    }}").unwrap();
        }
        writeln!(code, "}}").unwrap();
    }
    if !problems.is_empty() {
        // A panic here would bury the message in a backtrace; cargo shows
        // stderr as is when the build script fails.
        eprintln!("error: transcript names must be Rust identifiers:");
        for problem in problems {
            eprintln!("  {problem}");
        }
        return ExitCode::FAILURE;
    }
    fs::write(
        Path::new(&env::var("OUT_DIR").unwrap()).join("scenarios.rs"),
        code,
    )
    .unwrap();
    ExitCode::SUCCESS
}

/// The scenario names in `dir` (a chapter's folder, or its `stretch/`):
/// the `.wire` files, sorted; a name that cannot be a test is a problem.
fn wire_names(dir: &Path, folder: &str, problems: &mut Vec<String>) -> Vec<String> {
    let mut scenarios: Vec<String> = fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .filter_map(|entry| {
                    entry
                        .file_name()
                        .to_str()?
                        .strip_suffix(".wire")
                        .map(str::to_string)
                })
                .collect()
        })
        .unwrap_or_default();
    scenarios.sort();
    scenarios.retain(|scenario| match bad_name(scenario) {
        Some(problem) => {
            problems.push(format!(
                "tests/transcripts/{folder}/{scenario}.wire: `{scenario}` cannot be a \
                 test name: {problem}. Rename it to {}.wire.",
                suggest(scenario)
            ));
            false
        }
        None => true,
    });
    scenarios
}

/// Why `name` cannot be a test function or module name, if it cannot:
/// lower-case ASCII letters, digits and `_`, not starting with a digit
/// (keywords and upper case would compile, but with a warning or a surprise).
fn bad_name(name: &str) -> Option<String> {
    let first = name.chars().next()?;
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_'))
    {
        return Some(format!("it has {c:?}; use only a-z, 0-9 and _"));
    }
    if first.is_ascii_digit() {
        return Some("it starts with a digit".to_string());
    }
    if KEYWORDS.contains(&name) {
        return Some("it is a Rust keyword".to_string());
    }
    None
}

/// A name that would do: `help-2` → `help_2`, `2nd` → `t_2nd`.
fn suggest(name: &str) -> String {
    let mut out: String = name
        .chars()
        .map(|c| match c {
            'a'..='z' | '0'..='9' | '_' => c,
            'A'..='Z' => c.to_ascii_lowercase(),
            _ => '_',
        })
        .collect();
    if out.starts_with(|c: char| c.is_ascii_digit()) || KEYWORDS.contains(&out.as_str()) {
        out.insert_str(0, "t_");
    }
    out
}

/// Rust's keywords (strict and reserved, 2024 edition), which no test can be named.
const KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "crate",
    "do", "dyn", "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl",
    "in", "let", "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref",
    "return", "self", "static", "struct", "super", "trait", "true", "try", "type", "typeof",
    "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
];
