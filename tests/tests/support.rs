//! The support crates hold the course's settled code exactly as the
//! chapters that teach it hold it, and no later chapter keeps a copy.

use wire_tests::generate::support;

#[test]
fn support_files_are_generated_from_their_teaching_chapters() {
    let stale = support::sync(true).unwrap_or_else(|err| panic!("{err}"));
    assert!(
        stale.is_empty(),
        "out of date with the chapter that teaches them (support/taught.txt); \
         run `cargo xtask starters`:\n  {}",
        stale.join("\n  ")
    );
}

#[test]
fn no_later_chapter_keeps_a_copy_of_settled_code() {
    let copies = support::copies().unwrap_or_else(|err| panic!("{err}"));
    let lines: Vec<String> = copies
        .iter()
        .map(|(copy, generated)| {
            format!("{copy} is a copy of {generated}: delete it and use the support crate")
        })
        .collect();
    assert!(lines.is_empty(), "\n{}", lines.join("\n"));
}

#[test]
fn comparing_ignores_markers_comments_and_layout() {
    let solution = "//! One.\nfn f() {\n    // GAP(ch06/f): do it.\n    // starter: todo!()\n    1\n    // END(ch06/f)\n}\n";
    let copy = "// @generated\n//! Other words.\n\nfn f() {\n  1\n}\n";
    assert_eq!(support::comparable(solution), support::comparable(copy));
    assert_ne!(
        support::comparable(solution),
        support::comparable("fn f() {\n    2\n}\n")
    );
}
