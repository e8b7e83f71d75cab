//! The wall clock as the caches and records store it.

use std::time::{SystemTime, UNIX_EPOCH};

/// Seconds since 1970; 0 on a clock set before it (a cached entry then looks old, never new).
pub fn now_unix() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or_default()
}
