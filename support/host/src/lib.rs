//! The host side's settled code: what a chapter taught and every later
//! chapter uses unchanged. Most modules are generated from the chapter that
//! teaches them (`support/taught.txt`; each file's first line names its
//! source): the learner writes them there, and from the next chapter on
//! `use`s them from here.

// Chapter 9's parallel join (helper D): generated from
// solutions/09-subagents/src/join.rs.
pub mod join;
// Protective code of chapter 10's Bash tool and hooks, not any chapter's
// lesson: commands with a deadline, a process group and bounded output.
pub mod process;
