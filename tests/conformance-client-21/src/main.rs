//! ch21-conformance-client: what the official conformance suite's client
//! scenarios of the skills extension (SEP-2640, `sep-2640-client-*`) run
//! (`conformance client --command CMD --scenario X`). The suite appends the
//! server's URL to CMD and names the scenario in `MCP_CONFORMANCE_SCENARIO`.
//! The client connects and finds the era with chapter 15's `discover.rs`,
//! lists the served skills with chapter 21's `served_skills.rs` (both
//! compiled here as they are), and then does what a model would with each:
//! calls `Skill` (activation: SKILL.md read and checked against the
//! listing) and, only if the skill loaded, `read_skill_file` for each file
//! the activation lists. The learner never needs to read this.
//!
//! The scenarios pass on what is read: no-prefetch wants skills/list and no
//! file read at all (it counts any read, SKILL.md's too, as a prefetch: it
//! is the session in which the model never asks for a skill, so this client
//! activates none there); each verify-* serves a SKILL.md that fails one
//! check and wants it read, refused, and nothing after it.
//! A refused skill is the right answer, so the exit status is 0; it is 1
//! only when the client could not talk to the server.

#[path = "../../../solutions/15-host-answers/src/discover.rs"]
mod discover;
#[path = "../../../solutions/21-memory/src/served_skills.rs"]
mod served_skills;

use wire_host::skill_tools;

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::process::ExitCode;
use std::time::Duration;

use served_skills::ServedSkills;

use serde_json::json;
use wire_host::remote::Servers;
use wire_host::transport::Link;

const PROGRAM: &str = "ch21-conformance-client";

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let Some(url) = std::env::args().skip(1).last() else {
        eprintln!("usage: {PROGRAM} [ARGS...] URL");
        return ExitCode::from(2);
    };
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    eprintln!("{PROGRAM}: scenario {scenario:?}, server {url}");
    // The session in which the model asks for no skill: listing only.
    let model_asks = scenario != "sep-2640-client-no-prefetch";
    match run(&url, model_asks).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("{PROGRAM}: {err}");
            ExitCode::FAILURE
        }
    }
}

async fn run(url: &str, model_asks: bool) -> Result<(), String> {
    let link = Link::open("server", &[url.to_string()], Duration::from_secs(30), true).await?;
    let capabilities = discover::capabilities(true);
    let server = discover::open("server", link, &capabilities, false).await?;
    let host = Servers::new(vec![server]);
    // Tier 1: the catalogue. Nothing of a skill is read yet.
    let (catalogue, served) = served_skills::list(PROGRAM, &host, &[]).await;
    for skill in &catalogue {
        println!("skill {}: {}", skill.name, skill.description);
    }
    let skills = ServedSkills {
        servers: &host,
        served,
        loaded: RefCell::new(BTreeSet::new()),
    };
    let mut outcome = Ok(());
    for skill in catalogue.iter().filter(|_| model_asks) {
        if let Err(err) = load(&skills, &skill.name).await {
            outcome = Err(err);
        }
    }
    drop(skills);
    host.shutdown().await;
    outcome
}

/// The model's two calls for one skill: `Skill`, then `read_skill_file`
/// for each file the activation lists, only if it loaded. A refusal is
/// printed and is no error; anything else (the server unreachable, an
/// error reply) is.
async fn load(skills: &ServedSkills<'_>, name: &str) -> Result<(), String> {
    let input = json!({ "skill": name });
    let served = served_skills::find(&skills.served, skill_tools::SKILL, &input);
    let text = match served_skills::activate(skills, served.ok_or("not served")?).await {
        Ok(text) => text,
        Err(why) => return refused(name, why),
    };
    println!("skill {name}: loaded");
    let files = text.lines().filter_map(|line| {
        let file = line
            .trim()
            .strip_prefix("<file>")?
            .strip_suffix("</file>")?;
        Some(unescape(file))
    });
    for path in files {
        let input = json!({ "skill": name, "path": path });
        let served = served_skills::find(&skills.served, skill_tools::READ_SKILL_FILE, &input);
        match served_skills::read_file(skills, served.ok_or("not served")?, &path).await {
            Ok(text) => println!("skill {name}: {path}: {} bytes", text.len()),
            Err(why) => refused(&format!("{name}: {path}"), why)?,
        }
    }
    Ok(())
}

/// A refusal of served_skills.rs (its words: "... not loaded", "... lists
/// no file ...") is printed; any other error is the transport's.
fn refused(what: &str, why: String) -> Result<(), String> {
    if why.ends_with("not loaded") || why.contains("lists no file") {
        println!("skill {what}: refused: {why}");
        return Ok(());
    }
    Err(format!("skill {what}: {why}"))
}

/// The activation's file names as written, `escape`d (wire_host::xml).
fn unescape(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}
