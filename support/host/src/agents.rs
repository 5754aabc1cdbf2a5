//! Agent definitions: Markdown files with YAML frontmatter, in the format
//! Claude Code reads from `.claude/agents/`. The frontmatter says who the
//! agent is (`name`, `description`) and what it may use (`tools`,
//! `disallowedTools`, `skills`, `model`, `maxTurns`); the body is its
//! system prompt. The YAML is read by chapter 8's parser.
//!
//! Support-own: no chapter generates this file. Reading the format (which
//! fields, which values, which files of a folder, which name wins) is
//! plumbing that chapter 9 uses; its lesson is what the harness does with
//! an agent once it is read: the fresh context, the tools it keeps, the
//! parallel join. `--check-agents` prints what was read (`check`) and a run
//! reports what it leaves out (`usable`): output plumbing too. The book
//! shows this file as given.

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};

use crate::host::ServerConfig;
use crate::yaml::Yaml;
use crate::{files, frontmatter, resource_tool, skill_tools};

/// The longest name Claude Code loads.
const MAX_NAME: usize = 256;

/// The tool that starts a subagent, as Claude Code calls it; and its name
/// before v2.1.63, which agent files may still use.
pub const AGENT: &str = "Agent";
const OLD_AGENT: &str = "Task";

/// The tools chapter 9's harness runs itself, `Agent` aside: what a
/// `tools` rule may name besides `Agent`/`Task` and the servers' tools.
const BUILT_IN: [&str; 3] = [
    skill_tools::SKILL,
    skill_tools::READ_SKILL_FILE,
    resource_tool::READ,
];

/// The most subagents one prompt may start in all, at every depth. Both
/// flags bound something else: `--max-concurrent` how many of one reply
/// run at once, `--max-depth` how deep they nest. A model may still ask
/// for more in every reply of every context, so without a total the count
/// multiplies with depth. 32 is eight replies of four, or four subagents
/// that each start seven more; past it the `Agent` call is an error result.
pub const MAX_SUBAGENTS: usize = 32;

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

// ANCHOR: check_agents
/// `--check-agents`: one line per file, and under a valid one a `warning`
/// line for each name in its `tools` that is no tool here. Exit 0 when
/// every file is an agent the harness loads, 1 otherwise.
pub fn check(entries: &[(PathBuf, Entry)], servers: &[ServerConfig]) -> ExitCode {
    let mut all_loaded = true;
    for (path, entry) in entries {
        match entry {
            Entry::Valid(agent) => {
                println!("ok {}", agent.name);
                for warning in unknown_tools(agent, servers) {
                    println!("warning {}: {warning}", path.display());
                }
            }
            Entry::Invalid(problem) => println!("invalid {problem}"),
            Entry::Duplicate(problem) => println!("skipped {problem}"),
        }
        all_loaded &= matches!(entry, Entry::Valid(_));
    }
    if all_loaded {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
// ANCHOR_END: check_agents

/// The usable skills and agents of these folders, each one left out
/// reported on stderr: what a harness from chapter 10 on starts with
/// (checking them is chapter 8's `--check-skills` and chapter 9's
/// `--check-agents`; later chapters do not carry those on).
pub fn load_usable(
    program: &str,
    skill_folders: &[PathBuf],
    agent_folders: &[PathBuf],
) -> (Vec<crate::skills::Skill>, Vec<Agent>) {
    let skills = crate::entries::usable(program, &crate::skills::load(skill_folders));
    let names: Vec<&str> = skills.iter().map(|skill| skill.name.as_str()).collect();
    let agents = usable(program, &load(agent_folders, &names));
    (skills, agents)
}

/// What is wrong with the `tools` of `agent`: each rule that names no tool
/// this harness has, then, when none of them does, that it has no tool at
/// all. `--check-agents` starts no server, so an `mcp__SERVER__TOOL` rule is
/// checked for its server (one of `--server`'s names), not for its tool.
pub fn unknown_tools(agent: &Agent, servers: &[ServerConfig]) -> Vec<String> {
    let Some(rules) = &agent.tools else {
        return Vec::new();
    };
    let server_named = |rule: &str| {
        let rest = rule.strip_prefix("mcp__").unwrap_or_default();
        let server = rest.split("__").next().unwrap_or_default();
        servers.iter().any(|config| config.name == server)
    };
    let exists = |rule: &String| {
        BUILT_IN.contains(&rule.as_str()) || agent_rule(rule).is_some() || server_named(rule)
    };
    let names: Vec<&str> = servers.iter().map(|config| config.name.as_str()).collect();
    let mut warnings: Vec<String> = rules
        .iter()
        .filter(|rule| !exists(rule))
        .map(|rule| {
            format!(
                "tools: {rule:?} is no tool of this harness (it has {}, {AGENT}, and \
                 mcp__SERVER__TOOL for its servers: {})",
                BUILT_IN.join(", "),
                names.join(", ")
            )
        })
        .collect();
    if !rules.iter().any(exists) {
        warnings.push("tools: none of them is a tool here, so it has no tool at all".into());
    }
    warnings
}

/// How many subagents this prompt has started, at every depth: one count
/// per run, as a process answers one prompt. An atomic, so the `Harness`
/// that holds it may be shared by reference as it is.
#[derive(Default)]
pub struct Started(AtomicUsize);

impl Started {
    /// Counts one more subagent; past [`MAX_SUBAGENTS`], refuses it with
    /// why, for the model, which can still finish the task itself.
    pub fn one_more(&self) -> Result<(), String> {
        let next = |count: usize| (count < MAX_SUBAGENTS).then_some(count + 1);
        match self
            .0
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, next)
        {
            Ok(_) => Ok(()),
            Err(_) => Err(format!(
                "this prompt has started {MAX_SUBAGENTS} subagents, the most one prompt may \
                 start at every depth together: finish the task with the results you have"
            )),
        }
    }
}

/// The agent an `Agent` call names among those offered, and its prompt; or
/// why it cannot run: the input `tool_definition` describes, read back. A
/// call without `subagent_type` asks for `general-purpose`, as in Claude
/// Code; this harness has no built-in agent of that name, but an agent file
/// may define one.
pub fn requested<'a>(
    offered: &[&'a Agent],
    input: &'a Value,
) -> Result<(&'a Agent, &'a str), String> {
    let wanted = input["subagent_type"].as_str().unwrap_or("general-purpose");
    let Some(agent) = offered.iter().find(|agent| agent.name == wanted) else {
        let names: Vec<&str> = offered.iter().map(|a| a.name.as_str()).collect();
        let types = names.join(", ");
        return Err(format!(
            "there is no agent type {wanted:?}; the types are: {types}"
        ));
    };
    match input["prompt"].as_str().filter(|p| !p.trim().is_empty()) {
        Some(prompt) => Ok((agent, prompt)),
        None => Err("give \"prompt\": the whole task, as text".into()),
    }
}

/// The agents the model may delegate to; every file left out is reported
/// on stderr, after the program's name (Claude Code skips most of them
/// silently).
pub fn usable(program: &str, entries: &[(PathBuf, Entry)]) -> Vec<Agent> {
    for (_, entry) in entries {
        if let Entry::Invalid(problem) | Entry::Duplicate(problem) = entry {
            eprintln!("{program}: skipped {problem}");
        }
    }
    valid_agents(entries).cloned().collect()
}

/// The frontmatter's fields, as chapter 8's parser reads them.
type Fields = [(String, Yaml)];

// ANCHOR: read_agent
/// Reads and validates one agent file: the agent, or its first problem,
/// checked field by field in this order: name, description, tools,
/// disallowedTools, skills, model, maxTurns.
pub fn read_agent(path: &Path, skill_names: &[&str]) -> Result<Agent, String> {
    let text = read_text(path)?;
    if !text.starts_with("---") {
        return Err("an agent file starts with a --- line, then its frontmatter".into());
    }
    let (fields, prompt) = frontmatter::split(&text, "an agent file")
        .map_err(|rule| format!("frontmatter: {rule}"))?;
    let list = |name: &str| {
        frontmatter::field(&fields, name).map_or(Ok(Vec::new()), |v| names_of(v, name))
    };
    Ok(Agent {
        name: name(&fields)?,
        description: description(&fields)?,
        tools: frontmatter::field(&fields, "tools")
            .map(|v| names_of(v, "tools"))
            .transpose()?,
        disallowed: list("disallowedTools")?,
        skills: known_skills(list("skills")?, skill_names)?,
        model: model(&fields)?,
        max_turns: max_turns(&fields)?,
        prompt,
    })
}
// ANCHOR_END: read_agent

/// The file's text: a regular file (opening a named pipe would wait for a
/// writer), at most `files::MAX_TEXT` bytes, UTF-8.
fn read_text(path: &Path) -> Result<String, String> {
    files::read_text(path, files::MAX_TEXT).map_err(|unread| unread.to_string())
}

/// `name`: required. Claude Code skips a name that starts with `-`, holds
/// a `:` (reserved for plugins' names) or is over 256 characters; its
/// examples (`code-reviewer`, `reviewer-v2`) are lowercase words, digits
/// and hyphens, which is what this harness accepts.
fn name(fields: &Fields) -> Result<String, String> {
    let name = match frontmatter::field(fields, "name") {
        None => return Err("name: missing (Claude Code skips such a file)".into()),
        Some(Yaml::Text(name)) => name.trim().to_string(),
        Some(_) => return Err("name: must be text".into()),
    };
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
    Ok(name)
}

/// `description`: required, non-empty text.
fn description(fields: &Fields) -> Result<String, String> {
    match frontmatter::field(fields, "description") {
        Some(Yaml::Text(text)) if !text.trim().is_empty() => Ok(text.trim().to_string()),
        None => Err("description: missing (Claude Code skips such a file)".into()),
        Some(_) => Err("description: must be non-empty text".into()),
    }
}

/// `skills`: each one a skill the harness loaded.
fn known_skills(skills: Vec<String>, skill_names: &[&str]) -> Result<Vec<String>, String> {
    match skills.iter().find(|s| !skill_names.contains(&s.as_str())) {
        Some(unknown) => Err(format!("skills: there is no skill named {unknown:?}")),
        None => Ok(skills),
    }
}

/// `model`: a model's name; `inherit`, or no field, means the parent's.
fn model(fields: &Fields) -> Result<Option<String>, String> {
    match frontmatter::field(fields, "model") {
        None => Ok(None),
        Some(Yaml::Text(model)) if model.trim() == "inherit" => Ok(None),
        Some(Yaml::Text(model)) if !model.trim().is_empty() => Ok(Some(model.trim().to_string())),
        Some(_) => Err("model: must be a model's name, or inherit".into()),
    }
}

/// `maxTurns`: a whole number, 1 or more.
fn max_turns(fields: &Fields) -> Result<Option<u32>, String> {
    match frontmatter::field(fields, "maxTurns") {
        None => Ok(None),
        Some(Yaml::Text(turns)) => match turns.trim().parse::<u32>() {
            Ok(turns) if turns > 0 => Ok(Some(turns)),
            _ => Err(format!("maxTurns: {turns:?} is not a whole number above 0")),
        },
        Some(_) => Err("maxTurns: must be a number".into()),
    }
}

/// A list of names, written either as text separated by commas
/// (`Read, Grep`, as Claude Code's examples do) or as a YAML list. A comma
/// inside parentheses does not split: `Agent(worker, researcher), Read` is
/// two rules, as Claude Code reads it.
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
    let rules = names
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
    Ok(rules.into_iter().filter(|name| !name.is_empty()).collect())
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
    allowed && !denied
}

/// One rule against one tool name: the exact name; `mcp__server__*` or
/// `mcp__server` for every tool of a server; for the Agent tool, `Task`
/// (its old name) or either name with a list of types in parentheses.
fn matches(rule: &str, name: &str) -> bool {
    if rule == name || name == AGENT && agent_rule(rule).is_some() {
        return true;
    }
    let server = rule.strip_suffix("__*").unwrap_or(rule);
    server.starts_with("mcp__")
        && server.matches("__").count() == 1
        && name.starts_with(&format!("{server}__"))
}
// ANCHOR_END: allows

// ANCHOR: definition
/// The `Agent` tool as the model sees it, when there are agents: each
/// agent's description in the tool's, and `subagent_type` an enum of
/// their names: the input Claude Code's `Agent` tool takes.
pub fn tool_definition(agents: &[Agent]) -> Option<Value> {
    if agents.is_empty() {
        return None;
    }
    // The words the model reads are data: agent_tool.txt, beside this file.
    let mut description = String::from(include_str!("agent_tool.txt").trim_end());
    for agent in agents {
        description += &format!("\n- {}: {}", agent.name, agent.description);
    }
    let names: Vec<&str> = agents.iter().map(|agent| agent.name.as_str()).collect();
    Some(json!({
        "name": AGENT,
        "description": description,
        "input_schema": {
            "type": "object",
            "properties": {
                "description": { "type": "string", "description": "The task in 3 to 5 words" },
                "prompt": { "type": "string", "description": "The whole task, self-contained" },
                "subagent_type": { "type": "string", "enum": names,
                                   "description": "The agent type to run" },
            },
            "required": ["description", "prompt", "subagent_type"],
        },
    }))
}
// ANCHOR_END: definition

/// A rule for the Agent tool: `Some(None)` for `Agent` or `Task` alone (any
/// type), `Some(Some(types))` for `Agent(a, b)`; `None` for another tool.
fn agent_rule(rule: &str) -> Option<Option<Vec<String>>> {
    let rest = rule.strip_prefix(AGENT).or(rule.strip_prefix(OLD_AGENT))?;
    if rest.is_empty() {
        return Some(None);
    }
    let list = rest.strip_prefix('(')?.strip_suffix(')')?;
    let types = list.split(',').map(|name| name.trim().to_string());
    Some(Some(types.filter(|name| !name.is_empty()).collect()))
}

/// The agent types `agent` may spawn when it runs the main conversation
/// (`claude --agent`): the types its `Agent(...)` rules name; `None` when
/// its file does not limit them. In a subagent's file Claude Code ignores
/// the list: `Agent(...)` there only allows the tool.
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
    fn agent_rules_allow_the_agent_tool_and_may_name_types() {
        let listed = agent(Some(&["Agent(adder, checker)", "Read"]), &[]);
        assert!(allows(&listed, "Agent") && allows(&listed, "Read"));
        assert_eq!(spawnable(&listed).unwrap(), ["adder", "checker"]);
        let old = agent(Some(&["Task"]), &[]);
        assert!(allows(&old, "Agent") && spawnable(&old).is_none());
        assert!(!allows(&agent(Some(&["Taskmaster"]), &[]), "Agent"));
        assert!(spawnable(&agent(None, &[])).is_none());
    }

    #[test]
    fn names_are_text_with_commas_or_a_list() {
        let text = Yaml::Text("Read, Grep,".into());
        assert_eq!(names_of(&text, "tools").unwrap(), ["Read", "Grep"]);
        let list = Yaml::List(vec![Yaml::Text("Read".into())]);
        assert_eq!(names_of(&list, "tools").unwrap(), ["Read"]);
        let agents = Yaml::Text("Agent(adder, checker), Read".into());
        assert_eq!(
            names_of(&agents, "tools").unwrap(),
            ["Agent(adder, checker)", "Read"]
        );
    }
}
