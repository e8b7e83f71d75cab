//! How fast this machine's CPU is while `check` runs, as git's CPU-bound work would find it.
//!
//! On a local disk `git status` and the first status after a copy are CPU work: hashing every
//! byte with SHA-1 (collision-detecting, as git does), parsing the index, comparing stat data.
//! The model's CPU terms are fitted at a reference pace (`model::REFERENCE_SHA1_US_PER_MIB`);
//! this calibration scales them by what the CPU does now, so that a busy or a slower machine
//! gets its own figures.

use std::time::Instant;

/// How much slower the CPU is at `now` than at `then` (both `sha1_us_per_mib`), bounded so
/// that one absurd calibration cannot turn a prediction into nonsense; 1 when either is not
/// measured (0).
pub fn pace(now: f64, then: f64) -> f64 {
    if now > 0.0 && then > 0.0 {
        (now / then).clamp(0.25, 8.0)
    } else {
        1.0
    }
}

/// Bytes hashed per run: about 0.3 ms on this project's machines, short enough that the
/// calibration stays a small part of a check on the Linux disk (a few milliseconds in all).
const RUN_BYTES: usize = 512 << 10;
const PIECE: usize = 128 << 10;
/// Runs; their median is the figure, so one preemption on a busy machine does not pass for
/// the CPU's pace (about 1 ms in all).
const RUNS: usize = 3;

/// Microseconds to hash one MiB with git's SHA-1 (gix's, the same collision-detecting
/// algorithm git uses): the median of `RUNS` runs over `RUN_BYTES`.
pub fn sha1_us_per_mib() -> f64 {
    let data: Vec<u8> = (0..PIECE).map(|i| (i * 131 % 251) as u8).collect();
    let mib = RUN_BYTES as f64 / (1 << 20) as f64;
    let mut runs: Vec<f64> = (0..RUNS)
        .map(|_| {
            let start = Instant::now();
            let mut hasher = gix::hash::hasher(gix::hash::Kind::Sha1);
            for _ in 0..RUN_BYTES / PIECE {
                hasher.update(std::hint::black_box(&data));
            }
            std::hint::black_box(hasher.try_finalize().ok());
            start.elapsed().as_secs_f64() * 1e6 / mib
        })
        .collect();
    runs.sort_by(f64::total_cmp);
    runs[RUNS / 2]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_calibration_is_a_positive_rate() {
        let us = sha1_us_per_mib();
        assert!(us.is_finite() && us > 0.0, "{us}");
    }
}
