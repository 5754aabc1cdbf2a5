//! A shell line as the permission rules read it (chapter 23): split into
//! its commands, stripped of the assignments before a command, and judged
//! read-only or file-editing by Claude Code's lists. Format plumbing, no
//! chapter's lesson (what the rules make of it is chapter 23's):
//! support-own, no chapter generates it.

/// The parts of a shell command a rule is matched against, one per
/// command: split at `&&`, `||`, `;`, `|`, `&` and line ends outside
/// quotes. `None` for what a prefix cannot judge: a command substitution,
/// a subshell, a process substitution, an unclosed quote.
pub fn subcommands(command: &str) -> Option<Vec<String>> {
    let (mut parts, mut part, mut quote) = (Vec::new(), String::new(), None);
    let mut chars = command.chars().peekable();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (None, '\'' | '"') => quote = Some(c),
            (None | Some('"'), '$' | '`') if c == '`' || chars.peek() == Some(&'(') => return None,
            (None, '(' | ')') => return None,
            (None, ';' | '&' | '|' | '\n') => {
                parts.push(std::mem::take(&mut part));
                continue;
            }
            _ => {}
        }
        part.push(c);
    }
    parts.push(part);
    (quote.is_none()).then(|| {
        let parts = parts.iter().map(|part| part.trim().to_string());
        parts.filter(|part| !part.is_empty()).collect()
    })
}

/// A command without the `NAME=value` words before it.
pub fn without_assignments(command: &str) -> &str {
    let mut rest = command;
    while let Some((word, after)) = rest.split_once(' ') {
        let name = word.split_once('=').map(|(name, _)| name);
        match name.filter(|name| {
            !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        }) {
            Some(_) => rest = after.trim_start(),
            None => break,
        }
    }
    rest
}

/// The commands Claude Code runs without asking in every mode: they only
/// read (its built-in set, in part; `git` only to look).
const READ_ONLY: [&str; 14] = [
    "ls", "cat", "echo", "pwd", "head", "tail", "grep", "find", "wc", "which", "diff", "stat",
    "du", "cd",
];

/// Whether every command of a shell line only reads: a command of the
/// read-only set (`find` without `-exec` or `-delete`; `git` with `status`,
/// `log`, `diff` or `show`), and no redirection into a file.
pub fn reads_only(command: &str) -> bool {
    let reads = |part: &String| {
        let words: Vec<&str> = part.split_whitespace().collect();
        match words.as_slice() {
            ["git", verb, ..] => ["status", "log", "diff", "show"].contains(verb),
            ["find", ..] => !words
                .iter()
                .any(|w| ["-exec", "-execdir", "-delete", "-ok"].contains(w)),
            [first, ..] => READ_ONLY.contains(first),
            [] => false,
        }
    };
    !command.contains('>') && subcommands(command).is_some_and(|parts| parts.iter().all(reads))
}

/// Whether every command of a shell line only makes, moves or removes
/// files inside the working folder: `acceptEdits` mode's file commands,
/// each path relative and without `..` (the course's reading of "paths in
/// the working directory").
pub fn edits_only(command: &str) -> bool {
    const EDITS: [&str; 7] = ["mkdir", "touch", "rm", "rmdir", "mv", "cp", "sed"];
    let inside =
        |word: &&str| !(word.starts_with('/') || word.starts_with('~') || word.contains(".."));
    let edits = |part: &String| {
        let words: Vec<&str> = part.split_whitespace().collect();
        words.first().is_some_and(|first| EDITS.contains(first)) && words.iter().all(inside)
    };
    !command.contains('>') && subcommands(command).is_some_and(|parts| parts.iter().all(edits))
}
