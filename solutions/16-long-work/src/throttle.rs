//! The stretch `ch16/throttle` (`main.rs` declares it, `reindex.rs` calls it).

// STRETCH(ch16/throttle): a `Throttle` that remembers when it last let a
// notification through; `due(last_step)`: the first, the last, and any
// `EVERY` after the one sent before it.
use std::time::{Duration, Instant};

/// The least time between two progress notifications: the course's choice
/// (2026-07-28 asks both parties to rate-limit, and names no rate).
pub const EVERY: Duration = Duration::from_secs(1);

#[derive(Default)]
pub struct Throttle {
    sent: Option<Instant>,
}

impl Throttle {
    pub fn due(&mut self, last_step: bool) -> bool {
        let now = Instant::now();
        let due = last_step || self.sent.is_none_or(|sent| now - sent >= EVERY);
        self.sent = if due { Some(now) } else { self.sent };
        due
    }
}
// END(ch16/throttle)
