//! Text inside the XML tags a harness writes for its model: chapter 8's
//! skill catalogue (`<available_skills>`) and the `Skill` tool's answer
//! (`<skill_content>`). Escaping is format plumbing, no chapter's lesson.
//! Support-own: no chapter generates it.

/// Text as XML element content: `&`, `<` and `>` escaped, so a skill's
/// description cannot close a tag or open one.
pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    #[test]
    fn tags_in_text_stay_text() {
        assert_eq!(super::escape("a<b>&c"), "a&lt;b&gt;&amp;c");
    }
}
