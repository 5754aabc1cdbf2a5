//! The starter crates in `chapters/` belong to the learner once they start
//! typing, so every command that writes them must tell two cases apart:
//!
//! - the generator's output is **stale** (a solution changed, the starter did
//!   not follow): safe to rewrite;
//! - the learner **edited** the file: never overwrite it without a backup.
//!
//! `tests/starter-hashes.txt` records a hash of each file as the generator
//! last wrote it. A file whose hash differs from the record was edited by
//! someone after generation; a record that differs from the generator's
//! fresh output is stale. `cargo xtask starters` updates the record.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use crate::course::{self, Chapter};
use crate::generate::gaps;

/// Where the record lives, relative to the workspace root.
pub const RECORD: &str = "tests/starter-hashes.txt";

/// Where backups go, relative to the workspace root (gitignored). Not under
/// `chapters/`: the workspace takes every folder there as a crate.
pub const BACKUPS: &str = ".backups";

/// A 64-bit FNV-1a hash, written as 16 hex digits. It only has to notice
/// that a file changed, and it must give the same answer on every machine
/// and toolchain, which `std`'s `DefaultHasher` does not promise.
pub fn hash(bytes: &[u8]) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in bytes {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{hash:016x}")
}

/// `chapters/03-add-tool/src/main.rs` → the hash the generator wrote there.
pub type Record = BTreeMap<String, String>;

pub fn parse_record(text: &str) -> Record {
    text.lines()
        .filter(|line| !line.starts_with('#'))
        .filter_map(|line| {
            let (hash, path) = line.split_once(char::is_whitespace)?;
            Some((path.trim().to_string(), hash.to_string()))
        })
        .collect()
}

pub fn render_record(record: &Record) -> String {
    let mut text = String::from(
        "# Written by `cargo xtask starters`: the hash of each starter file as it was\n\
         # generated, so the course can tell your edits from a stale generator.\n",
    );
    for (path, hash) in record {
        text += &format!("{hash}  {path}\n");
    }
    text
}

pub fn read_record() -> Record {
    parse_record(&fs::read_to_string(course::root().join(RECORD)).unwrap_or_default())
}

fn write_record(record: &Record) -> Result<(), String> {
    let path = course::root().join(RECORD);
    fs::write(&path, render_record(record))
        .map_err(|err| format!("cannot write {}: {err}", path.display()))
}

/// What one starter file on disk is, compared with the generator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    /// On disk exactly as the generator makes it now.
    Fresh,
    /// Not there at all.
    Missing,
    /// As the generator last wrote it, but the generator now writes
    /// something else: safe to rewrite.
    Stale,
    /// Changed since the generator wrote it: the learner's work.
    Edited,
}

/// Decides the state of one file from the three versions of it.
pub fn state(on_disk: Option<&[u8]>, recorded: Option<&str>, fresh: &[u8]) -> State {
    match on_disk {
        None => State::Missing,
        Some(disk) if disk == fresh => State::Fresh,
        Some(disk) if recorded == Some(hash(disk).as_str()) => State::Stale,
        Some(_) => State::Edited,
    }
}

/// The state of a file the generator no longer makes: there is no fresh
/// version, so as recorded it is Stale, anything else is the learner's.
pub fn gone_state(on_disk: Option<&[u8]>, recorded: &str) -> State {
    match on_disk {
        None => State::Missing,
        Some(disk) if hash(disk) == recorded => State::Stale,
        Some(_) => State::Edited,
    }
}

/// One generated file of a starter crate.
pub struct StarterFile {
    /// `chapters/03-add-tool/src/main.rs`.
    pub name: String,
    pub path: PathBuf,
    pub content: String,
    pub state: State,
    /// The record's entry differs from the fresh output (or is missing).
    pub record_stale: bool,
    /// The generator no longer makes this file (its solution file was
    /// deleted or moved to `support/`): it is in the record only. `content`
    /// is empty, and the file goes when it is the generator's own.
    pub gone: bool,
}

/// Every generated file of one chapter's starter, with its state.
pub fn files(chapter: &Chapter, record: &Record) -> Result<Vec<StarterFile>, String> {
    let mut out = Vec::new();
    for (file, content) in gaps::starter_files(chapter)? {
        let path = chapter.starter_dir().join(&file);
        let name = format!("chapters/{}/{}", chapter.dir, slash(&file));
        let on_disk = fs::read(&path).ok();
        let recorded = record.get(&name).map(String::as_str);
        let state = state(on_disk.as_deref(), recorded, content.as_bytes());
        let record_stale = recorded != Some(hash(content.as_bytes()).as_str());
        out.push(StarterFile {
            name,
            path,
            content,
            state,
            record_stale,
            gone: false,
        });
    }
    // What the generator once wrote here and writes no more. On disk as it
    // was written, it is Stale (safe to delete); changed, it is the learner's.
    let prefix = format!("chapters/{}/", chapter.dir);
    let made: Vec<String> = out.iter().map(|file| file.name.clone()).collect();
    for (name, recorded) in record.range(prefix.clone()..) {
        if !name.starts_with(&prefix) {
            break;
        }
        if made.contains(name) {
            continue;
        }
        let path = chapter.starter_dir().join(&name[prefix.len()..]);
        let state = gone_state(fs::read(&path).ok().as_deref(), recorded);
        out.push(StarterFile {
            name: name.clone(),
            path,
            content: String::new(),
            state,
            record_stale: true,
            gone: true,
        });
    }
    Ok(out)
}

fn slash(path: &Path) -> String {
    path.components()
        .map(|part| part.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// True when `CI` says this is a clean checkout, where every difference is
/// a maintainer's mistake and no learner's work can be in the way.
pub fn strict() -> bool {
    std::env::var("CI").is_ok_and(|value| !value.is_empty() && value != "false" && value != "0")
}

/// The chapters whose starters hold the learner's edits (none under CI).
pub fn edited_chapters() -> Result<Vec<Chapter>, String> {
    if strict() {
        return Ok(Vec::new());
    }
    let record = read_record();
    let mut edited = Vec::new();
    for chapter in Chapter::all() {
        if files(&chapter, &record)?
            .iter()
            .any(|file| file.state == State::Edited)
        {
            edited.push(chapter);
        }
    }
    Ok(edited)
}

/// The one line that says a chapter was left alone because it is the
/// learner's work, and which command checks it.
pub fn edited_note(chapter: &Chapter) -> String {
    format!(
        "note: chapters/{} has your edits, so the starter checks skip it; `cargo xtask check {:02}` checks your work",
        chapter.dir, chapter.number
    )
}

/// The maintainer's check (`cargo xtask starters --check` and the course
/// test): every starter and the record match the generator. Chapters with
/// the learner's edits are skipped (they are listed in `Ok`), except under CI.
pub fn check() -> Result<Vec<Chapter>, String> {
    let record = read_record();
    let strict = strict();
    let mut skipped = Vec::new();
    let mut problems = Vec::new();
    for chapter in Chapter::all() {
        let files = files(&chapter, &record)?;
        if !strict && files.iter().any(|file| file.state == State::Edited) {
            skipped.push(chapter);
            continue;
        }
        for file in files {
            let why = match (file.state, file.record_stale) {
                _ if file.gone => match file.state {
                    State::Missing => "recorded, but no longer generated",
                    State::Edited => "no longer generated, and edited by hand",
                    _ => "no longer generated",
                },
                (State::Fresh, false) => continue,
                (State::Fresh, true) => "not recorded in tests/starter-hashes.txt",
                (State::Missing, _) => "missing",
                (State::Stale, _) => "out of date",
                (State::Edited, _) => "edited by hand; starters are generated",
            };
            problems.push(format!("{} ({why})", file.name));
        }
    }
    if problems.is_empty() {
        Ok(skipped)
    } else {
        Err(format!(
            "these starter files do not match the solutions; run `cargo xtask starters`:\n  {}",
            problems.join("\n  ")
        ))
    }
}

/// What [`write`] did.
#[derive(Default)]
pub struct Written {
    pub written: Vec<String>,
    /// Files with the learner's edits that were left alone.
    pub refused: Vec<String>,
    /// Files the generator no longer makes, removed (an edited one only
    /// with force, after its backup).
    pub removed: Vec<String>,
    /// Where the learner's files were copied before being overwritten.
    pub backup: Option<PathBuf>,
}

/// Writes the starters of `chapters` from the solutions. A chapter holding
/// the learner's edits is left untouched unless `force`; with it, each edited
/// file is copied under [`BACKUPS`] first. `reset` also counts as force.
pub fn write(chapters: &[Chapter], force: bool) -> Result<Written, String> {
    let mut record = read_record();
    let mut done = Written::default();
    let backups = course::root().join(BACKUPS);
    // A new folder for each run, even two in the same second: a backup
    // never overwrites an older one.
    let folder = (1..)
        .map(|n| match n {
            1 => backups.join(timestamp()),
            n => backups.join(format!("{}-{n}", timestamp())),
        })
        .find(|folder| !folder.exists())
        .expect("some name is free");
    for chapter in chapters {
        let files = files(chapter, &record)?;
        let edited: Vec<&StarterFile> = files
            .iter()
            .filter(|file| file.state == State::Edited)
            .collect();
        if !edited.is_empty() && !force {
            done.refused
                .extend(edited.iter().map(|file| file.name.clone()));
            continue;
        }
        for file in &edited {
            let backup = folder.join(&file.name);
            fs::create_dir_all(backup.parent().expect("a file has a folder"))
                .and_then(|()| fs::copy(&file.path, &backup))
                .map_err(|err| format!("cannot back up {}: {err}", file.name))?;
            done.backup = Some(folder.clone());
        }
        for file in &files {
            if file.gone {
                if file.state != State::Missing {
                    fs::remove_file(&file.path)
                        .map_err(|err| format!("cannot remove {}: {err}", file.name))?;
                    done.removed.push(file.name.clone());
                }
                record.remove(&file.name);
                continue;
            }
            if file.state != State::Fresh {
                fs::create_dir_all(file.path.parent().expect("a file has a folder"))
                    .and_then(|()| fs::write(&file.path, &file.content))
                    .map_err(|err| format!("cannot write {}: {err}", file.name))?;
                done.written.push(file.name.clone());
            }
            record.insert(file.name.clone(), hash(file.content.as_bytes()));
        }
    }
    if read_record() != record {
        write_record(&record)?;
        done.written.push(RECORD.to_string());
    }
    Ok(done)
}

/// `2026-11-30T12-45-03`: UTC, sortable, and valid in a file name everywhere.
fn timestamp() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs());
    let (days, rest) = (secs / 86_400, secs % 86_400);
    let (year, month, day) = civil_date(days as i64);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}-{:02}-{:02}",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

/// Days since 1970-01-01 to a calendar date (Howard Hinnant's algorithm).
fn civil_date(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tells_edits_from_a_stale_generator() {
        let old = b"todo!()\n";
        let new = b"todo!(\"better\")\n";
        let recorded = hash(old);
        assert_eq!(state(Some(new), Some(&recorded), new), State::Fresh);
        assert_eq!(state(Some(old), Some(&recorded), new), State::Stale);
        assert_eq!(state(Some(b"x + y\n"), Some(&recorded), new), State::Edited);
        assert_eq!(state(Some(old), None, new), State::Edited);
        assert_eq!(state(None, Some(&recorded), new), State::Missing);
    }

    #[test]
    fn a_file_no_longer_generated_is_deleted_only_as_it_was_written() {
        let written = b"mod measure;\n";
        let recorded = hash(written);
        assert_eq!(gone_state(Some(written), &recorded), State::Stale);
        assert_eq!(gone_state(Some(b"mod mine;\n"), &recorded), State::Edited);
        assert_eq!(gone_state(None, &recorded), State::Missing);
    }

    #[test]
    fn the_record_reads_back_what_it_wrote() {
        let mut record = Record::new();
        record.insert("chapters/01-echo/src/main.rs".into(), hash(b"a"));
        record.insert("chapters/01-echo/Cargo.toml".into(), hash(b"b"));
        assert_eq!(parse_record(&render_record(&record)), record);
        assert_eq!(hash(b""), "cbf29ce484222325");
        assert_eq!(hash(b"a"), "af63dc4c8601ec8c");
    }

    #[test]
    fn dates_are_civil() {
        assert_eq!(civil_date(0), (1970, 1, 1));
        assert_eq!(civil_date(20_513), (2026, 3, 1));
        assert_eq!(civil_date(11_016), (2000, 2, 29));
    }
}
