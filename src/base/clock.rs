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

/// "19:21": the local time of `unix` (the system's time zone, `TZ` when set), for saying when
/// a measurement read back from a cache was taken; None for a time the calendar cannot hold.
pub fn local_hh_mm(unix: u64) -> Option<String> {
    let at = jiff::Timestamp::from_second(i64::try_from(unix).ok()?).ok()?;
    Some(
        at.to_zoned_datetime(jiff::tz::TimeZone::system())
            .strftime("%H:%M")
            .to_string(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_time_is_shown_as_hours_and_minutes() {
        let shown = local_hh_mm(1_765_000_000).unwrap();
        assert_eq!(shown.len(), 5, "{shown}");
        assert_eq!(&shown[2..3], ":");
        assert_eq!(local_hh_mm(u64::MAX), None);
    }
}
