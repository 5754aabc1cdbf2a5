//! Skills: folders of know-how a model loads only when it needs them.
//!
//! A skill is a folder holding `SKILL.md`: YAML frontmatter between two
//! `---` lines (its name and description), then Markdown instructions, and
//! any other files (`scripts/`, `references/`, `assets/`). This file reads
//! and validates skills the way the reference validator, `skills-ref`
//! 0.1.1, does, and writes the catalogue the model sees on every turn.
//! The YAML itself is read by `wire_host::yaml`: strictyaml's subset, a
//! guard rather than this chapter's lesson.

use std::fmt;
use std::path::{Path, PathBuf};

use wire_host::yaml::{Yaml, parse_yaml};

/// The frontmatter fields the specification defines; any other is refused.
const ALLOWED_FIELDS: [&str; 6] = [
    "allowed-tools",
    "compatibility",
    "description",
    "license",
    "metadata",
    "name",
];
const MAX_NAME: usize = 64;
const MAX_DESCRIPTION: usize = 1024;
const MAX_COMPATIBILITY: usize = 500;

/// A valid skill, as the harness keeps it.
#[derive(Clone, Debug)]
pub struct Skill {
    pub name: String,
    pub description: String,
    /// The skill's folder as the user named it (`--skills DIR`, then the
    /// folder's name): what the model is shown.
    pub dir: PathBuf,
    /// The same folder, absolute and with symlinks resolved: the one folder
    /// `read_skill_file` may read from.
    pub root: PathBuf,
    /// SKILL.md after its frontmatter, trimmed.
    pub body: String,
}

/// Why a folder is not a skill: its path, the field, and the rule.
#[derive(Debug)]
pub struct Problem {
    pub path: PathBuf,
    /// A frontmatter field, or `frontmatter`, `SKILL.md`, `folder`.
    pub field: String,
    pub rule: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}: {}", self.path.display(), self.field, self.rule)
    }
}

/// What one subfolder of a skills folder turned out to be.
pub enum Entry {
    Valid(Skill),
    Invalid(Problem),
    /// Valid, but another skill already has its name: the first one wins.
    Duplicate(Problem),
}

// ANCHOR: load
/// Reads every non-hidden entry of each folder, in the order the folders
/// are given and sorted by name inside each: valid skills, invalid ones,
/// and valid ones whose name an earlier skill already took.
pub fn load(folders: &[PathBuf]) -> Vec<(PathBuf, Entry)> {
    let mut entries: Vec<(PathBuf, Entry)> = Vec::new();
    for folder in folders {
        let mut paths: Vec<PathBuf> = std::fs::read_dir(folder)
            .into_iter()
            .flatten()
            .flatten()
            .filter(|entry| !entry.file_name().to_string_lossy().starts_with('.'))
            .map(|entry| entry.path())
            .collect();
        paths.sort();
        for path in paths {
            let entry = match read_skill(&path) {
                Err(problem) => Entry::Invalid(problem),
                Ok(skill) => match first_with_name(&entries, &skill.name) {
                    Some(first) => Entry::Duplicate(Problem {
                        path: path.clone(),
                        field: "name".into(),
                        rule: format!(
                            "{:?} is also the name of {}, which wins",
                            skill.name,
                            first.display()
                        ),
                    }),
                    None => Entry::Valid(skill),
                },
            };
            entries.push((path, entry));
        }
    }
    entries
}
// ANCHOR_END: load

/// The folder of the valid skill called `name`, if there is one yet.
fn first_with_name<'a>(entries: &'a [(PathBuf, Entry)], name: &str) -> Option<&'a PathBuf> {
    entries.iter().find_map(|(path, entry)| match entry {
        Entry::Valid(skill) if skill.name == name => Some(path),
        _ => None,
    })
}

/// The valid skills among `entries`, in order.
pub fn valid_skills(entries: &[(PathBuf, Entry)]) -> impl Iterator<Item = &Skill> {
    entries.iter().filter_map(|(_, entry)| match entry {
        Entry::Valid(skill) => Some(skill),
        _ => None,
    })
}

// ANCHOR: read_skill
/// Reads and validates one skill folder: its first problem, or the skill.
pub fn read_skill(dir: &Path) -> Result<Skill, Problem> {
    let problem = |field: &str, rule: String| Problem {
        path: dir.to_path_buf(),
        field: field.to_string(),
        rule,
    };
    if !dir.is_dir() {
        return Err(problem(
            "folder",
            "not a folder: a skill is a folder holding SKILL.md".into(),
        ));
    }
    // skills-ref accepts a lower-case skill.md too.
    let Some(file) = ["SKILL.md", "skill.md"]
        .into_iter()
        .map(|name| dir.join(name))
        .find(|file| file.exists())
    else {
        return Err(problem(
            "SKILL.md",
            "missing: a skill folder holds a SKILL.md".into(),
        ));
    };
    // Opening a named pipe would wait for a writer: look before opening.
    if !file.is_file() {
        return Err(problem("SKILL.md", "not a regular file".into()));
    }
    let bytes = std::fs::read(&file)
        .map_err(|err| problem("SKILL.md", format!("cannot read it: {err}")))?;
    let text =
        String::from_utf8(bytes).map_err(|_| problem("SKILL.md", "not UTF-8 text".into()))?;
    let (fields, body) = parse_skill_md(&text).map_err(|rule| problem("frontmatter", rule))?;
    if let Some((field, rule)) = validate(&fields, dir) {
        return Err(problem(&field, rule));
    }
    let root = dir
        .canonicalize()
        .map_err(|err| problem("folder", err.to_string()))?;
    Ok(Skill {
        name: text_field(&fields, "name").trim().to_string(),
        description: text_field(&fields, "description").to_string(),
        dir: dir.to_path_buf(),
        root,
        body,
    })
}
// ANCHOR_END: read_skill

// ANCHOR: frontmatter
/// Splits SKILL.md into its frontmatter fields and its body, as skills-ref
/// does: the file starts with `---`, and the frontmatter ends at the next
/// `---`, wherever it is. Line ends are normalised first (`\r\n` and `\r`
/// become `\n`), like Python's text mode.
pub fn parse_skill_md(text: &str) -> Result<(Vec<(String, Yaml)>, String), String> {
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    let Some(rest) = text.strip_prefix("---") else {
        return Err(
            "SKILL.md must start with a --- line (a byte order mark counts as text before it)"
                .into(),
        );
    };
    let Some((frontmatter, body)) = rest.split_once("---") else {
        return Err("the frontmatter is not closed by a second --- line".into());
    };
    match parse_yaml(frontmatter)? {
        Some(Yaml::Map(fields)) => Ok((fields, body.trim().to_string())),
        _ => Err("the frontmatter must be a YAML mapping (key: value lines)".into()),
    }
}
// ANCHOR_END: frontmatter

/// The text of a field, or "" when it is missing or not text.
fn text_field<'a>(fields: &'a [(String, Yaml)], name: &str) -> &'a str {
    match fields.iter().find(|(key, _)| key == name) {
        Some((_, Yaml::Text(text))) => text,
        _ => "",
    }
}

// ANCHOR: validate
/// The first broken rule, as (field, rule), in the order skills-ref
/// checks them: unknown fields, then name, description, compatibility.
pub fn validate(fields: &[(String, Yaml)], dir: &Path) -> Option<(String, String)> {
    let field = |name: &str| {
        fields
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value)
    };
    let mut unknown: Vec<&String> = fields
        .iter()
        .map(|(key, _)| key)
        .filter(|key| !ALLOWED_FIELDS.contains(&key.as_str()))
        .collect();
    unknown.sort();
    if let Some(key) = unknown.first() {
        let allowed = ALLOWED_FIELDS.join(", ");
        let rule = format!("not a field of the specification (allowed: {allowed})");
        return Some((key.to_string(), rule));
    }
    let checks = [
        ("name", validate_name(field("name"), dir)),
        ("description", validate_description(field("description"))),
        (
            "compatibility",
            validate_compatibility(field("compatibility")),
        ),
    ];
    checks
        .into_iter()
        .find_map(|(name, check)| check.err().map(|rule| (name.to_string(), rule)))
}

/// The name: the rules of the specification, and the folder's own name.
fn validate_name(name: Option<&Yaml>, dir: &Path) -> Result<(), String> {
    // TODO(ch08/validate-name): the name: a non-empty string (trimmed),
    // at most 64 characters, lowercase, no hyphen at either end, no two
    // in a row, only letters, digits and hyphens, equal to the folder's name.
    let _ = (dir, MAX_NAME);
    if name.is_none() {
        return Err("missing".into());
    }
    // END(ch08/validate-name)
    Ok(())
}

/// The description: required, non-empty, not too long.
fn validate_description(description: Option<&Yaml>) -> Result<(), String> {
    match description {
        None => Err("missing".into()),
        Some(Yaml::Text(text)) if !text.trim().is_empty() => {
            let length = text.chars().count();
            match length > MAX_DESCRIPTION {
                true => Err(format!("{length} characters; at most {MAX_DESCRIPTION}")),
                false => Ok(()),
            }
        }
        Some(_) => Err("must be a non-empty string".into()),
    }
}

/// The compatibility note: optional, text, not too long.
fn validate_compatibility(compatibility: Option<&Yaml>) -> Result<(), String> {
    match compatibility {
        Some(Yaml::Text(text)) if text.chars().count() > MAX_COMPATIBILITY => {
            let length = text.chars().count();
            Err(format!("{length} characters; at most {MAX_COMPATIBILITY}"))
        }
        Some(Yaml::Text(_)) | None => Ok(()),
        Some(_) => Err("must be a string".into()),
    }
}
// ANCHOR_END: validate

// ANCHOR: catalogue
/// Tier 1: the catalogue for the system prompt, in the format the Agent
/// Skills client guide recommends. There is no `<location>`: this harness
/// activates a skill through the `Skill` tool, not by reading SKILL.md.
/// No skills, no catalogue.
pub fn catalogue(skills: &[Skill]) -> String {
    // TODO(ch08/catalogue): an introduction that names the Skill tool, then
    // `<available_skills>` with one `<skill>` holding `<name>` and
    // `<description>` per skill (text escaped for XML); "" when there are
    // no skills.
    let _ = skills;
    String::new()
    // END(ch08/catalogue)
}
// ANCHOR_END: catalogue

/// Text as XML element content: `&`, `<` and `>` escaped.
pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_frontmatter_is_not_a_mapping() {
        for text in [
            "------\n",
            "---\n# only a comment\n---\n",
            "---\n- a\n---\n",
        ] {
            assert!(
                parse_skill_md(text).unwrap_err().contains("mapping"),
                "{text:?}"
            );
        }
    }
}
