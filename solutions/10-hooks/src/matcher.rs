//! A hook group's `matcher`: which tool calls (or which SessionStart
//! sources, which subagent types) its hooks run for. Read once, when the
//! settings are loaded, by Claude Code's rules.

// ANCHOR: matches
/// A group's matcher, read once, when the settings are loaded.
#[derive(Debug)]
pub enum Matcher {
    /// Empty, `*`, or no matcher at all.
    All,
    /// Exact names: `Bash`, `Bash|Read`, `Read, Write`.
    Names(Vec<String>),
    /// A regular expression, found anywhere in the name. Claude Code's are
    /// JavaScript's; the `regex` crate has no lookaround and no
    /// backreferences, so a matcher that uses them is refused here.
    Pattern(regex::Regex),
}

impl Matcher {
    /// Claude Code's rules: empty or `*` matches everything; only letters,
    /// digits, `_`, `-`, spaces, `|` and `,` is an exact name or a list of
    /// names; anything else is a regular expression, unanchored (so
    /// `mcp__notes__.*` matches every tool of the server `notes`).
    pub fn parse(text: &str) -> Result<Matcher, regex::Error> {
        // GAP(ch10/matches): empty or `*` is All; a matcher of only
        // letters, digits, `_`, `-`, spaces, `|` and `,` is Names (split
        // on `|` and `,`, each name trimmed); anything else is a Pattern,
        // a regex::Regex as written: is_match finds it anywhere in the name.
        // starter: let _ = (text, Matcher::Names(vec![]), regex::Regex::new(text));
        // starter: Ok(Matcher::All)
        if text.is_empty() || text == "*" {
            return Ok(Matcher::All);
        }
        let plain = text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_- |,".contains(c));
        if plain {
            let names = text.split(['|', ',']).map(|name| name.trim().to_string());
            return Ok(Matcher::Names(names.collect()));
        }
        regex::Regex::new(text).map(Matcher::Pattern)
        // END(ch10/matches)
    }

    pub fn matches(&self, name: &str) -> bool {
        match self {
            Matcher::All => true,
            Matcher::Names(names) => names.iter().any(|listed| listed == name),
            Matcher::Pattern(pattern) => pattern.is_match(name),
        }
    }
}
// ANCHOR_END: matches
