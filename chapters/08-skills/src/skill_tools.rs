//! The two tools that load a skill's know-how when the model asks for it:
//!
//! - tier 2, `Skill`: the instructions of one skill (SKILL.md without its
//!   frontmatter), its folder, and the list of its files, none of them read;
//! - tier 3, `read_skill_file`: one of those files, and nothing outside the
//!   skill's folder, ever.
//!
//! Both answer with text for a `tool_result`; an `Err` goes back to the
//! model marked `is_error`, worded so it can try again. `Skills` puts them
//! (and the catalogue, tier 1) in the harness, as an extension.

use std::path::{Component, Path};

use async_trait::async_trait;
use serde_json::{Value, json};
use wire_host::files;
use wire_host::seams::{Call, Context, Extension, Harness, Outcome};

use crate::skills::{self, Skill, escape};

pub const SKILL: &str = "Skill";
pub const READ_SKILL_FILE: &str = "read_skill_file";
/// The most files `Skill` lists, so a huge folder cannot flood the context.
const MAX_LISTED: usize = 100;

/// Skills, as an extension of the harness: the catalogue in the system
/// prompt (tier 1), the two tools after the servers' (tiers 2 and 3), run
/// here, in the harness, answering like a tool result.
pub struct Skills {
    pub skills: Vec<Skill>,
}

#[async_trait(?Send)]
impl Extension for Skills {
    fn tools(&self, tools: &mut Vec<Value>) {
        tools.extend(definitions(&self.skills));
    }

    // ANCHOR: system_prompt
    /// The system prompt: chapter 7's sentence, then the skill catalogue
    /// (tier 1) when there are skills.
    fn system(&self, system: &mut String) {
        let catalogue = skills::catalogue(&self.skills);
        if !catalogue.is_empty() {
            *system += &format!("\n\n{catalogue}");
        }
    }
    // ANCHOR_END: system_prompt

    // ANCHOR: run_tool
    async fn run(&self, _: &Harness<'_>, _: &Context, call: &mut Call) -> Option<Outcome> {
        if !handles(&self.skills, call.name()) {
            return None; // Not a skill tool: an MCP server's.
        }
        let text = run(&self.skills, call.name(), &call.tool_use.input);
        Some(text.map(|text| json!({ "content": [{ "type": "text", "text": text }] })))
    }

    /// A skill's text is long: its line shows its cost in tokens.
    fn long(&self, name: &str) -> bool {
        handles(&self.skills, name)
    }
    // ANCHOR_END: run_tool
}

// ANCHOR: definitions
/// The two tools as the model sees them; none when there are no skills.
/// `enum` lists the valid names, so the model cannot pick another.
pub fn definitions(skills: &[Skill]) -> Vec<Value> {
    if skills.is_empty() {
        return Vec::new();
    }
    let names: Vec<&str> = skills.iter().map(|skill| skill.name.as_str()).collect();
    let skill = json!({ "type": "string", "enum": names, "description": "The skill's name" });
    vec![
        json!({
            "name": SKILL,
            "description": "Activates a skill from <available_skills>: returns its instructions, \
                its folder and the list of its files. Call it when a task matches the skill's \
                description, before you start the task.",
            "input_schema": {
                "type": "object",
                "properties": { "skill": skill },
                "required": ["skill"],
            },
        }),
        json!({
            "name": READ_SKILL_FILE,
            "description": "Reads one file of a skill: its path is relative to the skill's \
                folder, as Skill lists them. A long file comes in parts, each naming the next.",
            "input_schema": {
                "type": "object",
                "properties": {
                    "skill": skill,
                    "path": { "type": "string", "description": "e.g. references/guide.md" },
                    "offset": { "type": "integer", "description": "The first line, from 1" },
                },
                "required": ["skill", "path"],
            },
        }),
    ]
}
// ANCHOR_END: definitions

/// Whether `name` is one of these tools (only offered when there are skills).
pub fn handles(skills: &[Skill], name: &str) -> bool {
    !skills.is_empty() && (name == SKILL || name == READ_SKILL_FILE)
}

/// Runs `Skill` or `read_skill_file` with the model's input.
pub fn run(skills: &[Skill], name: &str, input: &Value) -> Result<String, String> {
    let wanted = input["skill"].as_str().unwrap_or_default();
    let Some(skill) = skills.iter().find(|skill| skill.name == wanted) else {
        let names: Vec<&str> = skills.iter().map(|skill| skill.name.as_str()).collect();
        let names = names.join(", ");
        return Err(format!(
            "there is no skill named {wanted:?}; the skills are: {names}"
        ));
    };
    if name == SKILL {
        return Ok(activate(skill));
    }
    let path = input["path"]
        .as_str()
        .ok_or("give \"path\": a file of the skill, relative to its folder")?;
    read_file(skill, path, &input["offset"])
}

// ANCHOR: activate
/// Tier 2: the skill's instructions, where it lives, and what else it has,
/// in the shape the Agent Skills client guide suggests.
pub fn activate(skill: &Skill) -> String {
    // TODO(ch08/activate): `<skill_content name="…">` with the body, a
    // blank line, `Skill directory: DIR`, a line on relative paths, and
    // `<skill_resources>` listing each file (from files_of) as
    // `<file>…</file>`.
    todo!(
        "ch08/activate: `<skill_content name=\"…\">` with the body, a blank line, `Skill directory: DIR`, a line on relative paths, and `<skill_resources>` listing each file (from files_of) as `<file>…</file>`."
    )
    // END(ch08/activate)
}
// ANCHOR_END: activate

/// The files of a skill folder, SKILL.md aside, as sorted relative paths
/// with `/`: listed, not read, and at most MAX_LISTED of them.
pub fn files_of(dir: &Path) -> Vec<String> {
    files::list(dir, &["SKILL.md", "skill.md"], MAX_LISTED)
}

// ANCHOR: read_file
/// Tier 3: one file of the skill, confined to the skill's folder. Every
/// refusal names the rule and never what lies outside the folder.
pub fn read_file(skill: &Skill, path: &str, offset: &Value) -> Result<String, String> {
    let relative = Path::new(path);
    // TODO(ch08/confine): refuse an empty or absolute path and any `..`;
    // resolve symlinks (canonicalize) and refuse a result outside
    // skill.root, naming neither the target nor its content.
    let file = skill.root.join(relative);
    // END(ch08/confine)
    // wire_host::files reads only a regular file (checked before opening
    // and again on the open file), as UTF-8, at most MAX_TEXT bytes from the
    // offset's line on: past that, a last line says how to read on.
    files::read_for_model(&file, path, offset)
}
// ANCHOR_END: read_file
