//! The test machinery of Wire by Wire.
//!
//! A chapter's behaviour is pinned by *transcripts*: files under
//! `tests/transcripts/chNN/` that list the frames crossing the wire, in
//! order, with their direction. The same files are included in the book, so
//! every frame a reader sees is a frame a test checks.
//!
//! The crate does three jobs, one folder each. A module lives in the folder
//! of the job it does (another job may still call it: the runner asks
//! [`generate::gaps`] which gap a placeholder belongs to); what is no one
//! job's, the course's layout and vocabulary that every job reads, is at
//! the top.
//!
//! - [`run`]: drive a binary through a transcript and explain the first
//!   difference (`cargo test`'s scenarios, `cargo xtask check`, `bless`);
//! - [`generate`]: write what is generated from the solutions and the
//!   transcripts: the starters in `chapters/`, the support crates' settled
//!   code, the book's pages under `book/src/generated/` (one writer,
//!   [`generate::generated`], for all but the starters);
//! - [`learner`]: answer the learner's commands (`cargo xtask check`,
//!   `progress`, `watch`, `hint`).
//!
//! At the top:
//!
//! - [`course`] knows the layout: chapters, their crates and transcripts;
//! - [`markers`] reads the marker comments (`GAP`, `END`, `starter:`,
//!   `STRETCH`, mdBook's `ANCHOR`): every tool that looks for one asks it;
//! - [`book`] finds the section that explains a scenario or a gap, and
//!   measures the book's pages;
//! - [`textdiff`] explains where two texts differ;
//! - [`budgets`] measures a chapter against the small-lessons budgets;
//! - [`scratch`] gives a test a folder of its own, removed at its end.

pub mod book;
pub mod budgets;
pub mod course;
pub mod generate;
pub mod learner;
pub mod lessons;
pub mod markers;
pub mod run;
pub mod scratch;
pub mod textdiff;
