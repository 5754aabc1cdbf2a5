//! `wire-measure`: the tool behind the book's tables of what skills and
//! subagents cost. It is no chapter's lesson and the learner does not write
//! it: it drives a harness chapter's binary, the way a learner runs it, and
//! reads the cost of every request from the line the chapter's loop already
//! prints for it (`turn 1: sending 1 messages, 1834 bytes: 412 tokens ...`).
//! So a table counts what the chapter really sends, nothing composed beside it.
//!
//! - `wire-measure --bin PATH skills`: chapter 8's binary, with N synthetic
//!   skills (1, 10, 100) on an idle turn, against the same skills pasted
//!   into the system prompt (see `skills.rs`);
//! - `wire-measure --bin PATH agents`: chapter 9's binary, one question that
//!   needs five notes, answered in place and delegated (see `agents.rs`).
//! - `wire-measure --bin PATH tools`: a harness chapter's binary (15's, or
//!   19's), its first request with no catalogue, with made-up catalogues of
//!   1 and 50 tools and with the course's servers (see `tools.rs`); the
//!   made-up ones it serves itself (`wire-measure serve-tools`, `serve.rs`).
//! - `wire-measure --bin PATH cache`: chapter 20's binary, one scripted
//!   session as built and with each thing that breaks its cached prefix,
//!   per turn: what the cache wrote, read and left uncached (see `cache.rs`).
//!
//! - `wire-measure --bin PATH fences`: chapter 24's binary, a corpus of
//!   destructive and exfiltrating commands under a deny-list hook, an
//!   allowlist hook and the sandbox (see `fences.rs`).
//!
//! `cargo xtask measure skills|agents|tools|cache|fences` runs it on the reference solution
//! (or `--bin PATH`, a learner's build); the transcripts
//! `tests/transcripts/ch08/measure.wire` and `ch09/measure.wire` pin its
//! output, with the chapter's servers replayed.

mod agents;
mod cache;
mod fences;
mod run;
mod serve;
mod skills;
mod tools;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "wire-measure",
    about = "What a harness chapter's requests cost, in tokens"
)]
struct Args {
    /// The chapter binary to drive (chapter 8's for skills, 9's for agents,
    /// a harness chapter's for tools)
    #[arg(long, value_name = "PATH")]
    bin: Option<PathBuf>,
    #[command(subcommand)]
    table: Table,
}

#[derive(Subcommand)]
enum Table {
    /// An idle turn with N synthetic skills, in the catalogue and pasted inline
    Skills {
        /// Passed to every run of the binary (default: the binary's own)
        #[arg(long = "server", value_name = "NAME=COMMAND")]
        servers: Vec<String>,
    },
    /// A question that reads five notes, in place and delegated
    Agents {
        /// Passed to every run of the binary (default: chapter 5's server
        /// over tests/measure/notes as `notes`)
        #[arg(long = "server", value_name = "NAME=COMMAND")]
        servers: Vec<String>,
    },
    /// The first request with no catalogue, then with 1, 5-parameter and 50
    /// made-up tools, then with the course's servers
    Tools {
        /// The course's servers to measure (default: chapter 3's add and
        /// chapter 5's notes)
        #[arg(long = "server", value_name = "NAME=COMMAND")]
        servers: Vec<String>,
    },
    /// One scripted session, as built and with each prefix breaker, per
    /// turn: written to the cache, read from it, uncached (chapter 20)
    Cache,
    /// A corpus of destructive and exfiltrating commands under three
    /// fences: a deny-list hook, an allowlist hook, the sandbox (chapter 24)
    Fences,
    /// Serve COUNT made-up tools of PARAMS parameters over stdio (for tools)
    ServeTools { count: usize, params: usize },
}

fn main() -> ExitCode {
    let args = Args::parse();
    let outcome = match args.table {
        Table::ServeTools { count, params } => serve::serve(count, params),
        table => print_table(args.bin, table),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("wire-measure: {err}");
            ExitCode::FAILURE
        }
    }
}

/// Drives the chapter binary `bin` for one table.
fn print_table(bin: Option<PathBuf>, table: Table) -> Result<(), String> {
    let Some(bin) = bin else {
        return Err("name the chapter binary to drive: --bin PATH".to_string());
    };
    // The runs start in other folders: a relative path would not find it.
    let bin = std::path::absolute(&bin).map_err(|err| format!("--bin {}: {err}", bin.display()))?;
    match table {
        Table::Skills { servers } => skills::print_table(&bin, &servers),
        Table::Agents { servers } => agents::print_table(&bin, &servers),
        Table::Tools { servers } => tools::print_table(&bin, &servers),
        Table::Cache => cache::print_table(&bin),
        Table::Fences => fences::print_table(&bin),
        Table::ServeTools { count, params } => serve::serve(count, params),
    }
}
