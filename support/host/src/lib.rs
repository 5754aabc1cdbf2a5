//! The host side's settled code: what a chapter taught and every later
//! chapter uses unchanged. Most modules are generated from the chapter that
//! teaches them (`support/taught.txt`; each file's first line names its
//! source): the learner writes them there, and from the next chapter on
//! `use`s them from here.
