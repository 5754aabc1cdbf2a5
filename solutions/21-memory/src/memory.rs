//! Memory: the files Claude Code reads before the first question. Each
//! layer is a Markdown file someone keeps: the organisation's managed
//! policy, the user's `~/.claude/CLAUDE.md`, and the project's files from
//! the folder nearest the root down to the working folder (`CLAUDE.md`,
//! `.claude/CLAUDE.md`, then the uncommitted `CLAUDE.local.md`; its
//! `AGENTS.md` where none of those exists). A file may pull in others with
//! `@path`. All of it opens the first user message as one system reminder,
//! broadest first, so the most specific is read last: context the model
//! weighs, never a rule the harness enforces (hooks are that): `Memory`,
//! an extension of the harness.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use async_trait::async_trait;
use serde_json::{Value, json};
use wire_host::markdown::{import_paths, strip_comments};
use wire_host::seams::{Context, Extension, Harness};
use wire_host::show::Log;
use wire_host::{files, show, xml};

/// Claude Code loads a memory file of up to 4 MiB whole and skips a
/// larger one.
const MAX_FILE: u64 = 4 * 1024 * 1024;
/// An import chain stops after four hops.
const MAX_HOPS: usize = 4;
/// Where Linux keeps the managed policy's CLAUDE.md; `WIRE_MANAGED_DIR`
/// names another folder (the course's switch, for its tests).
const MANAGED_DIR: &str = "/etc/claude-code";

/// Who keeps a memory file, in load order.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Layer {
    Managed,
    User,
    Project,
    Local,
}

impl Layer {
    /// What the model is told about a file of this layer.
    fn label(self) -> &'static str {
        match self {
            Layer::Managed => "managed policy",
            Layer::User => "the user's instructions for every project",
            Layer::Project => "project instructions, checked in",
            Layer::Local => "the user's own instructions for this project, not checked in",
        }
    }
}

/// Where the layers are: the managed policy's folder, the home folder, the
/// working folder (absolute, symlinks resolved).
#[derive(Default)]
pub struct Places {
    pub managed: PathBuf,
    pub home: Option<PathBuf>,
    pub workdir: PathBuf,
}

// ANCHOR: layers
/// The memory files to load at launch, in load order: broadest first, and
/// in the project from the folder nearest the root down to the working
/// folder, each folder's `CLAUDE.local.md` after its `CLAUDE.md`. Only the
/// files that exist.
pub fn layers(places: &Places) -> Vec<(Layer, PathBuf)> {
    let mut found = vec![(Layer::Managed, places.managed.join("CLAUDE.md"))];
    if let Some(home) = &places.home {
        found.push((Layer::User, home.join(".claude/CLAUDE.md")));
    }
    found.retain(|(_, path)| path.is_file());
    // The working folder and every folder above it but `/`, root first.
    let mut folders: Vec<&Path> = places.workdir.ancestors().collect();
    folders.pop();
    folders.reverse();
    // GAP(ch21/layers): for each folder, root first, add (Layer::Project,
    // its CLAUDE.md), (Layer::Project, its .claude/CLAUDE.md) and
    // (Layer::Local, its CLAUDE.local.md), keeping the files that exist
    // (`is_file`). When none exists, Claude Code reads the project's
    // AGENTS.md files instead: (Layer::Project, AGENTS.md) and
    // (Layer::Project, .claude/AGENTS.md) of each folder, root first.
    // starter: let _ = (folders, Layer::Local);
    let project = |names: &[&str]| {
        let mut files = Vec::new();
        for folder in &folders {
            for name in names {
                let layer = match *name {
                    "CLAUDE.local.md" => Layer::Local,
                    _ => Layer::Project,
                };
                files.push((layer, folder.join(name)));
            }
        }
        files.retain(|(_, path): &(Layer, PathBuf)| path.is_file());
        files
    };
    let mut claude_md = project(&["CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md"]);
    if claude_md.is_empty() {
        claude_md = project(&["AGENTS.md", ".claude/AGENTS.md"]);
    }
    found.extend(claude_md);
    // END(ch21/layers)
    found
}
// ANCHOR_END: layers

/// The files loaded so far, in order, and what the trace says.
#[derive(Default)]
pub struct Loader {
    pub places: Places,
    pub loaded: Vec<(Layer, String, String)>,
    /// Every file read, so that one imported twice (or one that imports
    /// the file that imported it) is loaded once.
    pub seen: BTreeSet<PathBuf>,
    pub said: Vec<String>,
}

impl Loader {
    // ANCHOR: load
    /// Loads one memory file `hops` imports away from a file the layers
    /// named: its imports first, then the file itself, under its path as
    /// the model sees it.
    pub fn load(&mut self, layer: Layer, path: &Path, hops: usize) {
        let Places { workdir, home, .. } = &self.places;
        let shown = show::path(path, workdir, home.as_deref());
        if !self.seen.insert(path.to_path_buf()) {
            return;
        }
        let text = match files::read_text(path, MAX_FILE) {
            Ok(text) => strip_comments(&text),
            Err(unread) => {
                let why = if path.exists() {
                    unread.to_string()
                } else {
                    "no such file".into()
                };
                return self.say(format!("skipped {shown}: {why}"));
            }
        };
        let folder = path.parent().unwrap_or(Path::new("/"));
        for import in import_paths(&text) {
            // GAP(ch21/imports): `resolve` the import from this file's
            // folder. Refuse, with a line in self.said naming `shown` and
            // the import, one past MAX_HOPS (this file is `hops` away) and
            // one of a Project or Local file that lands outside the working
            // folder: Claude Code asks before loading those, and a harness
            // with no one to ask does not. Load any other, one hop further,
            // in this file's layer.
            // starter: let _ = (import, folder, MAX_HOPS, resolve);
            let target = resolve(folder, self.places.home.as_deref(), &import);
            let project = matches!(layer, Layer::Project | Layer::Local);
            let why = if hops == MAX_HOPS {
                format!("more than {MAX_HOPS} hops of imports")
            } else if project && !target.starts_with(&self.places.workdir) {
                "outside the working folder: external imports need approval".to_string()
            } else {
                self.load(layer, &target, hops + 1);
                continue;
            };
            self.say(format!("{shown}: @{import} skipped, {why}"));
            // END(ch21/imports)
        }
        let (lines, word) = (text.lines().count(), format!("{layer:?}").to_lowercase());
        let plural = if lines == 1 { "" } else { "s" };
        self.say(format!("{word} {shown} ({lines} line{plural})"));
        self.loaded.push((layer, shown, text));
    }
    // ANCHOR_END: load

    fn say(&mut self, line: String) {
        self.said.push(format!("memory: {line}"));
    }
}

/// Where an import points: `~/` from the home folder, anything else from
/// the importing file's folder (an absolute path stays as it is), `..` and
/// symlinks resolved, so a path cannot look inside the working folder and
/// lead out of it.
pub fn resolve(folder: &Path, home: Option<&Path>, import: &str) -> PathBuf {
    let path = match (import.strip_prefix("~/"), home) {
        (Some(rest), Some(home)) => home.join(rest),
        _ => folder.join(import),
    };
    path.canonicalize().unwrap_or(path)
}

/// The session's memory, one system reminder (empty when no file was
/// loaded), read before the first turn: an extension of the harness.
pub struct Memory {
    pub reminder: String,
}

#[async_trait(?Send)]
impl Extension for Memory {
    // ANCHOR: opening
    /// Every conversation's first message opens with the memory: a text
    /// block of the reminder, then the message's own content.
    async fn opening(
        &self,
        _: &Harness<'_>,
        _: &Context,
        mut message: Value,
        _: &mut Log,
    ) -> Result<Value, String> {
        if self.reminder.is_empty() {
            return Ok(message);
        }
        let rest = match message["content"].take() {
            Value::Array(rest) => rest,
            text => vec![json!({ "type": "text", "text": text })],
        };
        let first = json!({ "type": "text", "text": self.reminder });
        message["content"] = [vec![first], rest].concat().into();
        Ok(message)
    }
    // ANCHOR_END: opening
}

/// Loads every layer for the working folder, says on stdout what was
/// loaded and what was not, and returns the memory.
pub fn load(workdir: &Path) -> Memory {
    let managed = std::env::var_os("WIRE_MANAGED_DIR").unwrap_or(MANAGED_DIR.into());
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let places = Places {
        managed: managed.into(),
        home,
        workdir: workdir.into(),
    };
    let mut loader = Loader {
        places,
        ..Loader::default()
    };
    let files = layers(&loader.places);
    if let Some((_, path)) = files.iter().find(|(_, path)| path.ends_with("AGENTS.md")) {
        let shown = show::path(path, workdir, loader.places.home.as_deref());
        println!("memory: no CLAUDE.md found; AGENTS.md loaded: {shown}");
    }
    for (layer, path) in &files {
        loader.load(*layer, path, 0);
    }
    loader.said.iter().for_each(|line| println!("{line}"));
    let mut text = String::from(
        "The memory files below hold instructions for this session, broadest first: \
         when two disagree, the later one is more specific.",
    );
    for (layer, shown, file) in &loader.loaded {
        let label = layer.label();
        text += &format!("\n\nContents of {shown} ({label}):\n\n{}", file.trim());
    }
    let memory = (!loader.loaded.is_empty()).then(|| xml::reminder(&text));
    Memory {
        reminder: memory.unwrap_or_default(),
    }
}
