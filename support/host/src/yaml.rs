//! strictyaml's subset of YAML, for SKILL.md and agent frontmatter: every
//! scalar is text, and what makes YAML surprising (flow style, anchors,
//! aliases, tags, a key twice) is refused. Chapter 8 uses it; it is a
//! guard, not that chapter's lesson, so it lives here (support-own: no
//! chapter generates it).

use std::collections::HashSet;

use saphyr_parser::{Event, Parser, Span};

// ANCHOR: yaml
/// A YAML value as strictyaml reads one without a schema: every scalar is
/// text (`12`, `yes` and `null` included), lists and mappings are block
/// style only, mapping keys are text and unique.
#[derive(Clone, Debug, PartialEq)]
pub enum Yaml {
    Text(String),
    List(Vec<Yaml>),
    Map(Vec<(String, Yaml)>),
}

impl Yaml {
    /// The value as JSON: text a string, a list an array, a mapping an
    /// object with the same fields (chapter 18's server writes a skill's
    /// frontmatter so, and chapter 21's host compares it so).
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            Yaml::Text(text) => text.clone().into(),
            Yaml::List(items) => items.iter().map(Yaml::to_json).collect(),
            Yaml::Map(fields) => (fields.iter())
                .map(|(key, value)| (key.clone(), value.to_json()))
                .collect::<serde_json::Map<_, _>>()
                .into(),
        }
    }
}

/// Parses one YAML document; `None` when it holds no value at all.
pub fn parse_yaml(source: &str) -> Result<Option<Yaml>, String> {
    let chars: Vec<char> = source.chars().collect();
    let mut events = Events {
        parser: Parser::new_from_str(source),
        chars,
        depth: 0,
    };
    let mut value = None;
    loop {
        match events.next()? {
            (Event::StreamStart | Event::DocumentStart(_) | Event::DocumentEnd, _) => {}
            (Event::StreamEnd, _) => return Ok(value),
            (_, _) if value.is_some() => return Err("invalid YAML: more than one document".into()),
            (event, span) => value = Some(events.node(event, span)?),
        }
    }
}

/// How deep lists and mappings may nest: a frontmatter needs two levels,
/// and a file of ten thousand `- ` must not overflow the stack.
const MAX_DEPTH: usize = 32;

/// The parser's events, with the source to look at where each one starts.
struct Events<'a> {
    parser: Parser<'a, saphyr_parser::StrInput<'a>>,
    chars: Vec<char>,
    /// Lists and mappings open around the current event.
    depth: usize,
}

impl<'a> Events<'a> {
    fn next(&mut self) -> Result<(Event<'a>, Span), String> {
        match self.parser.next_event() {
            Some(Ok(event)) => Ok(event),
            Some(Err(err)) => Err(format!(
                "invalid YAML: {} (line {}, column {})",
                err.info(),
                err.marker().line(),
                err.marker().col() + 1
            )),
            None => Ok((Event::StreamEnd, Span::default())),
        }
    }

    /// One value, starting with `event`. Refuses, as strictyaml does, what
    /// makes YAML surprising: anchors, aliases, tags and flow style.
    fn node(&mut self, event: Event<'a>, span: Span) -> Result<Yaml, String> {
        let line = span.start.line();
        let refused = |what: &str| {
            Err(format!(
                "invalid YAML: {what} (line {line}); strictyaml refuses it"
            ))
        };
        let (anchor, tag) = match &event {
            Event::Scalar(_, _, anchor, tag) => (*anchor, tag.is_some()),
            Event::SequenceStart(anchor, tag) | Event::MappingStart(anchor, tag) => {
                (*anchor, tag.is_some())
            }
            Event::Alias(_) => return refused("an alias (*name)"),
            _ => return Err(format!("invalid YAML: unexpected {event:?} (line {line})")),
        };
        if anchor != 0 {
            return refused("an anchor (&name)");
        }
        if tag {
            return refused("a tag (!name)");
        }
        // A flow collection starts at its bracket; a block one at its
        // first item.
        if matches!(self.chars.get(span.start.index()), Some('{' | '[')) {
            return refused("flow style ({...} or [...])");
        }
        if let Event::Scalar(text, ..) = event {
            return Ok(Yaml::Text(text.into_owned()));
        }
        if self.depth == MAX_DEPTH {
            return Err(format!(
                "invalid YAML: nested more than {MAX_DEPTH} levels deep (line {line})"
            ));
        }
        self.depth += 1;
        let collection = self.collection(event);
        self.depth -= 1;
        collection
    }

    /// The items of a list, or the fields of a mapping, up to its end.
    fn collection(&mut self, event: Event<'a>) -> Result<Yaml, String> {
        match event {
            Event::SequenceStart(..) => {
                let mut items = Vec::new();
                loop {
                    match self.next()? {
                        (Event::SequenceEnd, _) => return Ok(Yaml::List(items)),
                        (event, span) => items.push(self.node(event, span)?),
                    }
                }
            }
            _ => {
                let mut fields: Vec<(String, Yaml)> = Vec::new();
                // The keys so far, for the duplicate check: one lookup per
                // key, where scanning `fields` made 60,000 keys cost seconds
                // at every start (issue 19).
                let mut seen: HashSet<String> = HashSet::new();
                loop {
                    let (key, span) = match self.next()? {
                        (Event::MappingEnd, _) => return Ok(Yaml::Map(fields)),
                        (key, span) => (self.node(key, span)?, span),
                    };
                    let Yaml::Text(key) = key else {
                        return Err(format!(
                            "invalid YAML: a key that is not text (line {})",
                            span.start.line()
                        ));
                    };
                    if !seen.insert(key.clone()) {
                        return Err(format!(
                            "invalid YAML: the key {key:?} appears twice (line {})",
                            span.start.line()
                        ));
                    }
                    let (event, span) = self.next()?;
                    let value = self.node(event, span)?;
                    fields.push((key, value));
                }
            }
        }
    }
}
// ANCHOR_END: yaml

#[cfg(test)]
mod tests {
    use super::*;

    /// The fields of a mapping document.
    fn fields(yaml: &str) -> Result<Vec<(String, Yaml)>, String> {
        match parse_yaml(yaml)? {
            Some(Yaml::Map(fields)) => Ok(fields),
            other => Err(format!("not a mapping: {other:?}")),
        }
    }

    #[test]
    fn many_keys_are_checked_for_duplicates_in_linear_time() {
        // 60,000 distinct keys, then one repeated: found, and named. With a
        // scan of the fields so far this took seconds; a set takes milliseconds.
        let mut yaml: String = (0..60_000).map(|i| format!("k{i}: v\n")).collect();
        yaml += "k59999: again\n";
        let err = fields(&yaml).unwrap_err();
        assert!(
            err.contains("the key \"k59999\" appears twice (line 60001)"),
            "{err}"
        );
    }

    #[test]
    fn every_scalar_is_text() {
        let parsed = fields("name: a\ndescription: 12\nmetadata:\n  v: 1.0\n  on: yes\n").unwrap();
        let meta = Yaml::Map(vec![
            ("v".into(), Yaml::Text("1.0".into())),
            ("on".into(), Yaml::Text("yes".into())),
        ]);
        assert_eq!(parsed[1].1, Yaml::Text("12".into()));
        assert_eq!(parsed[2].1, meta);
    }

    #[test]
    fn refuses_what_strictyaml_refuses() {
        for (yaml, why) in [
            ("a: {b: c}\n", "flow style"),
            ("a: [b]\n", "flow style"),
            ("a: &x b\n", "an anchor"),
            ("a: !!str b\n", "a tag"),
            ("a: b\na: c\n", "appears twice"),
            ("a: Use when: x\n", "invalid YAML"),
        ] {
            let err = fields(yaml).unwrap_err();
            assert!(err.contains(why), "{yaml:?}: {err}");
        }
    }

    #[test]
    fn reads_multi_line_and_quoted_values() {
        let parsed = fields("a: one\n  two\nb: |\n  x\n  y\nc: \"Use when: x\"\nd:\n").unwrap();
        let texts: Vec<&Yaml> = parsed.iter().map(|(_, value)| value).collect();
        let want = ["one two", "x\ny\n", "Use when: x", ""].map(|t| Yaml::Text(t.into()));
        assert_eq!(texts, want.iter().collect::<Vec<_>>());
    }

    #[test]
    fn deep_nesting_is_refused_not_a_stack_overflow() {
        let deep = format!("a:\n  {}x\n", "- ".repeat(100_000));
        assert!(fields(&deep).unwrap_err().contains("levels deep"));
    }
}
