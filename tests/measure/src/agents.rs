//! `agents`: one question that needs five notes, answered twice by chapter
//! 9's binary with a scripted model: once reading the notes in the main
//! context (`scripts/read-in-place.json`), once handing the reading to the
//! note-reader subagent (`scripts/read-delegated.json`, `agents/`). The
//! token counts are the chapter loop's own, one line per request.

use std::path::Path;

use crate::run::{self, Requests};

/// The two model scripts: the same question and the same answer, the
/// notes read in the main context or by the note-reader subagent.
const IN_PLACE: &str = "scripts/read-in-place.json";
const DELEGATED: &str = "scripts/read-delegated.json";

/// Runs the question in place and delegated, and prints each request in
/// tokens, turn by turn: the parent's in both runs and the subagent's; then
/// the totals.
pub fn print_table(bin: &Path, servers: &[String]) -> Result<(), String> {
    let in_place = ask(bin, servers, IN_PLACE)?;
    let delegated = ask(bin, servers, DELEGATED)?;
    println!(
        "In place ({IN_PLACE}): the main context sent {} requests.",
        in_place.parent.len()
    );
    println!(
        "Delegated ({DELEGATED}): the main context sent {}, the note-reader subagent {}.",
        delegated.parent.len(),
        delegated.subagents.len()
    );
    println!();
    println!("| turn | in place: parent | delegated: parent | delegated: subagent |");
    println!("| ---: | ---: | ---: | ---: |");
    let turns = in_place.parent.len().max(delegated.subagents.len());
    for turn in 0..turns {
        let cell = |sizes: &[usize]| sizes.get(turn).map_or("-".into(), usize::to_string);
        let (main, parent) = (cell(&in_place.parent), cell(&delegated.parent));
        let subagent = cell(&delegated.subagents);
        println!("| {} | {main} | {parent} | {subagent} |", turn + 1);
    }
    let sum = |sizes: &[usize]| sizes.iter().sum::<usize>();
    let (main_total, parent_total) = (sum(&in_place.parent), sum(&delegated.parent));
    let sub_total = sum(&delegated.subagents);
    println!();
    println!(
        "Last parent request: {} tokens in place, {} delegated.",
        in_place.parent.last().unwrap_or(&0),
        delegated.parent.last().unwrap_or(&0)
    );
    println!(
        "All requests: {} tokens in place; delegated {} \
         (parent {parent_total} + subagent {sub_total}).",
        main_total + sum(&in_place.subagents),
        parent_total + sub_total
    );
    Ok(())
}

/// One run of the chapter's binary with the model `script` plays: the
/// chapter's own skills and agents plus note-reader, and the notes server.
fn ask(bin: &Path, servers: &[String], script: &str) -> Result<Requests, String> {
    let root = run::data("");
    let chapter_agents = root.join("../../solutions/09-subagents/agents");
    let mut args = vec![
        "--script".to_string(),
        run::data(script).display().to_string(),
        "--agents".to_string(),
        chapter_agents.display().to_string(),
        "--agents".to_string(),
        run::data("agents").display().to_string(),
    ];
    let servers = match servers.is_empty() {
        true => vec![notes_server()],
        false => servers.to_vec(),
    };
    for server in servers {
        args.extend(["--server".to_string(), server]);
    }
    let output = run::chapter(bin, &root, &args)?;
    let requests = run::requests(&output.stdout);
    if requests.parent.is_empty() {
        return Err(format!("{script}: the run printed no `turn N:` line"));
    }
    Ok(requests)
}

/// Chapter 5's server over this tool's notes, as the MCP server `notes`,
/// started through cargo from this workspace (the scripts search with
/// `mcp__notes__search_notes`).
fn notes_server() -> String {
    let notes = run::data("notes").display().to_string();
    let server =
        wire_host::cli::chapter_server("notes", "ch05-prompts-solution", &["--notes-dir", &notes]);
    let quoted: Vec<String> = server
        .command
        .iter()
        .map(|part| match part.contains(char::is_whitespace) {
            true => format!("\"{part}\""),
            false => part.clone(),
        })
        .collect();
    format!("notes={}", quoted.join(" "))
}
