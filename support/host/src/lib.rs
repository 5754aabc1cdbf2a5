//! The host side's settled code: what a chapter taught and every later
//! chapter uses unchanged. Most modules are generated from the chapter that
//! teaches them (`support/taught.txt`; each file's first line names its
//! source): the learner writes them there, and from the next chapter on
//! `use`s them from here.

// A teaching chapter from 07 on already `use`s what came before it from
// here (`use wire_host::host::Host;`); this lets the same line mean the same
// module when its file is generated into this crate.
extern crate self as wire_host;

/// Chapter 7: the agent loop, which asks the harness at each seam.
pub mod agent;
/// Agent files as Claude Code reads them, for chapter 9 on (not generated:
/// format plumbing, no chapter's lesson).
pub mod agents;
/// One Messages API request and its whole HTTP answer, status and
/// headers with the body, for chapter 22's retries (not generated: HTTP
/// plumbing).
pub mod api;
/// Chapter 15's answers to a server that asks: the terminal, an answers
/// file, the roots, sampling's shapes (not generated: plumbing).
pub mod ask;
/// Chapter 10's `Bash` tool, the thing its hooks fence (not generated: no
/// chapter teaches it).
pub mod bash;
/// The command line's shared part (not generated: no chapter teaches it).
pub mod cli;
/// Chapter 22: a conversation compacted past its budget (for chapter 23
/// on).
pub mod compaction;
/// Chapter 6: one MCP server on its pipes.
pub mod connection;
/// Chapter 15: a server's era, found by server/discover, else initialize.
pub mod discover;
/// A folder of definitions read one by one, the first of a name winning
/// (not generated: bookkeeping that chapters 8 and 9 share).
pub mod entries;
/// Chapter 10's hook events as a type that writes its own input, and one
/// hook's JSON answer read (not generated: the wire's shape, not a lesson).
pub mod events;
/// Chapter 10: the fence, the PreToolUse hooks at the harness's gate.
pub mod fence;
/// Reading files safely: regular files only, bounded, UTF-8; listing a
/// folder, bounded (not generated: protective code, no chapter's lesson).
pub mod files;
/// Markdown with YAML frontmatter, split at its `---` lines (not
/// generated: format plumbing of SKILL.md and agent files).
pub mod frontmatter;
/// Chapter 11: hooks around the loop, what their answers mean.
pub mod hooks;
/// Chapter 6: several servers and one merged catalogue.
pub mod host;
/// Chapter 9: the parallel join of subagents.
pub mod join;
/// Chapter 11: the hooks around the loop.
pub mod lifecycle;
/// A memory file's comments and `@path` imports (not generated: format
/// plumbing of chapter 21's memory).
pub mod markdown;
/// Chapter 10: a hook group's matcher.
pub mod matcher;
/// Chapter 7: the MCP servers' tools, the harness's first extension.
pub mod mcp;
/// Chapter 21: the memory files, read and put first (for chapter 22 on).
pub mod memory;
/// The Messages API's content blocks as types, for chapter 7 on (not
/// generated: the wire's shape, not a lesson).
pub mod messages;
/// Chapter 7: the model, scripted or over HTTP.
pub mod model;
/// Chapter 23: the permission rules and modes (for chapter 24 on).
pub mod permissions;
/// Chapter 23: tool definitions pinned by their digests (for chapter 24
/// on).
pub mod pins;
/// Protective code of chapter 10's Bash tool and hooks, no chapter's lesson:
/// commands with a deadline, a process group and bounded output.
pub mod process;
/// A harness program's parts from chapter 19 on: the common options, the
/// servers started, the session opened, the extensions of chapters 7 to 15
/// made (not generated: composition plumbing).
pub mod program;
/// Chapter 20: the cache breakpoints, and the usage read back (for chapter
/// 21 on).
pub mod prompt_cache;
/// Chapter 24's way out of the sandbox: an HTTP proxy outside it that
/// checks each host, and the bridge inside (not generated: plumbing).
#[cfg(unix)]
pub mod proxy;
/// Chapter 15's servers on their links, and their catalogue (not
/// generated: bookkeeping, chapter 6's host again).
pub mod remote;
/// MCP resources as a tool the model can call, from chapter 9 on (not
/// generated: a harness tool the chapter offers but does not teach).
pub mod resource_tool;
/// Chapter 22: model requests retried (for chapter 23 on).
pub mod retries;
/// Chapter 15: a tool call run through a server's questions.
pub mod retry;
/// Chapter 15: a server's question answered (a form, the model, the roots).
pub mod route;
/// Chapter 24: `Bash` in bubblewrap, when the settings' sandbox is on (for
/// chapter 25 on).
#[cfg(unix)]
pub mod sandbox;
/// Chapter 9: the `Agent` tool, subagents in fresh contexts.
/// The course's stand-in model, a script's replies (not generated: a
/// test double; chapter 7 decides when it stands in).
pub mod script;
/// The harness's seams and the runner that asks every extension at each
/// (not generated: dispatch; the loop is chapter 7's, each extension its
/// chapter's).
pub mod seams;
/// Chapter 21: the skills a server serves, checked when read (for chapter
/// 22 on).
pub mod served_skills;
/// A hook chapter's session: its working folder and its own folder,
/// removed at the end, and its hooks' settings read (not generated:
/// plumbing, no chapter's lesson).
pub mod session;
/// Claude Code's settings.json: the hooks section, and running its handlers
/// (not generated: format plumbing; chapter 10 hands it its matcher parser
/// and its reading of exit codes).
pub mod settings;
/// A shell line split into commands, and Claude Code's read-only and
/// file-editing commands (not generated: plumbing of chapter 23's rules).
pub mod shell;
/// What a harness prints before its first turn (not generated either).
pub mod show;
/// Chapter 8: the Skill and read_skill_file tools.
pub mod skill_tools;
/// Chapter 8: skills found, validated and listed.
pub mod skills;
/// Chapters 19 to 24: each one's harness, as the chapter before's
/// extensions with its own added (for the chapter after).
pub mod stack19;
pub mod stack20;
pub mod stack21;
pub mod stack22;
pub mod stack23;
#[cfg(unix)]
pub mod stack24;
/// A stand-in model's prompt cache: the `usage` the Messages API would
/// report, computed from the request (not generated: no chapter's lesson;
/// the scenarios' stub and chapter 20's demo share it).
pub mod stub_cache;
pub mod subagents;
/// Chapter 7: what a request costs, in tokens.
pub mod tokens;
/// Chapter 19: tool search, the deferred tools and `ToolSearch` (for
/// chapter 20 on).
pub mod tool_search;
/// Chapter 15's client connection, over stdio or Streamable HTTP (not
/// generated: transport plumbing, no chapter's lesson).
pub mod transport;
/// Text inside the XML tags a model reads (not generated: format plumbing).
pub mod xml;
/// strictyaml's subset of YAML (not generated: a guard, not a lesson).
pub mod yaml;
