//! Generates one `#[test]` per transcript, so `cargo test` lists every
//! scenario by name (`ch03::tools_call ... ok`) and a filter like `ch03::`
//! picks one chapter.

use std::fmt::Write as _;
use std::path::Path;
use std::{env, fs};

fn main() {
    let transcripts = Path::new("transcripts");
    println!("cargo:rerun-if-changed=transcripts");
    let mut code = String::new();
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
        let mut scenarios: Vec<String> = fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .filter_map(|entry| {
                entry
                    .file_name()
                    .to_str()?
                    .strip_suffix(".wire")
                    .map(str::to_string)
            })
            .collect();
        scenarios.sort();
        writeln!(code, "mod {chapter} {{").unwrap();
        for scenario in scenarios {
            println!("cargo:rerun-if-changed=transcripts/{chapter}/{scenario}.wire");
            writeln!(code, "    #[test]\n    fn {scenario}() {{\n        wire_tests::check({chapter:?}, {scenario:?});\n    }}").unwrap();
        }
        writeln!(code, "}}").unwrap();
    }
    fs::write(
        Path::new(&env::var("OUT_DIR").unwrap()).join("scenarios.rs"),
        code,
    )
    .unwrap();
}
