//! The sandbox: a fence the operating system holds, whatever the command
//! line says. With Claude Code's `sandbox` settings enabled, each `Bash`
//! command runs inside bubblewrap (Linux): the whole filesystem read-only
//! but the working folder and a folder of its own for temporary files,
//! the paths of `denyRead` hidden, no network at all, and the one way out
//! an HTTP proxy outside that lets through the `allowedDomains` alone
//! (`wire_host::proxy`). A sandbox that cannot start refuses every `Bash`
//! call with the reason: never a silent run without it (the course's
//! choice; Claude Code warns and runs unsandboxed unless
//! `failIfUnavailable`). `Sandbox`, an extension of the harness, offers
//! `Bash` in chapter 10's place and runs it so.

use std::path::{Path, PathBuf};

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::Value;
use wire_host::bash::{self, Finished};
use wire_host::proxy::{self, BRIDGE, BRIDGE_PORT};
use wire_host::seams::{Call, Context, Extension, Harness, Outcome, Verdict};
use wire_host::session::Session;

/// The `sandbox` section of a settings file (the keys this harness reads).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Settings {
    pub enabled: bool,
    /// Where bubblewrap is, when it is not `bwrap` on the PATH.
    pub bwrap_path: Option<String>,
    pub filesystem: Filesystem,
    pub network: Network,
    // STRETCH(ch24/excluded): the commands that run outside the sandbox.
    #[cfg(feature = "stretch")]
    pub excluded_commands: Vec<String>,
    // END(ch24/excluded)
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Filesystem {
    pub allow_write: Vec<String>,
    pub deny_write: Vec<String>,
    pub deny_read: Vec<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Network {
    pub allowed_domains: Vec<String>,
}

/// The sandbox, as an extension of the harness: the settings, and the
/// wrapper every command runs in (or why there is none), made once at the
/// start (`start`).
pub struct Sandbox<'a> {
    pub session: &'a Session,
    pub settings: Settings,
    pub wrapper: Result<Vec<String>, String>,
}

// ANCHOR: extension
#[async_trait(?Send)]
impl Extension for Sandbox<'_> {
    fn tools(&self, tools: &mut Vec<Value>) {
        tools.push(bash::definition());
    }

    /// Claude Code's autoAllowBashIfSandboxed: in the sandbox, Bash needs
    /// no allow rule (deny and ask rules still hold).
    async fn gate(&self, _: &Harness<'_>, _: &Context, call: &mut Call) -> Verdict {
        if call.name() != bash::BASH || !self.settings.enabled {
            return Verdict::Pass;
        }
        // STRETCH(ch24/excluded): an excluded command is not sandboxed, so
        // it needs a rule like any other; a line says where it runs.
        // END(ch24/excluded)
        Verdict::Allow
    }

    async fn run(&self, _: &Harness<'_>, _: &Context, call: &mut Call) -> Option<Outcome> {
        if call.name() != bash::BASH {
            return None;
        }
        let finished = run(self, &call.tool_use.input).await;
        Some(finished.map(|finished| finished.result()))
    }
}
// ANCHOR_END: extension

// ANCHOR: domain
/// Whether the proxy lets a connection to `host` through: a pattern
/// `*.example.com` covers every name below example.com but not
/// example.com itself; any other pattern, that name alone. Case does not
/// count, nor a trailing dot.
pub fn host_allowed(patterns: &[String], host: &str) -> bool {
    let host = host.trim_end_matches('.').to_lowercase();
    // TODO(ch24/domain): true when some pattern covers `host`: one that
    // starts with "*." when host ends with "." and the rest; any other
    // when it equals host, ignoring case.
    let _ = (patterns, host);
    true
    // END(ch24/domain)
}
// ANCHOR_END: domain

/// A path of the settings as bubblewrap takes it: `~/` from the home
/// folder, relative to the working folder, or absolute.
fn resolve(path: &str, session: &Session) -> PathBuf {
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_default();
    match path.strip_prefix("~/") {
        Some(rest) => home.join(rest),
        None => session.workdir.join(path.trim_start_matches("./")),
    }
}

// ANCHOR: mounts
/// bubblewrap's arguments for the filesystem: everything read-only, then
/// the folders a command may write to mounted writable again, then what
/// it may not write read-only inside them, then what it may not read
/// hidden: an empty folder over a folder, an empty file over a file. Only
/// paths that exist can be mounted.
pub fn mounts(settings: &Filesystem, session: &Session, tmp: &Path) -> Vec<String> {
    let base = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"];
    let mut args: Vec<String> = base.map(String::from).to_vec();
    let paths = |list: &[String]| -> Vec<PathBuf> {
        let paths = list.iter().map(|path| resolve(path, session));
        paths.filter(|path| path.exists()).collect()
    };
    let mut writable = vec![session.workdir.clone(), tmp.to_path_buf()];
    writable.extend(paths(&settings.allow_write));
    // TODO(ch24/mounts): for each writable path, "--bind" it onto itself;
    // for each path of settings.deny_write, "--ro-bind" it onto itself;
    // for each of settings.deny_read, "--tmpfs" over a folder, or
    // "--ro-bind" "/dev/null" over a file. Every path as a string
    // (`display()`), and only those `paths` keeps.
    let _ = (writable, paths(&settings.deny_read));
    // END(ch24/mounts)
    args
}
// ANCHOR_END: mounts

// ANCHOR: wrapper
/// The whole wrapper a command runs in: a new session, process and
/// network namespace (the network is empty: no interface but loopback),
/// the mounts, `TMPDIR`; and with allowed domains, the proxy's socket
/// mounted in, the proxy variables set, and the harness itself first, as
/// the bridge from 127.0.0.1:3128 to the socket.
pub fn wrapper(settings: &Settings, session: &Session, tmp: &Path) -> Vec<String> {
    let bwrap = settings.bwrap_path.as_deref().unwrap_or("bwrap");
    let namespaces = [
        "--new-session",
        "--die-with-parent",
        "--unshare-pid",
        "--unshare-net",
    ];
    let mut args: Vec<String> = [bwrap]
        .into_iter()
        .chain(namespaces)
        .map(String::from)
        .collect();
    args.extend(mounts(&settings.filesystem, session, tmp));
    let tmp = tmp.display().to_string();
    args.extend(["--setenv", "TMPDIR", &tmp].map(String::from));
    // TODO(ch24/network): when settings.network.allowed_domains is not
    // empty: "--bind" the socket (session.folder.join("proxy.sock")) onto
    // itself; "--setenv" HTTP_PROXY, HTTPS_PROXY, http_proxy and
    // https_proxy to http://127.0.0.1:{BRIDGE_PORT}; then, last, "--",
    // this harness (`std::env::current_exe()`), BRIDGE and the socket.
    // Without domains, only "--".
    let _ = (BRIDGE, BRIDGE_PORT);
    args.push("--".to_string());
    // END(ch24/network)
    args
}
// ANCHOR_END: wrapper

/// Reads the `sandbox` settings and, when it is on, makes the wrapper,
/// starts the proxy for its allowed domains, and tries the sandbox once:
/// a line says what holds, or why Bash will be refused. `program` names
/// the harness in the proxy's messages.
pub fn start<'a>(
    program: &'static str,
    settings: Option<&Path>,
    session: &'a Session,
) -> Result<Sandbox<'a>, String> {
    let value = settings.map(wire_host::settings::read).transpose()?;
    let value = value.unwrap_or_default();
    let settings = Option::<Settings>::deserialize(&value["sandbox"])
        .map_err(|err| format!("the settings' sandbox: {err}"))?
        .unwrap_or_default();
    if !settings.enabled {
        let wrapper = Err("off".into());
        return Ok(Sandbox {
            session,
            settings,
            wrapper,
        });
    }
    let tmp = session.folder.join("tmp");
    let _ = std::fs::create_dir_all(&tmp);
    let wrapper = wrapper(&settings, session, &tmp);
    let domains = settings.network.allowed_domains.clone();
    if !domains.is_empty() {
        let allowed = move |host: &str| host_allowed(&domains, host);
        proxy::start(program, &session.folder.join("proxy.sock"), allowed)?;
    }
    let works = try_once(&wrapper);
    match &works {
        Ok(()) => println!(
            "sandbox: on (bubblewrap): writes to the working folder only{}; network: {}",
            extra(&settings.filesystem),
            match settings.network.allowed_domains.as_slice() {
                [] => "none".to_string(),
                domains => format!("through the proxy, to {}", domains.join(", ")),
            }
        ),
        Err(why) => println!("sandbox: cannot start: {why}; every Bash call will be refused"),
    }
    let wrapper = works.map(|()| wrapper);
    Ok(Sandbox {
        session,
        settings,
        wrapper,
    })
}

/// What the filesystem settings add to the start line.
fn extra(filesystem: &Filesystem) -> String {
    let mut text = String::new();
    for (label, list) in [
        (" and ", &filesystem.allow_write),
        ("; hidden: ", &filesystem.deny_read),
    ] {
        if !list.is_empty() {
            text += &format!("{label}{}", list.join(", "));
        }
    }
    text
}

/// Runs `true` in the sandbox: bubblewrap installed, user namespaces
/// allowed. The reason it is not, when it is not.
fn try_once(wrapper: &[String]) -> Result<(), String> {
    let (program, args) = wrapper.split_first().ok_or("no wrapper")?;
    let args: Vec<&String> = args.iter().take_while(|arg| *arg != "--").collect();
    let output = std::process::Command::new(program)
        .args(args)
        .args(["--", "true"])
        .output();
    match output {
        Err(err) => Err(format!(
            "{program}: {err} (Debian/Ubuntu: sudo apt-get install bubblewrap)"
        )),
        Ok(output) if output.status.success() => Ok(()),
        Ok(output) => Err(format!(
            "bwrap failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        )),
    }
}

// STRETCH(ch24/excluded): `excluded(command)`: whether the sandbox is on
// and some part of `command` (`wire_host::shell::subcommands`, without the
// assignments before it; the whole line when it cannot be split) is
// matched by an entry of excludedCommands, read as the pattern of a
// `Bash(...)` rule (`wire_host::permissions::rule_matches`); an entry
// written `Bash(...)` already is read as it is.
// END(ch24/excluded)

/// Runs one `Bash` call: in the sandbox when it is on; refused, with the
/// reason, when it is on and cannot start.
pub async fn run(sandbox: &Sandbox<'_>, input: &Value) -> Result<Finished, String> {
    let workdir = &sandbox.session.workdir;
    // STRETCH(ch24/excluded): an excluded command runs as if the sandbox
    // were off.
    // END(ch24/excluded)
    if !sandbox.settings.enabled {
        return bash::run(input, workdir).await;
    }
    match &sandbox.wrapper {
        Ok(wrapper) => bash::run_in(wrapper, input, workdir).await,
        Err(why) => Err(format!(
            "the sandbox cannot start ({why}), so Bash does not run"
        )),
    }
}
