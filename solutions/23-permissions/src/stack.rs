//! Chapter 23's harness: chapter 22's, with the pins just after the
//! servers' tools (a changed definition is never offered), and the
//! permission rules after the fence, whose verdict they judge.

use std::cell::RefCell;

use wire_host::cli::RuleArgs;
use wire_host::program::{Base, Parts, Stack};
use wire_host::remote::Served;
use wire_host::stack22;

use crate::permissions::{self, Permissions, Rules};
use crate::pins::{self, Pinned, Pins};

/// What the extensions of chapters 19 to 23 read.
pub struct Options {
    /// Chapter 22's: tool search's mode, the context budget.
    pub before: stack22::Options,
    /// The permission rules and the mode; the pins.
    pub rules: Rules,
    pub pins: Pins,
}

impl Options {
    /// Chapter 22's options, then the permission rules of the settings
    /// file and `--permission-mode`, and the pins of `--pins`.
    pub fn read(base: &Base, budget: Option<u64>, args: RuleArgs) -> Result<Options, String> {
        let before = stack22::Options::read(budget)?;
        let settings = base.hooks.settings.as_deref();
        let rules = permissions::load(settings, args.permission_mode.as_deref())?;
        let pins = pins::load(args.pins)?;
        Ok(Options {
            before,
            rules,
            pins,
        })
    }
}

/// The extensions of chapters 7 to 23, over a run's parts.
pub fn stack(parts: &Parts<Vec<Served>>, options: Options) -> Result<Stack<'_>, String> {
    let mut stack = stack22::stack(parts, options.before)?;
    let pinned = Pinned {
        servers: &parts.servers,
        pins: RefCell::new(options.pins),
    };
    stack.insert_after("answering", "pins", pinned);
    let permissions = Permissions {
        rules: RefCell::new(options.rules),
        servers: &parts.servers,
        skills: parts.local_skills.clone(),
    };
    stack.insert_after("fence", "permissions", permissions);
    Ok(stack)
}
