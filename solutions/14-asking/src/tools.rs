//! The three tools that ask. Each is written once, against `Ask`: it does
//! not know whether its question travels as a request to the client or as
//! an input-required result, only what it asks and what each answer
//! means. Reading arguments, drafts and notes is given (`asking_tools`).

use serde_json::{Map, Value, json};

use crate::ask::{Ask, InputRequest, Stop, ask};
use crate::asking_tools::{argument, bad_answer, completion_text, markdown, note_text};
use crate::asking_tools::{publish_form, read_draft, root_uris, summary_request};
use crate::draft_tools::tool_result;
use crate::roots;
use crate::server::Server;

type Arguments = Map<String, Value>;
type Outcome = Result<Value, Stop>;

/// Runs the tool `name` (one of `asking_tools::NAMES`).
pub fn call(server: &Server, name: &str, arguments: &Arguments, asker: &mut dyn Ask) -> Outcome {
    match name {
        "publish_draft" => publish_draft(server, arguments, asker),
        "summarize_note" => summarize_note(server, arguments, asker),
        _ => export_draft(server, arguments, asker),
    }
}

// ANCHOR: publish
/// Asks the user to confirm, and publishes only on "accept": a declined
/// form and a dismissed one both leave the draft as it was. The model
/// asked for the publication; only the user can agree to it.
fn publish_draft(server: &Server, arguments: &Arguments, asker: &mut dyn Ask) -> Outcome {
    let draft = argument(arguments, "draft")?;
    let title = read_draft(server, draft)?["title"].clone();
    let message = format!("Publish {draft}, {title}? Choose who may read it.");
    let form = InputRequest::elicit(&message, publish_form());
    let answer = ask(asker, "confirm", form)?;
    let unpublished =
        |why: &str| tool_result(why.into(), json!({ "draft": draft, "published": false }));
    match answer["action"].as_str() {
        Some("accept") => {
            let visibility = match answer["content"]["visibility"].as_str() {
                Some(chosen @ ("team" | "everyone")) => chosen,
                _ => return Err(bad_answer("visibility must be \"team\" or \"everyone\"")),
            };
            let summary = format!("Published {draft}, {title}, for {visibility}.");
            let structured = json!({ "draft": draft, "published": true, "visibility": visibility });
            Ok(tool_result(summary, structured))
        }
        Some("decline") => Ok(unpublished("Not published: the user declined.")),
        Some("cancel") => Ok(unpublished("Not published: the user closed the form.")),
        _ => Err(bad_answer("action must be accept, decline or cancel")),
    }
}
// ANCHOR_END: publish

// ANCHOR: summarize
/// Asks the client's model for a summary, through the client: its user may
/// read the request, change it or refuse it, and the client picks the model.
fn summarize_note(server: &Server, arguments: &Arguments, asker: &mut dyn Ask) -> Outcome {
    let uri = argument(arguments, "uri")?;
    let text = note_text(server, uri)?;
    let request = InputRequest::sample(summary_request(&text));
    let answer = ask(asker, "summary", request)?;
    let summary = completion_text(&answer)?;
    let model = answer["model"].as_str().unwrap_or_default();
    let structured = json!({ "uri": uri, "summary": summary, "model": model });
    Ok(tool_result(summary.to_string(), structured))
}
// ANCHOR_END: summarize

// ANCHOR: export
/// Asks for the roots, and writes only inside one of them: the roots are
/// the folders the user chose to share, and a path that leaves them (by
/// `..` or a symlink) is refused before anything is written.
fn export_draft(server: &Server, arguments: &Arguments, asker: &mut dyn Ask) -> Outcome {
    let draft = argument(arguments, "draft")?;
    let path = argument(arguments, "path")?;
    let body = read_draft(server, draft)?;
    let answer = ask(asker, "roots", InputRequest::roots())?;
    let target = roots::confine(&root_uris(&answer)?, path).map_err(Stop::Refused)?;
    roots::write_new(&target, &markdown(&body))
        .map_err(|err| Stop::Refused(format!("cannot write {}: {err}", target.display())))?;
    let shown = target.display().to_string();
    let structured = json!({ "draft": draft, "path": shown });
    Ok(tool_result(
        format!("Wrote {draft} to {shown}."),
        structured,
    ))
}
// ANCHOR_END: export
