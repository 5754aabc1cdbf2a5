//! Generating: the files written from the solutions and the transcripts,
//! which nobody edits by hand and tests keep fresh.
//!
//! - [`gaps`] reads a solution's gaps and stretches and turns the marked
//!   solutions into starter crates; [`starters`] writes them without ever
//!   losing a learner's edits (`cargo xtask starters`);
//! - [`support`] generates the support crates' settled code from the
//!   chapters that teach it (`cargo xtask starters` too);
//! - [`views`] and [`diagrams`] draw each transcript for the book,
//!   [`exercises`] writes the listings and exercise sections, [`workshop`]
//!   the workshop schedules from the speaker notes (`cargo xtask changes`);
//! - [`generated`] writes every generated file but the starters, which have
//!   their own writer so that a learner's edits are kept.

pub mod diagrams;
pub mod exercises;
pub mod gaps;
pub mod generated;
pub mod starters;
pub mod support;
pub mod views;
pub mod workshop;
