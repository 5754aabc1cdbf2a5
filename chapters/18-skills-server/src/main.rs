//! Chapter 18: the server of chapter 13, also serving skills. A folder of
//! skill folders (`--skills-dir`) becomes `skill://` resources, one per
//! file, and the extension io.modelcontextprotocol/skills adds
//! `skills/list` and `skills/get`, whose entries carry each skill's
//! frontmatter and the digests of its files. `skills.rs` is new, and
//! `dispatch.rs`, which sends a request to it or to chapter 12's `Server`;
//! `http.rs` is chapter 13's, unchanged.

mod dispatch;
mod skills;

// What chapters 4, 5 and 12 settled, under the names chapter 12 used.
use wire_server::{base64, flags, folder, paging};
use wire_server::{
    http_util, http13 as http, jsonrpc, modern, options, resources, server, state, stdio,
};

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use dispatch::SkillServer;
use http::Shared;
use jsonrpc::Frame;
use options::options;
use resources::Notes;
use server::{Handshake, Server};
use skills::Skills;
use state::State;

/// Our name: in `serverInfo`, and at the start of every log line.
const SERVER_NAME: &str = "ch18-skills-server";

const HELP: &str = "\
ch18-skills-server: the server of chapter 13 (notes, prompts, drafts; both
eras of MCP), also serving a folder of Agent Skills under the extension
io.modelcontextprotocol/skills: each file a skill:// resource, and skills/list
and skills/get for 2026-07-28; on stdio or over Streamable HTTP.

Usage: ch18-skills-server [--listen ADDR [--token TOKEN] [--allow-origin ORIGIN]...]
                          [--skills-dir DIR] [--notes-dir DIR] [--state DIR] [--help]

  --listen ADDR          serve HTTP there instead of stdio (port 0 picks a
                         free port). The bound address is printed on stderr.
  --token TOKEN          require \"Authorization: Bearer TOKEN\" on every request
                         (or set WIRE_TOKEN). Without either, no token is asked.
  --allow-origin ORIGIN  also trust requests from this browser origin, such as
                         https://app.example (loopback origins always pass).
  --skills-dir DIR       serve the skills under DIR: each folder holding a
                         SKILL.md that follows chapter 8's rules, at any depth
                         (acme/billing/refunds). stderr says why one is not.
  --notes-dir DIR        also serve the files under DIR, read-only.
  --state DIR            keep the drafts in DIR. Instances sharing DIR can
                         answer one client in turns.

Without --listen, reads newline-delimited JSON-RPC 2.0 on stdin and answers
on stdout, as chapter 12 does, until stdin closes. Speaks MCP 2026-07-28 to a
request that names it, and 2025-11-25 and 2025-06-18 after an initialize,
without sessions; the skills are 2026-07-28's. Ctrl-C or SIGTERM stops the
HTTP server.
";

// ANCHOR: main
fn main() -> ExitCode {
    wire_server::SERVER_NAME.set(SERVER_NAME); // Its log lines name us too.
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|arg| arg == "--help" || arg == "-h") {
        print!("{HELP}");
        return ExitCode::SUCCESS;
    }
    // `--skills-dir DIR`: the skills to serve; the rest is chapter 13's.
    let skills = flags::take_flag(&mut args, "--skills-dir");
    let options = skills.and_then(|skills| Ok((skills.map(PathBuf::from), options(args)?)));
    let options = options.and_then(|(skills, options)| {
        let notes = Notes::new(options.notes)?;
        let state = State::open(options.state)?;
        let skills = Skills::open(skills)?;
        let server = Server::new(notes, state);
        Ok((
            options.listen,
            options.guard,
            SkillServer { server, skills },
        ))
    });
    let (listen, guard, server) = match options {
        Ok(opened) => opened,
        Err(problem) => {
            eprintln!("{SERVER_NAME}: {problem}; try --help");
            return ExitCode::from(2);
        }
    };
    let Some(listen) = listen else {
        // No --listen: chapter 12's stdio, one connection, one handshake.
        let mut handshake = Handshake::default();
        return stdio::serve(|frame| match frame {
            Frame::Line(line) => server.handle_line(&line, &mut handshake),
            _ => Some(handshake.for_revision(jsonrpc::frame_too_large())),
        });
    };
    // No lock around the server: it keeps no state of any connection, and
    // its drafts live in the state folder.
    let shared = Arc::new(Shared {
        server: Box::new(server),
        guard,
    });
    http_util::run(http::serve(listen, shared))
}
// ANCHOR_END: main
