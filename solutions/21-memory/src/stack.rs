//! Chapter 21's harness: chapter 20's, with the servers' skills before the
//! local ones (a served skill's call goes to its server), and the memory
//! last, so that it opens a conversation after the hooks have built the
//! first message.

use std::cell::RefCell;
use std::collections::BTreeSet;

use wire_host::program::{Parts, Stack};
use wire_host::stack20;
use wire_host::tool_search::Mode;

use crate::memory;
use crate::served_skills::ServedSkills;
use wire_host::remote::Served;

/// The extensions of chapters 7 to 21, over a run's parts, which found
/// the servers' skills.
pub fn stack(parts: &Parts<Vec<Served>>, mode: Mode) -> Result<Stack<'_>, String> {
    let mut stack = stack20::stack(parts, mode)?;
    let served = ServedSkills {
        servers: &parts.servers,
        served: parts.found.clone(),
        loaded: RefCell::new(BTreeSet::new()),
    };
    stack.insert_after("prompt cache", "served skills", served);
    stack.push("memory", memory::load(&parts.hooks.session.workdir));
    Ok(stack)
}
