//! Timing the repository's own tracked files, as git meets them: `lstat` serially and in
//! parallel, and reading them back (what a copy pays per file).

use super::measure::{CPU_BOUND_US, open_dir, parallel_lstat};
use crate::base::interrupt;
use crate::measure::stats::{LstatSource, ParallelLstat};
use rustix::fs::{AtFlags, Mode, OFlags};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Tracked files timed at least, and the time after which more samples stop being worth it.
/// The minimum binds only where a call takes over 1.5 ms (a slow mount), and there each call
/// costs `check` as much as it tells: serde-rs/serde's 32 took 155 ms of a 670 ms check on the
/// emulator (drvfs-9p, scale 1), whose `lstat`s vary by the path's depth, which the spread
/// order covers in its first 16.
const TRACKED_MIN: usize = 16;
const TRACKED_ENOUGH: Duration = Duration::from_millis(25);
/// Samples past which a trimmed mean moves by less than a run's noise: on a local disk, where
/// 25 ms are thousands of calls, timing more only makes `check` dearer than the `git status`
/// it predicts.
const TRACKED_PLENTY: usize = 128;

fn us(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1e6
}

/// Serial `lstat` of the repository's own tracked files: all of `paths` up to `TRACKED_PLENTY`,
/// or fewer once there are enough for a mean and more would cost more than they tell, and never
/// beyond `budget`.
pub fn tracked_lstat(
    root: &Path,
    paths: &[PathBuf],
    budget: Duration,
) -> std::io::Result<Vec<f64>> {
    let dir = open_dir(&rustix::fs::CWD, root)?;
    let start = Instant::now();
    let mut samples = Vec::with_capacity(paths.len());
    for path in prefix_spread(paths.len()).into_iter().map(|i| &paths[i]) {
        let spent = start.elapsed();
        if spent > budget
            || (samples.len() >= TRACKED_MIN && spent > TRACKED_ENOUGH)
            || samples.len() >= TRACKED_PLENTY
            || interrupt::requested()
        {
            break;
        }
        let t = Instant::now();
        if rustix::fs::statat(&dir, path.as_path(), AtFlags::SYMLINK_NOFOLLOW).is_ok() {
            samples.push(us(t));
        }
    }
    Ok(samples)
}

/// The indices `0..n` in an order whose every prefix is spread over the whole range (bit
/// reversal: 0, n/2, n/4, 3n/4, ...), so a sample cut short by its budget still covers the
/// tree's shallow and deep paths rather than its first folder in index order.
fn prefix_spread(n: usize) -> Vec<usize> {
    let bits = usize::BITS - n.saturating_sub(1).leading_zeros();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&i| {
        i.reverse_bits()
            .checked_shr(usize::BITS - bits)
            .unwrap_or(0)
    });
    order
}

/// Open, read at most `max_bytes`, close, of each of the tree's own `paths` (relative to
/// `root`, as a copy walks them), serially, within `budget` (one file at least): (microseconds,
/// bytes read) per file. Read-only: `migrate` measures its source with it.
pub fn tracked_read(
    root: &Path,
    paths: &[PathBuf],
    max_bytes: u64,
    budget: Duration,
) -> std::io::Result<Vec<(f64, u64)>> {
    let dir = open_dir(&rustix::fs::CWD, root)?;
    let start = Instant::now();
    let mut samples = Vec::with_capacity(paths.len());
    let mut buf = vec![0u8; 1 << 20];
    for path in paths {
        if (!samples.is_empty() && start.elapsed() > budget) || interrupt::requested() {
            break;
        }
        let t = Instant::now();
        let Ok(fd) = rustix::fs::openat(
            &dir,
            path.as_path(),
            OFlags::RDONLY | OFlags::CLOEXEC | OFlags::NOFOLLOW,
            Mode::empty(),
        ) else {
            continue;
        };
        let mut file = std::fs::File::from(fd).take(max_bytes);
        let mut read = 0u64;
        loop {
            match file.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => read += n as u64,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        drop(file);
        samples.push((us(t), read));
    }
    Ok(samples)
}

/// Parallel `lstat` of the tracked sample at each thread count: the median of five runs where
/// a run is cheap (a local disk), of three where it is not.
pub fn tracked_parallel(
    root: &Path,
    paths: &[PathBuf],
    threads: &[usize],
    serial_us: f64,
) -> std::io::Result<Vec<ParallelLstat>> {
    let dir = open_dir(&rustix::fs::CWD, root)?;
    Ok(threads
        .iter()
        .filter_map(|&t| {
            let runs: Vec<f64> = (0..if serial_us < CPU_BOUND_US { 5 } else { 3 })
                .filter_map(|_| parallel_lstat(&dir, paths, t, serial_us))
                .collect();
            ParallelLstat::from_runs(t, LstatSource::Tracked, &runs)
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_prefix_of_the_lstat_order_is_spread() {
        assert_eq!(prefix_spread(8), vec![0, 4, 2, 6, 1, 5, 3, 7]);
        assert_eq!(prefix_spread(1), vec![0]);
        assert!(prefix_spread(0).is_empty());
        let order = prefix_spread(213);
        let mut sorted = order.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..213).collect::<Vec<_>>());
        // The first 12 reach both ends of the index, not just its first folder.
        assert!(order[..12].iter().any(|&i| i > 150) && order[..12].contains(&0));
    }
}
