//! Text inside the XML tags a harness writes for its model: chapter 8's
//! skill catalogue (`<available_skills>`) and the `Skill` tool's answer
//! (`<skill_content>`), and from chapter 10 on what a hook adds
//! (`<system-reminder>`). Escaping and tags are format plumbing, no
//! chapter's lesson. Support-own: no chapter generates it.

use serde_json::{Value, json};

/// Text as XML element content: `&`, `<` and `>` escaped, so a skill's
/// description cannot close a tag or open one.
pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// What a hook adds for the model, as the hook wrote it, marked as the
/// harness's, not the user's.
pub fn reminder(text: &str) -> String {
    format!("<system-reminder>{text}</system-reminder>")
}

/// A tool's result with what hooks added beside its own output: each
/// text a block of its own, as a system reminder.
pub fn with_reminders(mut result: Value, texts: impl Iterator<Item = String>) -> Value {
    if let Some(content) = result["content"].as_array_mut() {
        content.extend(texts.map(|text| json!({ "type": "text", "text": reminder(&text) })));
    }
    result
}

#[cfg(test)]
mod tests {
    #[test]
    fn tags_in_text_stay_text() {
        assert_eq!(super::escape("a<b>&c"), "a&lt;b&gt;&amp;c");
    }
}
