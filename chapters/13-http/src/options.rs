//! The command line every server from chapter 13 on keeps. A later one
//! takes its own flags out first (`wire_server::flags::take_flag`).

use std::net::SocketAddr;
use std::path::PathBuf;

/// What the command line decided about who may talk to us.
pub struct Guard {
    /// `--token` or `WIRE_TOKEN`: every request must carry it as a bearer token.
    pub token: Option<String>,
    /// `--allow-origin`: browser origins trusted beyond loopback.
    pub allowed_origins: Vec<String>,
}

// ANCHOR: options
/// What the command line asks for.
pub struct Options {
    /// `--listen ADDR`: HTTP there; `None`: stdio.
    pub listen: Option<SocketAddr>,
    pub guard: Guard,
    /// `--notes-dir DIR`: notes to serve, read-only.
    pub notes: Option<PathBuf>,
    /// `--state DIR`: the state folder.
    pub state: Option<PathBuf>,
}

pub fn options(args: Vec<String>) -> Result<Options, String> {
    let (mut listen, mut token, mut notes, mut state) = (None, None, None, None);
    let mut allowed_origins = Vec::new();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let slot = match arg.as_str() {
            "--allow-origin" => {
                allowed_origins.push(args.next().ok_or("--allow-origin needs an origin")?);
                continue;
            }
            "--listen" => &mut listen,
            "--token" => &mut token,
            "--notes-dir" => &mut notes,
            "--state" => &mut state,
            _ => return Err(format!("unknown argument {arg:?}")),
        };
        let value = args.next().ok_or(format!("{arg} needs a value"))?;
        if slot.replace(value).is_some() {
            return Err(format!("{arg} may be given only once"));
        }
    }
    let listen = match listen {
        None if token.is_some() || !allowed_origins.is_empty() => {
            return Err("--token and --allow-origin guard HTTP: give --listen ADDR too".into());
        }
        None => None,
        Some(listen) => Some(listen.parse().map_err(|_| {
            format!("--listen needs an address such as 127.0.0.1:3000, not {listen:?}")
        })?),
    };
    // The environment keeps the token out of `ps` and shell history.
    let token = token
        .or_else(|| std::env::var("WIRE_TOKEN").ok())
        .filter(|token| !token.is_empty());
    Ok(Options {
        listen,
        guard: Guard {
            token,
            allowed_origins,
        },
        notes: notes.map(PathBuf::from),
        state: state.map(PathBuf::from),
    })
}
// ANCHOR_END: options
