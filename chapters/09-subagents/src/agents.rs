//! Agent definitions: Markdown files with YAML frontmatter, in the format
//! Claude Code reads from `.claude/agents/`. The frontmatter says who the
//! agent is (`name`, `description`) and what it may use (`tools`,
//! `disallowedTools`, `skills`, `model`, `maxTurns`); the body is its
//! system prompt. The YAML is read by chapter 8's parser.

use std::fmt;
use std::path::{Path, PathBuf};

use wire_host::frontmatter;
use wire_host::yaml::Yaml;

/// The longest name Claude Code loads.
const MAX_NAME: usize = 256;

/// A valid agent definition, as the harness keeps it.
#[derive(Clone, Debug)]
pub struct Agent {
    pub name: String,
    /// When to delegate to it: the parent model reads this.
    pub description: String,
    /// The allowlist; `None` when the file has no `tools`: every tool the
    /// parent may give.
    pub tools: Option<Vec<String>>,
    /// The denylist, applied first.
    pub disallowed: Vec<String>,
    /// Skills whose instructions are loaded into its context from the start.
    pub skills: Vec<String>,
    /// A model for its requests; `None` (or `inherit` in the file): the parent's.
    pub model: Option<String>,
    /// Its own turn cap; `None`: the harness's `--max-turns`.
    pub max_turns: Option<u32>,
    /// The body of the file: its system prompt.
    pub prompt: String,
}

/// Why a file is not an agent definition: the file and the reason.
#[derive(Debug)]
pub struct Problem {
    pub path: PathBuf,
    pub reason: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.reason)
    }
}

/// What one `.md` file of an agents folder turned out to be.
pub enum Entry {
    Valid(Agent),
    Invalid(Problem),
    /// Valid, but an earlier file already has its name: the first one wins.
    Duplicate(Problem),
}

// ANCHOR: load
/// Reads every `.md` file under each folder (subfolders too, as Claude
/// Code does), sorted by path inside each folder. `skill_names` are the
/// skills an agent's `skills` field may name.
pub fn load(folders: &[PathBuf], skill_names: &[&str]) -> Vec<(PathBuf, Entry)> {
    let mut entries: Vec<(PathBuf, Entry)> = Vec::new();
    for folder in folders {
        for path in markdown_files(folder) {
            let entry = match read_agent(&path, skill_names) {
                Err(reason) => Entry::Invalid(Problem {
                    path: path.clone(),
                    reason,
                }),
                Ok(agent) => match valid_agents(&entries).find(|a| a.name == agent.name) {
                    Some(_) => Entry::Duplicate(Problem {
                        path: path.clone(),
                        reason: format!("an earlier file already defines {:?}", agent.name),
                    }),
                    None => Entry::Valid(agent),
                },
            };
            entries.push((path, entry));
        }
    }
    entries
}
// ANCHOR_END: load

/// The `.md` files under `folder`, hidden ones aside, sorted.
fn markdown_files(folder: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut folders = vec![folder.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).into_iter().flatten().flatten() {
            let path = entry.path();
            if entry.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            if entry.file_type().is_ok_and(|kind| kind.is_dir()) {
                folders.push(path);
            } else if path.extension().is_some_and(|ext| ext == "md") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// The valid agents among `entries`, in order.
pub fn valid_agents(entries: &[(PathBuf, Entry)]) -> impl Iterator<Item = &Agent> {
    entries.iter().filter_map(|(_, entry)| match entry {
        Entry::Valid(agent) => Some(agent),
        _ => None,
    })
}

// ANCHOR: read_agent
/// Reads and validates one agent file: the agent, or its first problem.
pub fn read_agent(path: &Path, skill_names: &[&str]) -> Result<Agent, String> {
    // Opening a named pipe would wait for a writer: look before opening.
    if !path.is_file() {
        return Err("not a regular file".into());
    }
    let bytes = std::fs::read(path).map_err(|err| format!("cannot read it: {err}"))?;
    let text = String::from_utf8(bytes).map_err(|_| "not UTF-8 text".to_string())?;
    if !text.starts_with("---") {
        return Err("an agent file starts with a --- line, then its frontmatter".into());
    }
    let (fields, prompt) = frontmatter::split(&text, "an agent file")
        .map_err(|rule| format!("frontmatter: {rule}"))?;
    let field = |name: &str| fields.iter().find(|(key, _)| key == name).map(|(_, v)| v);
    // TODO(ch09/validate): name (required: lowercase letters, digits and
    // hyphens, not starting with a hyphen, at most 256), description
    // (required, non-empty), tools, disallowedTools and skills (lists, see
    // names_of), model (`inherit` means the parent's), maxTurns (a whole
    // number, 1 or more).
    let _ = (field, skill_names, names_of, MAX_NAME);
    Ok(Agent {
        name: String::new(),
        description: String::new(),
        tools: None,
        disallowed: Vec::new(),
        skills: Vec::new(),
        model: None,
        max_turns: None,
        prompt,
    })
    // END(ch09/validate)
}
// ANCHOR_END: read_agent

/// A list of names, written either as text separated by commas
/// (`Read, Grep`, as Claude Code's examples do) or as a YAML list.
fn names_of(value: &Yaml, field: &str) -> Result<Vec<String>, String> {
    let names: Vec<String> = match value {
        Yaml::Text(text) => text
            .split(',')
            .map(|name| name.trim().to_string())
            .collect(),
        Yaml::List(items) => items
            .iter()
            .map(|item| match item {
                Yaml::Text(name) => Ok(name.trim().to_string()),
                _ => Err(format!("{field}: every item must be a name")),
            })
            .collect::<Result<_, _>>()?,
        Yaml::Map(_) => return Err(format!("{field}: a list of names, not a mapping")),
    };
    // STRETCH(ch09/spawn-allowlist): `--agent NAME` runs the main
    // conversation as the agent NAME (its prompt, its tools, its model), as
    // `claude --agent` does, and `Agent(a, b)` in its `tools` limits the
    // types its Agent tool offers and runs to a and b (`Task(...)`, the old
    // name, too; plain `Agent` means any type). In a subagent's file the
    // list is ignored: `Agent(...)` just allows the Agent tool, which
    // offers every type. Here: a comma inside parentheses does not split,
    // so `Agent(adder, checker), Read` is two rules.
    // END(ch09/spawn-allowlist)
    Ok(names.into_iter().filter(|name| !name.is_empty()).collect())
}

// ANCHOR: allows
/// Whether `agent` may use the tool `name`: not denied, then allowed
/// (everything, when it has no allowlist).
pub fn allows(agent: &Agent, name: &str) -> bool {
    let denied = agent.disallowed.iter().any(|rule| matches(rule, name));
    let allowed = match &agent.tools {
        None => true,
        Some(rules) => rules.iter().any(|rule| matches(rule, name)),
    };
    // STRETCH(ch09/spawn-allowlist): a rule for the Agent tool (see
    // agent_rule) in the allowlist allows it.
    // END(ch09/spawn-allowlist)
    allowed && !denied
}
// STRETCH(ch09/spawn-allowlist): agent_rule reads one rule: `Agent` or
// `Task` alone, or with the types in parentheses; spawnable gathers the
// types an agent's allowlist names.
// END(ch09/spawn-allowlist)

/// One rule against one tool name: the exact name, `mcp__server__*` for
/// every tool of a server, or `mcp__server` for the same.
fn matches(rule: &str, name: &str) -> bool {
    if rule == name {
        return true;
    }
    let server = rule.strip_suffix("__*").unwrap_or(rule);
    server.starts_with("mcp__")
        && server.matches("__").count() == 1
        && name.starts_with(&format!("{server}__"))
}
// ANCHOR_END: allows

#[cfg(test)]
mod tests {
    use super::*;

    fn agent(tools: Option<&[&str]>, disallowed: &[&str]) -> Agent {
        let names = |list: &[&str]| list.iter().map(|s| s.to_string()).collect();
        Agent {
            name: "a".into(),
            description: "d".into(),
            tools: tools.map(names),
            disallowed: names(disallowed),
            skills: Vec::new(),
            model: None,
            max_turns: None,
            prompt: String::new(),
        }
    }

    #[test]
    fn the_denylist_wins_and_server_rules_cover_a_server() {
        let all = agent(None, &["mcp__notes__add"]);
        assert!(all.tools.is_none() && allows(&all, "Skill"));
        assert!(!allows(&all, "mcp__notes__add"));
        let notes = agent(Some(&["mcp__notes__*", "Skill"]), &[]);
        assert!(allows(&notes, "mcp__notes__search_notes") && allows(&notes, "Skill"));
        assert!(!allows(&notes, "mcp__add__add") && !allows(&notes, "Agent"));
        let server = agent(Some(&["mcp__notes"]), &[]);
        assert!(allows(&server, "mcp__notes__add") && !allows(&server, "mcp__notesx__add"));
    }

    #[test]
    fn names_are_text_with_commas_or_a_list() {
        let text = Yaml::Text("Read, Grep,".into());
        assert_eq!(names_of(&text, "tools").unwrap(), ["Read", "Grep"]);
        let list = Yaml::List(vec![Yaml::Text("Read".into())]);
        assert_eq!(names_of(&list, "tools").unwrap(), ["Read"]);
    }
}
