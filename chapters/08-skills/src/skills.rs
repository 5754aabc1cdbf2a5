//! Skills: folders of know-how a model loads only when it needs them.
//!
//! A skill is a folder holding `SKILL.md`: YAML frontmatter between two
//! `---` lines (its name and description), then Markdown instructions, and
//! any other files (`scripts/`, `references/`, `assets/`). This file reads
//! and validates skills the way the reference validator, `skills-ref`
//! 0.1.1, does, and writes the catalogue the model sees on every turn.
//! The plumbing is given by `wire-host`: the frontmatter and its YAML
//! (`frontmatter`, `yaml`: strictyaml's subset), safe file reading
//! (`files`) and the bookkeeping of a folder of skills (`entries`).

use std::path::{Path, PathBuf};

/// Text as XML element content, for the catalogue and the Skill tool.
pub use wire_host::xml::escape;
use wire_host::yaml::Yaml;
use wire_host::{entries, files, frontmatter};

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
#[derive(Clone, Debug, Default)]
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

/// What one subfolder of a skills folder turned out to be.
pub type Entry = entries::Entry<Skill>;

// ANCHOR: load
/// Reads every non-hidden entry of each folder, in the order the folders
/// are given and sorted by name inside each: valid skills, invalid ones,
/// duplicates of an earlier name, and those the catalogue has no room for.
pub fn load(folders: &[PathBuf]) -> Vec<(PathBuf, Entry)> {
    let paths = folders.iter().flat_map(files::visible_entries);
    let loaded = entries::load(paths, read_skill, |skill| &skill.name);
    entries::fit(loaded, catalogue)
}
// ANCHOR_END: load

/// The valid skills among `entries`, in order.
pub use wire_host::entries::valid as valid_skills;

// ANCHOR: read_skill
/// Reads and validates one skill folder: the skill, or its first problem
/// as `FIELD: RULE`.
pub fn read_skill(dir: &Path) -> Result<Skill, String> {
    if !dir.is_dir() {
        return Err("folder: not a folder: a skill is a folder holding SKILL.md".into());
    }
    // skills-ref accepts a lower-case skill.md too.
    let Some(file) = ["SKILL.md", "skill.md"]
        .into_iter()
        .map(|name| dir.join(name))
        .find(|file| file.exists())
    else {
        return Err("SKILL.md: missing: a skill folder holds a SKILL.md".into());
    };
    // The first files::MAX_TEXT bytes, cut with a note to the model.
    let text = files::read_head(&file).map_err(|unread| format!("SKILL.md: {unread}"))?;
    let (fields, body) =
        frontmatter::split(&text, "SKILL.md").map_err(|rule| format!("frontmatter: {rule}"))?;
    validate(&fields, dir)?;
    let root = dir.canonicalize().map_err(|err| format!("folder: {err}"))?;
    Ok(Skill {
        name: frontmatter::text(&fields, "name").trim().to_string(),
        description: frontmatter::text(&fields, "description").to_string(),
        dir: dir.to_path_buf(),
        root,
        body,
    })
}
// ANCHOR_END: read_skill

// ANCHOR: validate
/// The first broken rule, as `FIELD: RULE`, in the order skills-ref
/// checks them: unknown fields, then name, description, compatibility.
pub fn validate(fields: &[(String, Yaml)], dir: &Path) -> Result<(), String> {
    // The first unknown field in sorted order, as skills-ref reports it.
    let unknown = fields
        .iter()
        .map(|(key, _)| key)
        .filter(|key| !ALLOWED_FIELDS.contains(&key.as_str()))
        .min();
    if let Some(key) = unknown {
        let allowed = ALLOWED_FIELDS.join(", ");
        return Err(format!(
            "{key}: not a field of the specification (allowed: {allowed})"
        ));
    }
    let field = |name: &str| frontmatter::field(fields, name);
    validate_name(field("name"), dir).map_err(|rule| format!("name: {rule}"))?;
    validate_text(field("description"), true, MAX_DESCRIPTION)
        .map_err(|rule| format!("description: {rule}"))?;
    validate_text(field("compatibility"), false, MAX_COMPATIBILITY)
        .map_err(|rule| format!("compatibility: {rule}"))
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

/// A text field: required (then not blank) or optional, and at most `max`
/// characters. skills-ref checks `description` and `compatibility` so.
fn validate_text(value: Option<&Yaml>, required: bool, max: usize) -> Result<(), String> {
    match value {
        None if required => Err("missing".into()),
        Some(Yaml::Text(text)) if required && text.trim().is_empty() => {
            Err("must be a non-empty string".into())
        }
        Some(Yaml::Text(text)) if text.chars().count() > max => Err(format!(
            "{} characters; at most {max}",
            text.chars().count()
        )),
        Some(Yaml::Text(_)) | None => Ok(()),
        Some(_) if required => Err("must be a non-empty string".into()),
        Some(_) => Err("must be a string".into()),
    }
}
// ANCHOR_END: validate

// ANCHOR: catalogue
/// Tier 1: the catalogue for the system prompt, in the XML of the Agent
/// Skills client guide's example. There is no `<location>`: this harness
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
