//! The wall clock as the caches and records store it.

use std::time::{SystemTime, UNIX_EPOCH};

/// Seconds since 1970; 0 on a clock set before it (a cached entry then looks old, never new).
pub fn now_unix() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or_default()
}

/// Whether something written at `created_unix` is at most `max_age_secs` old now; an entry
/// dated in the future (a clock set back) never is.
pub fn younger_than(created_unix: u64, max_age_secs: u64) -> bool {
    let now = now_unix();
    created_unix <= now && now - created_unix <= max_age_secs
}
