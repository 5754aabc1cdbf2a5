//! What every conformance binary's `main` does the same way (`#[path]`-
//! included by each, as `fixtures.rs` is): read `--listen` and `--state`,
//! and run its transport's `serve` on a tokio runtime until it stops.

use std::future::Future;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

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

/// Runs `serve` (the transport's, until Ctrl-C or SIGTERM) on a
/// multi-threaded runtime; `name` starts every line it logs.
pub fn run(name: &str, serve: impl Future<Output = Result<(), String>>) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("{name}: cannot start the runtime: {err}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(serve) {
        Ok(()) => ExitCode::SUCCESS,
        Err(problem) => {
            eprintln!("{name}: {problem}");
            ExitCode::FAILURE
        }
    }
}
