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
    // GAP(ch09/validate): name (required: lowercase letters, digits and
    // hyphens, not starting with a hyphen, at most 256), description
    // (required, non-empty), tools, disallowedTools and skills (lists, see
    // names_of), model (`inherit` means the parent's), maxTurns (a whole
    // number, 1 or more).
    // starter: let _ = (field, skill_names, names_of, MAX_NAME);
    // starter: Ok(Agent { name: String::new(), description: String::new(), tools: None,
    // starter:     disallowed: Vec::new(), skills: Vec::new(), model: None, max_turns: None,
    // starter:     prompt })
    let name = match field("name") {
        None => return Err("name: missing (Claude Code skips such a file)".into()),
        Some(Yaml::Text(name)) => name.trim().to_string(),
        Some(_) => return Err("name: must be text".into()),
    };
    // Claude Code skips a name that starts with `-`, holds a `:` or is
    // over 256 characters; its examples are lowercase words and hyphens.
    let allowed = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-';
    if name.is_empty() || !name.chars().all(allowed) || name.starts_with('-') {
        return Err(format!(
            "name: {name:?} may hold only lowercase letters, digits and hyphens, \
             and must not start with a hyphen"
        ));
    }
    if name.len() > MAX_NAME {
        return Err(format!(
            "name: {} characters; at most {MAX_NAME}",
            name.len()
        ));
    }
    let description = match field("description") {
        Some(Yaml::Text(text)) if !text.trim().is_empty() => text.trim().to_string(),
        None => return Err("description: missing (Claude Code skips such a file)".into()),
        Some(_) => return Err("description: must be non-empty text".into()),
    };
    let tools = field("tools").map(|v| names_of(v, "tools")).transpose()?;
    let disallowed =
        field("disallowedTools").map_or(Ok(Vec::new()), |v| names_of(v, "disallowedTools"))?;
    let skills = field("skills").map_or(Ok(Vec::new()), |v| names_of(v, "skills"))?;
    if let Some(unknown) = skills.iter().find(|s| !skill_names.contains(&s.as_str())) {
        return Err(format!("skills: there is no skill named {unknown:?}"));
    }
    let model = match field("model") {
        None => None,
        Some(Yaml::Text(model)) if model.trim() == "inherit" => None,
        Some(Yaml::Text(model)) if !model.trim().is_empty() => Some(model.trim().to_string()),
        Some(_) => return Err("model: must be a model's name, or inherit".into()),
    };
    let max_turns = match field("maxTurns") {
        None => None,
        Some(Yaml::Text(turns)) => match turns.trim().parse::<u32>() {
            Ok(turns) if turns > 0 => Some(turns),
            _ => return Err(format!("maxTurns: {turns:?} is not a whole number above 0")),
        },
        Some(_) => return Err("maxTurns: must be a number".into()),
    };
    Ok(Agent {
        name,
        description,
        tools,
        disallowed,
        skills,
        model,
        max_turns,
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
    #[cfg(feature = "stretch")]
    let names = names
        .into_iter()
        .fold(Vec::<String>::new(), |mut rules, name| {
            match rules.last_mut() {
                Some(open) if open.matches('(').count() > open.matches(')').count() => {
                    *open += &format!(", {name}");
                }
                _ => rules.push(name),
            }
            rules
        });
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
    #[cfg(feature = "stretch")]
    let allowed = allowed
        || name == "Agent"
            && agent
                .tools
                .iter()
                .flatten()
                .any(|r| agent_rule(r).is_some());
    // END(ch09/spawn-allowlist)
    allowed && !denied
}
// STRETCH(ch09/spawn-allowlist): agent_rule reads one rule: `Agent` or
// `Task` alone, or with the types in parentheses; spawnable gathers the
// types an agent's allowlist names.
/// A rule for the Agent tool: `Some(None)` for `Agent` or `Task` alone (any
/// type), `Some(Some(types))` for `Agent(a, b)`; `None` for another tool.
#[cfg(feature = "stretch")]
fn agent_rule(rule: &str) -> Option<Option<Vec<String>>> {
    let rest = rule.strip_prefix("Agent").or(rule.strip_prefix("Task"))?;
    if rest.is_empty() {
        return Some(None);
    }
    let list = rest.strip_prefix('(')?.strip_suffix(')')?;
    let types = list.split(',').map(|name| name.trim().to_string());
    Some(Some(types.filter(|name| !name.is_empty()).collect()))
}

/// The agent types `agent` may spawn when it runs the main conversation:
/// `None` when its file does not limit them.
#[cfg(feature = "stretch")]
pub fn spawnable(agent: &Agent) -> Option<Vec<String>> {
    let mut types = Vec::new();
    for rule in agent.tools.iter().flatten() {
        match agent_rule(rule) {
            Some(None) => return None,
            Some(Some(listed)) => types.extend(listed),
            None => {}
        }
    }
    agent.tools.as_ref().map(|_| types)
}
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
