//! Permission rules: what a tool call may do, decided by the harness from
//! the user's settings, never by the model. Claude Code's settings.json
//! holds them under `permissions`: `deny`, `ask` and `allow` lists of
//! rules such as `Bash(git diff *)`, `mcp__notes__*` or `Skill(pdf)`, and a
//! `defaultMode` (or `--permission-mode`). Deny rules are read first, then
//! ask, then the mode, then allow; a call no rule allows is asked about,
//! and a harness with no one to ask refuses it. `Permissions`, an
//! extension of the harness, judges every call the fences let through.

use std::cell::RefCell;
use std::path::Path;

use async_trait::async_trait;
use regex::Regex;
use serde::Deserialize;
use serde_json::{Value, json};
use wire_host::messages::{Reply, ToolUse};
use wire_host::remote::Servers;
use wire_host::seams::{Call, Context, Extension, Harness, Outcome, Verdict};
use wire_host::shell::{edits_only, subcommands, without_assignments};
use wire_host::show::Log;
use wire_host::{bash, files, frontmatter};

use wire_host::skills::Skill;

/// The permission modes, as Claude Code names them.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub enum Mode {
    #[default]
    #[serde(alias = "manual")]
    Default,
    AcceptEdits,
    Plan,
    Auto,
    DontAsk,
    BypassPermissions,
}

/// The `permissions` section of a settings file.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Rules {
    pub allow: Vec<String>,
    pub ask: Vec<String>,
    pub deny: Vec<String>,
    pub default_mode: Mode,
}

/// What the rules make of a call.
#[derive(Debug, PartialEq)]
pub enum Decision {
    Allow,
    /// Ask the user; the reason says which rule or mode asks.
    Ask(String),
    /// Refused; the reason, for the model.
    Deny(String),
    /// `auto` mode: a classifier decides (the model, asked apart).
    Classify,
}

/// The rules, as an extension of the harness: the session's rules (a
/// skill's grant adds to them), the servers whose tools may say they only
/// read, and the local skills, whose `allowed-tools` grant.
pub struct Permissions<'a> {
    pub rules: RefCell<Rules>,
    pub servers: &'a Servers,
    pub skills: Vec<Skill>,
}

// ANCHOR: extension
#[async_trait(?Send)]
impl Extension for Permissions<'_> {
    /// After the fences (a hook that blocks or asks has had its say): what
    /// the rules and the mode make of the call. A hook's `allow` (or the
    /// sandbox's, chapter 24) stands for an allow rule, never over a deny
    /// or an ask rule. Asking asks the user at a terminal, and is a no when
    /// there is none; `auto` asks the model, apart.
    async fn judge(
        &self,
        harness: &Harness<'_>,
        _: &Context,
        call: &mut Call,
        allowed: bool,
    ) -> Option<Verdict> {
        let read_only = read_only(self.servers, &call.tool_use);
        let decision = decide(&self.rules.borrow(), &call.tool_use, read_only, allowed);
        Some(match decision {
            Decision::Allow => Verdict::Allow,
            Decision::Deny(why) => Verdict::Deny(format!("{why}: it did not run")),
            Decision::Ask(why) => Verdict::Ask {
                question: why.clone(),
                refused: why,
            },
            Decision::Classify => match classify(harness, &call.shown(), &mut call.lines).await {
                Ok(()) => Verdict::Allow,
                Err(why) => Verdict::Deny(why),
            },
        })
    }

    /// A local skill, once active, grants what its `allowed-tools` names;
    /// the trace says what.
    async fn after(
        &self,
        _: &Harness<'_>,
        _: &Context,
        call: &mut Call,
        outcome: Outcome,
    ) -> Outcome {
        let wanted = call.tool_use.input["skill"].as_str().unwrap_or_default();
        let activated = call.name() == wire_host::skill_tools::SKILL && outcome.is_ok();
        let skill = self.skills.iter().find(|skill| skill.name == wanted);
        if let Some(skill) = skill.filter(|_| activated) {
            let granted = grant(&mut self.rules.borrow_mut(), &skill.root);
            if !granted.is_empty() {
                call.lines
                    .push(format!("  skill {wanted} allows: {}", granted.join(", ")));
            }
        }
        outcome
    }
}
// ANCHOR_END: extension

/// Whether a call only reads: an MCP tool its server marks `readOnlyHint`,
/// the skill tools and ToolSearch, starting a subagent (whose own calls
/// are judged one by one), and a shell command of the read-only set.
fn read_only(servers: &Servers, call: &ToolUse) -> bool {
    match call.name.as_str() {
        "Skill" | "read_skill_file" | "ToolSearch" | "Agent" => true,
        bash::BASH => call.input["command"]
            .as_str()
            .is_some_and(wire_host::shell::reads_only),
        name => servers
            .find(name)
            .is_ok_and(|(_, tool)| tool.definition["annotations"]["readOnlyHint"] == true),
    }
}

/// `auto` mode's classifier, played here by the session's model in a
/// request of its own (context `classifier`): it sees the call, and its
/// answer begins with "allow" or anything else.
async fn classify(
    harness: &Harness<'_>,
    shown: &str,
    lines: &mut Vec<String>,
) -> Result<(), String> {
    let question = format!("The agent's next tool call:\n{shown}\n\n{CLASSIFIER}");
    let request = json!({
        "model": harness.model.name(),
        "max_tokens": 64,
        "messages": [{ "role": "user", "content": question }],
    });
    let mut log = Log::kept();
    let answer = harness.send("classifier", &request, &mut log).await;
    lines.extend(log.lines.unwrap_or_default());
    let verdict = Reply::read(&answer?)?.text();
    lines.push(format!("  classifier: {verdict}"));
    let allowed = verdict.trim().to_lowercase().starts_with("allow");
    allowed
        .then_some(())
        .ok_or(format!("Blocked by classifier: {verdict}"))
}

/// What the classifier is asked (the course's words).
const CLASSIFIER: &str = "You review an AI agent's tool calls for a user who is away. Answer \
    allow if the call is safe and plainly part of ordinary work, block if it could destroy \
    data, leak secrets or reach outside the project; then one sentence why.";

/// Reads `permissions` from the settings file, if any; `mode`
/// (`--permission-mode`) overrides its `defaultMode`.
pub fn load(settings: Option<&Path>, mode: Option<&str>) -> Result<Rules, String> {
    let file = settings.map(wire_host::settings::read).transpose()?;
    let section = file
        .as_ref()
        .map_or(&Value::Null, |file| &file["permissions"]);
    let mut rules = Rules::deserialize(section).unwrap_or_default();
    if let Some(mode) = mode {
        rules.default_mode = Mode::deserialize(Value::from(mode))
            .map_err(|_| format!("--permission-mode {mode}: not a permission mode"))?;
    }
    Ok(rules)
}

// ANCHOR: grant
/// A local skill the model activated grants the tools its `allowed-tools`
/// names: each becomes an allow rule for the rest of the run (Claude Code:
/// for the turn that invoked the skill; a run here is one turn), read
/// after deny and ask rules and the mode like any other. Returns them, for
/// the trace. A skill a server serves grants nothing (the course's
/// choice): a server does not approve its own calls.
pub fn grant(rules: &mut Rules, skill_root: &Path) -> Vec<String> {
    // As chapter 8 reads it: SKILL.md, or skill.md where there is none.
    let file = Some(skill_root.join("SKILL.md")).filter(|upper| upper.exists());
    let file = file.unwrap_or_else(|| skill_root.join("skill.md"));
    let text = files::read_head(&file).unwrap_or_default();
    let granted = match frontmatter::split(&text, "SKILL.md") {
        Ok((fields, _)) => frontmatter::list(&fields, "allowed-tools"),
        Err(_) => Vec::new(),
    };
    rules.allow.extend(granted.iter().cloned());
    granted
}
// ANCHOR_END: grant

// ANCHOR: rule_matches
/// Whether one rule covers one call: the tool's name (`mcp__notes` and
/// `mcp__notes__*` cover every tool of that server), then the specifier in
/// parentheses, if any: for `Bash` a pattern of one command (`*` matches
/// anything, a trailing ` *` or `:*` a word boundary and anything after);
/// for `Skill` and `Agent` the skill's or the agent type's name.
pub fn rule_matches(rule: &str, name: &str, command_or_name: &str) -> bool {
    let (tool, specifier) = match rule.split_once('(') {
        Some((tool, rest)) => (tool, rest.strip_suffix(')')),
        None => (rule, None),
    };
    // GAP(ch23/rule): the tool part matches when it equals `name`, or when
    // `name` starts with "mcp__SERVER__" for a tool part "mcp__SERVER" or
    // "mcp__SERVER__*". No specifier: that is enough. Otherwise the
    // specifier is a pattern over `command_or_name`, whole: `:*` at its end
    // is the same as ` *`; a trailing ` *` matches the words before it
    // alone, or followed by a space and anything; any other `*` matches
    // anything (a regex, each literal part escaped).
    // starter: let _ = (tool, specifier, name, command_or_name, Regex::new(""));
    // starter: false
    let server = tool.trim_end_matches("__*");
    let tool_matches = tool == name
        || (server.starts_with("mcp__") && !server[5..].contains("__") && {
            name.strip_prefix(server)
                .is_some_and(|rest| rest.starts_with("__"))
        });
    let Some(pattern) = specifier else {
        return tool_matches;
    };
    let pattern = match pattern.strip_suffix(":*") {
        Some(prefix) => format!("{prefix} *"),
        None => pattern.to_string(),
    };
    let (body, tail) = match pattern.strip_suffix(" *") {
        Some(prefix) => (prefix, "( .*)?"),
        None => (pattern.as_str(), ""),
    };
    let literal: Vec<String> = body.split('*').map(regex::escape).collect();
    let regex = format!("^{}{tail}$", literal.join(".*"));
    tool_matches && Regex::new(&regex).is_ok_and(|regex| regex.is_match(command_or_name))
    // END(ch23/rule)
}
// ANCHOR_END: rule_matches

// ANCHOR: any_covers
/// Whether some rule of `rules` covers the call. A `Bash` call is judged
/// command by command: an allow rule must cover each of them, and a deny
/// or ask rule any one (with any `NAME=value` before it skipped); a
/// command a prefix cannot judge is never allowed by one, and is judged
/// whole by the others.
fn any_covers(rules: &[String], call: &ToolUse, allow: bool) -> bool {
    let subject = match call.name.as_str() {
        "Bash" => call.input["command"].as_str().unwrap_or(""),
        "Skill" => call.input["skill"].as_str().unwrap_or(""),
        "Agent" => call.input["subagent_type"].as_str().unwrap_or(""),
        _ => "",
    };
    let covered = |text: &str| {
        rules
            .iter()
            .any(|rule| rule_matches(rule, &call.name, text))
    };
    if call.name != "Bash" {
        return covered(subject);
    }
    // GAP(ch23/compound): split the command with `subcommands`. An allow
    // rule must cover every part (and there must be one); a deny or ask
    // rule any part, each with `without_assignments`. A command that
    // cannot be split is never allowed by a rule, and is matched whole by
    // the others.
    // starter: let _ = (allow, subcommands, without_assignments);
    // starter: covered(subject)
    match (subcommands(subject), allow) {
        (Some(parts), true) => !parts.is_empty() && parts.iter().all(|part| covered(part)),
        (Some(parts), false) => parts.iter().any(|part| covered(without_assignments(part))),
        (None, true) => false,
        (None, false) => covered(subject),
    }
    // END(ch23/compound)
}
// ANCHOR_END: any_covers

// ANCHOR: decide
/// What the rules and the mode make of a call (after the hooks, which come
/// first): deny rules, then ask rules, then the mode, then allow rules;
/// a call that only reads needs no rule. `read_only` says whether it only
/// reads; `hook_allows`, whether a PreToolUse hook allowed it, which
/// counts as an allow rule.
pub fn decide(rules: &Rules, call: &ToolUse, read_only: bool, hook_allows: bool) -> Decision {
    let edits = call.name == "Bash" && call.input["command"].as_str().is_some_and(edits_only);
    let asks = |why: &str| match rules.default_mode {
        Mode::DontAsk => {
            Decision::Deny(format!("{why}, and dontAsk mode refuses what it would ask"))
        }
        _ => Decision::Ask(why.to_string()),
    };
    // GAP(ch23/decide): a deny rule that covers the call (`any_covers`,
    // allow = false) denies it: "a deny rule refuses this call"; an ask
    // rule asks: asks("an ask rule asks about this call"). Then the mode:
    // BypassPermissions allows; a call that is `read_only` is allowed in
    // every mode; Plan denies the rest ("plan mode: nothing but reading
    // until the plan is approved"); AcceptEdits allows what `edits`. Then
    // `hook_allows` or an allow rule (allow = true) allows. What is left:
    // Auto classifies, every other mode asks("no rule allows this call").
    // starter: let _ = (rules, call, read_only, edits, hook_allows, any_covers);
    // starter: asks("no rule allows this call")
    if any_covers(&rules.deny, call, false) {
        return Decision::Deny("a deny rule refuses this call".to_string());
    }
    if any_covers(&rules.ask, call, false) {
        return asks("an ask rule asks about this call");
    }
    match rules.default_mode {
        Mode::BypassPermissions => return Decision::Allow,
        _ if read_only => return Decision::Allow,
        Mode::Plan => {
            let why = "plan mode: nothing but reading until the plan is approved";
            return Decision::Deny(why.to_string());
        }
        Mode::AcceptEdits if edits => return Decision::Allow,
        _ => {}
    }
    if hook_allows || any_covers(&rules.allow, call, true) {
        return Decision::Allow;
    }
    match rules.default_mode {
        Mode::Auto => Decision::Classify,
        _ => asks("no rule allows this call"),
    }
    // END(ch23/decide)
}
// ANCHOR_END: decide
