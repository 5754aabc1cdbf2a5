//! A small unified diff (longest common subsequence, 3 lines of context),
//! used for "what changed since the last chapter" and `just diff`.

/// `None` when equal; otherwise a unified diff with `---`/`+++` headers.
pub fn unified(old_name: &str, new_name: &str, old: &str, new: &str) -> Option<String> {
    if old == new {
        return None;
    }
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let ops = edit_script(&a, &b);
    let mut out = format!("--- {old_name}\n+++ {new_name}\n");
    const CONTEXT: usize = 3;
    let changed: Vec<usize> = ops
        .iter()
        .enumerate()
        .filter(|(_, op)| !matches!(op, Op::Same(..)))
        .map(|(i, _)| i)
        .collect();
    let mut index = 0;
    while index < changed.len() {
        // Grow a hunk while the next change is within 2 × CONTEXT lines.
        let start = changed[index].saturating_sub(CONTEXT);
        let mut last = changed[index];
        while index + 1 < changed.len() && changed[index + 1] <= last + 2 * CONTEXT {
            index += 1;
            last = changed[index];
        }
        let end = (last + CONTEXT + 1).min(ops.len());
        let (old_start, new_start) = position(&ops[..start]);
        let (old_len, new_len) = position(&ops[start..end]);
        out += &format!(
            "@@ -{},{old_len} +{},{new_len} @@\n",
            old_start + 1,
            new_start + 1
        );
        for op in &ops[start..end] {
            out += &match op {
                Op::Same(line) => format!(" {line}\n"),
                Op::Removed(line) => format!("-{line}\n"),
                Op::Added(line) => format!("+{line}\n"),
            };
        }
        index += 1;
    }
    Some(out)
}

/// How many characters a difference window shows before and after the
/// first character that differs.
const WINDOW: usize = 30;

/// Where two strings first differ, as two aligned lines that show a window
/// around that character on both sides, with invisible characters made
/// visible (see [`visible`]): a missing trailing newline or space can never
/// read as two equal strings. `None` when they are equal.
pub fn first_difference(expected: &str, actual: &str) -> Option<String> {
    if expected == actual {
        return None;
    }
    let want: Vec<char> = expected.chars().collect();
    let got: Vec<char> = actual.chars().collect();
    let at = want
        .iter()
        .zip(&got)
        .position(|(a, b)| a != b)
        .unwrap_or(want.len().min(got.len()));
    let window = |chars: &[char]| {
        let start = at.saturating_sub(WINDOW);
        let end = (at + WINDOW).min(chars.len());
        let mut text = String::new();
        if start > 0 {
            text.push('…');
        }
        text += &visible(&chars[start..end.max(start)].iter().collect::<String>());
        if at >= chars.len() {
            text += "(ends here)";
        } else if end < chars.len() {
            text.push('…');
        }
        text
    };
    Some(format!(
        "first difference at character {} (expected {} characters, got {}):\n    expected: {}\n    actual:   {}",
        at + 1,
        want.len(),
        got.len(),
        window(&want),
        window(&got)
    ))
}

/// `text` with what a terminal would not show made visible: `⏎` for a
/// newline, `\t` for a tab, `\r` for a carriage return, `·` for each space
/// at the end (of the text or of a line), `\u{..}` for other control
/// characters.
pub fn visible(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::new();
    for (index, c) in chars.iter().enumerate() {
        let trailing = || {
            chars[index..]
                .iter()
                .take_while(|c| **c == ' ')
                .count()
                .eq(&(chars.len() - index))
                || chars[index..]
                    .iter()
                    .find(|c| **c != ' ')
                    .is_some_and(|c| matches!(c, '\n' | '\r'))
        };
        match c {
            '\n' => out.push('⏎'),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            ' ' if trailing() => out.push('·'),
            c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", *c as u32)),
            c => out.push(*c),
        }
    }
    out
}

enum Op<'a> {
    Same(&'a str),
    Removed(&'a str),
    Added(&'a str),
}

/// How many old and new lines a run of operations covers.
fn position(ops: &[Op<'_>]) -> (usize, usize) {
    ops.iter().fold((0, 0), |(old, new), op| match op {
        Op::Same(_) => (old + 1, new + 1),
        Op::Removed(_) => (old + 1, new),
        Op::Added(_) => (old, new + 1),
    })
}

fn edit_script<'a>(a: &[&'a str], b: &[&'a str]) -> Vec<Op<'a>> {
    // lcs[i][j]: length of the longest common subsequence of a[i..] and b[j..].
    let mut lcs = vec![vec![0u32; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut ops = Vec::new();
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            ops.push(Op::Same(a[i]));
            i += 1;
            j += 1;
        } else if i < a.len() && (j == b.len() || lcs[i + 1][j] >= lcs[i][j + 1]) {
            ops.push(Op::Removed(a[i])); // Removals first, as `diff -u` shows them.
            i += 1;
        } else {
            ops.push(Op::Added(b[j]));
            j += 1;
        }
    }
    ops
}

#[cfg(test)]
mod tests {
    use super::{first_difference, unified, visible};

    #[test]
    fn invisible_characters_are_shown() {
        assert_eq!(visible("a\tb\r\n"), "a\\tb\\r⏎");
        assert_eq!(visible("two  words  "), "two  words··");
        assert_eq!(visible("end \nnext"), "end·⏎next");
        assert_eq!(visible("bell\u{7}"), "bell\\u{7}");
    }

    #[test]
    fn a_trailing_newline_is_a_visible_difference() {
        let long = "x".repeat(100);
        let text = first_difference(&format!("{long}\n"), &long).unwrap();
        assert!(
            text.starts_with(
                "first difference at character 101 (expected 101 characters, got 100)"
            )
        );
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[1], format!("    expected: …{}⏎", "x".repeat(30)));
        assert_eq!(
            lines[2],
            format!("    actual:   …{}(ends here)", "x".repeat(30))
        );
        assert_eq!(first_difference("same", "same"), None);
    }

    #[test]
    fn the_window_is_around_the_first_difference() {
        let before = "a".repeat(50);
        let after = "z".repeat(50);
        let text = first_difference(
            &format!("{before}the cat{after}"),
            &format!("{before}the dog {after}"),
        )
        .unwrap();
        assert!(text.contains("at character 55"), "{text}");
        assert!(
            text.contains(&format!(
                "expected: …{}the cat{}…",
                "a".repeat(26),
                "z".repeat(27)
            )),
            "{text}"
        );
        assert!(
            text.contains(&format!(
                "actual:   …{}the dog {}…",
                "a".repeat(26),
                "z".repeat(26)
            )),
            "{text}"
        );
    }

    #[test]
    fn shows_a_change_with_context() {
        let old = "a\nb\nc\nd\ne\nf\ng\nh\n";
        let new = "a\nb\nc\nd\nE\nf\ng\nh\n";
        assert_eq!(
            unified("old", "new", old, new).unwrap(),
            "--- old\n+++ new\n@@ -2,7 +2,7 @@\n b\n c\n d\n-e\n+E\n f\n g\n h\n"
        );
        assert_eq!(unified("old", "new", old, old), None);
    }
}
