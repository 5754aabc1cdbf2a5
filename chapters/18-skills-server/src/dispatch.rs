//! Chapter 13's server, with skills. A 2026-07-28 request for `skills/list`,
//! `skills/get`, `resources/directory/read` or a `skill://` resource is answered from `--skills-dir`
//! (`skills.rs`); `server/discover` declares the extension. Everything
//! else, and every request of the handshake era, is chapter 12's `Server`.

use serde_json::{Value, json};

use crate::http::{Answer, Handler};
use crate::jsonrpc::{self, Message, Reply, RpcError};
use crate::modern;
use crate::server::{Era, Handshake, Server};
use crate::skills::{SCHEME, SKILLS, Skills};

pub struct SkillServer {
    pub server: Server,
    pub skills: Skills,
}

impl SkillServer {
    // ANCHOR: request
    /// One request in the era its transport decided. The extension is
    /// 2026-07-28's: over the handshake era `skills/list` is an unknown
    /// method and a `skill://` URI an unknown resource, as before.
    pub fn request(
        &self,
        method: &str,
        params: Option<Value>,
        era: Era,
    ) -> Result<Value, RpcError> {
        let uri = params.as_ref().and_then(|params| params["uri"].as_str());
        let read = method == "resources/read" && uri.is_some_and(|uri| uri.starts_with(SCHEME));
        let listed = matches!(
            method,
            "skills/list" | "skills/get" | "resources/directory/read"
        );
        let ours = read || listed;
        if !ours || !matches!(era, Era::Modern) {
            let mut result = self.server.handle_request(method, params, era);
            if let Ok(result) = &mut result
                && method == "server/discover"
                && result.get("capabilities").is_some()
            {
                // `resources` is declared already: skill files are resources.
                let skills = json!({ "directoryRead": true });
                result["capabilities"]["extensions"] = json!({ SKILLS: skills });
            }
            return result;
        }
        modern::check_meta(params.as_ref())?;
        let result = match method {
            "skills/list" => self.skills.list(params),
            "skills/get" => self.skills.get(params),
            "resources/directory/read" => self.skills.directory(uri.unwrap_or_default()),
            _ => self.skills.read(uri.unwrap_or_default()),
        };
        result
            .map(|result| modern::complete(method, result))
            .map_err(modern::renumbered)
    }
    // ANCHOR_END: request

    /// One line from stdin, as chapter 12's `Server::handle_line` reads it.
    pub fn handle_line(&self, line: &[u8], handshake: &mut Handshake) -> Option<Reply> {
        if line.iter().all(u8::is_ascii_whitespace) {
            return None; // A blank line carries no message.
        }
        let message = match jsonrpc::parse(line) {
            Err(reply) => return Some(handshake.for_revision(reply)),
            Ok(message) => message,
        };
        let era = handshake.era(&message);
        match message {
            Message::Request { id, method, params } => {
                Some(Reply::new(id, self.request(&method, params, era)))
            }
            other => self.server.handle(other, era),
        }
    }
}

/// What HTTP serves: nothing to say before a reply.
impl Handler for SkillServer {
    fn request(&self, method: &str, params: Option<Value>, era: Era) -> Answer {
        (Vec::new(), self.request(method, params, era))
    }
    fn notification(&self, method: &str) {
        self.server.handle_notification(method);
    }
}
