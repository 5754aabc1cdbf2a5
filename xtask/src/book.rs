//! `cargo xtask book-check`: after `mdbook build book`, the rendered pages
//! show no gap marker, and each gap's reference code only inside a
//! `<details>` ("show the solution"); and no text a reader copies is
//! mangled (an en dash for a flag's `--`, a curly quote in code).

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
        problems.extend(
            book::uncopyable(&html)
                .into_iter()
                .map(|problem| format!("{name}: {problem}")),
        );
    }
    if problems.is_empty() {
        println!(
            "book/build: no marker shown, every solution folded, no en-dashed flag or curly quote in code"
        );
        Ok(())
    } else {
        Err(format!(
            "the built book gives answers away (fix tests/src/exercises.rs or the pages, \
             then `cargo xtask changes` and `mdbook build book`):\n  {}",
            problems.join("\n  ")
        ))
    }
}
