//! The survey's scans: every repository at once on one pool of threads, as many as the probed
//! mounts serve in parallel, under one deadline for the whole survey.

use crate::base::progress::Progress;
use crate::measure::probe::ProbeReport;
use crate::measure::scan::{self, Engine};
use rayon::prelude::*;
use serde::Serialize;
use std::time::{Duration, Instant};

/// How the scans ran, for the report.
#[derive(Debug, Clone, Serialize)]
pub struct Scans {
    /// Threads the scans shared.
    pub threads: usize,
    /// The whole survey's budget (`--budget-ms`); scans still running when it has passed
    /// since the survey started stop there.
    pub budget_ms: u64,
    /// Repositories whose scan a budget stopped: their counts are estimates.
    pub stopped: usize,
    /// Wall time of all the scans (and the judging that goes with them).
    pub elapsed_ms: u64,
}

/// Most threads the scans share: beyond the 20 the probe times, nothing says the mount keeps up.
const MAX_THREADS: usize = 32;

/// Threads for the scans: the scan's own count (what `check` walks with), or more where a probed
/// mount served parallel `lstat` fastest at a higher thread count: a mount that overlaps 20
/// requests gets 20 listings in flight, spread over the repositories on it.
pub fn threads_for<'a>(probes: impl Iterator<Item = &'a ProbeReport>) -> usize {
    let own = match Engine::default_for_host() {
        Engine::Parallel(n) => n,
        Engine::Sequential => 1,
    };
    probes
        .filter_map(|probe| {
            probe
                .parallel_lstat
                .iter()
                .filter(|figure| figure.per_entry_us > 0.0)
                .min_by(|a, b| a.per_entry_us.total_cmp(&b.per_entry_us))
                .map(|figure| figure.threads)
        })
        .fold(own, usize::max)
        .min(MAX_THREADS)
}

/// The budget a scan starting now has: what is left of the survey's, and at most `cap`.
pub fn budget_now(deadline: Instant, cap: Option<Duration>) -> Duration {
    let left = deadline.saturating_duration_since(Instant::now());
    cap.map_or(left, |cap| cap.min(left))
}

/// `each` on every item, in parallel on `threads` threads (each scan started inside walks on the
/// same threads), one step of `progress` per item done, labelled by `label` (the caller counted
/// them in its `start`); results in the items' order.
pub fn each_in_parallel<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    progress: &dyn Progress,
    label: impl Fn(&T) -> String + Sync,
    each: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    scan::with_threads(threads, || {
        items
            .par_iter()
            .map(|item| {
                let result = each(item);
                progress.step(1, &label(item));
                result
            })
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_left_is_capped() {
        let deadline = Instant::now() + Duration::from_secs(60);
        assert!(budget_now(deadline, None) > Duration::from_secs(50));
        let capped = budget_now(deadline, Some(Duration::from_secs(3)));
        assert_eq!(capped, Duration::from_secs(3));
        let passed = Instant::now();
        assert_eq!(budget_now(passed, None), Duration::ZERO);
    }

    #[test]
    fn threads_never_fall_below_the_scans_own() {
        assert!(threads_for(std::iter::empty()) >= 4);
    }
}
