//! Opening a server: which era it speaks. A client of 2026-07-28 asks
//! first (`server/discover`, with its `_meta`, no handshake); a server of
//! an older revision answers that with an error, and the client falls back
//! to chapter 2's handshake, `initialize`, asking for 2025-11-25 and
//! living with 2025-06-18 if that is what the server chooses.

use serde_json::{Value, json};
use wire_host::remote::{self, Server, list_tools, modern_meta};
use wire_host::transport::{Link, MODERN};

/// The revisions `initialize` asks for and accepts, newest first.
const LEGACY: [&str; 2] = ["2025-11-25", "2025-06-18"];

/// UnsupportedProtocolVersionError: only a modern server sends it
/// (2026-07-28, basic/versioning), naming the versions it speaks.
const UNSUPPORTED_VERSION: i64 = -32022;

/// What this client can answer, in both eras: a form, the roots, and
/// (unless `--no-sampling`) the model.
pub fn capabilities(sampling: bool) -> Value {
    let mut capabilities = json!({ "elicitation": {}, "roots": {} });
    if sampling {
        capabilities["sampling"] = json!({});
    }
    capabilities
}

/// Opens the link, finds the era (`legacy`: initialize, no probe), lists
/// the tools; says the era on stdout.
pub async fn open(
    name: &str,
    link: Link,
    capabilities: &Value,
    legacy: bool,
) -> Result<Server, String> {
    let found = match legacy {
        true => initialize(&link, capabilities, "--legacy".to_string()).await,
        false => era(&link, capabilities).await,
    };
    let (era, info, how) = match found {
        Ok(found) => found,
        Err(err) => {
            link.shutdown().await;
            return Err(err);
        }
    };
    println!("era {name}: {era} ({how})");
    let meta = (era == MODERN).then(|| modern_meta(capabilities));
    let tools = list_tools(&link, meta.as_ref()).await?;
    Ok(Server {
        name: name.to_string(),
        link,
        era,
        info,
        tools,
        meta,
    })
}

// ANCHOR: era
/// The era, the server's `serverInfo`, and how they were found.
async fn era(link: &Link, capabilities: &Value) -> Result<(String, Value, String), String> {
    let probe = json!({ "_meta": modern_meta(capabilities) });
    let answer = link
        .request_raw("server/discover", Some(probe.clone()))
        .await?;
    // GAP(ch15/discover): first, an error UNSUPPORTED_VERSION is a modern
    // server's answer, not a reason to fall back: when its data.supported
    // names MODERN, probe once more; when it names no LEGACY version
    // either, an Err that names them. Then a result whose
    // supportedVersions holds MODERN: that era, serverInfo from the _meta
    // ("io.modelcontextprotocol/serverInfo"), how "server/discover". A
    // result without it, or an error reply (an old server: -32601, or HTTP
    // 404/400 as data.httpStatus): fall back to `initialize(link,
    // capabilities, why)`, `why` one of "server/discover lists no
    // 2026-07-28", "server/discover: HTTP {status}", "server/discover:
    // {code} {message}". (A failure to talk at all was an Err above.)
    // starter: let _ = (answer, initialize, MODERN, probe);
    // starter: Err("TODO(ch15/discover)".to_string())
    let answer = match answer {
        Err(error) if error["code"] == UNSUPPORTED_VERSION => {
            let supported = error["data"]["supported"].clone();
            let names = |version: &str| {
                supported
                    .as_array()
                    .is_some_and(|all| all.contains(&json!(version)))
            };
            if names(MODERN) {
                link.request_raw("server/discover", Some(probe)).await?
            } else if LEGACY.iter().any(|version| names(version)) {
                Err(error)
            } else {
                return Err(format!("server {} speaks only {supported}", link.name));
            }
        }
        answer => answer,
    };
    let why = match answer {
        Ok(result) => {
            let versions = result["supportedVersions"].as_array();
            if versions.is_some_and(|versions| versions.contains(&json!(MODERN))) {
                let info = result["_meta"]["io.modelcontextprotocol/serverInfo"].clone();
                return Ok((MODERN.to_string(), info, "server/discover".to_string()));
            }
            format!("server/discover lists no {MODERN}")
        }
        Err(error) => match error["data"]["httpStatus"].as_u64() {
            Some(status) => format!("server/discover: HTTP {status}"),
            None => format!(
                "server/discover: {} {}",
                error["code"],
                error["message"].as_str().unwrap_or("")
            ),
        },
    };
    initialize(link, capabilities, why).await
    // END(ch15/discover)
}
// ANCHOR_END: era

/// Chapter 2's handshake (`wire_host::remote::initialize`), with why.
async fn initialize(
    link: &Link,
    capabilities: &Value,
    why: String,
) -> Result<(String, Value, String), String> {
    let (version, info) = remote::initialize(link, capabilities, &LEGACY).await?;
    Ok((version, info, format!("{why}; initialize")))
}
