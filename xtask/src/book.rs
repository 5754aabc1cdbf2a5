//! `cargo xtask book-check`: after `mdbook build book`, the rendered pages
//! show no gap marker, and each gap's reference code only inside a
//! `<details>` ("show the solution").

use wire_tests::{course, exercises};

pub fn check() -> Result<(), String> {
    let build = course::root().join("book/build");
    let problems = exercises::check_built_book(&build)?;
    if problems.is_empty() {
        println!("book/build: no marker shown, every solution folded");
        Ok(())
    } else {
        Err(format!(
            "the built book gives answers away (fix tests/src/exercises.rs or the pages, \
             then `cargo xtask changes` and `mdbook build book`):\n  {}",
            problems.join("\n  ")
        ))
    }
}
