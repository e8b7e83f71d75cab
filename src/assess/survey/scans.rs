//! The survey's scans: every repository at once on one pool of threads, as many as the probed
//! mounts serve in parallel, under one deadline for the whole survey.

use crate::base::progress::Progress;
use crate::measure::probe::ProbeReport;
use crate::measure::scan::{self, Engine};
use serde::Serialize;
use std::sync::atomic::{AtomicUsize, Ordering};
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

/// `each` on every item, in parallel: `threads` threads in all, split into pools of their own
/// (see [`pools_for`]), each pool taking the next item when it is done with one, so a scan
/// waiting for its own walk's tasks runs only its own (in one shared pool it took other
/// repositories' tasks meanwhile, and every scan ended with the last). One step of `progress`
/// per item done, labelled by `label` (the caller counted them in its `start`); results in
/// the items' order.
pub fn each_in_parallel<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    progress: &dyn Progress,
    label: impl Fn(&T) -> String + Sync,
    each: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let (pools, per_pool) = pools_for(items.len(), threads);
    let next = AtomicUsize::new(0);
    let take = || {
        scan::with_threads(per_pool, || {
            let mut done = Vec::new();
            while let Some((index, item)) = next_item(items, &next) {
                done.push((index, each(item)));
                progress.step(1, &label(item));
            }
            done
        })
    };
    let mut results: Vec<Option<R>> = (0..items.len()).map(|_| None).collect();
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..pools).map(|_| scope.spawn(take)).collect();
        for worker in workers {
            let done = worker
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            for (index, result) in done {
                results[index] = Some(result);
            }
        }
    });
    results.into_iter().flatten().collect()
}

/// The next item no pool has taken yet, with its index.
fn next_item<'a, T>(items: &'a [T], next: &AtomicUsize) -> Option<(usize, &'a T)> {
    let index = next.fetch_add(1, Ordering::Relaxed);
    items.get(index).map(|item| (index, item))
}

/// How many pools of how many threads `threads` make for `items` scans at once: a pool per
/// item while there are threads enough for two each (a walk forks only with two), so small
/// sets scan all at once with the mount's threads shared out.
pub fn pools_for(items: usize, threads: usize) -> (usize, usize) {
    let pools = items.clamp(1, (threads / 2).max(1));
    (pools, (threads / pools).max(2))
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
    fn every_repository_gets_a_pool_of_its_own_while_threads_last() {
        assert_eq!(pools_for(5, 16), (5, 3));
        assert_eq!(pools_for(1, 16), (1, 16));
        assert_eq!(pools_for(50, 16), (8, 2));
        assert_eq!(pools_for(0, 16), (1, 16));
        assert_eq!(pools_for(3, 1), (1, 2));
    }

    #[test]
    fn results_keep_the_items_order() {
        let items: Vec<u64> = (0..40).collect();
        let hidden = crate::base::progress::Drawn::hidden();
        let doubled = each_in_parallel(
            &items,
            6,
            &hidden,
            |_| String::new(),
            |n| {
                std::thread::sleep(Duration::from_millis(40 - n));
                n * 2
            },
        );
        assert_eq!(doubled, items.iter().map(|n| n * 2).collect::<Vec<_>>());
    }

    #[test]
    fn threads_never_fall_below_the_scans_own() {
        assert!(threads_for(std::iter::empty()) >= 4);
    }
}
