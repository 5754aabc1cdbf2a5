//! The book's listings and Exercise sections, generated so that the book
//! teaches before it tells.
//!
//! A chapter page never includes `solutions/` directly: the reference code
//! of a gap would stand above the exercise, with the generator's markers in
//! it. Instead `cargo xtask changes` writes, under `book/src/generated/`:
//!
//! - `listings/NN-slug/src/….txt`: each solution file that has gaps, as the
//!   learner's starter has it but without markers: a gap's code is the
//!   starter's, after a one-line pointer to the exercise page (`ANCHOR:`
//!   lines stay, so the pages' anchors work). Files without gaps have no
//!   markers: the pages include them from `solutions/` directly. The `.txt`
//!   ending keeps these copies out of the compiler's and the duplicate
//!   finder's way: they are generated text, not code anyone edits;
//! - `exercises/chNN.md`: for each gap, the starter's code, the three hint
//!   tiers of `tests/hints/chNN.md` each folded in a `<details>`, and last,
//!   folded too, the reference code. The chapter's exercise page
//!   (`NN-slug-exercise.md`) includes it;
//! - for a chapter with stretches, `exercises/chNN-stretch.md`: each
//!   stretch's instruction, the frames of its scenario, its hints and its
//!   code, folded, for the stretch page (`NN-slug-stretch.md`); and
//!   `exercises/chNN-stretch-index.md`, one heading and instruction per
//!   stretch with a link there, for the chapter's page (`NN-slug.md`), where
//!   the stretch scenarios' `# book:` lines point.
//!
//! [`check_built_book`] checks the rendered result.

use std::fs;
use std::path::{Path, PathBuf};

use crate::course::{self, Chapter};
use crate::generate::gaps::{self, Gap};
use crate::generate::generated;
use crate::learner::hints;
use crate::markers::{self, Opening, Part, Source};

/// `book/src/generated/listings/03-add-tool/src/tools.rs.txt`.
pub fn listing_path(chapter: &Chapter, file: &Path) -> PathBuf {
    let mut name = file.as_os_str().to_owned();
    name.push(".txt");
    generated_dir()
        .join("listings")
        .join(&chapter.dir)
        .join(name)
}

/// `book/src/generated/exercises/ch03.md`.
pub fn exercise_path(chapter: &Chapter) -> PathBuf {
    generated_dir()
        .join("exercises")
        .join(format!("{}.md", chapter.id()))
}

/// `book/src/generated/exercises/ch03-stretch.md`: the stretches in full.
pub fn stretch_path(chapter: &Chapter) -> PathBuf {
    generated_dir()
        .join("exercises")
        .join(format!("{}-stretch.md", chapter.id()))
}

/// `book/src/generated/exercises/ch03-stretch-index.md`: what each stretch
/// asks, with a link to the stretch page.
pub fn stretch_index_path(chapter: &Chapter) -> PathBuf {
    generated_dir()
        .join("exercises")
        .join(format!("{}-stretch-index.md", chapter.id()))
}

/// `03-add-tool-exercise.md`: the page with the task and the gaps.
pub fn exercise_page(chapter: &Chapter) -> String {
    format!("{}-exercise.md", chapter.dir)
}

/// `03-add-tool-stretch.md`: the page with the stretches in full.
pub fn stretch_page(chapter: &Chapter) -> String {
    format!("{}-stretch.md", chapter.dir)
}

fn generated_dir() -> PathBuf {
    course::root().join("book/src/generated")
}

/// A solution file as the book's "what changed" diff shows it: the
/// reference code of each gap stays, the marker lines around it go, and
/// each stretch goes whole (the stretch page shows it, folded).
/// Empty when the file does not exist.
pub fn solution_text(chapter: &Chapter, file: &Path) -> String {
    let text = fs::read_to_string(chapter.solution_dir().join(file)).unwrap_or_default();
    if !markers::regions(&text, Source::Solution).1.is_empty() {
        return text; // The starters' check reports the mistake.
    }
    let mut lines: Vec<String> = gaps::without_markers(&text)
        .lines()
        .map(str::to_string)
        .collect();
    // A stretch at the end of a file leaves the blank line before it.
    while lines.last().is_some_and(|line| line.trim().is_empty()) {
        lines.pop();
    }
    lines.iter().map(|line| format!("{line}\n")).collect()
}

/// The listings of one chapter: each file of its starter that has gaps,
/// every gap reduced to a pointer line and the starter's code.
pub fn listings(chapter: &Chapter) -> Result<Vec<(PathBuf, String)>, String> {
    let mut files = Vec::new();
    for (file, text) in gaps::starter_files(chapter)? {
        let (parts, _) = markers::regions(&text, Source::Starter);
        if !parts.iter().any(|part| matches!(part, Part::Region(_))) {
            continue; // No gap: the book includes the solution's file itself.
        }
        let mut lines: Vec<String> = Vec::new();
        for part in parts {
            match part {
                Part::Line(line) => lines.push(line),
                // A stretch is not in the listing: the stretch page has it.
                Part::Region(region) if region.opening == Opening::Stretch => {}
                Part::Region(region) => {
                    lines.push(format!(
                        "{}// Exercise {}: yours to write; see the chapter's exercise page.",
                        region.indent, region.id
                    ));
                    lines.extend(region.starter);
                    lines.extend(region.body);
                }
            }
        }
        while lines.last().is_some_and(|line| line.trim().is_empty()) {
            lines.pop();
        }
        let content: String = lines.iter().map(|line| format!("{line}\n")).collect();
        files.push((listing_path(chapter, &file), content));
    }
    Ok(files)
}

/// The chapter's gaps, included by its exercise page after the task.
pub fn exercise_section(chapter: &Chapter) -> Result<String, String> {
    let gaps = gaps::gaps(chapter)?;
    let hints = hints::load(chapter)?;
    let starters = gaps::starter_files(chapter)?;
    let n = format!("{:02}", chapter.number);
    let mut out = format!(
        "<!-- Generated by `cargo xtask changes` from solutions/{dir} and \
         tests/hints/{id}.md: edit those, not this file. -->\n\n\
         Each gap below shows what your file holds now, then three hints, each \
         folded: open one, try again, and open the next only if you need it. \
         `cargo xtask hint {n}` (`just hint {n}`) gives the same hints in the \
         terminal, one per call. The reference code comes last.\n",
        dir = chapter.dir,
        id = chapter.id(),
    );
    for gap in &gaps {
        let file = format!("chapters/{}/{}", chapter.dir, gap.file.display());
        let starter = starter_code(&starters, gap);
        let tiers = hints
            .iter()
            .find(|hint| hint.gap == gap.id)
            .map(|hint| hint.tiers.clone())
            .ok_or_else(|| {
                format!(
                    "tests/hints/{}.md has no hints for {}",
                    chapter.id(),
                    gap.id
                )
            })?;
        out += &format!(
            "\n### `{id}`\n\n**What to write** (in `{file}`): {instruction}\n\n\
             Between its `TODO({id})` and `END({id})` comments your file holds:\n\n\
             ```rust,ignore\n{starter}\n```\n",
            id = gap.id,
            instruction = gap.instruction,
            starter = dedent(&starter),
        );
        for (number, (tier, text)) in hints::TIERS.iter().zip(&tiers).enumerate() {
            out += &details(
                &format!("Hint {}: {}", number + 1, tier.to_lowercase()),
                text,
            );
        }
        let explained = hints
            .iter()
            .find(|hint| hint.gap == gap.id)
            .and_then(|hint| hint.explained.as_deref())
            .map_or(String::new(), |text| format!("\n\n{text}"));
        out += &details(
            &format!("Show the solution of {}", gap.id),
            &format!("```rust,ignore\n{}\n```{explained}", dedent(&gap.body)),
        );
    }
    Ok(out)
}

/// The files under `chapter`'s stretches, as the Markdown list names them.
fn stretch_files(chapter: &Chapter, regions: &[Gap], stretch: &Gap) -> String {
    let mut files: Vec<String> = regions
        .iter()
        .filter(|region| region.id == stretch.id)
        .map(|region| format!("`chapters/{}/{}`", chapter.dir, region.file.display()))
        .collect();
    files.dedup();
    files.join(" and ")
}

/// For the chapter's page: a heading per stretch (the id its scenario's
/// `# book:` line names), what it asks, and a link to the stretch page.
/// `None` for a chapter without stretches.
pub fn stretch_index(chapter: &Chapter) -> Result<Option<String>, String> {
    let stretches = gaps::stretches(chapter)?;
    if stretches.is_empty() {
        return Ok(None);
    }
    let regions = gaps::stretch_regions(chapter)?;
    let page = stretch_page(chapter);
    let mut out = format!(
        "<!-- Generated by `cargo xtask changes` from solutions/{dir}: edit that, not this \
         file. -->\n\n## Stretch\n\nOptional, once the gaps pass. The [stretch page]({page}) \
         has each one's frames, hints and solution.\n",
        dir = chapter.dir,
    );
    for stretch in &stretches {
        out += &format!(
            "\n### Stretch `{id}`\n\n**What to write** (in {files}): {instruction} \
             [Its frames, hints and solution]({page}#{anchor}).\n",
            id = stretch.id,
            files = stretch_files(chapter, &regions, stretch),
            instruction = stretch.instruction,
            anchor = crate::book::heading_id(&format!("Stretch `{}`", stretch.id)),
        );
    }
    Ok(Some(out))
}

/// The stretch exercises, for the stretch page: what to write, the frames
/// of their own scenario, the three hints and the reference code, folded.
/// `None` for a chapter without stretches.
pub fn stretch_section(chapter: &Chapter) -> Result<Option<String>, String> {
    let stretches = gaps::stretches(chapter)?;
    if stretches.is_empty() {
        return Ok(None);
    }
    let hints = hints::load(chapter)?;
    let regions = gaps::stretch_regions(chapter)?;
    let n = format!("{:02}", chapter.number);
    let mut out = format!(
        "<!-- Generated by `cargo xtask changes` from solutions/{dir} and \
         tests/hints/{id}.md: edit those, not this file. -->\n\n\
         Optional, once the gaps of [the exercise]({exercise}) pass: each stretch below adds \
         behaviour the core scenarios do not pin. Its code goes under \
         `#[cfg(feature = \"stretch\")]`, so `cargo xtask check {n}` sees your crate \
         as before, and `cargo xtask check {n} --stretch` (`just check {n} --stretch`) builds it \
         with the feature and plays the stretch's own transcript.\n",
        dir = chapter.dir,
        id = chapter.id(),
        exercise = exercise_page(chapter),
    );
    for stretch in &stretches {
        let tiers = hints
            .iter()
            .find(|hint| hint.gap == stretch.id)
            .map(|hint| hint.tiers.clone())
            .ok_or_else(|| {
                format!(
                    "tests/hints/{}.md has no hints for stretch {}",
                    chapter.id(),
                    stretch.id
                )
            })?;
        out += &format!(
            "\n## Stretch `{id}`\n\n**What to write** (in {files}, at each \
             `STRETCH({id})` comment): {instruction}\n\n\
             {{{{#include ../views/{chapter}/{scenario}.md}}}}\n",
            id = stretch.id,
            files = stretch_files(chapter, &regions, stretch),
            instruction = stretch.instruction,
            chapter = chapter.id(),
            scenario = course::stretch_scenario(&stretch.id),
        );
        for (number, (tier, text)) in hints::TIERS.iter().zip(&tiers).enumerate() {
            out += &details(
                &format!("Hint {}: {}", number + 1, tier.to_lowercase()),
                text,
            );
        }
        let code: Vec<String> = regions
            .iter()
            .filter(|region| region.id == stretch.id)
            .map(|region| {
                format!(
                    "// {}:\n{}",
                    region.file.display(),
                    dedent(region.body.trim_end_matches('\n'))
                )
            })
            .collect();
        out += &details(
            &format!("Show the solution of {}", stretch.id),
            &format!("```rust,ignore\n{}\n```", code.join("\n\n")),
        );
    }
    Ok(Some(out))
}

/// The starter's code of one gap, as the learner's file holds it.
fn starter_code(starters: &[(PathBuf, String)], gap: &Gap) -> String {
    starters
        .iter()
        .filter(|(file, _)| *file == gap.file)
        .flat_map(|(_, text)| gaps::learner_regions(text))
        .find(|(id, _)| *id == gap.id)
        .map(|(_, body)| body)
        .unwrap_or_default()
}

/// A folded block. The blank lines let mdBook read the inside as Markdown.
fn details(summary: &str, body: &str) -> String {
    format!("\n<details>\n<summary>{summary}</summary>\n\n{body}\n\n</details>\n")
}

fn dedent(code: &str) -> String {
    let indent = code
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| line.len() - line.trim_start().len())
        .min()
        .unwrap_or(0);
    code.lines()
        .map(|line| line.get(indent..).unwrap_or("").trim_end())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every file this module generates, with its content.
pub fn generated() -> Result<Vec<(PathBuf, String)>, String> {
    let mut files = Vec::new();
    for chapter in Chapter::all() {
        files.extend(listings(&chapter)?);
        files.push((exercise_path(&chapter), exercise_section(&chapter)?));
        if let Some(section) = stretch_section(&chapter)? {
            files.push((stretch_path(&chapter), section));
        }
        if let Some(index) = stretch_index(&chapter)? {
            files.push((stretch_index_path(&chapter), index));
        }
    }
    Ok(files)
}

/// Brings the generated files up to date (or, with `check`, only looks):
/// writes what differs, removes what is no longer generated, and returns
/// the paths that were out of date, relative to the workspace root.
pub fn refresh(check: bool) -> Result<Vec<String>, String> {
    let files = generated()?;
    let mut stale = Vec::new();
    for dir in ["listings", "exercises"] {
        let dir = generated_dir().join(dir);
        let in_dir: Vec<(PathBuf, String)> = files
            .iter()
            .filter(|(path, _)| path.starts_with(&dir))
            .cloned()
            .collect();
        stale.extend(generated::sync(&in_dir, &dir, check)?);
    }
    Ok(stale)
}

/// Checks the book that `mdbook build book` wrote into `build`: no page
/// shows a marker line, and the reference code of each gap appears only
/// inside a `<details>`, on each of its chapter's pages (the exercise and
/// stretch pages included) and on the print page. Returns the problems found.
pub fn check_built_book(build: &Path) -> Result<Vec<String>, String> {
    let pages: Vec<PathBuf> = generated::files_under(build)
        .into_iter()
        .filter(|path| path.extension().is_some_and(|ext| ext == "html"))
        .collect();
    if pages.is_empty() {
        return Err(format!(
            "no HTML pages under {}: run `mdbook build book` first",
            build.display()
        ));
    }
    let mut problems = Vec::new();
    for page in &pages {
        let html = fs::read_to_string(page).map_err(|err| err.to_string())?;
        let name = page
            .strip_prefix(build)
            .unwrap_or(page)
            .display()
            .to_string();
        problems.extend(
            marker_lines(&html)
                .into_iter()
                .map(|line| format!("{name} shows a marker line: {line}")),
        );
    }
    // The print page holds every chapter at once.
    let print = fs::read_to_string(build.join("print.html")).unwrap_or_default();
    for chapter in Chapter::all() {
        let mut built = vec![("print.html".to_string(), print.clone())];
        for page in crate::book::chapter_pages(&chapter) {
            let name = page.replace(".md", ".html");
            match fs::read_to_string(build.join(&name)) {
                Ok(html) => built.push((name, html)),
                Err(_) => problems.push(format!("{name} is missing from the built book")),
            }
        }
        let mut regions = gaps::gaps(&chapter)?;
        regions.extend(gaps::stretch_regions(&chapter)?);
        for gap in regions {
            for (page, html) in &built {
                if shows_outside_details(html, &gap.body) {
                    problems.push(format!(
                        "{page} shows the solution of {} outside a <details>",
                        gap.id
                    ));
                }
            }
        }
    }
    Ok(problems)
}

/// The lines of a page's text that are the starter generator's markers
/// (or start like one). None may reach a rendered page.
fn marker_lines(html: &str) -> Vec<String> {
    text_of(html)
        .lines()
        .map(str::trim)
        .filter(|line| markers::is_generator_line(line))
        .map(str::to_string)
        .collect()
}

/// Whether every line of `code`, in order and together, appears in the
/// page's text outside `<details>` (in a listing, or in a diff's `+` lines).
fn shows_outside_details(html: &str, code: &str) -> bool {
    let normal = |line: &str| {
        let line = line.trim();
        line.strip_prefix(['+', '-'])
            .unwrap_or(line)
            .trim()
            .to_string()
    };
    let wanted: Vec<String> = code
        .lines()
        .map(normal)
        .filter(|line| !line.is_empty())
        .collect();
    let visible: Vec<String> = text_of(&without_details(html))
        .lines()
        .map(normal)
        .filter(|line| !line.is_empty())
        .collect();
    !wanted.is_empty() && visible.windows(wanted.len()).any(|window| window == wanted)
}

/// The page without its `<details>` elements (nested ones included).
fn without_details(html: &str) -> String {
    let mut out = String::new();
    let mut depth = 0usize;
    let mut rest = html;
    while let Some(at) = rest.find('<') {
        let (before, tag) = rest.split_at(at);
        if depth == 0 {
            out += before;
        }
        if tag.starts_with("<details") {
            depth += 1;
        } else if tag.starts_with("</details>") {
            depth = depth.saturating_sub(1);
        } else if depth == 0 {
            out.push('<');
        }
        rest = &tag[1..];
    }
    if depth == 0 {
        out += rest;
    }
    out
}

/// A page's text: tags removed, the common entities decoded (also what
/// the book's copy and length checks read).
pub(crate) fn text_of(html: &str) -> String {
    let mut text = String::new();
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            c if !in_tag => text.push(c),
            _ => {}
        }
    }
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&#x27;", "'")
        .replace("&amp;", "&")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_marker_lines_in_code() {
        let html = "<pre><code>fn f() {\n    // GAP(ch09/f): do f\n    x\n}</code></pre>\n\
                    <p>Keep the <code>// END(ch09/f)</code> comment.</p>";
        assert_eq!(marker_lines(html), ["// GAP(ch09/f): do f"]);
    }

    #[test]
    fn sees_code_outside_details_only() {
        let code = "    let a = 1;\n\n    a + 1";
        let shown = "<pre><code>let a = 1;\na + 1\n</code></pre>";
        let folded = format!("<details><summary>s</summary>{shown}</details>");
        let diff = "<pre><code>+    let a = 1;\n+    a + 1\n</code></pre>";
        assert!(shows_outside_details(shown, code));
        assert!(!shows_outside_details(&folded, code));
        assert!(shows_outside_details(diff, code));
        assert!(!shows_outside_details("<p>let a = 1;</p>", code));
    }

    #[test]
    fn dedents_code() {
        assert_eq!(dedent("    a\n\n      b"), "a\n\n  b");
    }
}
