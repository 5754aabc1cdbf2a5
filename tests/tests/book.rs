//! The book teaches before it tells: every gap has hints in three tiers,
//! the pages include the generated listings and exercises, and those are
//! up to date. (`cargo xtask book-check` checks the built book itself.)

use std::fs;

use wire_tests::course::{self, Chapter};
use wire_tests::generate::exercises;
use wire_tests::learner::hints;
use wire_tests::{book, markers};

#[test]
fn every_gap_has_hints_in_three_tiers() {
    let problems: Vec<String> = Chapter::all().iter().flat_map(hints::problems).collect();
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

#[test]
fn the_generated_listings_and_exercises_are_up_to_date() {
    let stale = exercises::refresh(true).unwrap();
    assert!(
        stale.is_empty(),
        "out of date, run `cargo xtask changes`:\n  {}",
        stale.join("\n  ")
    );
}

#[test]
fn chapter_pages_show_listings_without_answers_and_the_exercise_its_hints() {
    let mut problems = Vec::new();
    for chapter in Chapter::all() {
        // The chapter's page and its sub-pages: none shows a file with gaps.
        for sub_page in book::chapter_pages(&chapter) {
            let text = fs::read_to_string(course::root().join("book/src").join(&sub_page));
            let text = text.unwrap_or_default();
            for line in text.lines().filter(|line| line.contains("{{#include")) {
                let Some(path) = line.split("../../solutions/").nth(1) else {
                    continue;
                };
                let file = path.split([':', '}']).next().unwrap_or_default();
                let source = fs::read_to_string(course::root().join("solutions").join(file))
                    .unwrap_or_default();
                if markers::has_regions(&source) {
                    problems.push(format!(
                        "book/src/{sub_page} includes solutions/{file}, which has gaps or stretches: \
                         answers and markers would show; include generated/listings/{file}.txt instead"
                    ));
                }
            }
        }
        problems.extend(exercise_page_problems(&chapter));
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

/// A chapter ends on three pages, in this order in `SUMMARY.md`: the
/// exercise page (`NN-slug-exercise.md`: the task, how to check it, and the
/// generated gaps with their hints and solutions), for a chapter with
/// stretches the stretch page (`NN-slug-stretch.md`, the generated
/// stretches in full), and the chapter's page (`NN-slug.md`: the stretches'
/// index, what changed, the questions, the notes and the recap), so that
/// each fits the page budget.
fn exercise_page_problems(chapter: &Chapter) -> Vec<String> {
    let mut problems = Vec::new();
    let main = format!("{}.md", chapter.dir);
    let exercise_page = exercises::exercise_page(chapter);
    let stretch_page = exercises::stretch_page(chapter);
    let has_stretch = exercises::stretch_section(chapter)
        .map(|section| section.is_some())
        .unwrap_or(false);
    let pages = book::chapter_pages(chapter);
    let mut expected = vec![exercise_page.clone()];
    if has_stretch {
        expected.push(stretch_page.clone());
    }
    let tail: Vec<String> = pages
        .iter()
        .skip(1)
        .rev()
        .take(expected.len())
        .rev()
        .cloned()
        .collect();
    if tail != expected {
        problems.push(format!(
            "SUMMARY.md: the last pages of chapter {} before {main} should be {expected:?}, \
             nested under the chapter's line like its other pages",
            chapter.number
        ));
    }
    let read = |page: &str| {
        fs::read_to_string(course::root().join("book/src").join(page)).unwrap_or_default()
    };
    let id = chapter.id();
    let mut wanted = vec![(
        exercise_page,
        format!("{{{{#include generated/exercises/{id}.md}}}}"),
    )];
    if has_stretch {
        wanted.push((
            stretch_page,
            format!("{{{{#include generated/exercises/{id}-stretch.md}}}}"),
        ));
        wanted.push((
            main.clone(),
            format!("{{{{#include generated/exercises/{id}-stretch-index.md}}}}"),
        ));
    }
    for (page, include) in wanted {
        if !read(&page).contains(&include) {
            problems.push(format!("book/src/{page} does not include {include}"));
        }
    }
    problems
}

/// The tested file a listing include shows, as `solutions/NN-slug/src/x.rs`:
/// from `../../solutions/…` or from its marker-free copy
/// `generated/listings/…/x.rs.txt`. `None` for any other include.
fn listed_file(line: &str) -> Option<String> {
    let body = line.split("{{#").nth(1)?.split("}}").next()?;
    let mut words = body.split_whitespace();
    if !matches!(words.next(), Some("include" | "rustdoc_include")) {
        return None;
    }
    let path = words.next()?.split(':').next()?;
    if let Some(file) = path.strip_prefix("../../solutions/") {
        return Some(format!("solutions/{file}"));
    }
    let file = path
        .strip_prefix("generated/listings/")?
        .strip_suffix(".txt")?;
    Some(format!("solutions/{file}"))
}

/// Every fenced listing of a tested file has, as the last line before its
/// fence, `<span class="caption">solutions/…</span>` naming that file.
fn caption_problems(name: &str, page: &str) -> Vec<String> {
    let lines: Vec<&str> = page.lines().collect();
    let mut problems = Vec::new();
    let mut in_code = false;
    for (index, line) in lines.iter().enumerate() {
        if !line.trim_start().starts_with("```") {
            continue;
        }
        in_code = !in_code;
        let next = lines.get(index + 1).copied().unwrap_or_default();
        let Some(file) = listed_file(next).filter(|_| in_code) else {
            continue;
        };
        let caption = format!(r#"<span class="caption">{file}</span>"#);
        let before = lines[..index]
            .iter()
            .rev()
            .find(|line| !line.trim().is_empty());
        if before.map(|line| line.trim()) != Some(caption.as_str()) {
            problems.push(format!(
                "{name}:{}: a listing of {file} without its caption; put `{caption}` \
                 on its own line above the fence",
                index + 1
            ));
        }
    }
    problems
}

#[test]
fn every_listing_on_a_chapter_page_has_a_caption_naming_its_file() {
    let mut problems = Vec::new();
    for chapter in Chapter::all() {
        for page in book::chapter_pages(&chapter) {
            let text = fs::read_to_string(course::root().join("book/src").join(&page));
            problems.extend(caption_problems(
                &format!("book/src/{page}"),
                &text.unwrap_or_default(),
            ));
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

#[test]
fn a_listing_without_the_right_caption_is_found() {
    let fence =
        "```rust,ignore\n{{#include generated/listings/03-add-tool/src/tools.rs.txt:call}}\n```\n";
    let good =
        format!("<span class=\"caption\">solutions/03-add-tool/src/tools.rs</span>\n\n{fence}");
    assert!(caption_problems("page.md", &good).is_empty());
    assert_eq!(
        caption_problems("page.md", &format!("Text.\n\n{fence}")).len(),
        1
    );
    let wrong = good.replace("tools.rs</span>", "main.rs</span>");
    assert_eq!(caption_problems("page.md", &wrong).len(), 1);
    // A view or a diff is no listing of a tested file.
    assert!(
        caption_problems(
            "page.md",
            "```diff\n{{#include generated/changes-03.diff}}\n```\n"
        )
        .is_empty()
    );
}

/// The files a chapter's generated changes name, relative to its crate:
/// `+++ solutions/NN-slug/src/x.rs` lines of a diff, or the
/// `  solutions/NN-slug/src/x.rs  (N lines)` lines of a new crate's list.
fn changed_files(changes: &str) -> Vec<String> {
    changes
        .lines()
        .filter_map(|line| {
            let path = match line.strip_prefix("+++ ") {
                Some(path) => path,
                None => line.strip_prefix("  ")?.split("  (").next()?,
            };
            let rest = path.trim().strip_prefix("solutions/")?;
            Some(rest.split_once('/')?.1.to_string())
        })
        .collect()
}

/// The `## What changed` section has a table (`| File | …`) before the
/// include of its changes, and every changed file is in the table: its
/// path, its file name, or a folder above it (`skills/`), in backticks.
fn table_problems(name: &str, page: &str, changes: &str) -> Vec<String> {
    let page = format!("\n{page}");
    let Some(section) = page.split("\n## What changed").nth(1) else {
        return vec![format!("{name} has no `## What changed` section")];
    };
    let before_changes = section
        .split("{{#include generated/changes-")
        .next()
        .unwrap_or("");
    let rows: Vec<&str> = before_changes
        .lines()
        .filter(|l| l.starts_with('|'))
        .collect();
    if !rows.first().is_some_and(|row| row.starts_with("| File |")) {
        return vec![format!(
            "{name}: no `| File | What changed | What it teaches |` table before the changes"
        )];
    }
    let named: Vec<&str> = rows
        .iter()
        .flat_map(|row| row.split('`').skip(1).step_by(2))
        .collect();
    changed_files(changes)
        .into_iter()
        .filter(|file| {
            let base = file.rsplit('/').next().unwrap_or(file);
            !named.iter().any(|name| {
                *name == file || *name == base || (name.ends_with('/') && file.starts_with(name))
            })
        })
        .map(|file| format!("{name}: `{file}` changes, but its what-changed table omits it"))
        .collect()
}

#[test]
fn every_changed_file_is_in_its_chapters_what_changed_table() {
    let mut problems = Vec::new();
    let mut checked = 0;
    for chapter in Chapter::all() {
        let page = fs::read_to_string(chapter.book_page()).unwrap_or_default();
        let changes = format!("generated/changes-{:02}.diff", chapter.number);
        if !page.contains(&format!("{{{{#include {changes}}}}}")) {
            continue;
        }
        let diff = fs::read_to_string(course::root().join("book/src").join(&changes)).unwrap();
        problems.extend(table_problems(
            &format!("book/src/{}.md", chapter.dir),
            &page,
            &diff,
        ));
        checked += 1;
    }
    assert!(checked > 0, "no chapter page includes its changes");
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

#[test]
fn a_changed_file_missing_from_the_table_is_found() {
    let diff = "--- solutions/02-handshake/src/main.rs\n+++ solutions/03-add-tool/src/main.rs\n\
                --- solutions/02-handshake/skills/a/SKILL.md\n+++ solutions/03-add-tool/skills/a/SKILL.md\n";
    let page = "## What changed since chapter 2\n\n| File | What changed | What it teaches |\n\
                | --- | --- | --- |\n| `main.rs` | x | y |\n\n{{#include generated/changes-03.diff}}\n";
    assert_eq!(changed_files(diff), ["src/main.rs", "skills/a/SKILL.md"]);
    let problems = table_problems("p.md", page, diff);
    assert!(
        problems.len() == 1 && problems[0].contains("`skills/a/SKILL.md`"),
        "{problems:?}"
    );
    let page = page.replace("| `main.rs` |", "| `main.rs`, `skills/` |");
    assert!(table_problems("p.md", &page, diff).is_empty());
    let list = "Chapter 06 starts a new crate.\n\n  solutions/06-client/src/host.rs  (251 lines)\n";
    assert_eq!(changed_files(list), ["src/host.rs"]);
}

/// The appendices are lettered, A, B, C… in `SUMMARY.md` order, and sit
/// outside mdBook's numbering (unnumbered entries after the chapters), so a
/// new chapter never renumbers them; each page's title carries its letter.
#[test]
fn the_appendices_are_lettered_after_every_chapter() {
    let summary = fs::read_to_string(course::root().join("book/src/SUMMARY.md")).unwrap();
    let lines: Vec<&str> = summary.lines().collect();
    let mut problems = Vec::new();
    let appendices: Vec<(usize, &str)> = lines
        .iter()
        .enumerate()
        .filter(|(_, line)| line.contains("](appendix-"))
        .map(|(at, line)| (at, *line))
        .collect();
    assert!(!appendices.is_empty(), "SUMMARY.md names no appendix");
    let last_chapter = lines
        .iter()
        .rposition(|line| line.trim_start().starts_with("- ["))
        .unwrap_or_default();
    for (index, (at, line)) in appendices.iter().enumerate() {
        let letter = char::from(b'A' + index as u8);
        let title = format!("[Appendix {letter}. ");
        if !line.starts_with(&title) {
            problems.push(format!(
                "SUMMARY.md:{}: `{line}` should start `{title}` (unnumbered: no `- `)",
                at + 1
            ));
        }
        if *at < last_chapter {
            problems.push(format!(
                "SUMMARY.md:{}: an appendix before a numbered chapter",
                at + 1
            ));
        }
        let page = line
            .rsplit_once("](")
            .map(|(_, page)| page.trim_end_matches(')'));
        let text = fs::read_to_string(course::root().join("book/src").join(page.unwrap_or("")))
            .unwrap_or_default();
        let heading = format!("# Appendix {letter}. ");
        if !text.starts_with(&heading) {
            problems.push(format!("{page:?}: its title should start `{heading}`"));
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

/// The closing pages quote the course's own measurements. Each figure is a
/// link titled with the transcript that measured it,
/// `[+7450](19-tool-search-cost.md#what-definitions-cost "ch19/measure")`:
/// the figure must be printed, as written, by that transcript's run (its
/// stdout lines), and the page the link names must show that transcript.
/// A measurement that changes then fails here until the page follows it.
#[test]
fn the_closing_pages_quote_figures_their_transcripts_print() {
    let src = course::root().join("book/src");
    let mut figures = 0;
    let mut problems = Vec::new();
    for page in CLOSING_PAGES {
        let text = fs::read_to_string(src.join(page)).unwrap();
        for figure in measured_figures(&text) {
            figures += 1;
            problems.extend(figure_problem(page, &figure, &|path| {
                fs::read_to_string(course::root().join(path)).ok()
            }));
        }
    }
    assert!(
        figures >= 20,
        "only {figures} measured figures on the closing pages"
    );
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

#[test]
fn a_figure_its_transcript_does_not_print_is_found() {
    let wire = "| | + one tool of 1 parameter | +66 | +156 |\n| | stopped | 1 of 21 |\n";
    let page = "{{#include generated/views/ch19/measure.md}}";
    let read = |path: &str| match path {
        "tests/transcripts/ch19/measure.wire" => Some(wire.to_string()),
        "book/src/19-tool-search-cost.md" => Some(page.to_string()),
        _ => None,
    };
    let text = "[+66](19-tool-search-cost.md#a \"ch19/measure\"), [+6](19-tool-search-cost.md \"ch19/measure\"), \
                [1 of 21](08-skills-cost.md \"ch19/measure\"), [+156](19-tool-search-cost.md \"ch19/gone\")";
    let found: Vec<Vec<String>> = measured_figures(text)
        .iter()
        .map(|figure| figure_problem("p.md", figure, &read))
        .collect();
    assert!(found[0].is_empty(), "{:?}", found[0]);
    assert!(
        found[1][0].contains("does not print `+6`"),
        "{:?}",
        found[1]
    );
    assert!(found[2][0].contains("does not show"), "{:?}", found[2]);
    assert!(found[3][0].contains("no transcript"), "{:?}", found[3]);
}

/// The pages after the last chapter that quote measured figures.
const CLOSING_PAGES: [&str; 3] = [
    "choosing-and-operating.md",
    "choosing-mcp.md",
    "choosing-subagents.md",
];

/// A figure quoted on a page: its text, the page it links to, the
/// transcript named in the link's title.
struct Figure {
    text: String,
    page: String,
    transcript: String,
}

/// Every link of the form `[text](page.md#anchor "chNN/name")`.
fn measured_figures(text: &str) -> Vec<Figure> {
    let mut figures = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("](") {
        let text = rest[..at].rsplit('[').next().unwrap_or("").to_string();
        rest = &rest[at + 2..];
        let Some(end) = rest.find(')') else { break };
        let target = &rest[..end];
        if let Some((link, title)) = target.split_once(" \"") {
            let transcript = title.trim_end_matches('"');
            if transcript.starts_with("ch") && transcript.contains('/') {
                let page = link.split('#').next().unwrap_or(link).to_string();
                let transcript = transcript.to_string();
                figures.push(Figure {
                    text,
                    page,
                    transcript,
                });
            }
        }
    }
    figures
}

/// What is wrong with one figure, reading files through `read` (a path
/// from the course's root).
fn figure_problem(
    page: &str,
    figure: &Figure,
    read: &dyn Fn(&str) -> Option<String>,
) -> Vec<String> {
    let name = &figure.transcript;
    let Some(wire) = read(&format!("tests/transcripts/{name}.wire")) else {
        return vec![format!(
            "{page}: `{}` names {name}, but there is no transcript {name}",
            figure.text
        )];
    };
    let printed = wire.lines().filter_map(|line| line.strip_prefix('|'));
    let mut problems = Vec::new();
    if !printed
        .clone()
        .any(|line| printed_as_written(line, &figure.text))
    {
        problems.push(format!(
            "{page}: {name} does not print `{}`: run `cargo xtask measure` again and quote what it prints",
            figure.text
        ));
    }
    let shown = read(&format!("book/src/{}", figure.page)).unwrap_or_default();
    if !shown.contains(&format!("generated/views/{name}.md")) {
        problems.push(format!(
            "{page}: `{}` links to {}, which does not show {name}",
            figure.text, figure.page
        ));
    }
    problems
}

/// Whether `line` holds `figure` as a whole: not `66` inside `+1662`.
fn printed_as_written(line: &str, figure: &str) -> bool {
    let part_of_a_number = |c: Option<char>| c.is_some_and(|c| c.is_ascii_digit() || c == '.');
    line.match_indices(figure).any(|(at, _)| {
        !part_of_a_number(line[..at].chars().next_back())
            && !part_of_a_number(line[at + figure.len()..].chars().next())
    })
}

/// Each extension of the last harness, by the name its stack gives it, and
/// the type that implements it: what `harness-list.md` lists.
const EXTENSION_TYPES: &[(&str, &str)] = &[
    ("answering", "Answering"),
    ("pins", "Pinned"),
    ("tool search", "ToolSearch"),
    ("prompt cache", "PromptCache"),
    ("served skills", "ServedSkills"),
    ("skills", "Skills"),
    ("sandbox", "Sandbox"),
    ("subagents", "Subagents"),
    ("fence", "Fence"),
    ("permissions", "Permissions"),
    ("lifecycle", "Lifecycle"),
    ("memory", "Memory"),
    ("compaction", "Compaction"),
    ("retries", "Retries"),
];

/// The string literals right after each `stack.push(`, `insert_after(` and
/// `replace(` of `text`, in order, with the call's name.
fn stack_calls(text: &str) -> Vec<(&'static str, Vec<String>)> {
    let mut calls = Vec::new();
    let mut rest = text;
    while let Some(at) = ["push(", "insert_after(", "replace("]
        .iter()
        .filter_map(|call| rest.find(&format!("stack.{call}")).map(|at| (at, *call)))
        .min()
    {
        let (at, call) = at;
        rest = &rest[at + "stack.".len() + call.len()..];
        let wanted = if call == "push(" { 1 } else { 2 };
        let mut names = Vec::new();
        let mut args = rest;
        while names.len() < wanted {
            let args_start = args.trim_start();
            let Some(quoted) = args_start.strip_prefix('"') else {
                break;
            };
            let end = quoted.find('"').unwrap_or(0);
            names.push(quoted[..end].to_string());
            args = quoted[end + 1..].trim_start().trim_start_matches(',');
        }
        calls.push((call, names));
    }
    calls
}

/// The last chapter's list of extensions, worked out from the code: the
/// base of chapters 7 to 15 (`Parts::base_with`), then each `stack.rs` of
/// chapters 19 to 24 in turn.
fn last_stack() -> Vec<String> {
    let root = course::root();
    let program = std::fs::read_to_string(root.join("support/host/src/program.rs")).unwrap();
    let base = &program[program.find("pub fn base_with").expect("base_with")..];
    let base = &base[..base.find("\n    }\n").unwrap_or(base.len())];
    let mut stack: Vec<String> = Vec::new();
    let mut files = vec![base.to_string()];
    for chapter in Chapter::all()
        .into_iter()
        .filter(|c| (19..=24).contains(&c.number))
    {
        files.push(std::fs::read_to_string(chapter.solution_dir().join("src/stack.rs")).unwrap());
    }
    for text in &files {
        for (call, names) in stack_calls(text) {
            match (call, names.as_slice()) {
                ("push(", [name]) => stack.push(name.clone()),
                ("insert_after(", [after, name]) => {
                    let at = stack.iter().position(|known| known == after).expect(after);
                    stack.insert(at + 1, name.clone());
                }
                ("replace(", [old, name]) => {
                    let at = stack.iter().position(|known| known == old).expect(old);
                    stack[at] = name.clone();
                }
                _ => panic!("cannot read stack.{call}…) with {names:?}"),
            }
        }
    }
    stack
}

/// The seams `type_name` fills (the methods of its `impl Extension`), and
/// the chapter that teaches it (its generated file's first line).
fn seams_of(type_name: &str) -> (Vec<String>, String) {
    let root = course::root().join("support/host/src");
    for entry in std::fs::read_dir(&root).unwrap().flatten() {
        let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
        let Some(at) = text
            .find(&format!("Extension for {type_name}<"))
            .or_else(|| text.find(&format!("Extension for {type_name} ")))
        else {
            continue;
        };
        let body = &text[at..];
        let body = &body[..body.find("\n}\n").unwrap_or(body.len())];
        let mut seams: Vec<String> = body
            .lines()
            .filter_map(|line| line.trim().split_once("fn ").map(|(_, rest)| rest))
            .map(|rest| rest.split(['(', '<']).next().unwrap_or("").to_string())
            .collect();
        seams.sort();
        let source = text.lines().next().unwrap_or("");
        let chapter = source
            .split("solutions/")
            .nth(1)
            .unwrap_or("")
            .get(..2)
            .unwrap_or("");
        return (seams, chapter.trim_start_matches('0').to_string());
    }
    panic!("no `impl Extension for {type_name}` in support/host/src");
}

#[test]
fn the_harness_page_lists_the_last_stack_with_its_seams() {
    let page = std::fs::read_to_string(course::root().join("book/src/harness-list.md")).unwrap();
    let rows: Vec<Vec<String>> = page
        .lines()
        .skip_while(|line| !line.starts_with("| extension |"))
        .skip(2)
        .take_while(|line| line.starts_with('|'))
        .map(|line| {
            line.split('|')
                .map(|cell| cell.trim().to_string())
                .collect()
        })
        .collect();
    let listed: Vec<&str> = rows.iter().map(|row| row[1].as_str()).collect();
    let stack = last_stack();
    assert_eq!(
        listed, stack,
        "harness-list.md: the table's rows, against the code's list"
    );
    for row in &rows {
        let name = row[1].as_str();
        let type_name = EXTENSION_TYPES
            .iter()
            .find(|(known, _)| *known == name)
            .map(|(_, type_name)| *type_name)
            .unwrap_or_else(|| panic!("{name:?}: add its type to EXTENSION_TYPES"));
        let mut listed: Vec<String> = row[3]
            .split(',')
            .map(|seam| seam.trim().trim_matches('`').to_string())
            .collect();
        listed.sort();
        let (seams, chapter) = seams_of(type_name);
        assert_eq!(listed, seams, "harness-list.md: the seams of {name}");
        assert_eq!(
            row[2], chapter,
            "harness-list.md: the chapter that teaches {name}"
        );
    }
}
