//! Skills a server serves: the skills extension of 2026-07-28
//! (`io.modelcontextprotocol/skills`, SEP-2640), chapter 18's server seen
//! from the host. A server that declares it lists its skills with
//! `skills/list`: for each, the URI of its SKILL.md, its frontmatter, and
//! a manifest of its files with their sizes and sha256 digests. The names
//! and descriptions join the catalogue; nothing else is read until the
//! model activates a skill. Then every file read is checked against the
//! listing, and content that fails is never used: the listing is what the
//! harness offered the model, the file is whatever the server sends now.
//! `ServedSkills`, an extension of the harness, runs the skill tools'
//! calls that name a served skill.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::path::PathBuf;

use async_trait::async_trait;
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};
use wire_host::frontmatter;
use wire_host::remote::{self, Listed, Served, Servers};
use wire_host::seams::{Call, Context, Extension, Harness, Outcome};
use wire_host::xml::escape;

use wire_host::skill_tools;
use wire_host::skills::Skill;

/// The extension's name, in `server/discover`'s capabilities.
pub const EXTENSION: &str = "io.modelcontextprotocol/skills";

/// The served skills, listed once before the first turn, as an extension
/// of the harness: their servers, and the names of those whose SKILL.md
/// passed its checks, the only ones whose other files may be read.
pub struct ServedSkills<'a> {
    pub servers: &'a Servers,
    pub served: Vec<Served>,
    pub loaded: RefCell<BTreeSet<String>>,
}

#[async_trait(?Send)]
impl Extension for ServedSkills<'_> {
    /// A `Skill` or `read_skill_file` call that names a served skill runs
    /// through its server; any other is the local skills' (chapter 8's).
    async fn run(&self, _: &Harness<'_>, _: &Context, call: &mut Call) -> Option<Outcome> {
        let (name, input) = (call.name(), &call.tool_use.input);
        let served = find(&self.served, name, input)?;
        let text = match input["path"].as_str() {
            Some(path) if name == skill_tools::READ_SKILL_FILE => {
                read_file(self, served, path).await
            }
            _ => activate(self, served).await,
        };
        Some(text.map(|text| json!({ "content": [{ "type": "text", "text": text }] })))
    }
}

/// Lists the skills of every server that declares the extension, and
/// returns them as the catalogue shows them (a name, a description that
/// names the server, the folder's URI; nothing read), with what the
/// servers listed. A failed listing is named on stderr, after `program`;
/// a name a local skill or an earlier server already has is left out.
pub async fn list(program: &str, host: &Servers, local: &[Skill]) -> (Vec<Skill>, Vec<Served>) {
    let mut names: BTreeSet<String> = local.iter().map(|skill| skill.name.clone()).collect();
    let mut served = Vec::new();
    let declaring = (host.servers.iter()).filter(|server| server.declares(EXTENSION));
    for server in declaring {
        let entries = remote::list_skills(server).await.unwrap_or_else(|err| {
            eprintln!("{program}: server {}: skills/list: {err}", server.name);
            Vec::new()
        });
        for skill in entries {
            match names.insert(skill.name().to_string()) {
                true => served.push(skill),
                false => eprintln!("{program}: not offering {}: that name is taken", skill.uri),
            }
        }
    }
    let skills = served.iter().map(|skill| Skill {
        name: skill.name().to_string(),
        description: format!(
            "{} (from MCP server {})",
            skill.frontmatter["description"].as_str().unwrap_or(""),
            skill.server
        ),
        dir: PathBuf::from(skill.folder()),
        ..Skill::default()
    });
    (skills.collect(), served)
}

/// The served skill a `Skill` or `read_skill_file` call names, if a
/// server serves it.
pub fn find<'a>(served: &'a [Served], tool: &str, input: &Value) -> Option<&'a Served> {
    let name = input["skill"].as_str()?;
    let skill_tool = [skill_tools::SKILL, skill_tools::READ_SKILL_FILE].contains(&tool);
    let mut served = served.iter().filter(|_| skill_tool);
    served.find(|served| served.name() == name)
}

// ANCHOR: activate
/// Tier 2: SKILL.md read and checked, then the skill's instructions and
/// the list of its other files, none of them read.
pub async fn activate(skills: &ServedSkills<'_>, skill: &Served) -> Result<String, String> {
    let (name, folder) = (skill.name(), skill.folder());
    let text = read(skills.servers, skill, &skill.uri).await?;
    let body = same_frontmatter(skill, &text)
        .map_err(|why| format!("skill {name}: {} {why}: not loaded", skill.uri))?;
    skills.loaded.borrow_mut().insert(name.to_string());
    let mut text = format!("<skill_content name=\"{}\">\n{body}\n\n", escape(name));
    text += &format!(
        "Skill directory: {folder}, on MCP server {}\nRelative paths in this skill are relative \
        to the skill directory; read its files with read_skill_file.\n<skill_resources>\n",
        skill.server
    );
    for file in skill.resources.iter().filter(|file| file.uri != skill.uri) {
        let relative = file
            .uri
            .strip_prefix(&format!("{folder}/"))
            .unwrap_or(&file.uri);
        text += &format!("  <file>{}</file>\n", escape(relative));
    }
    Ok(text + "</skill_resources>\n</skill_content>")
}

/// Tier 3: one file of the skill's manifest, once the skill is loaded.
pub async fn read_file(
    skills: &ServedSkills<'_>,
    skill: &Served,
    path: &str,
) -> Result<String, String> {
    let name = skill.name();
    if !skills.loaded.borrow().contains(name) {
        return Err(format!(
            "skill {name} is not loaded: call Skill with it first (a skill whose \
             SKILL.md failed its checks is never loaded)"
        ));
    }
    read(skills.servers, skill, &format!("{}/{path}", skill.folder())).await
}
// ANCHOR_END: activate

// ANCHOR: read
/// One file of the manifest, from its server, checked against the
/// manifest; a file the manifest does not list is not asked for.
async fn read(host: &Servers, skill: &Served, uri: &str) -> Result<String, String> {
    let name = skill.name();
    let listed = (skill.resources.iter()).find(|file| file.uri == uri);
    let listed = listed.ok_or(format!("skill {name} lists no file {uri}"))?;
    let server = (host.servers.iter()).find(|server| server.name == skill.server);
    let text = server.ok_or("its server is gone")?.read_text(uri).await?;
    verify(listed, text.as_bytes())
        .map_err(|why| format!("skill {name}: {uri} {why}: not loaded"))?;
    Ok(text)
}
// ANCHOR_END: read

// ANCHOR: verify
/// Checks a file's bytes against its manifest entry: first its length,
/// then its sha256 digest, written `sha256:` and lowercase hex.
pub fn verify(listed: &Listed, bytes: &[u8]) -> Result<(), String> {
    // TODO(ch21/verify): refuse bytes whose length is not listed.size
    // ("is N bytes, the listing says M"), then bytes whose digest,
    // format!("sha256:{:x}", Sha256::digest(bytes)), is not listed.digest
    // ("does not match its digest").
    let _ = (listed, bytes, Sha256::digest(b""));
    Ok(())
    // END(ch21/verify)
}
// ANCHOR_END: verify

// ANCHOR: same_frontmatter
/// SKILL.md's frontmatter, read as chapter 8 reads it, must say exactly
/// what the listing said, field by field: the body, or what differs.
pub fn same_frontmatter(skill: &Served, text: &str) -> Result<String, String> {
    let (fields, body) = frontmatter::split(text, "SKILL.md")?;
    let read: Map<String, Value> = (fields.iter())
        .map(|(key, value)| (key.clone(), value.to_json()))
        .collect();
    let keys: BTreeSet<&String> = read.keys().chain(skill.frontmatter.keys()).collect();
    let differs = |key: &&String| read.get(*key) != skill.frontmatter.get(*key);
    match keys.into_iter().find(differs) {
        Some(key) => Err(format!("says {key} differently from its listing")),
        None => Ok(body),
    }
}
// ANCHOR_END: same_frontmatter
