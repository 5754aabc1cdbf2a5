//! Chapter 24's harness: chapter 23's, with the sandbox in the place of
//! the plain `Bash`: the same tool, run in the sandbox the settings ask
//! for.

use wire_host::program::{Parts, Stack};
use wire_host::remote::Served;
use wire_host::stack23::{self, Options};

use crate::sandbox;

/// The extensions of chapters 7 to 24, over a run's parts.
pub fn stack(parts: &Parts<Vec<Served>>, options: Options) -> Result<Stack<'_>, String> {
    let settings = parts.settings.as_deref();
    let sandbox = sandbox::start(parts.program, settings, &parts.hooks.session)?;
    let mut stack = stack23::stack(parts, options)?;
    stack.replace("bash", "sandbox", sandbox);
    Ok(stack)
}
