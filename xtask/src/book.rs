//! `cargo xtask book-check`: after `mdbook build book`, the rendered pages
//! show no gap marker, and each gap's reference code only inside a
//! `<details>` ("show the solution"); and no text a reader copies is
//! mangled (an en dash for a flag's `--`, a curly quote in code); and no
//! page is longer than five 1280×800 screens outside its folded blocks.

use wire_tests::{book, course, exercises, generated};

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
        println!(
            "book/build: no marker shown, every solution folded, no en-dashed flag or curly quote in code, \
             no page over {} px outside its folds but the {} listed",
            book::PAGE_BUDGET_PX,
            LONG_PAGES.len()
        );
        Ok(())
    } else {
        Err(format!(
            "the built book gives answers away, mangles text or runs long (fix tests/src/exercises.rs or the pages, \
             then `cargo xtask changes` and `mdbook build book`):\n  {}",
            problems.join("\n  ")
        ))
    }
}

/// Pages still longer than the budget, each with its estimated height in
/// px today (`book::page_length`): the re-cut of chapters 7-13 into small
/// lessons splits them. The list only shrinks: a listed page may not grow
/// (by more than 5%, so that a longer link name in a view another chapter
/// shows does not fail it), and one that fits must leave the list.
const LONG_PAGES: &[(&str, usize)] = &[
    // Two tours in two columns: at 1280 px they stand side by side, so the
    // page is about as tall as the longer one; the estimate adds both.
    ("12-stateless-side.html", 8020),
];

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
