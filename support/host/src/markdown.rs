//! The little of Markdown a memory file needs read (chapter 21): its
//! block-level HTML comments, which Claude Code strips before the model
//! sees the file, and its `@path` imports, which count only outside code.
//! Format plumbing, no chapter's lesson (what an import *means* is chapter
//! 21's): support-own, no chapter generates it.

/// Whether a line opens or closes a fenced code block (three backticks or
/// three tildes, indented at most three spaces).
fn is_fence(line: &str) -> bool {
    let trimmed = line.trim_start_matches(' ');
    line.len() - trimmed.len() <= 3 && (trimmed.starts_with("```") || trimmed.starts_with("~~~"))
}

/// The text without its block-level HTML comments: a comment that starts
/// a line outside a fenced code block is dropped with every line up to the
/// one that closes it. Comments inside code blocks stay, as does a comment
/// in the middle of a line.
pub fn strip_comments(text: &str) -> String {
    let (mut kept, mut fenced, mut comment) = (Vec::new(), false, false);
    for line in text.lines() {
        if comment {
            comment = !line.contains("-->");
        } else if !fenced && line.trim_start().starts_with("<!--") {
            let rest = &line.trim_start()[4..];
            comment = !rest.contains("-->");
            let after = rest.split_once("-->").map_or("", |(_, after)| after);
            if !after.trim().is_empty() {
                kept.push(after);
            }
        } else {
            fenced ^= is_fence(line);
            kept.push(line);
        }
    }
    kept.join("\n")
}

/// The `@path` imports of a file, in order: an `@` at the start of a line
/// or after whitespace, then the path up to the next space, where `\ ` is
/// a space of the path, without the punctuation that ends a sentence. Fenced code blocks and code spans hold none (they
/// are how a file mentions a path without importing it), and a quoted
/// path is no import.
pub fn import_paths(text: &str) -> Vec<String> {
    let mut paths = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if is_fence(line) {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        // Code spans: every other run between backticks is code.
        for (index, prose) in line.split('`').enumerate() {
            if index % 2 == 0 {
                paths.extend(imports_in(prose));
            }
        }
    }
    paths
}

/// The imports of one stretch of prose.
fn imports_in(prose: &str) -> Vec<String> {
    let chars: Vec<char> = prose.chars().collect();
    let mut found = Vec::new();
    let mut at = 0;
    while at < chars.len() {
        let starts = chars[at] == '@' && (at == 0 || chars[at - 1].is_whitespace());
        at += 1;
        if !starts {
            continue;
        }
        let mut path = String::new();
        while at < chars.len() && !chars[at].is_whitespace() {
            if chars[at] == '\\' && chars.get(at + 1) == Some(&' ') {
                at += 1;
            }
            path.push(chars[at]);
            at += 1;
        }
        // A sentence's last mark is no part of the path (`See @README.`).
        let path = path.trim_end_matches(['.', ',', ';', ':', '!', '?', ')']);
        if !path.is_empty() && !path.starts_with(['"', '\'']) {
            found.push(path.to_string());
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn imports_count_only_outside_code_and_quotes() {
        let text = "See @README, @docs/a\\ b.md and not `@code` or user@example.com.\n\
                    ```\n@fenced.md\n```\n@\"quoted.md\" @~/.claude/mine.md";
        assert_eq!(
            import_paths(text),
            ["README", "docs/a b.md", "~/.claude/mine.md"]
        );
    }

    #[test]
    fn block_comments_go_and_code_keeps_its_own() {
        let text = "a\n<!-- one\ntwo -->\nb <!-- kept -->\n```\n<!-- code -->\n```\n<!-- x --> c";
        assert_eq!(
            strip_comments(text),
            "a\nb <!-- kept -->\n```\n<!-- code -->\n```\n c"
        );
    }
}
