//! Markdown with YAML frontmatter: the file format of chapter 8's SKILL.md
//! and of chapter 9's agent files. Splitting a file at its `---` lines and
//! reading the YAML between them is format plumbing both chapters share;
//! what the fields *mean* is each chapter's lesson, so this module stops at
//! "a mapping of fields, and the body". Support-own: no chapter generates it.

use crate::yaml::{Yaml, parse_yaml};

/// The frontmatter's fields, in file order (keys are unique: the YAML
/// guard refuses a key twice).
pub type Fields = Vec<(String, Yaml)>;

// ANCHOR: split
/// Splits a file into its frontmatter fields and its body, as skills-ref
/// does: the file starts with `---`, and the frontmatter ends at the next
/// `---`, wherever it is. Line ends are normalised first (`\r\n` and `\r`
/// become `\n`), like Python's text mode. `file` names the file in the
/// first message (`SKILL.md`).
pub fn split(text: &str, file: &str) -> Result<(Fields, String), String> {
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    // A byte order mark is a character, so a file that starts with one does
    // not start with `---`: skills-ref refuses it, and so do we.
    let Some(rest) = text.strip_prefix("---") else {
        return Err(format!(
            "{file} must start with a --- line (a byte order mark counts as text before it)"
        ));
    };
    let Some((frontmatter, body)) = rest.split_once("---") else {
        return Err("the frontmatter is not closed by a second --- line".into());
    };
    match parse_yaml(frontmatter)? {
        Some(Yaml::Map(fields)) => Ok((fields, body.trim().to_string())),
        _ => Err("the frontmatter must be a YAML mapping (key: value lines)".into()),
    }
}
// ANCHOR_END: split

/// The value of one field, if the frontmatter has it.
pub fn field<'a>(fields: &'a [(String, Yaml)], name: &str) -> Option<&'a Yaml> {
    fields
        .iter()
        .find(|(key, _)| key == name)
        .map(|(_, value)| value)
}

/// The text of a field, or "" when it is missing or not text.
pub fn text<'a>(fields: &'a [(String, Yaml)], name: &str) -> &'a str {
    match field(fields, name) {
        Some(Yaml::Text(text)) => text,
        _ => "",
    }
}

/// The items of a list field, as Claude Code reads a skill's
/// `allowed-tools`: a YAML list, or one text whose items are separated by
/// spaces or commas, never inside parentheses (`Read, Bash(git diff *)`
/// is two items). Empty when the field is missing.
pub fn list(fields: &[(String, Yaml)], name: &str) -> Vec<String> {
    let text = match field(fields, name) {
        Some(Yaml::Text(text)) => text,
        Some(Yaml::List(items)) => {
            let texts = items.iter().filter_map(|item| match item {
                Yaml::Text(text) => Some(text.trim().to_string()),
                _ => None,
            });
            return texts.collect();
        }
        _ => return Vec::new(),
    };
    let (mut items, mut item, mut depth) = (Vec::new(), String::new(), 0usize);
    for c in text.chars() {
        match c {
            ',' | ' ' | '\t' | '\n' if depth == 0 => {
                if !item.is_empty() {
                    items.push(std::mem::take(&mut item));
                }
                continue;
            }
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ => {}
        }
        item.push(c);
    }
    items.extend((!item.is_empty()).then_some(item));
    items
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_field_splits_outside_parentheses() {
        let text = "---\na: Read, Bash(git diff *) Bash(touch build/*)\nb:\n  - Bash(ls *)\n  - Read\n---\n";
        let (fields, _) = split(text, "SKILL.md").unwrap();
        assert_eq!(
            list(&fields, "a"),
            ["Read", "Bash(git diff *)", "Bash(touch build/*)"]
        );
        assert_eq!(list(&fields, "b"), ["Bash(ls *)", "Read"]);
        assert!(list(&fields, "c").is_empty());
    }

    #[test]
    fn an_empty_frontmatter_is_not_a_mapping() {
        for text in [
            "------\n",
            "---\n# only a comment\n---\n",
            "---\n- a\n---\n",
        ] {
            assert!(
                split(text, "SKILL.md").unwrap_err().contains("mapping"),
                "{text:?}"
            );
        }
    }

    #[test]
    fn the_body_follows_the_second_dashes() {
        let (fields, body) = split("---\r\nname: x\r\n---\r\n\r\nBody.\r\n", "SKILL.md").unwrap();
        assert_eq!(text(&fields, "name"), "x");
        assert_eq!(field(&fields, "other"), None);
        assert_eq!(body, "Body.");
    }
}
