//! Markers: the comment lines in the course's sources that its tools read,
//! read here and nowhere else.
//!
//! A solution marks what the learner writes (see [`crate::generate::gaps`] for what
//! the starter generator does with it) and what the book includes:
//!
//! ```text
//!     // GAP(ch03/add): what to write, in one or more comment lines.
//!     // starter: Err(RpcError::new(-32603, "TODO(ch03/add)".into()))
//!     …the reference code…
//!     // END(ch03/add)
//!
//!     // STRETCH(ch03/multiply): an optional exercise, same shape.
//!     // END(ch03/multiply)
//!
//!     // ANCHOR: name            (mdBook: the region a page includes)
//!     // ANCHOR_END: name
//! ```
//!
//! A starter holds `// TODO(ch03/add): …` where its solution holds `GAP`,
//! and a starter's placeholder shows the gap's id when the program runs
//! ([`placeholder_id`]).
//!
//! [`Marker::parse`] classifies one line; [`regions`] reads a whole text
//! into plain lines and marked regions, with their lines; [`is_marker_comment`]
//! is the looser test the small-lessons budgets use.

/// The word that opens a marked region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Opening {
    /// A gap, in a solution.
    Gap,
    /// A gap, in a starter.
    Todo,
    /// A stretch exercise, in a solution or a starter.
    Stretch,
}

impl Opening {
    /// `GAP`, `TODO` or `STRETCH`, as written in the marker.
    pub const fn word(self) -> &'static str {
        match self {
            Opening::Gap => "GAP",
            Opening::Todo => "TODO",
            Opening::Stretch => "STRETCH",
        }
    }
}

/// One marker line, parsed. The borrowed texts are parts of the line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Marker<'a> {
    /// `// GAP(ch03/add): what to write` (or `TODO`, `STRETCH`): opens a
    /// region. `instruction` is the first line of the instruction, trimmed.
    Open {
        opening: Opening,
        id: &'a str,
        instruction: &'a str,
    },
    /// `// END(ch03/add)`: closes the region of that id.
    End { id: &'a str },
    /// `// starter: code`: a line of the code the starter holds instead of
    /// the gap's (only in a region's header).
    Starter { code: &'a str },
    /// `// ANCHOR: name`: mdBook's start of an included region.
    Anchor { name: &'a str },
    /// `// ANCHOR_END: name`: its end.
    AnchorEnd { name: &'a str },
}

/// The words a marker starts with. `ANCHOR_END` comes before `ANCHOR`,
/// which is its prefix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Word {
    Gap,
    Todo,
    Stretch,
    End,
    Starter,
    AnchorEnd,
    Anchor,
}

impl Word {
    const ALL: [Word; 7] = [
        Word::Gap,
        Word::Todo,
        Word::Stretch,
        Word::End,
        Word::Starter,
        Word::AnchorEnd,
        Word::Anchor,
    ];

    /// The word as written.
    pub const fn text(self) -> &'static str {
        match self {
            Word::Gap => "GAP",
            Word::Todo => "TODO",
            Word::Stretch => "STRETCH",
            Word::End => "END",
            Word::Starter => "starter",
            Word::AnchorEnd => "ANCHOR_END",
            Word::Anchor => "ANCHOR",
        }
    }

    /// What follows the word in a marker: `(` before an id, `:` before a
    /// text.
    const fn separator(self) -> char {
        match self {
            Word::Gap | Word::Todo | Word::Stretch | Word::End => '(',
            Word::Starter | Word::AnchorEnd | Word::Anchor => ':',
        }
    }

    /// A well-formed marker of this word, for an error message.
    pub const fn form(self) -> &'static str {
        match self {
            Word::Gap => "// GAP(chNN/name): what to do",
            Word::Todo => "// TODO(chNN/name): what to do",
            Word::Stretch => "// STRETCH(chNN/name): what to do",
            Word::End => "// END(chNN/name)",
            Word::Starter => "// starter: code",
            Word::AnchorEnd => "// ANCHOR_END: name",
            Word::Anchor => "// ANCHOR: name",
        }
    }

    /// The opening this word is, if it opens a region.
    pub const fn opening(self) -> Option<Opening> {
        match self {
            Word::Gap => Some(Opening::Gap),
            Word::Todo => Some(Opening::Todo),
            Word::Stretch => Some(Opening::Stretch),
            _ => None,
        }
    }
}

/// The marker as written, without indent: `// GAP(ch03/add): write it`.
impl std::fmt::Display for Marker<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Marker::Open {
                opening,
                id,
                instruction,
            } => write!(f, "// {}({id}): {instruction}", opening.word()),
            Marker::End { id } => write!(f, "// END({id})"),
            Marker::Starter { code } => write!(f, "// starter: {code}"),
            Marker::Anchor { name } => write!(f, "// ANCHOR: {name}"),
            Marker::AnchorEnd { name } => write!(f, "// ANCHOR_END: {name}"),
        }
    }
}

/// A line that starts like a marker (`// GAP(`, `// END(`, `// starter:`,
/// `// ANCHOR:`) but is not one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Malformed {
    pub word: Word,
}

impl std::fmt::Display for Malformed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "write `{}`", self.word.form())
    }
}

impl<'a> Marker<'a> {
    /// Reads one line. `Ok(None)`: not a marker: code, a comment (`// END
    /// of the loop` too: only `// END(` starts an `END`), or a marker
    /// spelled another way (`//GAP(`), which no tool reads. `Err`: the line
    /// starts like a marker but does not finish like one.
    pub fn parse(line: &'a str) -> Result<Option<Marker<'a>>, Malformed> {
        let Some(comment) = line.trim_start().strip_prefix("// ") else {
            return Ok(None);
        };
        let Some((word, rest)) = Word::ALL.into_iter().find_map(|word| {
            let rest = comment
                .strip_prefix(word.text())?
                .strip_prefix(word.separator())?;
            Some((word, rest))
        }) else {
            return Ok(None);
        };
        let malformed = Err(Malformed { word });
        let marker = match word {
            Word::Gap | Word::Todo | Word::Stretch => {
                let Some((id, instruction)) = rest.split_once("):") else {
                    return malformed;
                };
                if id.is_empty() || id.contains(')') {
                    return malformed;
                }
                Marker::Open {
                    opening: word.opening().expect("an opening word"),
                    id,
                    instruction: instruction.trim(),
                }
            }
            Word::End => match rest.strip_suffix(')') {
                Some(id) if !id.is_empty() && !id.contains(')') => Marker::End { id },
                _ => return malformed,
            },
            // The code keeps its own spacing after the one space.
            Word::Starter => Marker::Starter {
                code: rest.strip_prefix(' ').unwrap_or(rest),
            },
            Word::Anchor | Word::AnchorEnd => {
                let name = rest.trim();
                if name.is_empty() {
                    return malformed;
                }
                if word == Word::Anchor {
                    Marker::Anchor { name }
                } else {
                    Marker::AnchorEnd { name }
                }
            }
        };
        Ok(Some(marker))
    }

    /// Whether the starter generator reads this marker (all but the book's
    /// anchors).
    pub fn is_generator(&self) -> bool {
        !matches!(self, Marker::Anchor { .. } | Marker::AnchorEnd { .. })
    }
}

/// Whether `line` is a marker the starter generator reads, or starts like
/// one: none may reach a rendered page.
pub fn is_generator_line(line: &str) -> bool {
    match Marker::parse(line) {
        Ok(marker) => marker.is_some_and(|marker| marker.is_generator()),
        Err(malformed) => !matches!(malformed.word, Word::Anchor | Word::AnchorEnd),
    }
}

/// Whether a solution's text has a gap or a stretch, or a line that starts
/// like one of their markers.
pub fn has_regions(text: &str) -> bool {
    let (parts, errors) = regions(text, Source::Solution);
    !errors.is_empty() || parts.iter().any(|part| matches!(part, Part::Region(_)))
}

/// Whether `line` is an mdBook anchor line (`// ANCHOR: name`,
/// `// ANCHOR_END: name`).
pub fn is_anchor(line: &str) -> bool {
    matches!(
        Marker::parse(line),
        Ok(Some(Marker::Anchor { .. } | Marker::AnchorEnd { .. }))
    )
}

/// Whether `line` is a comment whose first word is a marker's, well formed
/// or not (`//GAP`, `// END of …` too): what `chapter_sizes.py`'s `MARKER`
/// matches, so that the budgets leave out the lines the tool leaves out.
pub fn is_marker_comment(line: &str) -> bool {
    let Some(rest) = line.trim_start().strip_prefix("//") else {
        return false;
    };
    let rest = rest.trim_start();
    Word::ALL.into_iter().any(|word| {
        rest.strip_prefix(word.text())
            .is_some_and(|after| !after.starts_with(|c: char| c.is_alphanumeric() || c == '_'))
    })
}

/// The lines of `text` strictly between `// ANCHOR: name` and the
/// `// ANCHOR_END: name` after it, or `None` without both.
pub fn anchored<'a>(text: &'a str, name: &str) -> Option<Vec<&'a str>> {
    let lines: Vec<&str> = text.lines().collect();
    let start = lines
        .iter()
        .position(|line| Marker::parse(line) == Ok(Some(Marker::Anchor { name })))?;
    let end = lines[start..]
        .iter()
        .position(|line| Marker::parse(line) == Ok(Some(Marker::AnchorEnd { name })))?;
    Some(lines[start + 1..start + end].to_vec())
}

/// Which texts' regions to read: a solution's gaps open with `GAP`, a
/// starter's with `TODO`; both have stretches. The other opening is a plain
/// line there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    Solution,
    Starter,
}

impl Source {
    fn opens(self, opening: Opening) -> bool {
        match self {
            Source::Solution => opening != Opening::Todo,
            Source::Starter => opening != Opening::Gap,
        }
    }

    /// The opening of this text's gaps, for an error message.
    fn gap(self) -> Opening {
        match self {
            Source::Solution => Opening::Gap,
            Source::Starter => Opening::Todo,
        }
    }
}

/// A marked region read from a text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Region {
    pub opening: Opening,
    /// `ch03/add`.
    pub id: String,
    /// The whitespace before the opening marker.
    pub indent: String,
    /// The instruction, one entry per comment line.
    pub instruction: Vec<String>,
    /// The `// starter:` lines' code.
    pub starter: Vec<String>,
    /// The lines after the header and before `END`.
    pub body: Vec<String>,
    /// 1-based line of the opening marker.
    pub line: usize,
    /// 1-based line of its `END`; `None` when it has none (the body then
    /// runs to the end of the text).
    pub end: Option<usize>,
}

/// A text, read: plain lines and marked regions, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Part {
    Line(String),
    Region(Region),
}

/// Splits a text into plain lines and marked regions, with any marker
/// mistakes (`line N: …`). A region's header is its opening line, the
/// instruction's further `// ` lines, then any `// starter:` lines; its
/// body runs to the `END` of its id (other markers inside are body).
pub fn regions(text: &str, source: Source) -> (Vec<Part>, Vec<String>) {
    let mut parts = Vec::new();
    let mut errors = Vec::new();
    let mut lines = text.lines().enumerate();
    while let Some((index, line)) = lines.next() {
        let (opening, id, first) = match Marker::parse(line) {
            Ok(Some(Marker::Open {
                opening,
                id,
                instruction,
            })) if source.opens(opening) => (opening, id, instruction),
            Ok(Some(Marker::End { .. })) => {
                let gap = source.gap().word();
                errors.push(format!("line {}: END without a {gap}", index + 1));
                parts.push(Part::Line(line.to_string()));
                continue;
            }
            Err(malformed) if malformed.word.opening().is_some_and(|o| source.opens(o)) => {
                errors.push(format!("line {}: {malformed}", index + 1));
                continue;
            }
            Err(malformed) if malformed.word == Word::End => {
                errors.push(format!("line {}: {malformed}", index + 1));
                parts.push(Part::Line(line.to_string()));
                continue;
            }
            _ => {
                parts.push(Part::Line(line.to_string()));
                continue;
            }
        };
        let trimmed = line.trim_start();
        let mut region = Region {
            opening,
            id: id.to_string(),
            indent: line[..line.len() - trimmed.len()].to_string(),
            instruction: vec![first.to_string()],
            starter: Vec::new(),
            body: Vec::new(),
            line: index + 1,
            end: None,
        };
        let mut in_header = true;
        for (next_index, next) in lines.by_ref() {
            let marker = Marker::parse(next);
            if marker == Ok(Some(Marker::End { id })) {
                region.end = Some(next_index + 1);
                break;
            }
            if in_header {
                if let Ok(Some(Marker::Starter { code })) = marker {
                    region.starter.push(code.to_string());
                    continue;
                }
                // Before any `starter:` line, a comment line goes on with
                // the instruction.
                if region.starter.is_empty()
                    && let Some(more) = next.trim_start().strip_prefix("// ")
                {
                    region.instruction.push(more.to_string());
                    continue;
                }
                in_header = false;
            }
            region.body.push(next.to_string());
        }
        if region.end.is_none() {
            errors.push(format!(
                "line {}: {}({id}) has no `// END({id})`",
                region.line,
                opening.word()
            ));
        }
        parts.push(Part::Region(region));
    }
    (parts, errors)
}

/// The regions of one solution file, or its first marker mistake, named by
/// `file` and line. Every id must start with the chapter's (`ch03/`).
pub fn solution_regions(file: &str, text: &str, chapter: &str) -> Result<Vec<Region>, String> {
    let (parts, errors) = regions(text, Source::Solution);
    if let Some(error) = errors.first() {
        return Err(format!("{file}: {error}"));
    }
    let mut found = Vec::new();
    for part in parts {
        let Part::Region(region) = part else {
            continue;
        };
        if !region.id.starts_with(&format!("{chapter}/")) {
            return Err(format!(
                "{file}:{}: {} {} must start with {chapter}/",
                region.line,
                region.opening.word(),
                region.id
            ));
        }
        found.push(region);
    }
    Ok(found)
}

/// The gap id a starter's placeholder shows when the program runs:
/// `todo!("ch03/add: …")` panics with `not yet implemented: ch03/add: …` on
/// stderr, and the usual `// starter:` code answers with a `TODO(ch03/add)`
/// text on stdout.
pub fn placeholder_id(stderr: &str, stdout: &str) -> Option<String> {
    id_after(stderr, "not yet implemented: ").or_else(|| id_after(stdout, "TODO("))
}

/// The `todo!` a starter holds for a gap without `starter:` lines.
pub fn todo_placeholder(id: &str, instruction: &str) -> String {
    // todo! formats its message: braces must be doubled.
    let message = format!("{id}: {instruction}")
        .replace('{', "{{")
        .replace('}', "}}");
    format!("todo!({})", serde_json::Value::from(message))
}

/// Whether `code` still holds the `todo!` placeholder of gap `id`.
pub fn holds_todo_placeholder(code: &str, id: &str) -> bool {
    code.contains(&format!("todo!(\"{id}"))
}

/// The first `chNN/name` right after `prefix` in `text`.
fn id_after(text: &str, prefix: &str) -> Option<String> {
    text.match_indices(prefix).find_map(|(at, _)| {
        let rest = &text[at + prefix.len()..];
        let id: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '-' | '_'))
            .collect();
        let (chapter, name) = id.split_once('/')?;
        (chapter.len() == 4 && chapter.starts_with("ch") && !name.is_empty()).then_some(id)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Result<Option<Marker<'_>>, Malformed> {
        Marker::parse(line)
    }

    #[test]
    fn reads_each_marker_form() {
        assert_eq!(
            parse("    // GAP(ch03/add): write it "),
            Ok(Some(Marker::Open {
                opening: Opening::Gap,
                id: "ch03/add",
                instruction: "write it"
            }))
        );
        assert_eq!(
            parse("// TODO(ch03/add): write it"),
            Ok(Some(Marker::Open {
                opening: Opening::Todo,
                id: "ch03/add",
                instruction: "write it"
            }))
        );
        assert_eq!(
            parse("\t// STRETCH(ch03/multiply): more"),
            Ok(Some(Marker::Open {
                opening: Opening::Stretch,
                id: "ch03/multiply",
                instruction: "more"
            }))
        );
        assert_eq!(
            parse("    // END(ch03/add)"),
            Ok(Some(Marker::End { id: "ch03/add" }))
        );
        assert_eq!(
            parse("    // starter:  Err(\"TODO(ch03/add)\")"),
            Ok(Some(Marker::Starter {
                code: " Err(\"TODO(ch03/add)\")"
            }))
        );
        assert_eq!(
            parse("// ANCHOR: frontmatter"),
            Ok(Some(Marker::Anchor {
                name: "frontmatter"
            }))
        );
        assert_eq!(
            parse("  // ANCHOR_END: frontmatter"),
            Ok(Some(Marker::AnchorEnd {
                name: "frontmatter"
            }))
        );
    }

    #[test]
    fn a_marker_reads_back_as_written() {
        for line in [
            "// GAP(ch03/add): write it",
            "// TODO(ch03/add): write it",
            "// STRETCH(ch03/x): more",
            "// END(ch03/add)",
            "// starter: todo!()",
            "// ANCHOR: all",
            "// ANCHOR_END: all",
        ] {
            let marker = parse(line).unwrap().unwrap();
            assert_eq!(marker.to_string(), line);
        }
    }

    #[test]
    fn other_lines_are_not_markers() {
        for line in [
            "let end = 3; // END(ch03/add)",
            "// END of the loop",
            "// GAPS are fine",
            "//GAP(ch03/add): no space",
            "/// GAP(ch03/add): a doc comment",
            "// TODO: later",
            "// ANCHORS away",
            "",
        ] {
            assert_eq!(parse(line), Ok(None), "{line}");
        }
    }

    #[test]
    fn a_malformed_marker_says_what_to_write() {
        let cases = [
            (
                "// GAP(ch03/add) no colon",
                "write `// GAP(chNN/name): what to do`",
            ),
            (
                "// STRETCH(ch03/x",
                "write `// STRETCH(chNN/name): what to do`",
            ),
            (
                "// GAP(): empty id",
                "write `// GAP(chNN/name): what to do`",
            ),
            ("// END(ch03/add", "write `// END(chNN/name)`"),
            ("// END(ch03/add) and more", "write `// END(chNN/name)`"),
            ("// END()", "write `// END(chNN/name)`"),
            ("// ANCHOR: ", "write `// ANCHOR: name`"),
            ("// ANCHOR_END:", "write `// ANCHOR_END: name`"),
        ];
        for (line, message) in cases {
            let error = parse(line).expect_err(line);
            assert_eq!(error.to_string(), message, "{line}");
        }
    }

    #[test]
    fn the_budgets_test_is_looser() {
        assert!(is_marker_comment("    // GAP(ch07/loop): write it"));
        assert!(is_marker_comment("// END(ch07/loop)"));
        assert!(is_marker_comment("// END of the loop"));
        assert!(is_marker_comment("//ANCHOR: frontmatter"));
        assert!(is_marker_comment("    // starter: todo!()"));
        assert!(!is_marker_comment("// GAPS are fine"));
        assert!(!is_marker_comment("let end = 3; // END"));
    }

    #[test]
    fn generator_and_anchor_lines() {
        assert!(is_generator_line("// GAP(ch09/f): do f"));
        assert!(is_generator_line("// END(ch09/f"));
        assert!(!is_generator_line("// ANCHOR: all"));
        assert!(!is_generator_line("// ANCHOR:"));
        assert!(is_anchor("    // ANCHOR_END: all"));
        assert!(!is_anchor("// GAP(ch09/f): do f"));
    }

    #[test]
    fn finds_an_anchored_region() {
        let text =
            "a\n// ANCHOR: all\nb\n// ANCHOR: inner\nc\n// ANCHOR_END: inner\n// ANCHOR_END: all\n";
        assert_eq!(
            anchored(text, "inner"),
            Some(vec!["c"]),
            "the innermost region"
        );
        assert_eq!(anchored(text, "all").map(|lines| lines.len()), Some(4));
        assert_eq!(anchored(text, "none"), None);
    }

    const SOLUTION: &str = "fn f() {\n    // GAP(ch09/f): return\n    // the answer.\n    // starter: 0\n    42\n    // END(ch09/f)\n}\n// TODO(ch09/x): a plain line in a solution\n";

    #[test]
    fn reads_regions_with_their_lines() {
        let (parts, errors) = regions(SOLUTION, Source::Solution);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(parts.len(), 4);
        let Part::Region(region) = &parts[1] else {
            panic!("{parts:?}");
        };
        assert_eq!(
            region,
            &Region {
                opening: Opening::Gap,
                id: "ch09/f".into(),
                indent: "    ".into(),
                instruction: vec!["return".into(), "the answer.".into()],
                starter: vec!["0".into()],
                body: vec!["    42".into()],
                line: 2,
                end: Some(6),
            }
        );
        assert_eq!(
            parts[3],
            Part::Line("// TODO(ch09/x): a plain line in a solution".into())
        );
    }

    #[test]
    fn region_errors_name_the_line() {
        let (_, errors) = regions(
            "fn a() {}\n// GAP(ch09/x): y\nfn b() {}\n",
            Source::Solution,
        );
        assert_eq!(errors, ["line 2: GAP(ch09/x) has no `// END(ch09/x)`"]);
        let (_, errors) = regions("// END(ch09/x)\n", Source::Starter);
        assert_eq!(errors, ["line 1: END without a TODO"]);
        let (parts, errors) = regions("x\n// STRETCH(ch09/x) y\n", Source::Starter);
        assert_eq!(
            errors,
            ["line 2: write `// STRETCH(chNN/name): what to do`"]
        );
        assert_eq!(parts, [Part::Line("x".into())]);
        // A malformed opening of the other side is a plain line there.
        let (_, errors) = regions("// TODO(ch09/x) y\n", Source::Solution);
        assert!(errors.is_empty(), "{errors:?}");
    }

    #[test]
    fn a_solution_file_s_mistake_names_the_file_and_line() {
        let file = "solutions/09-subagents/src/agent.rs";
        let unclosed = "fn a() {}\n    // GAP(ch09/x): y\nfn b() {}\n";
        assert_eq!(
            solution_regions(file, unclosed, "ch09"),
            Err(format!(
                "{file}: line 2: GAP(ch09/x) has no `// END(ch09/x)`"
            ))
        );
        let malformed = "// GAP(ch09/x) y\n";
        assert_eq!(
            solution_regions(file, malformed, "ch09"),
            Err(format!(
                "{file}: line 1: write `// GAP(chNN/name): what to do`"
            ))
        );
        let other = "// STRETCH(ch08/x): y\n// END(ch08/x)\n";
        assert_eq!(
            solution_regions(file, other, "ch09"),
            Err(format!("{file}:1: STRETCH ch08/x must start with ch09/"))
        );
        let regions = solution_regions(file, SOLUTION, "ch09").unwrap();
        assert_eq!(regions.len(), 1);
    }

    #[test]
    fn finds_the_id_a_placeholder_shows() {
        let panic =
            "thread 'main' panicked at src/tools.rs:3:5:\nnot yet implemented: ch03/add: write it";
        assert_eq!(placeholder_id(panic, ""), Some("ch03/add".into()));
        assert_eq!(
            placeholder_id("", "{\"error\":{\"message\":\"TODO(ch03/add)\"}}"),
            Some("ch03/add".into())
        );
        assert_eq!(placeholder_id("TODO(later)", "TODO(x/y)"), None);
    }

    #[test]
    fn a_todo_placeholder_doubles_braces() {
        let todo = todo_placeholder("ch03/add", "return {\"a\": 1}");
        assert_eq!(todo, r#"todo!("ch03/add: return {{\"a\": 1}}")"#);
        assert!(holds_todo_placeholder(&todo, "ch03/add"));
        assert!(!holds_todo_placeholder(&todo, "ch03/other"));
    }
}
