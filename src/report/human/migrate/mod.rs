//! A migration plan and its result, for a person (the same key column as `check`).

mod plan;
mod problems;
mod result;
mod source;
mod sync;
mod windows;

use super::{Screen, Tone};
use crate::base::units::count;

pub use plan::plan;
pub use result::result;

/// Lists at most `limit` items under `key`, then how many more there are.
fn list(screen: &mut Screen, key: &str, heading: &str, items: &[String], limit: usize, tone: Tone) {
    screen.row(key, heading, tone);
    for item in items.iter().take(limit) {
        screen.item("", item, Tone::Plain);
    }
    if items.len() > limit {
        screen.item(
            "",
            &format!("and {} more", count((items.len() - limit) as u64)),
            Tone::Dim,
        );
    }
}
