//! Pinned tool definitions: a rule such as `mcp__notes__search` approves a
//! *name*, and a server can keep the name and change what the tool says
//! it does: a new description the model will obey, new parameters (a
//! rug pull). So the harness records a digest of each tool's definition
//! the first time it sees it, as SSH records a host's key, and refuses a
//! tool whose definition later differs, until the user removes its pin.
//! `--pins FILE` keeps them between sessions (the course's option).
//! `Pinned`, an extension of the harness, checks the servers' tools each
//! time the main conversation's tools are made, and leaves out the ones
//! refused.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::PathBuf;

use async_trait::async_trait;
use serde_json::Value;
use sha2::{Digest, Sha256};
use wire_host::host::Tool;
use wire_host::remote::Servers;
use wire_host::seams::Extension;

/// The pins (qualified name → digest), the file they live in, and the
/// tools refused for a changed definition. The default pins nothing.
#[derive(Default)]
pub struct Pins {
    digests: BTreeMap<String, String>,
    file: Option<PathBuf>,
    refused: Vec<String>,
}

/// Pins, as an extension of the harness: the servers whose tools they pin.
pub struct Pinned<'a> {
    pub servers: &'a Servers,
    pub pins: RefCell<Pins>,
}

#[async_trait(?Send)]
impl Extension for Pinned<'_> {
    /// Each definition against its pin (the lines say what changed); a
    /// changed one is not offered.
    fn tools(&self, tools: &mut Vec<Value>) {
        let mut pins = self.pins.borrow_mut();
        check(&mut pins, &self.servers.tools())
            .iter()
            .for_each(|line| println!("{line}"));
        tools.retain(|tool| !pins.refused.iter().any(|name| tool["name"] == *name));
    }
}

/// Reads the pins file, when there is one (a missing or unreadable file is
/// an empty one: it is written anew).
pub fn load(file: Option<PathBuf>) -> Result<Pins, String> {
    let text = file
        .as_ref()
        .and_then(|path| std::fs::read_to_string(path).ok());
    let pins = match text.map(|text| serde_json::from_str(&text)) {
        Some(read) => read.map_err(|err| format!("--pins: not a JSON object of digests: {err}"))?,
        None => BTreeMap::new(),
    };
    Ok(Pins {
        digests: pins,
        file,
        refused: vec![],
    })
}

/// A definition's digest: its JSON, keys in order (so the digest does not
/// depend on how the server ordered them).
pub fn digest(definition: &Value) -> String {
    format!("sha256:{:x}", Sha256::digest(definition.to_string()))
}

// ANCHOR: check
/// Checks every tool the servers list against its pin: a tool seen the
/// first time is pinned, a tool whose definition changed is refused from
/// now on. Says what changed, and saves new pins.
pub fn check(pins: &mut Pins, tools: &[Tool]) -> Vec<String> {
    let mut said = Vec::new();
    let Pins {
        digests: pins,
        file,
        refused,
    } = pins;
    for tool in tools {
        let now = digest(&tool.definition);
        // GAP(ch23/pin): no pin for tool.qualified: pin `now`. A pin that
        // differs from `now`: push the name onto `refused` (once) and say
        // "pins: {name} changed since it was approved: refused until its
        // pin is removed".
        // starter: let _ = (now, &pins, &refused, &mut said);
        match pins.get(&tool.qualified) {
            None => drop(pins.insert(tool.qualified.clone(), now)),
            Some(pin) if *pin == now => {}
            Some(_) if refused.contains(&tool.qualified) => {}
            Some(_) => {
                refused.push(tool.qualified.clone());
                said.push(format!(
                    "pins: {} changed since it was approved: refused until its pin is removed",
                    tool.qualified
                ));
            }
        }
        // END(ch23/pin)
    }
    if let Some(path) = file {
        let text = serde_json::to_string_pretty(pins).unwrap_or_default() + "\n";
        if let Err(err) = std::fs::write(&*path, text) {
            said.push(format!("pins: cannot write {}: {err}", path.display()));
        }
    }
    said
}
// ANCHOR_END: check
