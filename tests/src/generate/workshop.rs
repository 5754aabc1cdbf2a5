//! The instructor layer's numbers: how long each book page takes in a room,
//! and the workshop schedules that add them up.
//!
//! Each page that belongs in a workshop has speaker notes in
//! `book/src/instructor/<page>` (the page's own file name), included at the
//! end of the page and hidden from readers until they press "instructor
//! notes". Two lines of those notes are read here:
//!
//! ```text
//! minutes: 45                                 the page's time in the room
//! demo: `cargo xtask run 03`                  what to show (free text)
//! - **Calling a tool (10 min).** ...          one part of the page and its time
//! ```
//!
//! The parts' minutes must add up to the page's. [`schedule`] turns the
//! schedules below into `book/src/generated/schedule.md`, which the workshop
//! page includes; `cargo xtask changes` writes it and `tests/tests/workshop.rs`
//! fails when it is stale, so the tables cannot drift from the notes.

use std::fmt::Write as _;
use std::fs;
use std::path::PathBuf;

use crate::course;

/// One row of a schedule: a book page (its minutes come from its notes) or a
/// break, which has its own minutes.
pub enum Row {
    Page(&'static str),
    Break(&'static str, u32),
}

use Row::{Break, Page};

/// A half day: the wire up to the first tool and resources (Part I without
/// prompts), one break.
pub const HALF_DAY: &[Row] = &[
    Page("introduction.md"),
    Page("how-to-use.md"),
    Page("01-echo.md"),
    Page("02-handshake.md"),
    Break("Break", 15),
    Page("03-add-tool.md"),
    Page("04-resources.md"),
];

/// A full day: Parts I and II, from the first pipe to the agent loop.
pub const FULL_DAY: &[Row] = &[
    Page("introduction.md"),
    Page("how-to-use.md"),
    Page("01-echo.md"),
    Page("02-handshake.md"),
    Break("Break", 15),
    Page("03-add-tool.md"),
    Page("04-resources.md"),
    Break("Lunch", 60),
    Page("05-prompts.md"),
    Page("06-client.md"),
    Break("Break", 15),
    Page("07-agent-loop.md"),
    Page("appendix-real-clients.md"),
];

/// A second day: Parts III and IV, the harness and the current revision,
/// for a room that did the full day (the host chapters build on it).
pub const SECOND_DAY: &[Row] = &[
    Page("08-skills.md"),
    Page("09-subagents.md"),
    Break("Break", 15),
    Page("10-hooks.md"),
    Break("Lunch", 60),
    Page("11-lifecycle.md"),
    Break("Break", 15),
    Page("12-stateless.md"),
    Break("Break", 15),
    Page("13-http.md"),
];

/// A third half day: Part V, both ends of a server that asks back (the
/// server of chapter 14, the host of chapter 15), for a room that did the
/// second day.
pub const THIRD_DAY: &[Row] = &[
    Page("14-asking.md"),
    Break("Break", 15),
    Page("15-host-answers.md"),
];

/// When the day starts, in minutes after midnight (09:00).
const START: u32 = 9 * 60;

/// A page's speaker notes, as far as the schedule needs them.
#[derive(Debug)]
pub struct Notes {
    /// The page the notes belong to, e.g. `03-add-tool.md`.
    pub page: String,
    /// The page's title: its first `# ` heading.
    pub title: String,
    pub minutes: u32,
    /// What to demo, as written after `demo:`.
    pub demo: Option<String>,
    /// The parts of the page and their minutes, in order.
    pub parts: Vec<(String, u32)>,
}

pub fn book_src() -> PathBuf {
    course::root().join("book").join("src")
}

/// `book/src/instructor/03-add-tool.md` for `03-add-tool.md`.
pub fn notes_path(page: &str) -> PathBuf {
    book_src().join("instructor").join(page)
}

/// `book/src/generated/schedule.md`.
pub fn schedule_path() -> PathBuf {
    book_src().join("generated").join("schedule.md")
}

/// Every page that has speaker notes, sorted by file name.
pub fn pages_with_notes() -> Vec<String> {
    let mut pages: Vec<String> = fs::read_dir(book_src().join("instructor"))
        .map(|entries| {
            entries
                .flatten()
                .map(|entry| entry.file_name().to_string_lossy().into_owned())
                .filter(|name| name.ends_with(".md"))
                .collect()
        })
        .unwrap_or_default();
    pages.sort();
    pages
}

impl Notes {
    pub fn load(page: &str) -> Result<Notes, String> {
        let path = notes_path(page);
        let text = fs::read_to_string(&path)
            .map_err(|err| format!("{}: cannot read the notes: {err}", course::relative(&path)))?;
        let page_text = fs::read_to_string(book_src().join(page))
            .map_err(|err| format!("book/src/{page}: {err}"))?;
        let title = page_text
            .lines()
            .find_map(|line| line.strip_prefix("# "))
            .ok_or_else(|| format!("book/src/{page} has no `# ` title"))?
            .trim()
            .to_string();
        Notes::parse(page, title, &text)
            .map_err(|err| format!("{}: {err}", course::relative(&path)))
    }

    pub fn parse(page: &str, title: String, text: &str) -> Result<Notes, String> {
        let mut minutes = None;
        let mut demo = None;
        let mut parts = Vec::new();
        for line in text.lines().map(str::trim) {
            if let Some(value) = line.strip_prefix("minutes:") {
                let value = value.trim();
                let number = value
                    .parse()
                    .map_err(|_| format!("`minutes: {value}` is not a whole number"))?;
                if minutes.replace(number).is_some() {
                    return Err("two `minutes:` lines".to_string());
                }
            } else if let Some(value) = line.strip_prefix("demo:") {
                demo = Some(value.trim().to_string());
            } else if let Some(part) = part(line) {
                parts.push(part?);
            }
        }
        let minutes = minutes.ok_or("no `minutes: N` line")?;
        Ok(Notes {
            page: page.to_string(),
            title,
            minutes,
            demo,
            parts,
        })
    }

    /// The parts' minutes added up.
    pub fn parts_total(&self) -> u32 {
        self.parts.iter().map(|(_, minutes)| minutes).sum()
    }
}

/// `- **Calling a tool (10 min).** ...` gives `("Calling a tool", 10)`.
fn part(line: &str) -> Option<Result<(String, u32), String>> {
    let bold = line.strip_prefix("- **")?;
    let (head, _) = bold.split_once(" min).**")?;
    let (name, number) = head.rsplit_once(" (")?;
    Some(
        number
            .parse()
            .map(|minutes| (name.to_string(), minutes))
            .map_err(|_| format!("part {name:?}: `{number} min` is not a whole number")),
    )
}

fn clock(minutes: u32) -> String {
    format!("{:02}:{:02}", minutes / 60, minutes % 60)
}

fn duration(minutes: u32) -> String {
    match (minutes / 60, minutes % 60) {
        (0, m) => format!("{m} min"),
        (h, 0) => format!("{h} h"),
        (h, m) => format!("{h} h {m:02} min"),
    }
}

fn table(out: &mut String, heading: &str, rows: &[Row]) -> Result<(), String> {
    let _ = writeln!(out, "### {heading}\n");
    let _ = writeln!(out, "| Start | Minutes | What | Demo |");
    let _ = writeln!(out, "| --- | --- | --- | --- |");
    let (mut now, mut teaching, mut breaks) = (START, 0, 0);
    for row in rows {
        let (minutes, what, demo) = match row {
            Page(page) => {
                let notes = Notes::load(page)?;
                teaching += notes.minutes;
                let demo = notes.demo.unwrap_or_else(|| "—".to_string());
                (notes.minutes, schedule_link(page, &notes.title), demo)
            }
            Break(name, minutes) => {
                breaks += minutes;
                (*minutes, format!("*{name}*"), String::new())
            }
        };
        let _ = writeln!(out, "| {} | {minutes} | {what} | {demo} |", clock(now));
        now += minutes;
    }
    let _ = writeln!(out, "| {} | | *End* | |\n", clock(now));
    let _ = writeln!(
        out,
        "Teaching {teaching} min and breaks {breaks} min: {} in all, {}–{}.\n",
        duration(teaching + breaks),
        clock(START),
        clock(now)
    );
    Ok(())
}

/// A schedule row's link. A chapter's notes sit on its last page (what
/// changed and the recap) but their minutes cover the whole chapter, so the
/// row names the chapter (`Chapter 2: The handshake`) and links the page it
/// opens on; any other page by its title.
fn schedule_link(page: &str, title: &str) -> String {
    let chapter = course::Chapter::all()
        .into_iter()
        .find(|chapter| format!("{}.md", chapter.dir) == page);
    match chapter {
        Some(chapter) => {
            let name = title.split(" — ").next().unwrap_or(title);
            format!("[{name}]({})", crate::book::first_page(&chapter))
        }
        None => format!("[{title}]({page})"),
    }
}

/// The text of `book/src/generated/schedule.md`.
pub fn schedule() -> Result<String, String> {
    let mut out = String::from(
        "<!-- Generated by `cargo xtask changes` from the `minutes:` and `demo:` lines of\n\
         book/src/instructor/*.md. Do not edit: change the notes and regenerate.\n\
         tests/tests/workshop.rs fails when this file is stale. -->\n\n",
    );
    table(&mut out, "Half day", HALF_DAY)?;
    table(&mut out, "Full day", FULL_DAY)?;
    table(&mut out, "Second day", SECOND_DAY)?;
    table(&mut out, "Third morning", THIRD_DAY)?;
    Ok(out)
}

/// Writes the schedule if it changed (or, with `check`, only says so).
/// Returns the file's path when it was stale, for `cargo xtask changes`.
pub fn refresh(check: bool) -> Result<Option<String>, String> {
    let path = schedule_path();
    let stale = crate::generate::generated::write(&path, &schedule()?, check)?;
    Ok(stale.then(|| course::relative(&path)))
}
