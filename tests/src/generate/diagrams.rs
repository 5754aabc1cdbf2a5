//! Sequence diagrams drawn from transcripts, as SVG written by Rust.
//!
//! A picture can drift from the code like prose can, so the book's pictures
//! are drawn from the transcripts the tests check: one lane per party
//! (model, host or client, each server by its channel, the hooks), one
//! arrow per step of [`crate::generate::views::steps`], numbered as the frame view
//! numbers them. Requests are solid arrows, replies dashed, notifications
//! open-headed, errors red; a bar on the sender's lane shows how long it
//! waits for each request: the client's pending map.
//!
//! The SVG is inlined in the page (no script, no CDN) and draws in
//! `currentColor`, so it follows the book's light and dark themes.

use std::fmt::Write as _;
use std::fs;
use std::path::PathBuf;

use serde_json::Value;

use crate::course::{self, Chapter};
use crate::generate::views::{self, Step, Style};
use crate::run::transcript::{Direction, Runner, Transcript};

/// The transcripts drawn as sequence diagrams: `(chapter id, scenario)`.
pub const SEQUENCES: &[(&str, &str)] = &[
    ("ch02", "tour"),
    ("ch03", "tour"),
    ("ch04", "list_pages"),
    ("ch06", "timeout"),
    ("ch06", "two_servers"),
    ("ch07", "tour"),
    ("ch08", "tour"),
    ("ch09", "tour"),
    ("ch10", "block_rm"),
    ("ch11", "stop_refused_twice"),
    ("ch12", "tour"),
    ("ch12", "both_eras"),
    ("ch13", "tour"),
    ("ch14", "legacy_stdio"),
    ("ch14", "tour"),
    ("ch15", "route_elicitation"),
    ("ch15", "tour"),
    ("ch16", "tour"),
    ("ch16", "cancel"),
];

/// The transcripts whose parties make the introduction's picture of a host,
/// its model, its clients and their servers.
pub const PARTS: &[(&str, &str)] = &[("ch06", "two_servers"), ("ch07", "tour")];

const FONT: f64 = 12.0;
/// The width of one character of the monospace labels, in pixels.
const CHAR: f64 = FONT * 0.6;
const ROW: f64 = 30.0;
const TOP: f64 = 56.0;
const MARGIN: f64 = 16.0;
const ERROR_COLOR: &str = "#d9534f";
const WAIT_COLOR: &str = "#3b82f6";

pub fn diagrams_dir() -> PathBuf {
    course::root().join("book/src/generated/diagrams")
}

/// Where a scenario's sequence diagram is written, if it has one.
pub fn diagram_path(chapter: &Chapter, scenario: &str) -> Option<PathBuf> {
    SEQUENCES
        .iter()
        .any(|(id, name)| *id == chapter.id() && *name == scenario)
        .then(|| diagrams_dir().join(format!("{}-{scenario}.svg", chapter.id())))
}

/// The transcript whose first model request is drawn as a bar of its
/// layers: chapter 21's tour, where every layer is present.
pub const LAYERS: (&str, &str) = ("ch21", "tour");

/// Where the bar of the first request's layers is written.
pub fn layers_path() -> PathBuf {
    diagrams_dir().join(format!("{}-{}-layers.svg", LAYERS.0, LAYERS.1))
}

/// Where the introduction's picture of the parties is written.
pub fn parts_path() -> PathBuf {
    diagrams_dir().join("host-client-server.svg")
}

/// Every diagram the book shows.
pub fn files() -> Result<Vec<(PathBuf, String)>, String> {
    let mut files = Vec::new();
    for (id, scenario) in SEQUENCES {
        let chapter = Chapter::find(id)?;
        let (transcript, raw) = load(&chapter, scenario)?;
        let path = diagram_path(&chapter, scenario).expect("listed in SEQUENCES");
        files.push((path, sequence(&chapter, &transcript, &raw)));
    }
    let mut sources = Vec::new();
    for (id, scenario) in PARTS {
        let chapter = Chapter::find(id)?;
        let (transcript, _) = load(&chapter, scenario)?;
        sources.push((chapter, transcript));
    }
    files.push((parts_path(), parts(&sources)));
    let (id, scenario) = LAYERS;
    let chapter = Chapter::find(id)?;
    let (transcript, _) = load(&chapter, scenario)?;
    files.push((layers_path(), layers(&transcript)?));
    Ok(files)
}

fn load(chapter: &Chapter, scenario: &str) -> Result<(Transcript, String), String> {
    let path = chapter.transcript_path(scenario);
    let raw = fs::read_to_string(&path)
        .map_err(|err| format!("cannot read {}: {err}", path.display()))?;
    let transcript = Transcript::parse(&path, &raw).map_err(|err| err.to_string())?;
    Ok((transcript, raw))
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn width_of(text: &str) -> f64 {
    text.chars().count() as f64 * CHAR
}

/// The lanes in reading order: the model on the left, then the program,
/// then its servers as they first appear; the harness and hooks last.
fn lane_order(steps: &[Step]) -> Vec<String> {
    let rank = |lane: &str| match lane {
        // The main model, then each subagent's context, as they appear.
        lane if lane.starts_with("model") => 0,
        "host" | "client" => 1,
        "harness" => 3,
        "hook" => 4,
        _ => 2,
    };
    let mut lanes: Vec<String> = Vec::new();
    for step in steps {
        for lane in [&step.from, &step.to] {
            if lane != "stdout" && !lanes.contains(lane) {
                lanes.push(lane.clone());
            }
        }
    }
    lanes.sort_by_key(|lane| rank(lane)); // stable: servers keep their order
    lanes
}

/// The narrowest a picture is drawn: three quarters of its size, so its
/// 12 px labels never shrink below 9 px. A narrower screen scrolls the
/// figure sideways (`figure.wire-diagram` in wire.css) instead of shrinking
/// the text out of reach.
const MIN_SCALE: f64 = 0.75;

fn svg_open(out: &mut String, width: f64, height: f64, title: &str) {
    let min_width = width * MIN_SCALE;
    let _ = writeln!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {width:.0} {height:.0}\" \
         width=\"{width:.0}\" style=\"max-width:100%;min-width:{min_width:.0}px;height:auto\" role=\"img\" \
         aria-label=\"{0}\" font-family=\"ui-monospace, SFMono-Regular, Menlo, Consolas, monospace\" \
         font-size=\"{FONT}\" fill=\"currentColor\" stroke=\"currentColor\">\n<title>{0}</title>",
        escape(title)
    );
}

fn text(out: &mut String, x: f64, y: f64, anchor: &str, extra: &str, content: &str) {
    let _ = writeln!(
        out,
        "<text x=\"{x:.1}\" y=\"{y:.1}\" text-anchor=\"{anchor}\" stroke=\"none\"{extra}>{}</text>",
        escape(content)
    );
}

/// An arrowhead at `(x, y)` pointing right (`dir` 1) or left (`dir` -1).
fn arrowhead(out: &mut String, x: f64, y: f64, dir: f64, open: bool, color: &str) {
    let back = x - dir * 9.0;
    if open {
        let _ = writeln!(
            out,
            "<path d=\"M{back:.1},{:.1} L{x:.1},{y:.1} L{back:.1},{:.1}\" fill=\"none\" \
             stroke=\"{color}\" stroke-width=\"1.5\"/>",
            y - 4.5,
            y + 4.5
        );
    } else {
        let _ = writeln!(
            out,
            "<path d=\"M{back:.1},{:.1} L{x:.1},{y:.1} L{back:.1},{:.1} Z\" fill=\"{color}\" \
             stroke=\"none\"/>",
            y - 4.5,
            y + 4.5
        );
    }
}

/// A transcript as a sequence diagram.
pub fn sequence(chapter: &Chapter, transcript: &Transcript, raw: &str) -> String {
    let rows = rows(transcript, raw);
    let steps: Vec<Step> = rows
        .iter()
        .filter_map(|row| match row {
            Row::Step(step) => Some(step.clone()),
            Row::Note(..) => None,
        })
        .collect();
    let lanes = lane_order(&steps);
    let index = |lane: &str| lanes.iter().position(|l| l == lane).unwrap_or(0);
    let label = |step: &Step| format!("{}  {}", number_text(step), step.short);

    // Each gap between neighbouring lanes is wide enough for its lanes'
    // names; an arrow's label sits over the middle of the arrow.
    let header = |lane: &str| width_of(lane) + 24.0;
    let mut gaps = vec![150.0_f64; lanes.len().saturating_sub(1)];
    for (gap, width) in gaps.iter_mut().enumerate() {
        *width = width.max((header(&lanes[gap]) + header(&lanes[gap + 1])) / 2.0 + 12.0);
    }
    // An arrow between neighbours needs its label's width in its gap; a
    // longer one, in the gaps it crosses together, its label drawn over the
    // lanes between on a patch of the page's background.
    for step in &steps {
        let (a, b) = (index(&step.from), index(&step.to));
        if a.abs_diff(b) == 1 {
            let low = a.min(b);
            gaps[low] = gaps[low].max(width_of(&label(step)) + 48.0);
        }
    }
    for step in &steps {
        let (a, b) = (index(&step.from), index(&step.to));
        let crossed = a.min(b)..a.max(b);
        let have: f64 = gaps[crossed.clone()].iter().sum();
        let need = width_of(&label(step)) + 48.0;
        if crossed.len() > 1 && have < need {
            let more = (need - have) / crossed.len() as f64;
            gaps[crossed].iter_mut().for_each(|gap| *gap += more);
        }
    }
    for row in &rows {
        if let Row::Note(lane, note) = row {
            let gap = index(lane).min(gaps.len().saturating_sub(1));
            if let Some(gap) = gaps.get_mut(gap) {
                *gap = gap.max(width_of(note) + 24.0);
            }
        }
    }
    let mut xs = vec![MARGIN + header(&lanes[0]) / 2.0];
    for gap in &gaps {
        let last = *xs.last().expect("one lane at least");
        xs.push(last + gap);
    }
    let width =
        xs.last().copied().unwrap_or(0.0) + header(lanes.last().expect("a lane")) / 2.0 + MARGIN;
    let width =
        width.max(MARGIN * 2.0 + legend_width(&legend_items(&steps, true, transcript.runner)));
    let bottom = TOP + ROW * (rows.len() as f64 + 0.5);
    let height = bottom + 48.0;

    let title = format!(
        "Sequence diagram of transcript {}/{}",
        chapter.id(),
        transcript.name
    );
    let mut out = String::new();
    svg_open(&mut out, width, height, &title);

    // Lanes: a box with the name on top, a dashed line down.
    for (lane, &x) in lanes.iter().zip(&xs) {
        let w = header(lane);
        let _ = writeln!(
            out,
            "<rect x=\"{:.1}\" y=\"{MARGIN}\" width=\"{w:.1}\" height=\"26\" rx=\"4\" \
             fill=\"currentColor\" fill-opacity=\"0.07\" stroke-width=\"1.2\"/>",
            x - w / 2.0
        );
        text(
            &mut out,
            x,
            MARGIN + 17.5,
            "middle",
            " font-weight=\"bold\"",
            lane,
        );
        let _ = writeln!(
            out,
            "<line x1=\"{x:.1}\" y1=\"{:.1}\" x2=\"{x:.1}\" y2=\"{bottom:.1}\" \
             stroke-opacity=\"0.35\" stroke-dasharray=\"3 4\"/>",
            MARGIN + 26.0
        );
    }

    // Bars: from a request to the step that answers or cancels it.
    let row_y = |row: usize| TOP + ROW * (row as f64 + 1.0) - 8.0;
    let step_at = |row: usize| match &rows[row] {
        Row::Step(step) => Some(step),
        Row::Note(..) => None,
    };
    let mut open_bars: Vec<(f64, usize)> = Vec::new();
    let mut bars = 0;
    for row in 0..rows.len() {
        let Some(step) = step_at(row) else { continue };
        let Some(key) = &step.opens else { continue };
        let Some(end) = (row + 1..rows.len())
            .find(|&later| step_at(later).is_some_and(|s| s.closes.as_ref() == Some(key)))
        else {
            continue;
        };
        open_bars.retain(|(_, until)| *until > row);
        let level = open_bars.len() as f64;
        open_bars.push((level, end));
        let x = xs[index(&step.from)] - 4.0 + level * 6.0;
        let (y1, y2) = (row_y(row), row_y(end));
        let _ = writeln!(
            out,
            "<rect x=\"{x:.1}\" y=\"{y1:.1}\" width=\"8\" height=\"{:.1}\" fill=\"{WAIT_COLOR}\" \
             fill-opacity=\"0.3\" stroke=\"{WAIT_COLOR}\" stroke-width=\"1\"/>",
            y2 - y1
        );
        bars += 1;
    }

    // Arrows, one row each; a note is a line of italic text by its lane.
    for (row, item) in rows.iter().enumerate() {
        let y = row_y(row);
        let step = match item {
            Row::Step(step) => step,
            Row::Note(lane, note) => {
                text(
                    &mut out,
                    xs[index(lane)] + 10.0,
                    y + 4.0,
                    "start",
                    " font-style=\"italic\" fill-opacity=\"0.75\"",
                    note,
                );
                continue;
            }
        };
        let (x1, x2) = (xs[index(&step.from)], xs[index(&step.to)]);
        let dir = if x2 > x1 { 1.0 } else { -1.0 };
        let (x1, x2) = (x1 + dir * 5.0, x2 - dir * 5.0);
        arrow(&mut out, x1, x2, y, step.style);
        let fill = if step.style == Style::Error {
            format!(" fill=\"{ERROR_COLOR}\"")
        } else {
            String::new()
        };
        let x = (x1 + x2) / 2.0;
        if index(&step.from).abs_diff(index(&step.to)) > 1 {
            // The lane lines it crosses pass behind the label, not through it.
            let w = width_of(&label(step)) + 8.0;
            let _ = writeln!(
                out,
                "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{w:.1}\" height=\"15\" stroke=\"none\" \
                 style=\"fill:var(--bg, #fff)\"/>",
                x - w / 2.0,
                y - 18.0
            );
        }
        let _ = writeln!(
            out,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" stroke=\"none\"{fill}>\
             <tspan font-weight=\"bold\">{}</tspan>  {}</text>",
            x,
            y - 6.0,
            number_text(step),
            escape(&step.short)
        );
    }

    legend(
        &mut out,
        height - 18.0,
        &legend_items(&steps, bars > 0, transcript.runner),
    );
    out += "</svg>\n";
    out
}

/// One row of a diagram: an arrow, or a note beside a lane (what the host
/// did between two arrows, or which part of the run follows).
enum Row {
    Step(Step),
    Note(String, String),
}

/// A step's number as the frame view gives it; empty for an arrow drawn
/// from the program's own output (a model turn it printed).
fn number_text(step: &Step) -> String {
    if step.number == 0 {
        String::new()
    } else {
        step.number.to_string()
    }
}

/// What a diagram's caption adds when its order is not the transcript's.
pub fn caption_note(transcript: &Transcript) -> &'static str {
    let channels: std::collections::BTreeSet<&str> = transcript
        .frames
        .iter()
        .filter_map(|frame| frame.channel.as_deref())
        .collect();
    let hooks = transcript
        .frames
        .iter()
        .any(|frame| frame.direction == Direction::HarnessToHook);
    let model = transcript
        .frames
        .iter()
        .any(|frame| frame.direction == Direction::HostToModel);
    match transcript.runner {
        Runner::Client if channels.len() > 1 => {
            " The transcript pins each server's frames in order, not how they \
             interleave; the diagram draws what the client does: it connects to every \
             server at once, then runs the commands in the order given."
        }
        Runner::Agent if hooks && !model => {
            " The model is a script, so its turns are drawn from what the harness \
             prints (unnumbered), each hook where the output says it ran."
        }
        _ => "",
    }
}

/// The rows of a transcript's diagram, in the order things happened. The
/// transcript pins each channel's frames in order but not how channels
/// interleave, so for a host two kinds of transcript are reordered from
/// what they say themselves:
/// - a client with several servers (`runner: client`) connects to all of
///   them at once, then runs its commands one after another, in the order
///   of its `# args:`;
/// - a harness whose model is a script (chapter 10: hook frames, no model
///   frames) prints each model turn and each hook it runs on stdout, in
///   order: the model lane is drawn from those lines, each hook's frames
///   where its line is.
fn rows(transcript: &Transcript, raw: &str) -> Vec<Row> {
    let all = views::steps(transcript, raw);
    let steps: Vec<Step> = all
        .iter()
        .filter(|step| step.to != "stdout" && step.from != step.to)
        .cloned()
        .collect();
    let hooks = steps.iter().any(|step| step.to == "hook");
    let model = transcript
        .frames
        .iter()
        .any(|frame| frame.direction == Direction::HostToModel);
    let reordered = match transcript.runner {
        Runner::Client => client_rows(transcript, &steps),
        Runner::Agent if hooks && !model => scripted_model_rows(transcript, &steps),
        _ => None,
    };
    reordered.unwrap_or_else(|| steps.into_iter().map(Row::Step).collect())
}

/// Chapter 6's client with several servers: the connections (in parallel)
/// first, then one exchange per command of `# args:`. `None` when there is
/// one server, or a command has no exchange to match.
fn client_rows(transcript: &Transcript, steps: &[Step]) -> Option<Vec<Row>> {
    let servers: Vec<&String> = {
        let mut lanes: Vec<&String> = steps
            .iter()
            .map(|step| {
                if step.from == "client" {
                    &step.to
                } else {
                    &step.from
                }
            })
            .collect();
        lanes.sort();
        lanes.dedup();
        lanes
    };
    if servers.len() < 2 {
        return None;
    }
    // The commands, in order: the method each sends, and to which server.
    let mut commands = Vec::new();
    let args = &transcript.args;
    for (at, arg) in args.iter().enumerate() {
        let next = args.get(at + 1);
        let command = match (arg.as_str(), next) {
            ("call", Some(tool)) => tool
                .split("__")
                .nth(1)
                .map(|server| ("tools/call", server.to_string())),
            ("read", Some(server)) => Some(("resources/read", server.clone())),
            ("prompt", Some(server)) => Some(("prompts/get", server.clone())),
            _ => None,
        };
        commands.extend(command);
    }
    let mut used = vec![false; steps.len()];
    let mut exchanges = Vec::new();
    for (method, server) in &commands {
        let lane = format!("server {server}");
        let start = (0..steps.len()).find(|&at| {
            !used[at] && steps[at].to == lane && steps[at].method.as_deref() == Some(method)
        })?;
        let key = steps[start].opens.clone();
        let end = (start + 1..steps.len())
            .find(|&at| key.is_some() && steps[at].closes == key)
            .unwrap_or(start);
        let mut exchange = Vec::new();
        for (at, step) in steps.iter().enumerate().take(end + 1).skip(start) {
            if !used[at] && (step.to == lane || step.from == lane) {
                used[at] = true;
                exchange.push(step.clone());
            }
        }
        exchanges.push(exchange);
    }
    let mut rows = vec![Row::Note(
        "client".to_string(),
        "connecting to every server at once: these run side by side".to_string(),
    )];
    for (at, step) in steps.iter().enumerate() {
        if !used[at] {
            rows.push(Row::Step(step.clone()));
        }
    }
    rows.push(Row::Note(
        "client".to_string(),
        "then the commands, one after another, in the order given".to_string(),
    ));
    rows.extend(exchanges.into_iter().flatten().map(Row::Step));
    Some(rows)
}

/// A harness with a scripted model: the turns it prints (`turn 1: sending
/// 1 messages, …`, `  stop_reason tool_use, …`) become the model lane, each
/// `  hook …` line the hook's two frames, and a tool's outcome a note.
fn scripted_model_rows(transcript: &Transcript, steps: &[Step]) -> Option<Vec<Row>> {
    let own = steps.first().map(|step| step.from.clone())?;
    let mut hooks = steps
        .iter()
        .filter(|step| step.to == "hook" || step.from == "hook");
    let mut rows = Vec::new();
    let mut turn = 0;
    let blank = |from: &str, to: &str, short: String, style: Style| Step {
        number: 0,
        from: from.to_string(),
        to: to.to_string(),
        label: String::new(),
        short,
        style,
        frames: Vec::new(),
        opens: None,
        closes: None,
        method: None,
    };
    let mut model_said = None;
    for frame in &transcript.frames {
        if frame.direction != Direction::Stdout {
            continue;
        }
        let line = String::from_utf8_lossy(&frame.bytes);
        let line = line.trim_end();
        let inner = line.trim_start();
        if let Some(rest) = line.strip_prefix("turn ") {
            turn += 1;
            let messages = rest
                .split_once(": sending ")
                .and_then(|(_, rest)| rest.split(' ').next())
                .unwrap_or("?");
            let plural = if messages == "1" { "" } else { "s" };
            let mut step = blank(
                &own,
                "model",
                format!("turn {turn}: {messages} message{plural}"),
                Style::Request,
            );
            step.opens = Some(format!("model/{turn}"));
            rows.push(Row::Step(step));
        } else if let Some(text) = inner.strip_prefix("model: ") {
            model_said = Some(text.to_string());
        } else if let Some(rest) = inner.strip_prefix("stop_reason ") {
            let reason = rest.split(',').next().unwrap_or(rest);
            let calls = rest.split(", ").nth(1).and_then(|n| n.split(' ').next());
            let short = match (calls, model_said.take()) {
                (_, Some(text)) => format!("{reason}  · “{}”", clip(&text, 22)),
                (Some(calls), None) => {
                    let plural = if calls == "1" { "" } else { "s" };
                    format!("{reason}: {calls} tool call{plural}")
                }
                (None, None) => reason.to_string(),
            };
            let mut step = blank("model", &own, short, Style::Reply);
            step.closes = Some(format!("model/{turn}"));
            rows.push(Row::Step(step));
        } else if inner.starts_with("hook ") {
            rows.push(Row::Step(hooks.next()?.clone()));
            rows.push(Row::Step(hooks.next()?.clone()));
        } else if let Some(rest) = inner.strip_prefix("tool ") {
            let tool = rest.split(' ').next().unwrap_or(rest);
            rows.push(Row::Note(own.clone(), format!("runs {tool}")));
        } else if let Some(rest) = inner.strip_prefix("error ") {
            let tool = rest.split(' ').next().unwrap_or(rest);
            let why = rest.split_once(" -> ").map_or(rest, |(_, why)| why);
            let note = if why.contains("hook blocked") {
                format!("{tool} not run: a hook blocked it")
            } else {
                format!(
                    "{tool} failed: {}",
                    clip(why.split(':').next().unwrap_or(why), 24)
                )
            };
            rows.push(Row::Note(own.clone(), note));
        }
    }
    // A hook the output does not mention: where it ran is unknown, so the
    // transcript's order it is.
    if hooks.next().is_some() {
        return None;
    }
    Some(rows)
}

/// `abc…` when `text` is longer than `max` characters.
fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_string()
    } else {
        let head: String = text.chars().take(max - 1).collect();
        format!("{head}…")
    }
}

/// What the legend explains: only the styles a diagram uses.
fn legend_items(steps: &[Step], bars: bool, runner: Runner) -> Vec<(Style, &'static str)> {
    let mut items = Vec::new();
    // Over HTTP the lines that are not JSON-RPC are the request and status
    // lines and their headers.
    let other = if runner == Runner::Http {
        "HTTP lines"
    } else {
        "not JSON-RPC"
    };
    for (style, name) in [
        (Style::Request, "request"),
        (Style::Reply, "reply"),
        (Style::Notification, "notification"),
        (Style::Error, "error"),
        (Style::Other, other),
    ] {
        if steps.iter().any(|step| step.style == style) {
            items.push((style, name));
        }
    }
    if bars {
        items.push((Style::Other, "waiting for the reply"));
    }
    items
}

const SAMPLE: f64 = 30.0;

fn legend_width(items: &[(Style, &str)]) -> f64 {
    items
        .iter()
        .map(|(_, name)| SAMPLE + 8.0 + width_of(name) * 11.0 / FONT + 22.0)
        .sum()
}

/// A row of samples: a short line drawn in each style, and its name.
fn legend(out: &mut String, y: f64, items: &[(Style, &str)]) {
    let mut x = MARGIN;
    for (style, name) in items {
        if *name == "waiting for the reply" {
            let _ = writeln!(
                out,
                "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"8\" height=\"14\" fill=\"{WAIT_COLOR}\" \
                 fill-opacity=\"0.3\" stroke=\"{WAIT_COLOR}\" stroke-width=\"1\"/>",
                x + SAMPLE / 2.0 - 4.0,
                y - 7.0
            );
        } else {
            arrow(out, x, x + SAMPLE, y, *style);
        }
        text(
            out,
            x + SAMPLE + 8.0,
            y + 4.0,
            "start",
            " font-size=\"11\" fill-opacity=\"0.8\"",
            name,
        );
        x += SAMPLE + 8.0 + width_of(name) * 11.0 / FONT + 22.0;
    }
}

/// A horizontal arrow from `x1` to `x2` in a step's style.
/// Two boxes joined both ways, for the introduction's picture: the request
/// from `from` to `to` with its label above, the reply back with its label
/// below.
fn link(out: &mut String, from: f64, to: f64, y: f64, request: &str, reply: &str) {
    arrow(out, from, to, y + 15.0, Style::Request);
    arrow(out, to, from, y + 31.0, Style::Reply);
    let mid = (from + to) / 2.0;
    text(out, mid, y + 10.0, "middle", " font-size=\"11\"", request);
    text(out, mid, y + 44.0, "middle", " font-size=\"11\"", reply);
}

fn arrow(out: &mut String, x1: f64, x2: f64, y: f64, style: Style) {
    let dir = if x2 > x1 { 1.0 } else { -1.0 };
    let color = if style == Style::Error {
        ERROR_COLOR
    } else {
        "currentColor"
    };
    let dash = match style {
        Style::Reply | Style::Error => " stroke-dasharray=\"6 4\"",
        Style::Other => " stroke-dasharray=\"2 3\"",
        _ => "",
    };
    let _ = writeln!(
        out,
        "<line x1=\"{x1:.1}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"{color}\" \
         stroke-width=\"1.5\"{dash}/>",
        x2 - dir * 2.0
    );
    arrowhead(out, x2, y, dir, style == Style::Notification, color);
}

/// The parties of host transcripts: the host with one client per server,
/// each connected to its own server, and the model when there is one.
pub fn parts(sources: &[(Chapter, Transcript)]) -> String {
    // Channels in order of appearance, each with the name its server gives.
    let mut servers: Vec<(String, String)> = Vec::new();
    for frame in sources.iter().flat_map(|(_, t)| &t.frames) {
        let Some(channel) = &frame.channel else {
            continue;
        };
        if !servers.iter().any(|(name, _)| name == channel) {
            servers.push((channel.clone(), String::new()));
        }
        if frame.direction == Direction::ServerToClient {
            let info = serde_json::from_slice::<Value>(&frame.bytes)
                .ok()
                .and_then(|v| v.pointer("/result/serverInfo").cloned());
            if let Some(info) = info {
                let name = info.get("name").and_then(Value::as_str).unwrap_or("");
                let version = info.get("version").and_then(Value::as_str).unwrap_or("");
                if let Some(entry) = servers.iter_mut().find(|(name, _)| name == channel) {
                    entry.1 = format!("{name} {version}");
                }
            }
        }
    }
    let has_model = sources
        .iter()
        .flat_map(|(_, t)| &t.frames)
        .any(|f| f.direction == Direction::HostToModel);
    let numbers: Vec<String> = sources.iter().map(|(c, _)| c.number.to_string()).collect();
    let program = format!("chapters {}", numbers.join(" and "));
    let names: Vec<String> = sources
        .iter()
        .map(|(c, t)| format!("{}/{}", c.id(), t.name))
        .collect();

    let box_h = 44.0;
    let gap = 22.0;
    let client_w = 150.0;
    let server_w = servers
        .iter()
        .map(|(_, info)| width_of(info).max(width_of("server xxxxxxxx")) + 24.0)
        .fold(170.0, f64::max);
    let model_w = 150.0;
    let host_x = MARGIN + if has_model { model_w + 210.0 } else { 0.0 };
    let host_w = client_w + 40.0;
    let host_y = MARGIN;
    let inner_top = host_y + 52.0;
    let host_h = 52.0 + servers.len() as f64 * (box_h + gap) + 4.0;
    let server_x = host_x + host_w + 190.0;
    let width = server_x + server_w + MARGIN;
    let height = host_y + host_h + MARGIN;

    let mut out = String::new();
    svg_open(
        &mut out,
        width,
        height,
        &format!(
            "A host, its model, its clients and their servers, from transcripts {}",
            names.join(" and ")
        ),
    );
    let rect = |out: &mut String, x: f64, y: f64, w: f64, h: f64, opacity: f64| {
        let _ = writeln!(
            out,
            "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{w:.1}\" height=\"{h:.1}\" rx=\"6\" \
             fill=\"currentColor\" fill-opacity=\"{opacity}\" stroke-width=\"1.2\"/>"
        );
    };
    rect(&mut out, host_x, host_y, host_w, host_h, 0.04);
    text(
        &mut out,
        host_x + host_w / 2.0,
        host_y + 20.0,
        "middle",
        " font-weight=\"bold\"",
        "host",
    );
    text(
        &mut out,
        host_x + host_w / 2.0,
        host_y + 37.0,
        "middle",
        " font-size=\"11\" fill-opacity=\"0.75\"",
        &program,
    );
    for (row, (channel, info)) in servers.iter().enumerate() {
        let y = inner_top + row as f64 * (box_h + gap);
        let cx = host_x + 20.0;
        rect(&mut out, cx, y, client_w, box_h, 0.08);
        text(
            &mut out,
            cx + client_w / 2.0,
            y + 18.0,
            "middle",
            "",
            &format!("client {channel}"),
        );
        text(
            &mut out,
            cx + client_w / 2.0,
            y + 34.0,
            "middle",
            " font-size=\"11\" fill-opacity=\"0.75\"",
            "its own ids",
        );
        rect(&mut out, server_x, y, server_w, box_h, 0.08);
        text(
            &mut out,
            server_x + server_w / 2.0,
            y + 18.0,
            "middle",
            " font-weight=\"bold\"",
            &format!("server {channel}"),
        );
        text(
            &mut out,
            server_x + server_w / 2.0,
            y + 34.0,
            "middle",
            " font-size=\"11\" fill-opacity=\"0.75\"",
            info,
        );
        // The pipe: stdin one way, stdout the other.
        let (x1, x2) = (cx + client_w + 4.0, server_x - 4.0);
        link(&mut out, x1, x2, y, "requests → stdin", "stdout ← replies");
    }
    if has_model {
        // The model sits left of the host, level with its middle; the host
        // sends it requests over HTTP and reads its replies.
        let y = host_y + host_h / 2.0 - box_h / 2.0;
        rect(&mut out, MARGIN, y, model_w, box_h, 0.08);
        text(
            &mut out,
            MARGIN + model_w / 2.0,
            y + 18.0,
            "middle",
            " font-weight=\"bold\"",
            "model",
        );
        text(
            &mut out,
            MARGIN + model_w / 2.0,
            y + 34.0,
            "middle",
            " font-size=\"11\" fill-opacity=\"0.75\"",
            "behind an HTTP API",
        );
        let (x1, x2) = (MARGIN + model_w + 4.0, host_x - 4.0);
        link(
            &mut out,
            x2,
            x1,
            y,
            "Messages API request",
            "reply: text or tool calls",
        );
    }
    out += "</svg>\n";
    out
}

/// One layer of a request: what the bar calls it, and its tokens.
struct Layer {
    name: String,
    tokens: usize,
}

/// The first request a harness sent the model in `transcript`, split into
/// the layers a harness assembles: its own system prompt, the skills
/// catalogue, the servers' tool definitions and its own, the memory, the
/// question, and the JSON around them. Each layer is counted as it is sent
/// (its JSON, so escapes count), with the tokenizer the harness's own
/// `turn 1:` line uses; the drawing fails if the whole request is not the
/// count that line printed, so the bar cannot drift from the run.
fn request_layers(transcript: &Transcript) -> Result<(Vec<Layer>, usize), String> {
    let name = &transcript.name;
    let frame = (transcript.frames.iter())
        .find(|frame| frame.direction == Direction::HostToModel)
        .ok_or(format!("{name}: no request to the model"))?;
    let text = String::from_utf8_lossy(&frame.bytes);
    let request: Value = serde_json::from_str(text.trim_end())
        .map_err(|err| format!("{name}: the first request is not JSON: {err}"))?;
    let total = wire_host::tokens::count(&request.to_string());
    let printed = format!(
        "turn 1: sending 1 messages, {} bytes: {total} tokens",
        request.to_string().len()
    );
    if !(transcript.frames.iter())
        .any(|frame| String::from_utf8_lossy(&frame.bytes).contains(&printed))
    {
        return Err(format!(
            "{name}: its run does not print `{printed}`: the bar would not be the run's"
        ));
    }
    let json = |value: &Value| wire_host::tokens::count(&value.to_string());
    let system = request
        .pointer("/system/0/text")
        .and_then(Value::as_str)
        .unwrap_or("");
    let (base, catalogue) = system.split_once("\n\n").unwrap_or((system, ""));
    let blocks = request
        .pointer("/messages/0/content")
        .and_then(Value::as_array);
    let block = |index: usize| {
        let text = blocks.and_then(|blocks| blocks.get(index)?.get("text")?.as_str());
        Value::from(text.unwrap_or(""))
    };
    // The servers' tools (`mcp__server__tool`), then the harness's own.
    let tools = request
        .get("tools")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let (served, own): (Vec<Value>, Vec<Value>) = (tools.into_iter()).partition(|tool| {
        tool["name"]
            .as_str()
            .is_some_and(|name| name.starts_with("mcp__"))
    });
    let mut layers = vec![
        Layer {
            name: "the harness's system prompt".into(),
            tokens: json(&Value::from(base)),
        },
        Layer {
            name: "the skills catalogue".into(),
            tokens: json(&Value::from(catalogue)),
        },
        Layer {
            name: format!("{} tools the server defines", served.len()),
            tokens: json(&Value::from(served.clone())),
        },
        Layer {
            name: format!("{} tools of the harness's own", own.len()),
            tokens: json(&Value::from(own.clone())),
        },
        Layer {
            name: "the memory files".into(),
            tokens: json(&block(0)),
        },
        Layer {
            name: "the question".into(),
            tokens: json(&block(1)),
        },
    ];
    let counted: usize = layers.iter().map(|layer| layer.tokens).sum();
    let rest = total
        .checked_sub(counted)
        .ok_or(format!("{name}: the layers count more than the request"))?;
    layers.push(Layer {
        name: "the JSON around them".into(),
        tokens: rest,
    });
    Ok((layers, total))
}

/// The first model request of `transcript` as one bar, a segment per
/// layer in the order the request carries them, and a key below.
pub fn layers(transcript: &Transcript) -> Result<String, String> {
    let (layers, total) = request_layers(transcript)?;
    let fills = [
        "#3b82f6", "#8b5cf6", "#f59e0b", "#eab308", "#10b981", "#ef4444", "#9ca3af",
    ];
    let (width, bar, key_row) = (760.0, 36.0, 20.0);
    let height = TOP + bar + 20.0 + key_row * layers.len() as f64 + MARGIN;
    let title = format!(
        "{}/{}, the first request: {total} tokens (cl100k_base), by layer",
        LAYERS.0, transcript.name
    );
    let mut out = String::new();
    svg_open(&mut out, width, height, &title);
    text(
        &mut out,
        MARGIN,
        MARGIN + FONT,
        "start",
        " font-weight=\"bold\"",
        &title,
    );
    let span = width - 2.0 * MARGIN;
    let mut x = MARGIN;
    for (layer, fill) in layers.iter().zip(fills) {
        let w = span * layer.tokens as f64 / total as f64;
        let _ = writeln!(
            out,
            "<rect x=\"{x:.1}\" y=\"{TOP:.1}\" width=\"{w:.1}\" height=\"{bar:.1}\" fill=\"{fill}\" stroke=\"none\"/>"
        );
        x += w;
    }
    for (row, (layer, fill)) in layers.iter().zip(fills).enumerate() {
        let y = TOP + bar + 20.0 + key_row * row as f64;
        let _ = writeln!(
            out,
            "<rect x=\"{MARGIN:.1}\" y=\"{:.1}\" width=\"12\" height=\"12\" fill=\"{fill}\" stroke=\"none\"/>",
            y - 10.0
        );
        let share = 100.0 * layer.tokens as f64 / total as f64;
        let line = format!("{:>5} tokens  {share:>4.1}%  {}", layer.tokens, layer.name);
        text(
            &mut out,
            MARGIN + 20.0,
            y,
            "start",
            " xml:space=\"preserve\"",
            &line,
        );
    }
    out.push_str("</svg>\n");
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn the_layers_bar_refuses_a_run_that_printed_another_count() {
        let chapter = Chapter::find(LAYERS.0).unwrap();
        let (transcript, raw) = load(&chapter, LAYERS.1).unwrap();
        let (layers, total) = request_layers(&transcript).unwrap();
        assert_eq!(
            layers.iter().map(|layer| layer.tokens).sum::<usize>(),
            total
        );
        let other = raw.replace(
            &format!(": {total} tokens"),
            &format!(": {} tokens", total + 1),
        );
        assert_ne!(other, raw, "the run prints no `: {total} tokens`");
        let changed = Transcript::parse(Path::new("x.wire"), &other).unwrap();
        let problem = request_layers(&changed).err().unwrap();
        assert!(problem.contains("does not print"), "{problem}");
    }

    #[test]
    fn a_sequence_has_a_lane_per_party_and_an_arrow_per_step() {
        let raw = "# runner: agent\n\
                   [add] -> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n\
                   [add] <- {\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32601,\"message\":\"x\"}}\n\
                   => {\"messages\":[]}\n\
                   | stdout is not drawn\n";
        let t = Transcript::parse(Path::new("t.wire"), raw).unwrap();
        let chapter = Chapter {
            number: 7,
            dir: "07-x".to_string(),
        };
        let svg = sequence(&chapter, &t, raw);
        let lanes: Vec<&str> = ["model", "host", "server add"]
            .into_iter()
            .filter(|lane| svg.contains(&format!(">{lane}</text>")))
            .collect();
        assert_eq!(lanes, ["model", "host", "server add"]);
        assert!(svg.contains("<tspan font-weight=\"bold\">1</tspan>  ping  · id 1"));
        assert!(svg.contains("error −32601 to ping  · id 1"));
        assert!(svg.contains(ERROR_COLOR));
        assert!(svg.contains("<tspan font-weight=\"bold\">3</tspan>  POST /v1/messages"));
        assert!(!svg.contains("stdout"));
    }

    fn svg_of(raw: &str) -> String {
        let t = Transcript::parse(Path::new("t.wire"), raw).unwrap();
        let chapter = Chapter {
            number: 6,
            dir: "06-x".to_string(),
        };
        sequence(&chapter, &t, raw)
    }

    #[test]
    fn a_client_with_two_servers_is_drawn_connecting_then_in_command_order() {
        // The transcript lists b's call first; the command line asks a's first.
        let raw = "# runner: client\n\
                   # args: --server a=x --server b=y call mcp__a__t {} call mcp__b__t {}\n\
                   [a] -> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}\n\
                   [a] <- {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[]}}\n\
                   [b] -> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}\n\
                   [b] <- {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[]}}\n\
                   [b] -> {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"t\"}}\n\
                   [b] <- {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"content\":[]}}\n\
                   [a] -> {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"t\"}}\n\
                   [a] <- {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"content\":[]}}\n";
        let svg = svg_of(raw);
        let at = |label: &str| svg.find(label).unwrap_or_else(|| panic!("{label}: {svg}"));
        assert!(at("connecting to every server at once") < at(">1</tspan>"));
        assert!(at(">4</tspan>") < at("then the commands"));
        // a's call (frames 7 and 8) before b's (5 and 6).
        assert!(at(">7</tspan>") < at(">5</tspan>"));
    }

    #[test]
    fn a_scripted_model_gets_a_lane_and_hooks_show_event_and_exit() {
        let raw = "# runner: agent\n\
                   ~> {\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"rm -rf x\"}}\n\
                   <~ {\"exit\":2,\"stdout\":\"\",\"stderr\":\"no\\n\"}\n\
                   | turn 1: sending 1 messages, 10 bytes\n\
                   |   stop_reason tool_use, 1 tool call(s)\n\
                   |   hook PreToolUse x: exit 2: no\n\
                   |   error Bash {} -> a PreToolUse hook blocked this call: no\n";
        let svg = svg_of(raw);
        for text in [
            ">model</text>",
            "turn 1: 1 message",
            "tool_use: 1 tool call",
            "PreToolUse Bash rm -rf x",
            "exit 2 → block",
            "Bash not run: a hook blocked it",
        ] {
            assert!(svg.contains(text), "{text}: {svg}");
        }
        assert!(!svg.contains("not a message"));
    }
}
