//! Skills: folders of know-how a model loads only when it needs them.
//!
//! A skill is a folder holding `SKILL.md`: YAML frontmatter between two
//! `---` lines (its name and description), then Markdown instructions, and
//! any other files (`scripts/`, `references/`, `assets/`). This file reads
//! and validates skills the way the reference validator, `skills-ref`
//! 0.1.1, does, and writes the catalogue the model sees on every turn.

use std::fmt;
use std::path::{Path, PathBuf};

use saphyr_parser::{Event, Parser, Span};

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

// ANCHOR: yaml
/// A YAML value as strictyaml reads one without a schema: every scalar is
/// text (`12`, `yes` and `null` included), lists and mappings are block
/// style only, mapping keys are text and unique.
#[derive(Clone, Debug, PartialEq)]
pub enum Yaml {
    Text(String),
    List(Vec<Yaml>),
    Map(Vec<(String, Yaml)>),
}

/// Parses one YAML document; `None` when it holds no value at all.
pub fn parse_yaml(source: &str) -> Result<Option<Yaml>, String> {
    let chars: Vec<char> = source.chars().collect();
    let mut events = Events {
        parser: Parser::new_from_str(source),
        chars,
        depth: 0,
    };
    let mut value = None;
    loop {
        match events.next()? {
            (Event::StreamStart | Event::DocumentStart(_) | Event::DocumentEnd, _) => {}
            (Event::StreamEnd, _) => return Ok(value),
            (_, _) if value.is_some() => return Err("invalid YAML: more than one document".into()),
            (event, span) => value = Some(events.node(event, span)?),
        }
    }
}

/// How deep lists and mappings may nest: a frontmatter needs two levels,
/// and a file of ten thousand `- ` must not overflow the stack.
const MAX_DEPTH: usize = 32;

/// The parser's events, with the source to look at where each one starts.
struct Events<'a> {
    parser: Parser<'a, saphyr_parser::StrInput<'a>>,
    chars: Vec<char>,
    /// Lists and mappings open around the current event.
    depth: usize,
}

impl<'a> Events<'a> {
    fn next(&mut self) -> Result<(Event<'a>, Span), String> {
        match self.parser.next_event() {
            Some(Ok(event)) => Ok(event),
            Some(Err(err)) => Err(format!(
                "invalid YAML: {} (line {}, column {})",
                err.info(),
                err.marker().line(),
                err.marker().col() + 1
            )),
            None => Ok((Event::StreamEnd, Span::default())),
        }
    }

    /// One value, starting with `event`. Refuses, as strictyaml does, what
    /// makes YAML surprising: anchors, aliases, tags and flow style.
    fn node(&mut self, event: Event<'a>, span: Span) -> Result<Yaml, String> {
        let line = span.start.line();
        let refused = |what: &str| {
            Err(format!(
                "invalid YAML: {what} (line {line}); strictyaml refuses it"
            ))
        };
        let (anchor, tag) = match &event {
            Event::Scalar(_, _, anchor, tag) => (*anchor, tag.is_some()),
            Event::SequenceStart(anchor, tag) | Event::MappingStart(anchor, tag) => {
                (*anchor, tag.is_some())
            }
            Event::Alias(_) => return refused("an alias (*name)"),
            _ => return Err(format!("invalid YAML: unexpected {event:?} (line {line})")),
        };
        if anchor != 0 {
            return refused("an anchor (&name)");
        }
        if tag {
            return refused("a tag (!name)");
        }
        // A flow collection starts at its bracket; a block one at its
        // first item.
        if matches!(self.chars.get(span.start.index()), Some('{' | '[')) {
            return refused("flow style ({...} or [...])");
        }
        if let Event::Scalar(text, ..) = event {
            return Ok(Yaml::Text(text.into_owned()));
        }
        if self.depth == MAX_DEPTH {
            return Err(format!(
                "invalid YAML: nested more than {MAX_DEPTH} levels deep (line {line})"
            ));
        }
        self.depth += 1;
        let collection = self.collection(event);
        self.depth -= 1;
        collection
    }

    /// The items of a list, or the fields of a mapping, up to its end.
    fn collection(&mut self, event: Event<'a>) -> Result<Yaml, String> {
        match event {
            Event::SequenceStart(..) => {
                let mut items = Vec::new();
                loop {
                    match self.next()? {
                        (Event::SequenceEnd, _) => return Ok(Yaml::List(items)),
                        (event, span) => items.push(self.node(event, span)?),
                    }
                }
            }
            _ => {
                let mut fields: Vec<(String, Yaml)> = Vec::new();
                loop {
                    let (key, span) = match self.next()? {
                        (Event::MappingEnd, _) => return Ok(Yaml::Map(fields)),
                        (key, span) => (self.node(key, span)?, span),
                    };
                    let Yaml::Text(key) = key else {
                        return Err(format!(
                            "invalid YAML: a key that is not text (line {})",
                            span.start.line()
                        ));
                    };
                    if fields.iter().any(|(seen, _)| *seen == key) {
                        return Err(format!(
                            "invalid YAML: the key {key:?} appears twice (line {})",
                            span.start.line()
                        ));
                    }
                    let (event, span) = self.next()?;
                    let value = self.node(event, span)?;
                    fields.push((key, value));
                }
            }
        }
    }
}
// ANCHOR_END: yaml

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
    let broken = |field: &str, rule: String| Some((field.to_string(), rule));
    let mut unknown: Vec<&String> = fields
        .iter()
        .map(|(key, _)| key)
        .filter(|key| !ALLOWED_FIELDS.contains(&key.as_str()))
        .collect();
    unknown.sort();
    if let Some(key) = unknown.first() {
        let allowed = ALLOWED_FIELDS.join(", ");
        return broken(
            key,
            format!("not a field of the specification (allowed: {allowed})"),
        );
    }
    let name = match field("name") {
        None => return broken("name", "missing".into()),
        Some(Yaml::Text(name)) if !name.trim().is_empty() => name.trim(),
        Some(_) => return broken("name", "must be a non-empty string".into()),
    };
    let length = name.chars().count();
    if length > MAX_NAME {
        return broken("name", format!("{length} characters; at most {MAX_NAME}"));
    }
    if name != name.to_lowercase() {
        return broken("name", format!("{name:?} must be lowercase"));
    }
    if name.starts_with('-') || name.ends_with('-') {
        return broken("name", "must not start or end with a hyphen".into());
    }
    if name.contains("--") {
        return broken("name", "must not hold two hyphens in a row".into());
    }
    // Python's isalnum, as skills-ref uses it: letters of any script count.
    if !name.chars().all(|c| c.is_alphanumeric() || c == '-') {
        return broken(
            "name",
            format!("{name:?} may hold only letters, digits and hyphens"),
        );
    }
    let folder = dir.file_name().unwrap_or_default().to_string_lossy();
    if folder != name {
        return broken(
            "name",
            format!("{name:?} differs from its folder's name {folder:?}"),
        );
    }
    match field("description") {
        None => return broken("description", "missing".into()),
        Some(Yaml::Text(text)) if !text.trim().is_empty() => {
            let length = text.chars().count();
            if length > MAX_DESCRIPTION {
                return broken(
                    "description",
                    format!("{length} characters; at most {MAX_DESCRIPTION}"),
                );
            }
        }
        Some(_) => return broken("description", "must be a non-empty string".into()),
    }
    match field("compatibility") {
        Some(Yaml::Text(text)) if text.chars().count() > MAX_COMPATIBILITY => {
            let length = text.chars().count();
            broken(
                "compatibility",
                format!("{length} characters; at most {MAX_COMPATIBILITY}"),
            )
        }
        Some(Yaml::Text(_)) | None => None,
        Some(_) => broken("compatibility", "must be a string".into()),
    }
}
// ANCHOR_END: validate

// ANCHOR: catalogue
/// Tier 1: the catalogue for the system prompt, in the format the Agent
/// Skills client guide recommends. There is no `<location>`: this harness
/// activates a skill through the `Skill` tool, not by reading SKILL.md.
/// No skills, no catalogue.
pub fn catalogue(skills: &[Skill]) -> String {
    if skills.is_empty() {
        return String::new();
    }
    let mut text = String::from(
        "The skills below hold know-how for particular tasks. When a task \
         matches a skill's description, call the Skill tool with its name \
         before you start, and follow the instructions it returns.\n\
         <available_skills>\n",
    );
    for skill in skills {
        text += "  <skill>\n";
        text += &format!("    <name>{}</name>\n", escape(&skill.name));
        text += &format!(
            "    <description>{}</description>\n",
            escape(&skill.description)
        );
        text += "  </skill>\n";
    }
    text += "</available_skills>";
    text
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

    fn fields(yaml: &str) -> Result<Vec<(String, Yaml)>, String> {
        parse_skill_md(&format!("---\n{yaml}---\nbody\n")).map(|(fields, _)| fields)
    }

    #[test]
    fn every_scalar_is_text() {
        let parsed = fields("name: a\ndescription: 12\nmetadata:\n  v: 1.0\n  on: yes\n").unwrap();
        let meta = Yaml::Map(vec![
            ("v".into(), Yaml::Text("1.0".into())),
            ("on".into(), Yaml::Text("yes".into())),
        ]);
        assert_eq!(parsed[1].1, Yaml::Text("12".into()));
        assert_eq!(parsed[2].1, meta);
    }

    #[test]
    fn refuses_what_strictyaml_refuses() {
        for (yaml, why) in [
            ("a: {b: c}\n", "flow style"),
            ("a: [b]\n", "flow style"),
            ("a: &x b\n", "an anchor"),
            ("a: !!str b\n", "a tag"),
            ("a: b\na: c\n", "appears twice"),
            ("a: Use when: x\n", "invalid YAML"),
        ] {
            let err = fields(yaml).unwrap_err();
            assert!(err.contains(why), "{yaml:?}: {err}");
        }
    }

    #[test]
    fn reads_multi_line_and_quoted_values() {
        let parsed = fields("a: one\n  two\nb: |\n  x\n  y\nc: \"Use when: x\"\nd:\n").unwrap();
        let texts: Vec<&Yaml> = parsed.iter().map(|(_, value)| value).collect();
        let want = ["one two", "x\ny\n", "Use when: x", ""].map(|t| Yaml::Text(t.into()));
        assert_eq!(texts, want.iter().collect::<Vec<_>>());
    }

    #[test]
    fn deep_nesting_is_refused_not_a_stack_overflow() {
        let deep = format!("a:\n  {}x\n", "- ".repeat(100_000));
        assert!(fields(&deep).unwrap_err().contains("levels deep"));
    }

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
