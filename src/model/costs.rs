//! One mount's costs as the model needs them: microseconds per call, the parallel `lstat`, the
//! CPU's pace and the sampling error, from the probe.

use crate::measure::probe::PerOp;
use crate::measure::probe::cold::ColdRead;
use serde::Serialize;

/// The pace the model's CPU terms (`git_status`'s, the package managers' reference fits) were
/// fitted at: microseconds to hash one MiB with git's SHA-1 (`cpu::sha1_us_per_mib`) on
/// this project's 2-core machines. A machine that hashes slower gets every CPU term scaled by
/// its own figure over this.
pub const REFERENCE_SHA1_US_PER_MIB: f64 = 580.0;

pub(super) const SMALL_FILE: f64 = 4096.0;
pub(super) const MIB: f64 = 1_048_576.0;

/// One mount's costs, microseconds per call, as the model needs them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MountCosts {
    /// Serial `lstat` of the repository's own files, path walk included (the scratch files'
    /// when none were timed).
    pub lstat_us: f64,
    /// (threads, wall-clock microseconds per entry), sorted by threads.
    pub parallel_lstat: Vec<(usize, f64)>,
    /// Each scratch operation's cost (0 for one not measured). Its `lstat` is one level below an
    /// open directory: what an `lstat` costs without the path walk that `lstat_us` includes.
    pub scratch: PerOp<f64>,
    /// The CPU's pace while this mount was probed: microseconds to hash one MiB with git's
    /// SHA-1 (0 when not measured: the reference pace).
    pub sha1_us_per_mib: f64,
    /// Reads that miss the page cache; None where the warm figures are the cold ones (a
    /// mount without a page cache of its own) or they were not measured.
    pub cold_read: Option<ColdRead>,
    /// How far the samples let the mean move, as a fraction of it (about two standard errors
    /// of the dominant figures): the sampling part of a prediction's range.
    pub sampling_error: f64,
}

impl MountCosts {
    /// What walking from the repository's root to one of its files adds to any call on it:
    /// a tracked file's `lstat` minus a scratch file's.
    pub fn path_walk_us(&self) -> f64 {
        (self.lstat_us - self.scratch.lstat).max(0.0)
    }

    /// Wall-clock microseconds per `lstat` with `threads` threads: serial latency for one,
    /// else interpolated (log-log) between the measured thread counts, clamped at their ends.
    pub fn lstat_per_entry_us(&self, threads: usize) -> f64 {
        // Never above the figure for fewer threads: git gives each thread 500 entries or more,
        // so the wake-up delays that can make a short measured run look slower than one thread
        // are amortised away in git.
        let mut points: Vec<(f64, f64)> = vec![(1.0, self.lstat_us)];
        let mut floor = self.lstat_us;
        for &(t, us) in self
            .parallel_lstat
            .iter()
            .filter(|&&(t, us)| t > 1 && us > 0.0)
        {
            floor = floor.min(us);
            points.push((t as f64, floor));
        }
        if threads <= 1 {
            return self.lstat_us;
        }
        let t = threads as f64;
        if let Some(&(last_t, last_us)) = points.last()
            && t >= last_t
        {
            return last_us;
        }
        for pair in points.windows(2) {
            let ((t0, u0), (t1, u1)) = (pair[0], pair[1]);
            if t >= t0 && t <= t1 {
                let f = (t.ln() - t0.ln()) / (t1.ln() - t0.ln());
                return (u0.ln() + f * (u1.ln() - u0.ln())).exp();
            }
        }
        self.lstat_us
    }

    /// How much slower than the reference the CPU terms run here (1 when not measured).
    pub fn cpu_pace(&self) -> f64 {
        crate::measure::cpu::pace(self.sha1_us_per_mib, REFERENCE_SHA1_US_PER_MIB)
    }

    pub(super) fn bytes_per_us(&self) -> f64 {
        if self.scratch.write_mib > 0.0 {
            MIB / self.scratch.write_mib
        } else {
            f64::INFINITY
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::slow;
    use super::*;

    #[test]
    fn parallel_lstat_interpolates_and_clamps() {
        let c = slow();
        assert_eq!(c.lstat_per_entry_us(1), 1000.0);
        assert!((c.lstat_per_entry_us(2) - 500.0).abs() < 1e-9);
        assert_eq!(c.lstat_per_entry_us(20), 60.0);
        assert_eq!(c.lstat_per_entry_us(64), 60.0);
        let four = c.lstat_per_entry_us(4);
        // Halfway in log(threads) between 2 and 8: the geometric mean of 500 and 130.
        assert!((four - (500.0f64 * 130.0).sqrt()).abs() < 1e-6, "{four}");
        let bare = MountCosts {
            parallel_lstat: vec![],
            ..c
        };
        assert_eq!(bare.lstat_per_entry_us(20), 1000.0);
        // A parallel run measured slower than one thread (scheduling noise) is not believed.
        let noisy = MountCosts {
            parallel_lstat: vec![(2, 1500.0), (8, 400.0), (20, 600.0)],
            ..slow()
        };
        assert!((noisy.lstat_per_entry_us(2) - 1000.0).abs() < 1e-9);
        assert_eq!(noisy.lstat_per_entry_us(20), 400.0);
    }
}
