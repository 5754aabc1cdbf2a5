//! Chapter 8: skills. Chapter 7's agent loop, plus know-how the model
//! loads in three tiers: a catalogue in the system prompt, a skill's
//! instructions through the `Skill` tool, its files through
//! `read_skill_file`.
//!
//! `skills.rs` reads and validates skill folders and writes the catalogue;
//! `skill_tools.rs` is the two tools, and `Skills`, the extension that
//! puts them in chapter 7's harness (`wire_host::seams`) beside its MCP
//! tools; `cli.rs` is the command line. What chapters 6 and 7 taught comes
//! from the `wire-host` crate (`support/host`). What each tier costs is
//! measured by the book's tool, which drives this binary (`cargo xtask
//! measure skills`).

mod cli;
mod skill_tools;
mod skills;
// The stretch ch08/skill-cost, compiled only with `--features stretch`.
#[cfg(feature = "stretch")]
mod skill_cost;

use std::path::PathBuf;
use std::process::ExitCode;

use skills::{Entry, Skill};
use wire_host::host::Host;
use wire_host::mcp::Mcp;
use wire_host::seams::{Extension, Harness};
use wire_host::show::{self, Log};
use wire_host::{agent, tokens};

/// The name this program goes by in its messages.
const PROGRAM: &str = "ch08-skills";

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let cli = match cli::parse() {
        Ok(cli) => cli,
        Err(status) => return status,
    };
    let entries = skills::load(&cli.skill_folders);
    if cli.check_skills {
        return check_skills(&entries);
    }
    let skills = wire_host::entries::usable(PROGRAM, &entries);
    // Pure CPU work: on the blocking pool it overlaps the servers' start.
    let tokenizer = tokio::task::spawn_blocking(tokens::load);
    let host = match Host::start(cli.servers, cli.options).await {
        Ok(host) => host,
        Err(err) => return show::ended(PROGRAM, Err(err)),
    };
    let names: Vec<&str> = skills.iter().map(|skill| skill.name.as_str()).collect();
    let catalogue = skills::catalogue(&skills);
    show::introduce(&host, &names, &[], &catalogue, &cli.prompt);
    let _ = tokenizer.await; // Ready before the first turn counts tokens.
    let mcp = Mcp {
        program: PROGRAM,
        host: &host,
    };
    let skills = skill_tools::Skills { skills };
    let extensions: Vec<&dyn Extension> = vec![&mcp, &skills];
    let harness = Harness::new(PROGRAM, &cli.model, cli.max_turns, extensions);
    let context = harness.main_context();
    let outcome = agent::run(&harness, context, &cli.prompt, &mut Log::printed()).await;
    drop(harness);
    host.shutdown().await;
    show::ended(PROGRAM, outcome)
}

// ANCHOR: check_skills
/// `--check-skills`: one line per folder, then what the catalogue costs.
/// Exit 0 when every folder is a skill the harness loads, 1 otherwise.
fn check_skills(entries: &[(PathBuf, Entry)]) -> ExitCode {
    let mut all_loaded = true;
    for (_, entry) in entries {
        match entry {
            Entry::Valid(skill) => println!("ok {}", skill.name),
            Entry::Invalid(problem) => println!("invalid {problem}"),
            Entry::Duplicate(problem) => println!("skipped {problem}"),
            Entry::LeftOut(problem) => println!("left out {problem}"),
        }
        all_loaded &= matches!(entry, Entry::Valid(_));
    }
    let skills: Vec<Skill> = skills::valid_skills(entries).cloned().collect();
    let catalogue = tokens::count(&skills::catalogue(&skills));
    println!("catalogue: {catalogue} tokens (cl100k_base)");
    // STRETCH(ch08/skill-cost): under the catalogue line, one line per valid
    // skill: what its catalogue entry adds to every request (the catalogue
    // with it, less the catalogue without it) and what loading it costs
    // (the Skill tool's answer). Write `skill_cost::print` in skill_cost.rs
    // and call it here, under #[cfg(feature = "stretch")].
    // END(ch08/skill-cost)
    ExitCode::from(u8::from(!all_loaded))
}
// ANCHOR_END: check_skills
