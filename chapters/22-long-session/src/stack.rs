//! Chapter 22's harness: chapter 21's, with compaction and retries last:
//! compaction rewrites a conversation the others have opened, and a
//! request is retried only once every extension has carried its part.

use wire_host::program::{Parts, Stack};
use wire_host::remote::Served;
use wire_host::stack21;
use wire_host::tool_search::{Mode, SETTING};

use crate::compaction::Compaction;
use crate::retries::{self, Retries};

/// What the extensions of chapters 19 to 22 read.
pub struct Options {
    /// ENABLE_TOOL_SEARCH, read.
    pub tool_search: Mode,
    /// `--context-budget`: none, no limit.
    pub budget: Option<usize>,
}

impl Options {
    /// ENABLE_TOOL_SEARCH read, and CLAUDE_CODE_MAX_RETRIES checked before
    /// any request (Claude Code's settings), with the `budget` given.
    pub fn read(budget: Option<u64>) -> Result<Options, String> {
        let tool_search = Mode::read(std::env::var(SETTING).ok().as_deref())?;
        retries::max_retries()?;
        let budget = budget.map(|tokens| tokens as usize);
        Ok(Options {
            tool_search,
            budget,
        })
    }
}

/// The environment chapters 19 to 22 read, for `--help`.
pub const ENVIRONMENT: &str = "Environment for tool search, the cache, memory and retries:
  ENABLE_TOOL_SEARCH  true, false, auto (the default: defer the MCP tools when
                      their definitions pass 10% of a 200,000-token window)
                      or auto:N (N%)
  WIRE_CACHE_BREAKER  timestamp, reorder or change: break the cached prefix on
                      purpose, for wire-measure cache (the course's switch)
  WIRE_MANAGED_DIR    the managed policy's folder (default: /etc/claude-code;
                      the course's switch, for its tests)
  CLAUDE_CODE_MAX_RETRIES  how often a request the model API refused for a
                      while (429, 529, 5xx) is tried again (default: 10)";

/// The extensions of chapters 7 to 22, over a run's parts.
pub fn stack(parts: &Parts<Vec<Served>>, options: Options) -> Result<Stack<'_>, String> {
    let mut stack = stack21::stack(parts, options.tool_search)?;
    let compaction = Compaction {
        budget: options.budget,
        hooks: &parts.hooks,
    };
    stack.push("compaction", compaction);
    stack.push(
        "retries",
        Retries {
            model: &parts.model,
        },
    );
    Ok(stack)
}
