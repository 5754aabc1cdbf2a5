//! A flag of a later chapter's own, taken out of the command line before
//! chapter 13's `options` reads the rest (`--input-ttl`, `--step`,
//! `--skills-dir`). Not taught: reading a command line is not the lesson of
//! any chapter, and this keeps each server's flags in its own `main.rs`.

/// The value of `flag`, taken out of `args` (with the flag), or `None`
/// when it is not there: how a chapter adds flags of its own before the
/// options of the chapter it grows from read the rest.
pub fn take_flag(args: &mut Vec<String>, flag: &str) -> Result<Option<String>, String> {
    let Some(at) = args.iter().position(|arg| arg == flag) else {
        return Ok(None);
    };
    if at + 1 == args.len() {
        return Err(format!("{flag} needs a value"));
    }
    let value = args.remove(at + 1);
    args.remove(at);
    if args.iter().any(|arg| arg == flag) {
        return Err(format!("{flag} may be given only once"));
    }
    Ok(Some(value))
}
