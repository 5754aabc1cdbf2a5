//! What every conformance binary's `main` reads the same way (`#[path]`-
//! included by each, as `fixtures.rs` is): `--listen` and `--state`. Each
//! runs its transport with `wire_server::http_util::run`, as the chapters do.

use std::net::SocketAddr;
use std::path::PathBuf;

/// `--listen ADDR` and `--state DIR`, each at most once.
pub fn options(args: Vec<String>) -> Result<(SocketAddr, Option<PathBuf>), String> {
    let (mut listen, mut state) = (None, None);
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let slot = match arg.as_str() {
            "--listen" => &mut listen,
            "--state" => &mut state,
            _ => return Err(format!("unknown argument {arg:?}")),
        };
        let value = args.next().ok_or(format!("{arg} needs a value"))?;
        if slot.replace(value).is_some() {
            return Err(format!("{arg} may be given only once"));
        }
    }
    let listen = listen.as_deref().unwrap_or("127.0.0.1:3000");
    let listen = listen
        .parse()
        .map_err(|_| format!("--listen needs an address such as 127.0.0.1:3000, not {listen:?}"))?;
    Ok((listen, state.map(PathBuf::from)))
}
