pub mod diagrams;
pub mod exercises;
pub mod gaps;
pub mod generated;
pub mod starters;
pub mod support;
pub mod views;
pub mod workshop;
