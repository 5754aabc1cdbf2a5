//! Skills over MCP: the extension `io.modelcontextprotocol/skills`, for
//! 2026-07-28. A folder of skill folders (`--skills-dir`) is served file by
//! file as `skill://<skill-path>/<file-path>` resources, and `skills/list`
//! and `skills/get` answer with each skill's entry: its frontmatter as
//! JSON and a manifest of every file with the SHA-256 digest of its bytes.
//! Chapter 8's validator decides which skills are served.

use std::fs;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::{Map, Value, json};
use wire_host::skills;
use wire_host::yaml::Yaml;

use crate::SERVER_NAME;
use crate::base64;
use crate::folder::{confine, not_found};
use crate::jsonrpc::{INTERNAL_ERROR, RpcError};
use crate::paging::{list_params, page};

/// The extension's identifier, under `capabilities.extensions`.
pub const SKILLS: &str = "io.modelcontextprotocol/skills";
/// The scheme the extension recommends (a SHOULD): one URI per file.
pub const SCHEME: &str = "skill://";
const SKILL_MD: &str = "SKILL.md";
/// How long a listing or an entry stays fresh, in ms (a hint): a minute, as
/// for `resources/read`, since a skill's files may change under us.
const TTL_MS: u64 = 60_000;

pub struct Skills {
    /// The skills folder, absolute, symlinks resolved: nothing outside it
    /// is ever read.
    root: PathBuf,
    /// The skill paths served (`git-workflow`, `acme/billing/refunds`), sorted.
    paths: Vec<String>,
}

/// `skills/get` takes the URI of a skill's SKILL.md.
#[derive(Deserialize)]
struct GetParams {
    uri: String,
}

impl Skills {
    /// Finds the skills under `dir` (none without `--skills-dir`); stderr
    /// says why each SKILL.md that breaks chapter 8's rules is not served.
    pub fn open(dir: Option<PathBuf>) -> Result<Skills, String> {
        let Some(dir) = dir else {
            return Ok(Skills {
                root: PathBuf::new(),
                paths: Vec::new(),
            });
        };
        let root = dir
            .canonicalize()
            .ok()
            .filter(|root| root.is_dir())
            .ok_or(format!("--skills-dir {}: not a folder", dir.display()))?;
        let mut paths = Vec::new();
        find(&root, "", &mut paths);
        paths.sort();
        Ok(Skills { root, paths })
    }

    // ANCHOR: list
    /// `skills/list`: one page of entries, each skill whole on its page.
    pub fn list(&self, params: Option<Value>) -> Result<Value, RpcError> {
        let params = list_params(params)?;
        let keys: Vec<&str> = self.paths.iter().map(String::as_str).collect();
        let (range, next_cursor) = page(&keys, params.cursor.as_deref())?;
        let skills = keys[range]
            .iter()
            .map(|path| self.entry(path))
            .collect::<Result<Vec<_>, _>>()?;
        let mut result = json!({ "skills": skills });
        if let Some(next_cursor) = next_cursor {
            result["nextCursor"] = next_cursor.into();
        }
        Ok(cacheable(result))
    }
    // ANCHOR_END: list

    // ANCHOR: get
    /// `skills/get`: the entry of the skill whose SKILL.md `uri` names.
    pub fn get(&self, params: Option<Value>) -> Result<Value, RpcError> {
        let params = params.unwrap_or_default();
        let GetParams { uri } = serde_json::from_value(params).map_err(RpcError::invalid_params)?;
        // GAP(ch18/get): find the served skill whose SKILL.md `uri` names
        // (the URI is `skill://` + the skill path + `/SKILL.md`, nothing
        // else) and answer `{"skill": its entry}`, cacheable. A URI that
        // names no served skill, or a file that is not its SKILL.md, is
        // -32602 with the URI in the message and in `data`.
        // starter: let _ = (uri, cacheable(json!({})));
        // starter: Err(RpcError::new(-32603, "TODO(ch18/get)".into()))
        let path = uri
            .strip_prefix(SCHEME)
            .and_then(|rest| rest.strip_suffix("/SKILL.md"))
            .filter(|path| self.paths.iter().any(|served| served == path));
        match path {
            Some(path) => Ok(cacheable(json!({ "skill": self.entry(path)? }))),
            None => Err(
                RpcError::invalid_params(format!("No skill is served at {uri}"))
                    .with_data(json!({ "uri": uri })),
            ),
        }
        // END(ch18/get)
    }
    // ANCHOR_END: get

    // ANCHOR: read
    /// `resources/read` of a `skill://` URI: a file of a served skill, read
    /// through `confine`, so nothing outside the skills folder is opened.
    pub fn read(&self, uri: &str) -> Result<Value, RpcError> {
        let (path, file) = self.owner(uri).ok_or_else(|| not_found(uri))?;
        let bytes = self.bytes(path, file)?;
        let content = match String::from_utf8(bytes) {
            Ok(text) => json!({ "uri": uri, "mimeType": mime_type(file), "text": text }),
            Err(binary) => json!({
                "uri": uri,
                "mimeType": "application/octet-stream",
                "blob": base64::encode(binary.as_bytes()),
            }),
        };
        Ok(json!({ "contents": [content] }))
    }
    // ANCHOR_END: read

    // ANCHOR: directory
    /// `resources/directory/read`: the direct children of a folder of a
    /// served skill (its root is `skill://<skill-path>`, without a trailing
    /// slash). Files as resources, folders as `inode/directory`; anything
    /// else, or a folder reached through a symlink, is -32602.
    pub fn directory(&self, uri: &str) -> Result<Value, RpcError> {
        let rest = uri.strip_prefix(SCHEME).unwrap_or_default();
        let in_a_skill = self.paths.iter().any(|path| {
            rest.strip_prefix(path.as_str())
                .is_some_and(|after| after.is_empty() || after.starts_with('/'))
        });
        let plain =
            !rest.contains(['%', '\\']) && !rest.split('/').any(|s| matches!(s, "" | "." | ".."));
        let folder = self.root.join(rest);
        let real = folder.canonicalize().is_ok_and(|real| real == folder);
        if !(in_a_skill && plain && real && folder.is_dir()) {
            let why = format!("{uri} is not a directory resource");
            return Err(RpcError::invalid_params(why).with_data(json!({ "uri": uri })));
        }
        let mut children = Vec::new();
        for item in fs::read_dir(&folder).into_iter().flatten().flatten() {
            let Ok(name) = item.file_name().into_string() else {
                continue;
            };
            let child = format!("{uri}/{name}");
            let mime = if item.file_type().is_ok_and(|kind| kind.is_dir()) {
                "inode/directory"
            } else if confine(&self.root, &format!("{rest}/{name}"), &child).is_ok() {
                mime_type(&name)
            } else {
                continue; // Not served: the manifest leaves it out too.
            };
            children.push(json!({ "uri": child, "name": name, "mimeType": mime }));
        }
        children.sort_by(|a, b| a["uri"].as_str().cmp(&b["uri"].as_str()));
        Ok(json!({ "resources": children }))
    }
    // ANCHOR_END: directory

    // ANCHOR: owner
    /// The served skill a `skill://` URI belongs to, and the file's path
    /// inside that skill's folder. `None`: no served skill holds it.
    fn owner<'a>(&self, uri: &'a str) -> Option<(&str, &'a str)> {
        // GAP(ch18/uri): a URI is `skill://` + a served skill's path + `/` +
        // the file's path inside it. Find that skill and split the URI
        // there. The file of a skill that is not served (an invalid one),
        // or a URI whose path only starts with a skill's name
        // (`skill://git-workflow-old/...`), belongs to none.
        // starter: let _ = (uri, &self.paths);
        // starter: None
        let rest = uri.strip_prefix(SCHEME)?;
        self.paths.iter().find_map(|path| {
            let file = rest.strip_prefix(path.as_str())?.strip_prefix('/')?;
            Some((path.as_str(), file))
        })
        // END(ch18/uri)
    }
    // ANCHOR_END: owner

    /// A file of the skill at `path`, confined to the skills folder: a
    /// symlink that leads out, `..`, a FIFO or a folder is an error.
    fn bytes(&self, path: &str, file: &str) -> Result<Vec<u8>, RpcError> {
        let uri = format!("{SCHEME}{path}/{file}");
        let found = confine(&self.root, &format!("{path}/{file}"), &uri)?;
        fs::read(found).map_err(|err| {
            eprintln!("{SERVER_NAME}: cannot read {uri}: {err}");
            RpcError::internal(format!("cannot read {uri}"))
        })
    }

    // ANCHOR: entry
    /// The entry of the skill at `path`: the URI of its SKILL.md, its
    /// frontmatter, and every file of its folder, read now.
    fn entry(&self, path: &str) -> Result<Value, RpcError> {
        let uri = format!("{SCHEME}{path}/{SKILL_MD}");
        let mut files = Vec::new();
        self.manifest(path, "", &mut files);
        files.sort();
        // GAP(ch18/entry): the entry is `{uri, frontmatter, resources}`.
        // `frontmatter` is SKILL.md's frontmatter as a JSON object, every
        // field the author wrote (chapter 8's `frontmatter::split`, then
        // `to_json`). `resources` lists each of `files` once, SKILL.md
        // included, as `{uri, digest, size}`: the digest is
        // `sha256:` + the lowercase hex SHA-256 of the file's raw bytes,
        // and the size their length.
        // starter: let _ = (uri, files, to_json(&Yaml::Text(String::new())));
        // starter: Err(RpcError::new(-32603, "TODO(ch18/entry)".into()))
        use sha2::{Digest, Sha256};
        use wire_host::frontmatter;
        let text = String::from_utf8_lossy(&self.bytes(path, SKILL_MD)?).into_owned();
        let (fields, _body) = frontmatter::split(&text, SKILL_MD)
            .map_err(|why| RpcError::new(INTERNAL_ERROR, format!("{uri}: {why}")))?;
        let mut resources = Vec::new();
        for file in files {
            let bytes = self.bytes(path, &file)?;
            resources.push(json!({
                "uri": format!("{SCHEME}{path}/{file}"),
                "digest": format!("sha256:{:x}", Sha256::digest(&bytes)),
                "size": bytes.len(),
            }));
        }
        Ok(json!({
            "uri": uri,
            "frontmatter": to_json(&Yaml::Map(fields)),
            "resources": resources,
        }))
        // END(ch18/entry)
    }
    // ANCHOR_END: entry

    /// Adds the files under `relative` inside the skill at `path` to
    /// `files`, as paths inside the skill, nested skills' files included.
    /// A file `confine` refuses is left out, and stderr says so.
    fn manifest(&self, path: &str, relative: &str, files: &mut Vec<String>) {
        let Ok(items) = fs::read_dir(self.root.join(path).join(relative)) else {
            return;
        };
        for item in items.flatten() {
            let Ok(name) = item.file_name().into_string() else {
                continue; // A name that is not UTF-8 cannot be part of a URI.
            };
            let file = match relative {
                "" => name,
                _ => format!("{relative}/{name}"),
            };
            // file_type does not follow a symlink: a linked folder is not walked.
            let uri = format!("{SCHEME}{path}/{file}");
            if item.file_type().is_ok_and(|kind| kind.is_dir()) {
                self.manifest(path, &file, files);
            } else if confine(&self.root, &format!("{path}/{file}"), &uri).is_ok() {
                files.push(file);
            } else {
                eprintln!(
                    "{SERVER_NAME}: not serving {uri}: not a regular file inside the skills folder"
                );
            }
        }
    }
}

/// Adds each valid skill under `relative` (a folder inside `root`) to
/// `paths`; stderr says why any other SKILL.md is not served. Hidden and
/// symlinked folders are not walked.
fn find(root: &Path, relative: &str, paths: &mut Vec<String>) {
    let dir = root.join(relative);
    let skill_md = dir.join(SKILL_MD);
    if !relative.is_empty() && fs::symlink_metadata(&skill_md).is_ok() {
        let uri = format!("{SCHEME}{relative}/{SKILL_MD}");
        let checked = confine(root, &format!("{relative}/{SKILL_MD}"), &uri)
            .map_err(|_| "SKILL.md: not a regular file inside the skills folder".to_string())
            .and_then(|_| skills::read_skill(&dir));
        match checked {
            Ok(_) => paths.push(relative.to_string()),
            Err(why) => eprintln!("{SERVER_NAME}: not serving {uri}: {why}"),
        }
    }
    let Ok(items) = fs::read_dir(&dir) else {
        return;
    };
    for item in items.flatten() {
        let Ok(name) = item.file_name().into_string() else {
            continue;
        };
        if item.file_type().is_ok_and(|kind| kind.is_dir()) && !name.starts_with('.') {
            let path = match relative {
                "" => name,
                _ => format!("{relative}/{name}"),
            };
            find(root, &path, paths);
        }
    }
}

/// A file's type by its name: Markdown, or plain text.
fn mime_type(file: &str) -> &'static str {
    if file.ends_with(".md") {
        "text/markdown"
    } else {
        "text/plain"
    }
}

// ANCHOR: to_json
/// Chapter 8's YAML as JSON: its subset knows text, lists and mappings
/// (every scalar is text, as in strictyaml), so a mapping becomes an
/// object with the same fields, a list an array, text a string.
fn to_json(yaml: &Yaml) -> Value {
    match yaml {
        Yaml::Text(text) => Value::String(text.clone()),
        Yaml::List(items) => items.iter().map(to_json).collect(),
        Yaml::Map(fields) => {
            let fields = fields
                .iter()
                .map(|(key, value)| (key.clone(), to_json(value)));
            Value::Object(fields.collect::<Map<_, _>>())
        }
    }
}
// ANCHOR_END: to_json

/// A listing or an entry, with 2026-07-28's caching hints: both results
/// are `CacheableResult`s, so `ttlMs` and `cacheScope` are required.
fn cacheable(mut result: Value) -> Value {
    result["ttlMs"] = TTL_MS.into();
    result["cacheScope"] = "public".into();
    result
}
