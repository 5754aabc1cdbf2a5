//! Context cost: how many tokens a request is. Every turn sends the whole
//! conversation again, so the count only grows.
//!
//! `cl100k_base` is OpenAI's BPE vocabulary, shipped inside tiktoken-rs.
//! Claude's tokenizer is not public, so for Claude this is an estimate,
//! close enough to see the growth; the 4-characters rule is rougher still.

// ANCHOR: count
/// Builds the tokenizer (the first call does the work; later ones reuse it).
pub fn load() {
    tiktoken_rs::cl100k_base_singleton();
}

/// Tokens by a real BPE tokenizer (cl100k_base).
pub fn count(text: &str) -> usize {
    tiktoken_rs::cl100k_base_singleton()
        .encode_ordinary(text)
        .len()
}

/// The rule of thumb: about four characters per token in English.
pub fn rough(text: &str) -> usize {
    text.chars().count().div_ceil(4)
}
// ANCHOR_END: count
