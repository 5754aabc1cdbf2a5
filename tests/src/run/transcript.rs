//! The transcript format: one frame per line, a direction marker first.
//!
//! ```text
//! # Free comments explain the scenario; the book shows them too.
//! # book: 03-add-tool-calling.md#calling-a-tool  where a failure sends the reader
//! # revision: 2025-11-25                    the MCP revision the frames belong to
//! #                                         (`2026-07-28 and 2025-11-25`: both eras)
//! # args: --help                            command-line arguments for the binary
//! # exit: 0                                 the exit status expected at the end (default 0)
//! # pipelined: yes                          send all client frames at once (default: lockstep)
//! # bless: lockstep                         bless from one lockstep run (see `runner::bless`)
//! # workdir: tests/fixtures/DIR             a fresh copy of DIR for each run; `{workdir}`
//!                                           in `# args:` names it (a state folder to edit;
//!                                           a host's working folder, with its memory files)
//! # home: tests/fixtures/DIR                (host) copied into the run's fresh HOME, `{home}`
//! # state: removed                          (HTTP) --state a folder removed once the server listens
//! # needs: bwrap curl                       programs outside Rust it runs (`tools::ALL`):
//!                                           without one, the scenario is skipped and says
//!                                           what to install (under `CI`, it fails)
//! -> {"jsonrpc":"2.0","id":1,"method":"ping"}    client to server: the text, then "\n"
//! <- {"jsonrpc":"2.0","id":1,"result":{}}        server to client
//! ->! 0xff 0xfe "{}\n"                           exact bytes: JSON strings, 0xHH bytes,
//! <-! "x" *1048576 "\n"                          and *N to repeat the token before it
//! [notes] -> {...}                               a frame on the connection named "notes"
//! => {...}   <= {...}                            host to model, model to host
//! ~> {...}   <~ {...}                            harness to hook, hook to harness
//! | text                                         a line the program prints on stdout
//! ```
//!
//! A `->`/`<-` line without `!` is sent or expected exactly as written,
//! followed by one `\n`: it need not be valid JSON (bad input is a lesson too).
//!
//! One capture (`capture.rs`): in a `<-` line, `"requestState":"{state}"`
//! matches any JSON string there and binds it (a 2026-07-28 state is sealed
//! and expires, so its bytes change from run to run); in a later `->` line,
//! `{state}` sends the bound value back and `{state:tampered}` sends it with
//! `-TAMPERED` appended. The server runner and the HTTP runner both do it.
//!
//! A server is driven in lockstep, like a real client: the runner sends one
//! client frame and waits for each `<-` line that follows it before sending
//! the next, so a reply left in a buffer fails the scenario. Replies after a
//! frame that leaves a line unfinished (no `\n`) are awaited once the line is
//! finished, or stdin closes. `# pipelined: yes` sends every client frame at
//! once, for a scenario where that is the point. A later `# book:` line
//! names the section for the frames below it; the first one is the scenario's.
//!
//! Hosts (chapter 6 on) are tested the other way round, with `# runner: client`
//! or `# runner: agent` (see `client_runner`): the program under test is the
//! client, and the transcript plays its servers and its model.
//!
//! ```text
//! # runner: client                          the binary under test is a client
//! # args: --server add={replay:add} list    {replay:NAME} becomes the command of
//! #                                         a replay server for channel NAME
//! # env: WIRE_TIMEOUT_MS=500                an environment variable (repeatable)
//! # stderr: timed out                       text its stderr must contain (repeatable)
//! # unprivileged: yes                       as root, run it as user nobody (the sandbox)
//! # tool: wire-measure                      run this workspace binary instead, with
//!                                           `--bin PATH` (the binary under test) first:
//!                                           a tool that drives the binary (the book's
//!                                           measurements); the servers are still played
//! # recorded: add=03                        channel add records chapter 3's solution
//! # recorded: notes=05 --notes-dir DIR      server, started with these arguments
//! #                                         (one line per channel)
//! # recorded-stderr: notes ch05-prompts: …  text that server's stderr must
//! #                                         contain (its log; repeatable)
//! [add] -> {...}                            what the client must send to server add
//! [add] <- {...}                            what server add answers, sent as soon
//!                                           as the client frame before it arrived
//! | tools (1):                              the client's stdout, line by line
//! ```
//!
//! Hooks (chapter 10) are real processes that the host runs: a fixture
//! hook is run through `tests/fixtures/hooks/record`, which logs what it
//! got and gave back; the runner compares that log with these lines:
//!
//! ```text
//! # args: --settings FILE --workdir {workdir}   {workdir}: a fresh folder per run
//! ~> {"cwd":"{workdir}",...}                    what a hook got on stdin
//! <~ {"exit":2,"stdout":"","stderr":"..."}      its exit status, stdout, stderr
//! ```
//!
//! `{workdir}`, `{tmp}` (the host's TMPDIR), `{home}` (its HOME, a fresh
//! folder too) and `$WIRE_HOOKS` (the fixtures' folder) stand for paths that change from run to run, in hook lines and
//! in `|` lines. A hook killed at its timeout leaves a `~>` and no `<~`.
//!
//! A `# recorded:` channel must be what the real server answers: a test
//! (tests/tests/recordings.rs) starts that chapter's solution server, in
//! the workspace root, sends it the channel's `->` frames in order, and
//! compares its replies with the `<-` lines byte for byte, so a replayed
//! server cannot drift from the real one.
//!
//! A server frame is sent only once the client frame before it (on the same
//! channel) has arrived, so a reply written *after* a later client frame is
//! a reply the server withholds until then: that is how a transcript makes a
//! client time out. When a transcript has `|` lines, the program's stdout
//! must be exactly those lines; without any, stdout is not checked.

use std::fmt;
use std::path::{Path, PathBuf};

use super::tools;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// `->`: an MCP client (the host) to an MCP server.
    ClientToServer,
    /// `<-`: an MCP server to its client.
    ServerToClient,
    /// `=>`: the host to the model (a Messages API request).
    HostToModel,
    /// `<=`: the model to the host (a Messages API reply).
    ModelToHost,
    /// `~>`: the harness to a hook (the hook's stdin).
    HarnessToHook,
    /// `<~`: a hook to the harness (its stdout and exit status).
    HookToHarness,
    /// `|`: a line the program under test prints on its own stdout.
    Stdout,
}

impl Direction {
    const ALL: [(&'static str, Direction); 7] = [
        ("->", Direction::ClientToServer),
        ("<-", Direction::ServerToClient),
        ("=>", Direction::HostToModel),
        ("<=", Direction::ModelToHost),
        ("~>", Direction::HarnessToHook),
        ("<~", Direction::HookToHarness),
        ("|", Direction::Stdout),
    ];

    /// The marker that starts a line of this direction (`->`, `<=`, ...):
    /// the frame views quote lines as the transcript writes them.
    pub fn arrow(self) -> &'static str {
        Direction::ALL
            .iter()
            .find(|(_, d)| *d == self)
            .map(|(arrow, _)| *arrow)
            .unwrap_or("?")
    }
}

/// `# runner:`: what the binary under test is, and so who drives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Runner {
    /// The default: a stdio server, played by its client (`runner`).
    Server,
    /// A client (chapter 6): the transcript plays its servers (`client_runner`).
    Client,
    /// A host with a model (chapter 7 on): servers and model are played.
    Agent,
    /// A server listening on HTTP (chapter 13 on, `http_runner`).
    Http,
}

impl Runner {
    const ALL: [(&'static str, Runner); 4] = [
        ("server", Runner::Server),
        ("client", Runner::Client),
        ("agent", Runner::Agent),
        ("http", Runner::Http),
    ];

    /// The runner a `# runner:` line names; any other word is an error.
    pub fn parse(value: &str) -> Result<Runner, String> {
        Runner::ALL
            .iter()
            .find(|(name, _)| *name == value)
            .map(|(_, runner)| *runner)
            .ok_or_else(|| {
                let names: Vec<&str> = Runner::ALL.iter().map(|(name, _)| *name).collect();
                format!(
                    "unknown runner {value:?}: write one of {}",
                    names.join(", ")
                )
            })
    }

    /// The word a `# runner:` line writes.
    pub fn name(self) -> &'static str {
        Runner::ALL
            .iter()
            .find(|(_, runner)| *runner == self)
            .map(|(name, _)| *name)
            .unwrap_or("server")
    }

    /// A host (`client` or `agent`): the binary under test starts servers.
    pub fn is_host(self) -> bool {
        matches!(self, Runner::Client | Runner::Agent)
    }
}

#[derive(Clone, Debug)]
pub struct Frame {
    pub direction: Direction,
    /// The connection the frame travels on, for hosts with several servers.
    pub channel: Option<String>,
    /// The exact bytes on the wire, newline included.
    pub bytes: Vec<u8>,
    /// 1-based line in the transcript file.
    pub line: usize,
    /// The section that explains this frame: the last `# book:` line above
    /// it (or the transcript's first, for frames above every `# book:`).
    pub book: Option<String>,
}

#[derive(Clone, Debug)]
pub struct Transcript {
    pub path: PathBuf,
    /// The file name without `.wire`.
    pub name: String,
    /// `03-add-tool-calling.md#calling-a-tool`: the section that explains this
    /// scenario (its first `# book:` line).
    pub book: Option<String>,
    /// The MCP revision the frames belong to: every `initialize` result in
    /// the transcript carries it as `protocolVersion` (a course test checks).
    pub revision: Option<String>,
    /// `# pipelined: yes`: send every client frame at once instead of
    /// waiting for each reply (the runner's default, like a real client).
    pub pipelined: bool,
    /// `# unprivileged: yes`: when the tests run as root, run the program
    /// as user nobody (`unprivileged`): chapter 24's sandbox scenarios.
    pub unprivileged: bool,
    /// `# needs: bwrap curl`: the programs outside Rust this scenario runs
    /// (`tools::ALL`), without which it is skipped.
    pub needs: Vec<&'static tools::Tool>,
    /// `# guards: ch17/route`: gaps whose rule this scenario pins although
    /// the starter's placeholder passes it (what must stay as it was: a
    /// request that is not the new code's). A learner's crate that fails it
    /// blames those gaps, beside the ones `tests/starter-failures.txt`
    /// names.
    pub guards: Vec<String>,
    /// `# bless: lockstep`: bless the server's frames from one run in
    /// lockstep, with the transcript's line counts, instead of replaying
    /// prefixes: for frames that depend on when the client sends (a cancel
    /// while the work runs), which no prefix of the input can reproduce.
    pub bless_lockstep: bool,
    pub args: Vec<String>,
    pub exit: i32,
    /// Who the binary under test is, and so which runner drives it.
    pub runner: Runner,
    /// `# env: KEY=VALUE` lines: the environment of the program under test.
    pub env: Vec<(String, String)>,
    /// `# stderr: text` lines: text its stderr must contain.
    pub stderr: Vec<String>,
    /// `# tool: PACKAGE`: the workspace binary that runs instead of the
    /// binary under test, given it as `--bin PATH` before the args, and
    /// drives it (`wire-measure`, the book's measurements).
    pub tool: Option<String>,
    /// `# together: A B`: model contexts whose first requests must be in
    /// flight at the same time.
    pub together: Vec<String>,
    /// `# recorded:` lines: the channels that record a chapter's server.
    pub recorded: Vec<Recorded>,
    /// `# state: removed` (HTTP runner): the server gets `--state` a fresh
    /// folder that the runner removes once the server listens, so that its
    /// next write fails on the server's side: the one way a transcript can
    /// make a server's own fault happen.
    pub state_removed: bool,
    /// `# workdir: FIXTURE`: each run gets a fresh copy of this folder,
    /// named by `{workdir}` in `# args:`, so a scenario can start from files
    /// the server then changes (a stale index), or a host from a project's
    /// files (its CLAUDE.md, chapter 21).
    pub workdir: Option<String>,
    /// `# home: FIXTURE` (a host): copied into the run's HOME, which is
    /// otherwise a fresh, empty folder (`{home}`).
    pub home: Option<String>,
    pub frames: Vec<Frame>,
}

/// `# recorded: notes=05 --notes-dir DIR`: the replayed server of channel
/// `notes` records chapter 05's solution server, started with `args`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recorded {
    pub channel: String,
    /// The chapter whose solution is the server: `05`.
    pub chapter: String,
    pub args: Vec<String>,
    /// Text the real server's stderr must contain, once its stdin closes
    /// (`# recorded-stderr: CHANNEL TEXT`, repeatable): its log lines.
    pub stderr: Vec<String>,
}

#[derive(Debug)]
pub struct ParseError {
    pub path: PathBuf,
    pub line: usize,
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.path.display(), self.line, self.message)
    }
}

impl Transcript {
    pub fn load(path: &Path) -> Result<Transcript, ParseError> {
        let text = std::fs::read_to_string(path).map_err(|err| ParseError {
            path: path.to_path_buf(),
            line: 0,
            message: format!("cannot read the transcript: {err}"),
        })?;
        Transcript::parse(path, &text)
    }

    pub fn parse(path: &Path, text: &str) -> Result<Transcript, ParseError> {
        let name = path
            .file_stem()
            .map(|stem| stem.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut transcript = Transcript {
            path: path.to_path_buf(),
            name,
            book: None,
            revision: None,
            pipelined: false,
            unprivileged: false,
            needs: Vec::new(),
            guards: Vec::new(),
            bless_lockstep: false,
            args: Vec::new(),
            exit: 0,
            runner: Runner::Server,
            env: Vec::new(),
            stderr: Vec::new(),
            tool: None,
            together: Vec::new(),
            recorded: Vec::new(),
            state_removed: false,
            workdir: None,
            home: None,
            frames: Vec::new(),
        };
        let mut section: Option<String> = None;
        for (index, raw) in text.lines().enumerate() {
            let line = index + 1;
            let error = |message: String| ParseError {
                path: path.to_path_buf(),
                line,
                message,
            };
            if raw.trim().is_empty() {
                continue;
            }
            if let Some(comment) = raw.strip_prefix('#') {
                transcript.read_metadata(comment.trim()).map_err(error)?;
                if let Some(("book", value)) = comment.trim().split_once(':') {
                    section = Some(value.trim().to_string());
                }
                continue;
            }
            let mut frame = parse_frame(raw, line).map_err(error)?;
            frame.book = section.clone();
            transcript.frames.push(frame);
        }
        for frame in &mut transcript.frames {
            if frame.book.is_none() {
                frame.book = transcript.book.clone();
            }
        }
        Ok(transcript)
    }

    fn read_metadata(&mut self, comment: &str) -> Result<(), String> {
        let Some((key, value)) = comment.split_once(':') else {
            return Ok(());
        };
        let value = value.trim();
        match key {
            "book" => {
                self.book.get_or_insert_with(|| value.to_string());
            }
            "pipelined" => self.pipelined = choice(key, value, ["yes", "no"])?,
            "unprivileged" => self.unprivileged = choice(key, value, ["yes", "no"])?,
            "needs" => {
                for name in value.split_whitespace() {
                    let tool = tools::named(name).ok_or_else(|| {
                        let known: Vec<&str> = tools::ALL.iter().map(|tool| tool.name).collect();
                        format!(
                            "`# needs:` names {name:?}, which is none of {}",
                            known.join(", ")
                        )
                    })?;
                    self.needs.push(tool);
                }
            }
            "guards" => self
                .guards
                .extend(value.split_whitespace().map(str::to_string)),
            "bless" => self.bless_lockstep = choice(key, value, ["lockstep", "prefixes"])?,
            "revision" => self.revision = Some(value.to_string()),
            "args" => self.args = value.split_whitespace().map(str::to_string).collect(),
            "exit" => {
                self.exit = value
                    .parse()
                    .map_err(|_| format!("exit must be a number, not {value:?}"))?
            }
            "runner" => self.runner = Runner::parse(value)?,
            "env" => {
                let (name, value) = value
                    .split_once('=')
                    .ok_or_else(|| format!("write `# env: NAME=VALUE`, not {value:?}"))?;
                self.env.push((name.to_string(), value.to_string()));
            }
            "stderr" => self.stderr.push(value.to_string()),
            "tool" => self.tool = Some(value.to_string()),
            "workdir" => self.workdir = Some(value.to_string()),
            "home" => self.home = Some(value.to_string()),
            "state" => {
                self.state_removed = match value {
                    "removed" => true,
                    _ => return Err(format!("write `# state: removed`, not {value:?}")),
                }
            }
            "together" => self.together = value.split_whitespace().map(str::to_string).collect(),
            "recorded" => {
                let mut words = value.split_whitespace();
                let (channel, chapter) = words
                    .next()
                    .and_then(|word| word.split_once('='))
                    .filter(|(channel, chapter)| !channel.is_empty() && !chapter.is_empty())
                    .ok_or_else(|| {
                        format!("write `# recorded: CHANNEL=NN [ARGS]`, not {value:?}")
                    })?;
                self.recorded.push(Recorded {
                    channel: channel.to_string(),
                    chapter: chapter.to_string(),
                    args: words.map(str::to_string).collect(),
                    stderr: Vec::new(),
                });
            }
            "recorded-stderr" => {
                let (channel, text) = value.split_once(' ').unwrap_or((value, ""));
                let recorded = self.recorded.iter_mut().find(|r| r.channel == channel);
                match recorded {
                    Some(recorded) if !text.is_empty() => recorded.stderr.push(text.to_string()),
                    _ => {
                        return Err(format!(
                            "write `# recorded-stderr: CHANNEL TEXT` after the channel's \
                             `# recorded:` line, not {value:?}"
                        ));
                    }
                }
            }
            _ => {} // Any other "word: text" is an ordinary comment.
        }
        Ok(())
    }

    /// The frames going one way, in order.
    pub fn frames_in(&self, direction: Direction) -> impl Iterator<Item = &Frame> {
        self.frames
            .iter()
            .filter(move |frame| frame.direction == direction)
    }

    /// Everything written to the binary's stdin, in order.
    pub fn bytes_in(&self, direction: Direction) -> Vec<u8> {
        self.frames_in(direction)
            .flat_map(|frame| frame.bytes.iter().copied())
            .collect()
    }
}

fn parse_frame(raw: &str, line: usize) -> Result<Frame, String> {
    let (channel, rest) = match raw.strip_prefix('[') {
        Some(rest) => {
            let (name, rest) = rest
                .split_once("] ")
                .ok_or("a channel is written [name] followed by a space")?;
            (Some(name.to_string()), rest)
        }
        None => (None, raw),
    };
    let (direction, rest) = Direction::ALL
        .iter()
        .find_map(|(arrow, direction)| rest.strip_prefix(arrow).map(|rest| (*direction, rest)))
        .ok_or_else(|| {
            format!(
                "a frame line starts with ->, <-, =>, <=, ~>, <~ or |, not {:?}",
                first_chars(raw)
            )
        })?;
    let bytes = if let Some(tokens) = rest.strip_prefix("! ") {
        parse_bytes(tokens)?
    } else if rest.is_empty() {
        b"\n".to_vec() // A bare arrow is an empty line.
    } else if let Some(text) = rest.strip_prefix(' ') {
        let mut bytes = text.as_bytes().to_vec();
        bytes.push(b'\n');
        bytes
    } else {
        return Err("put one space after the arrow (or `! ` for exact bytes)".to_string());
    };
    Ok(Frame {
        direction,
        channel,
        bytes,
        line,
        book: None,
    })
}

fn first_chars(text: &str) -> String {
    text.chars().take(12).collect()
}

/// Reads the exact-bytes form: `"text"` (a JSON string), `0xHH`, and `*N`,
/// which repeats the token before it N times in all.
pub fn parse_bytes(tokens: &str) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    let mut last: Option<Vec<u8>> = None;
    let mut rest = tokens.trim_start();
    while !rest.is_empty() {
        if rest.starts_with('"') {
            // Let serde_json find where the string literal ends.
            let mut stream = serde_json::Deserializer::from_str(rest).into_iter::<String>();
            let text = stream
                .next()
                .ok_or("unfinished string")?
                .map_err(|err| format!("bad string literal: {err}"))?;
            rest = &rest[stream.byte_offset()..];
            bytes.extend_from_slice(text.as_bytes());
            last = Some(text.into_bytes());
        } else {
            let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
            let (token, tail) = rest.split_at(end);
            rest = tail;
            if let Some(hex) = token.strip_prefix("0x") {
                let byte = u8::from_str_radix(hex, 16)
                    .map_err(|_| format!("{token} is not a byte like 0xff"))?;
                bytes.push(byte);
                last = Some(vec![byte]);
            } else if let Some(count) = token.strip_prefix('*') {
                let count: usize = count
                    .parse()
                    .map_err(|_| format!("{token} is not a repeat like *100"))?;
                let unit = last.take().ok_or("*N must follow a string or a byte")?;
                for _ in 1..count {
                    bytes.extend_from_slice(&unit);
                }
            } else {
                return Err(format!("unknown token {token:?}; use \"text\", 0xHH or *N"));
            }
        }
        rest = rest.trim_start();
    }
    Ok(bytes)
}

/// A setting of two values, `[first, second]`: `true` for the first.
fn choice(key: &str, value: &str, [first, second]: [&str; 2]) -> Result<bool, String> {
    match value {
        _ if value == first => Ok(true),
        _ if value == second => Ok(false),
        _ => Err(format!(
            "write `# {key}: {first}` or `{second}`, not {value:?}"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_every_kind_of_line() {
        let text = "# a comment\n# book: 02-handshake.md#ping\n# args: --help -v\n\n-> {\"a\":1}\n<-! 0xff \"ab\" *3 \"\\n\"\n[notes] => x\n";
        let t = Transcript::parse(Path::new("x/ping.wire"), text).unwrap();
        assert_eq!(t.name, "ping");
        assert_eq!(t.book.as_deref(), Some("02-handshake.md#ping"));
        assert_eq!(t.args, ["--help", "-v"]);
        assert_eq!(t.frames.len(), 3);
        assert_eq!(t.frames[0].bytes, b"{\"a\":1}\n");
        assert_eq!(t.frames[1].bytes, b"\xffababab\n");
        assert_eq!(t.frames[1].direction, Direction::ServerToClient);
        assert_eq!(t.frames[2].channel.as_deref(), Some("notes"));
        assert_eq!(t.frames[2].direction, Direction::HostToModel);
    }

    #[test]
    fn reads_host_metadata_and_stdout_lines() {
        let text = "# runner: client\n# env: A=b=c\n# stderr: timed out\n\
                    # recorded: notes=05 --notes-dir x\n# recorded-stderr: notes ch05-prompts: hi\n\
                    | tools (1):\n|\n";
        let t = Transcript::parse(Path::new("t.wire"), text).unwrap();
        assert_eq!(t.runner, Runner::Client);
        let recorded = Recorded {
            channel: "notes".into(),
            chapter: "05".into(),
            args: vec!["--notes-dir".into(), "x".into()],
            stderr: vec!["ch05-prompts: hi".into()],
        };
        assert_eq!(t.recorded, [recorded]);
        assert!(Transcript::parse(Path::new("t.wire"), "# recorded: notes\n").is_err());
        let orphan = "# recorded-stderr: notes hi\n";
        assert!(Transcript::parse(Path::new("t.wire"), orphan).is_err());
        assert_eq!(t.env, [("A".to_string(), "b=c".to_string())]);
        assert_eq!(t.stderr, ["timed out"]);
        assert_eq!(t.frames[0].direction, Direction::Stdout);
        assert_eq!(t.frames[0].bytes, b"tools (1):\n");
        assert_eq!(t.frames[1].bytes, b"\n");
    }

    #[test]
    fn rejects_unknown_markers_with_the_line_number() {
        let err = Transcript::parse(Path::new("t.wire"), "-> {}\n>> {}\n").unwrap_err();
        assert_eq!(err.line, 2);
        assert!(err.message.contains("starts with"), "{}", err.message);
        assert!(parse_bytes("*2").is_err());
        assert!(parse_bytes("0xzz").is_err());
    }
}
