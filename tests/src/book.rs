//! The book's pages as the tests see them: headings, their ids, and which
//! section explains a gap, so a failure report can send the reader there.

use std::fs;

use crate::course::Chapter;
use crate::generate::gaps::Gap;
use crate::markers::Marker;

/// The id mdBook gives a heading: lower case, spaces to `-`, punctuation
/// dropped (`## Bytes, not strings` → `bytes-not-strings`).
pub fn heading_id(heading: &str) -> String {
    heading
        .trim_start_matches('#')
        .trim()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c.to_ascii_lowercase()),
            _ => None,
        })
        .collect()
}

/// Each line of a page with the id of the section it sits in (`None` before
/// the first `##`). Lines in code blocks are never headings.
pub fn sections(page: &str) -> Vec<(Option<String>, &str)> {
    let mut current = None;
    let mut in_code = false;
    let mut out = Vec::new();
    for line in page.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
        } else if !in_code && line.starts_with("##") {
            current = Some(heading_id(line));
        }
        out.push((current.clone(), line));
    }
    out
}

/// The ids of a page's headings (every level), outside code blocks.
pub fn heading_ids(page: &str) -> Vec<String> {
    let mut in_code = false;
    let mut ids = Vec::new();
    for line in page.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
        } else if !in_code && line.starts_with('#') {
            ids.push(heading_id(line));
        }
    }
    ids
}

/// A chapter's pages: its page (`04-resources.md`, the one with what
/// changed, the questions and the recap) first, then the other pages of its
/// entry in `SUMMARY.md` in reading order, as names under book/src. The
/// entry is the top-level line naming the page, or the top-level line above
/// the nested line naming it: chapter 4 opens with `04-resources-tour.md`
/// and ends with its page, so the exercise comes after the pages that
/// teach it.
pub fn chapter_pages(chapter: &Chapter) -> Vec<String> {
    let main = format!("{}.md", chapter.dir);
    let summary =
        fs::read_to_string(crate::course::root().join("book/src/SUMMARY.md")).unwrap_or_default();
    let indent = |line: &str| line.len() - line.trim_start().len();
    let target = |line: &str| {
        let (_, target) = line.trim_end().rsplit_once("](")?;
        Some(target.trim_end_matches(')').to_string())
    };
    let lines: Vec<&str> = summary.lines().collect();
    let link = format!("]({main})");
    let Some(at) = lines
        .iter()
        .position(|line| line.trim_end().ends_with(&link))
    else {
        return vec![main];
    };
    let start = (0..=at)
        .rev()
        .find(|&index| indent(lines[index]) == 0 || lines[index].trim().is_empty())
        .filter(|&index| !lines[index].trim().is_empty())
        .unwrap_or(at);
    let depth = indent(lines[start]);
    let group = std::iter::once(lines[start]).chain(
        lines[start + 1..]
            .iter()
            .copied()
            .take_while(|line| indent(line) > depth && !line.trim().is_empty()),
    );
    let mut pages = vec![main.clone()];
    pages.extend(group.filter_map(target).filter(|page| *page != main));
    pages
}

/// The page a reader opens a chapter on: the first of its entry in
/// `SUMMARY.md` (`04-resources-tour.md`), which is usually its page.
pub fn first_page(chapter: &Chapter) -> String {
    let main = format!("{}.md", chapter.dir);
    let summary =
        fs::read_to_string(crate::course::root().join("book/src/SUMMARY.md")).unwrap_or_default();
    let link = format!("]({main})");
    let mut entry = None;
    for line in summary.lines() {
        if line.starts_with("- [") {
            entry = line
                .trim_end()
                .rsplit_once("](")
                .map(|(_, t)| t.trim_end_matches(')'));
        }
        if line.trim_end().ends_with(&link) {
            return entry.unwrap_or(&main).to_string();
        }
    }
    main
}

/// `01-echo-tour.md#one-line-in-one-line-out`: the section that teaches the code
/// of `gap`. That is the section which includes the listing (the solution's
/// `ANCHOR` region) holding the gap, on the chapter's page or one of its
/// sub-pages; failing that, the first section that names the gap; failing
/// that, the chapter page itself.
pub fn gap_section(chapter: &Chapter, gap: &Gap) -> String {
    let source = fs::read_to_string(chapter.solution_dir().join(&gap.file)).unwrap_or_default();
    let file = gap.file.to_string_lossy().replace('\\', "/");
    let anchors = anchors_around(&source, gap.line);
    // From `solutions/` or, for a file with gaps, its marker-free copy
    // `generated/listings/…/file.txt`.
    let includes = |anchor: &String| {
        [
            format!("solutions/{}/{file}:{anchor}}}}}", chapter.dir),
            format!("listings/{}/{file}.txt:{anchor}}}}}", chapter.dir),
        ]
    };
    let pages: Vec<(String, String)> = chapter_pages(chapter)
        .into_iter()
        .map(|name| {
            let text =
                fs::read_to_string(chapter.book_page().with_file_name(&name)).unwrap_or_default();
            (name, text)
        })
        .collect();
    let including = anchors.iter().find_map(|anchor| {
        let includes = includes(anchor);
        pages.iter().find_map(|(name, text)| {
            sections(text)
                .into_iter()
                .find(|(_, line)| {
                    line.contains("{{#") && includes.iter().any(|include| line.contains(include))
                })
                .and_then(|(id, _)| Some(format!("{name}#{}", id?)))
        })
    });
    let naming = || {
        pages.iter().find_map(|(name, text)| {
            sections(text)
                .into_iter()
                .find(|(id, line)| id.is_some() && line.contains(&gap.id))
                .and_then(|(id, _)| Some(format!("{name}#{}", id?)))
        })
    };
    including
        .or_else(naming)
        .unwrap_or_else(|| format!("{}-exercise.md", chapter.dir))
}

/// The names of the `ANCHOR` regions that contain line `line` (1-based),
/// innermost first.
fn anchors_around(source: &str, line: usize) -> Vec<String> {
    let mut open: Vec<(String, usize)> = Vec::new();
    let mut found: Vec<(String, usize)> = Vec::new();
    for (index, text) in source.lines().enumerate() {
        match Marker::parse(text) {
            Ok(Some(Marker::AnchorEnd { name })) => {
                if let Some(at) = open.iter().rposition(|(open, _)| open == name) {
                    let (name, start) = open.remove(at);
                    if start < line && line <= index + 1 {
                        found.push((name, index + 1 - start));
                    }
                }
            }
            Ok(Some(Marker::Anchor { name })) => open.push((name.to_string(), index + 1)),
            _ => {}
        }
    }
    found.sort_by_key(|(_, size)| *size);
    found.into_iter().map(|(name, _)| name).collect()
}

/// The page and section a `page.md#id` reference names, for a report line.
pub fn why_line(reference: &str) -> String {
    let (page, section) = reference.split_once('#').unwrap_or((reference, ""));
    if section.is_empty() {
        format!("why: read book/src/{page}")
    } else {
        format!("why: read book/src/{page}, section #{section}")
    }
}

/// What a reader could not copy into a terminal from a built page: an en
/// dash where a flag's `--` was meant (`–notes-dir`), and a curly quote
/// used as code punctuation inside `<code>` (`#[cfg(feature = “stretch”)]`,
/// `{“sum”: 5}`). mdBook's smart punctuation makes both, so `book.toml`
/// turns it off; `cargo xtask book-check` runs this over `book/build`. A
/// curly quote that is data inside a string (a prompt argument that says
/// `showed “Fehler”`) is text, not punctuation, and passes.
pub fn uncopyable(html: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let text = crate::generate::exercises::text_of(html);
    let chars: Vec<char> = text.chars().collect();
    for (at, pair) in chars.windows(2).enumerate() {
        let before = at.checked_sub(1).map(|i| chars[i]);
        let flag_start = before.is_none_or(|c| c.is_whitespace() || "([\"'`".contains(c));
        if pair[0] == '–' && pair[1].is_ascii_alphabetic() && flag_start {
            problems.push(format!("an en dash before a flag: {}", around(&chars, at)));
        }
    }
    // Code written in prose, outside `<code>`: a quote that opens or closes
    // a JSON object or an attribute value (`{“sum”: 5}`, `feature = “x”`).
    for (at, _) in text.match_indices(['“', '”']) {
        let before = &text[..at];
        let after = &text[at + '“'.len_utf8()..];
        let value = after
            .strip_prefix(':')
            .map(str::trim_start)
            .is_some_and(|value| {
                value.starts_with(['“', '"', '{', '[', '-'])
                    || value.starts_with(|c: char| c.is_ascii_digit())
                    || ["null", "true", "false"]
                        .iter()
                        .any(|word| value.starts_with(word))
            });
        let opens = before.ends_with(['{', '[', '=']) || before.ends_with("= ");
        let closes = after.starts_with(['}', ']']) || (text[at..].starts_with('”') && value);
        if opens || closes {
            let at = text[..at].chars().count();
            problems.push(format!(
                "a curly quote in code-like text: {}",
                around(&chars, at)
            ));
        }
    }
    for code in html.split("<code").skip(1) {
        let code = code.split_once('>').map_or("", |(_, rest)| rest);
        let code = code.split("</code>").next().unwrap_or_default();
        let chars: Vec<char> = crate::generate::exercises::text_of(code).chars().collect();
        for (at, &c) in chars.iter().enumerate() {
            if !"“”‘’".contains(c) {
                continue;
            }
            let punctuation = |c: Option<&char>| c.is_none_or(|c| "{}[]()=:,;".contains(*c));
            let before = at.checked_sub(1).and_then(|i| chars.get(i));
            if punctuation(before) || punctuation(chars.get(at + 1)) {
                problems.push(format!("a curly quote in code: {}", around(&chars, at)));
            }
        }
    }
    problems
}

/// How long a built page reads with every `<details>` folded: what the
/// reader scrolls past at 1280 px before the next page.
///
/// Counted in `<main>` outside `<details>` (a folded block shows only its
/// `<summary>`): lines of code in `<pre>`, words of everything else, code
/// blocks and folded summaries (each costs its margins and its one line).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PageLength {
    pub code_lines: usize,
    pub words: usize,
    pub code_blocks: usize,
    pub folded: usize,
}

/// Five 1280×800 screens: the most a page may scroll outside its folded
/// blocks (issue 21, "one idea per page").
pub const PAGE_BUDGET_PX: usize = 4_000;

impl PageLength {
    /// The page's height in CSS pixels at 1280 px, estimated. Calibrated
    /// against headless Chromium (`document.documentElement.scrollHeight`
    /// at `--window-size=1280,800`) over the 26 pages of December 2026's
    /// book by least squares, then rounded: a code line 18 px, a word of
    /// prose 2.8 px (about 10 words to a 28 px line), 60 px around each
    /// code block, 70 px for each folded summary. The chapter pages come
    /// out within 11% of Chromium's height; prose-only pages (the how-to,
    /// appendix C) are over-estimated by up to 24%, the safe side.
    pub fn estimated_px(&self) -> usize {
        (18 * self.code_lines * 10 + 28 * self.words + 600 * self.code_blocks + 700 * self.folded)
            / 10
    }
}

/// The length of a page mdBook built (see [`PageLength`]).
pub fn page_length(html: &str) -> PageLength {
    let main = html
        .split_once("<main>")
        .and_then(|(_, rest)| rest.split_once("</main>"))
        .map_or(html, |(main, _)| main);
    let mut length = PageLength::default();
    let mut visible = String::new();
    let mut depth = 0usize;
    let mut rest = main;
    // Keep what lies outside every `<details>`, count each outermost summary.
    while !rest.is_empty() {
        let next = [rest.find("<details"), rest.find("</details>")]
            .into_iter()
            .flatten()
            .min();
        let Some(at) = next else {
            if depth == 0 {
                visible.push_str(rest);
            }
            break;
        };
        if depth == 0 {
            visible.push_str(&rest[..at]);
        }
        if rest[at..].starts_with("</details>") {
            depth = depth.saturating_sub(1);
            rest = &rest[at + "</details>".len()..];
        } else {
            if depth == 0 {
                length.folded += 1;
            }
            depth += 1;
            rest = &rest[at + "<details".len()..];
        }
    }
    let mut prose = String::new();
    let mut rest = visible.as_str();
    while let Some(at) = rest.find("<pre") {
        prose.push_str(&rest[..at]);
        let block = &rest[at..];
        let end = block
            .find("</pre>")
            .map_or(block.len(), |end| end + "</pre>".len());
        length.code_blocks += 1;
        length.code_lines += crate::generate::exercises::text_of(&block[..end])
            .trim_matches('\n')
            .lines()
            .count();
        rest = &block[end..];
    }
    prose.push_str(rest);
    // A drawn diagram's labels are not prose to read line by line.
    let mut text = String::new();
    let mut rest = prose.as_str();
    while let Some(at) = rest.find("<svg") {
        text.push_str(&rest[..at]);
        rest = rest[at..]
            .split_once("</svg>")
            .map_or("", |(_, after)| after);
    }
    text.push_str(rest);
    length.words = crate::generate::exercises::text_of(&text.replace('<', " <"))
        .split_whitespace()
        .count();
    length
}

/// Up to 30 characters either side of `at`, on one line, for a report.
fn around(chars: &[char], at: usize) -> String {
    let start = at.saturating_sub(30);
    let end = (at + 30).min(chars.len());
    let text: String = chars[start..end].iter().collect();
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_innermost_anchor_around_a_line() {
        let source = "// ANCHOR: all\nfn a() {\n// ANCHOR: inner\nx\n// ANCHOR_END: inner\n}\n// ANCHOR_END: all\n";
        assert_eq!(anchors_around(source, 4), ["inner", "all"]);
        assert_eq!(anchors_around(source, 2), ["all"]);
        assert!(anchors_around(source, 9).is_empty());
    }

    #[test]
    fn headings_in_code_blocks_are_not_sections() {
        let page = "# Title\n## First one\ntext\n```sh\n# a comment\n```\nmore\n";
        let lines = sections(page);
        assert_eq!(lines[6].0.as_deref(), Some("first-one"));
        assert_eq!(heading_ids(page), ["title", "first-one"]);
    }

    #[test]
    fn finds_text_a_reader_could_not_copy() {
        // What smart punctuation made of chapter 4's flag and chapter 3's stretch.
        let dashed = "<p>With –notes-dir, the files of the folder</p>";
        assert_eq!(uncopyable(dashed).len(), 1, "{:?}", uncopyable(dashed));
        let curly = "<p><code>#[cfg(feature = “stretch”)]</code></p>";
        assert!(!uncopyable(curly).is_empty());
        let json = "<pre><code class=\"language-json\">{“sum”: 5}</code></pre>";
        assert!(!uncopyable(json).is_empty());
        let prose = "<p>the structured result {“sum”: …}, which writes “id”: null</p>";
        assert_eq!(uncopyable(prose).len(), 2, "{:?}", uncopyable(prose));
        // Ranges, prose quotes and a quote that is data in a string pass.
        let fine = "<p>1–64 characters, “a skill”, “invalid arguments”: from the \
                    <code>--notes-dir</code></p>\
                    <pre><code>\"text\": \"the page showed “Fehler”\\nAsk\"</code></pre>";
        assert!(uncopyable(fine).is_empty(), "{:?}", uncopyable(fine));
    }

    #[test]
    fn a_page_is_measured_outside_its_folded_blocks() {
        let html = "<nav>menu words</nav><main><h1>Title</h1><p>one two three</p>\
                    <pre><code>a\nb\n</code></pre>\
                    <details><summary>show</summary><pre><code>hidden\nlines\n</code></pre>\
                    <details><summary>inner</summary>x</details></details><p>four</p></main>";
        let length = page_length(html);
        assert_eq!(
            length,
            PageLength {
                code_lines: 2,
                words: 5,
                code_blocks: 1,
                folded: 1
            }
        );
        assert_eq!(length.estimated_px(), 36 + 14 + 60 + 70);
    }
}
