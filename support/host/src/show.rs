//! What every harness prints: before its first turn, the servers it started
//! and the tools they offer, one line each, as chapter 7 first printed them,
//! and from chapter 8 on the skills and agents; then a line per tool call, and, from chapter 9 on, where each context's
//! lines go. Support-own: output plumbing, no chapter's lesson.

use serde_json::Value;

use crate::host::Host;
use crate::tokens;

/// `server NAME: IMPLEMENTATION VERSION`, then `tool QUALIFIED (server S,
/// tool T)` for each tool of the merged catalogue.
pub fn servers_and_tools(host: &Host) {
    for server in &host.servers {
        let (name, version) = (&server.info["name"], &server.info["version"]);
        println!(
            "server {}: {} {}",
            server.name,
            name.as_str().unwrap_or("?"),
            version.as_str().unwrap_or("?")
        );
    }
    for tool in host.tools() {
        println!(
            "tool {} (server {}, tool {})",
            tool.qualified, tool.server, tool.name
        );
    }
}

/// Everything a harness prints before its first turn, after the servers
/// and tools: a line per skill and per agent the model has, what the skill
/// catalogue costs in every request (when there is one), and the prompt.
/// Chapter 8 on; chapter 8 passes no agents.
pub fn introduce(host: &Host, skills: &[&str], agents: &[&str], catalogue: &str, prompt: &str) {
    servers_and_tools(host);
    introduce_rest(skills, agents, catalogue, prompt);
}

/// What `introduce` prints after the servers and tools: for a harness
/// whose servers are not chapter 6's `Host` (chapter 15's print
/// themselves, `remote::Servers::show`).
pub fn introduce_rest(skills: &[&str], agents: &[&str], catalogue: &str, prompt: &str) {
    for skill in skills {
        println!("skill {skill}");
    }
    for agent in agents {
        println!("agent {agent}");
    }
    if !catalogue.is_empty() {
        let cost = tokens::count(catalogue);
        println!("catalogue: {cost} tokens (cl100k_base)");
    }
    println!("user: {prompt}");
}

/// The line for one tool call: `tool` or `error`, the tool's name, its
/// input and the result's text. A `long` result (a skill's text, a
/// resource) is shown by its cost in tokens, which says more than its lines.
pub fn tool_call(name: &str, input: &Value, text: &str, is_error: bool, long: bool) -> String {
    let kind = if is_error { "error" } else { "tool" };
    if long && !is_error {
        let tokens = tokens::count(text);
        format!("  {kind} {name} {input} -> {tokens} tokens (cl100k_base)")
    } else {
        format!("  {kind} {name} {input} -> {text}")
    }
}

/// The end of a harness's run: the answer on stdout and status 0, or why
/// there is none on stderr and status 1.
pub fn ended(program: &str, outcome: Result<String, String>) -> std::process::ExitCode {
    match outcome {
        Ok(answer) => {
            println!("answer: {answer}");
            std::process::ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("{program}: {err}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// Where a context's lines go: the main one prints them; a subagent keeps
/// them, and its parent prints them, labelled, once it is done, so lines
/// of subagents running at the same time never mix. Chapter 9 on.
pub struct Log {
    pub lines: Option<Vec<String>>,
}

impl Log {
    /// The main conversation's: its lines are printed as they come.
    pub fn printed() -> Log {
        Log { lines: None }
    }

    /// A subagent's (or a side request's): its lines are kept, for its
    /// caller to print.
    pub fn kept() -> Log {
        Log {
            lines: Some(Vec::new()),
        }
    }

    pub fn say(&mut self, line: String) {
        match &mut self.lines {
            Some(lines) => lines.push(line),
            None => println!("{line}"),
        }
    }

    /// The lines kept, each labelled with the id of the call they ran for.
    pub fn labelled(self, id: &str) -> Vec<String> {
        let lines = self.lines.unwrap_or_default().into_iter();
        lines.map(|line| format!("  [{id}] {line}")).collect()
    }
}

/// The names of a context's tools (Messages API definitions), for the
/// first line a subagent prints, or `none`.
pub fn tool_names(tools: &[serde_json::Value]) -> String {
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    if names.is_empty() {
        "none".to_string()
    } else {
        names.join(" ")
    }
}

/// Asks the user at the terminal whether `call` may run, after `why` (who
/// asks and for what: a hook, chapter 10; a permission rule, chapter 23).
/// The question goes to the terminal itself (/dev/tty), never to stdout,
/// which may be a pipe read by a program; with no terminal, nobody can
/// say yes.
pub fn confirm(program: &str, why: &str, call: &str) -> Result<(), &'static str> {
    use std::io::{IsTerminal, Write};
    if !std::io::stdin().is_terminal() {
        return Err("there was no terminal to ask on");
    }
    let question = format!("{program}: {why}\n  {call}\nRun this tool call? [y/N] ");
    match std::fs::OpenOptions::new().write(true).open("/dev/tty") {
        Ok(mut terminal) => {
            let _ = terminal.write_all(question.as_bytes());
        }
        Err(_) => eprint!("{question}"),
    }
    let mut answer = String::new();
    let read = std::io::stdin().read_line(&mut answer);
    if read.is_ok() && answer.trim().eq_ignore_ascii_case("y") {
        Ok(())
    } else {
        Err("the user said no")
    }
}

/// A path as a harness shows it to its model and in its trace (chapter
/// 21's memory files): from the working folder when it lies inside or in a
/// folder above it (`../CLAUDE.md`), from `~` when it lies in the home
/// folder, else whole. So what the model reads does not depend on where the
/// project was cloned.
pub fn path(
    path: &std::path::Path,
    workdir: &std::path::Path,
    home: Option<&std::path::Path>,
) -> String {
    if let Ok(inside) = path.strip_prefix(workdir) {
        return inside.display().to_string();
    }
    if let Some(inside) = home.and_then(|home| path.strip_prefix(home).ok()) {
        return format!("~/{}", inside.display());
    }
    let above = workdir.ancestors().skip(1).enumerate();
    for (up, folder) in above.filter(|(_, folder)| folder.parent().is_some()) {
        if let Ok(inside) = path.strip_prefix(folder) {
            return format!("{}{}", "../".repeat(up + 1), inside.display());
        }
    }
    path.display().to_string()
}
