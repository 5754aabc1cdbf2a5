//! `cargo xtask hint NN [GAP]`: the hints of a gap, one tier per call.
//!
//! Without GAP it picks the first gap of the chapter that the learner has
//! not written yet; a stretch exercise's hints come when it is named. Which tier each gap has shown is kept in
//! `.progress/hints` (ignored by git), one `chNN/gap tier` line per gap.

use std::fs;
use std::path::PathBuf;

use wire_tests::course::{self, Chapter};
use wire_tests::generate::gaps::{self, Gap};
use wire_tests::learner::hints::{self, TIERS};

pub fn run(args: &[String]) -> Result<(), String> {
    let mut words = args.iter().filter(|arg| !arg.starts_with("--"));
    let chapter = Chapter::find(words.next().ok_or("usage: cargo xtask hint NN [GAP]")?)?;
    let all = gaps::gaps(&chapter)?;
    let n = format!("{:02}", chapter.number);
    // A stretch's hints only when it is named: `hint 03 multiply`.
    let mut named = all.clone();
    named.extend(gaps::stretches(&chapter)?);
    let gap = match words.next() {
        Some(name) => find_gap(&chapter, &named, name)?,
        None => match all.iter().find(|gap| !hints::is_written(&chapter, gap)) {
            Some(gap) => gap,
            None => {
                println!(
                    "Every gap of chapter {n} is written. `cargo xtask check {n}` says whether \
                     they pass; for a gap's hints, name it: `cargo xtask hint {n} {}`.",
                    short(&all[0].id)
                );
                return Ok(());
            }
        },
    };
    let hints = hints::load(&chapter)?
        .into_iter()
        .find(|hints| hints.gap == gap.id)
        .ok_or_else(|| format!("there are no hints for {} yet", gap.id))?;
    let mut seen = load_seen();
    let shown = seen
        .iter()
        .find(|(id, _)| *id == gap.id)
        .map_or(0, |(_, tier)| *tier);
    let tier = (shown + 1).min(TIERS.len());
    println!(
        "{} — hint {tier} of {}: {}\n(chapters/{}/{}: {})\n",
        gap.id,
        TIERS.len(),
        TIERS[tier - 1],
        chapter.dir,
        gap.file.display(),
        gap.instruction
    );
    println!("{}\n", hints.tiers[tier - 1]);
    // A stretch is checked with its own flag; a gap with the chapter.
    let check = match all.iter().any(|known| known.id == gap.id) {
        true => format!("cargo xtask check {n}"),
        false => format!("cargo xtask check {n} --stretch"),
    };
    if tier < TIERS.len() {
        println!(
            "Try it, then `{check}`. Still stuck? `cargo xtask hint {n} {}` \
             shows hint {} of {}: {}.",
            short(&gap.id),
            tier + 1,
            TIERS.len(),
            TIERS[tier].to_lowercase()
        );
    } else {
        println!(
            "That was the last hint. The reference code is in the book, under \"Show the \
             solution\" on the chapter's exercise page; `cargo xtask diff {n}` compares \
             yours with it."
        );
    }
    seen.retain(|(id, _)| *id != gap.id);
    seen.push((gap.id.clone(), tier));
    save_seen(&seen)
}

/// A gap named `add` or `ch03/add`.
fn find_gap<'a>(chapter: &Chapter, all: &'a [Gap], name: &str) -> Result<&'a Gap, String> {
    let id = if name.contains('/') {
        name.to_string()
    } else {
        format!("{}/{name}", chapter.id())
    };
    all.iter().find(|gap| gap.id == id).ok_or_else(|| {
        let names: Vec<&str> = all.iter().map(|gap| short(&gap.id)).collect();
        format!(
            "chapter {} has no gap {name:?}; its gaps are {}",
            chapter.dir,
            names.join(", ")
        )
    })
}

/// `add` for `ch03/add`.
fn short(id: &str) -> &str {
    id.split_once('/').map_or(id, |(_, name)| name)
}

fn state_path() -> PathBuf {
    course::root().join(".progress").join("hints")
}

fn load_seen() -> Vec<(String, usize)> {
    fs::read_to_string(state_path())
        .unwrap_or_default()
        .lines()
        .filter_map(|line| {
            let (id, tier) = line.split_once(' ')?;
            Some((id.to_string(), tier.trim().parse().ok()?))
        })
        .collect()
}

fn save_seen(seen: &[(String, usize)]) -> Result<(), String> {
    let path = state_path();
    let text: String = seen
        .iter()
        .map(|(id, tier)| format!("{id} {tier}\n"))
        .collect();
    fs::create_dir_all(path.parent().expect("a file has a folder"))
        .and_then(|()| fs::write(&path, text))
        .map_err(|err| format!("cannot write {}: {err}", path.display()))
}
