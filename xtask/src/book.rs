//! `cargo xtask book-check`: after `mdbook build book`, the rendered pages
//! show no gap marker, and each gap's reference code only inside a
//! `<details>` ("show the solution"); and no text a reader copies is
//! mangled (an en dash for a flag's `--`, a curly quote in code); and no
//! page is longer than five 1280×800 screens outside its folded blocks.

use wire_tests::generate::{exercises, generated};
use wire_tests::{book, course};

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
