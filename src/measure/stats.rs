//! Medians and spreads: what the probe reports for each operation.

use serde::{Deserialize, Serialize};

/// One operation's cost, in microseconds per call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OpStats {
    pub median_us: f64,
    /// The mean: what a run of many calls adds up to, preemptions and stalls included.
    pub mean_us: f64,
    /// The mean without the lowest and highest tenth (one each at least, from three samples):
    /// the rate for the model, since one stall among eight samples would otherwise pass for
    /// one call in eight. Three samples (a fast disk's one round of `opendir`) keep their
    /// middle one: one preempted call of three made the plain mean 20 times the `opendir`
    /// on a busy ext4 (370 us for 19), and every directory of `git status`'s walk paid it.
    pub trimmed_mean_us: f64,
    pub p10_us: f64,
    pub p90_us: f64,
    /// (p90 - p10) / median: 0.1 is a tight measurement, above 1 a noisy one.
    pub spread: f64,
    pub samples: u64,
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let rank = p * (sorted.len() - 1) as f64;
    let (lo, hi) = (rank.floor() as usize, rank.ceil() as usize);
    sorted[lo] + (sorted[hi] - sorted[lo]) * (rank - lo as f64)
}

fn trimmed_mean(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    let cut = if n >= 3 { (n / 10).max(1) } else { 0 };
    let kept = &sorted[cut..n - cut];
    kept.iter().sum::<f64>() / kept.len() as f64
}

impl OpStats {
    /// An operation the probe did not reach: no samples, counted as free.
    pub fn unmeasured() -> Self {
        Self {
            median_us: 0.0,
            mean_us: 0.0,
            trimmed_mean_us: 0.0,
            p10_us: 0.0,
            p90_us: 0.0,
            spread: 0.0,
            samples: 0,
        }
    }

    pub fn from_samples(samples: &[f64]) -> Option<Self> {
        let mut sorted: Vec<f64> = samples.iter().copied().filter(|v| v.is_finite()).collect();
        if sorted.is_empty() {
            return None;
        }
        sorted.sort_by(f64::total_cmp);
        let median = percentile(&sorted, 0.5);
        let (p10, p90) = (percentile(&sorted, 0.1), percentile(&sorted, 0.9));
        Some(Self {
            median_us: median,
            mean_us: sorted.iter().sum::<f64>() / sorted.len() as f64,
            trimmed_mean_us: trimmed_mean(&sorted),
            p10_us: p10,
            p90_us: p90,
            spread: if median > 0.0 {
                (p90 - p10) / median
            } else {
                0.0
            },
            samples: sorted.len() as u64,
        })
    }
}

/// The median of the finite values (the mean of the middle two for an even count); None when
/// there are none.
pub fn median(values: &[f64]) -> Option<f64> {
    OpStats::from_samples(values).map(|s| s.median_us)
}

/// `lstat` throughput with several threads, as git's preload-index runs it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ParallelLstat {
    pub threads: usize,
    /// Wall-clock microseconds per entry (the median run); below the single-call latency when
    /// the mount overlaps requests.
    pub per_entry_us: f64,
    pub spread: f64,
    pub samples: u64,
    pub source: LstatSource,
}

/// What a parallel `lstat` figure was measured on; in JSON the lower-case name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LstatSource {
    /// The repository's own tracked files.
    Tracked,
    /// The probe's scratch files.
    Scratch,
    /// Not measured: on a local disk, the serial figure over the cores the threads can use.
    Cores,
}

impl LstatSource {
    /// The JSON name, for people too.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Tracked => "tracked",
            Self::Scratch => "scratch",
            Self::Cores => "cores",
        }
    }
}

impl ParallelLstat {
    pub fn from_runs(threads: usize, source: LstatSource, runs: &[f64]) -> Option<Self> {
        OpStats::from_samples(runs).map(|s| Self {
            threads,
            per_entry_us: s.median_us,
            spread: s.spread,
            samples: s.samples,
            source,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_median_is_a_typical_run() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[5.0]), Some(5.0));
        assert_eq!(median(&[9.0, 1.0]), Some(5.0));
        assert_eq!(median(&[2400.0, 1900.0, 2100.0]), Some(2100.0));
    }

    #[test]
    fn median_and_spread_of_known_samples() {
        let s = OpStats::from_samples(&[5.0, 1.0, 3.0, 2.0, 4.0]).unwrap();
        assert_eq!(s.median_us, 3.0);
        assert_eq!(s.mean_us, 3.0);
        assert_eq!(s.trimmed_mean_us, 3.0);
        assert_eq!(s.samples, 5);
        assert!((s.p10_us - 1.4).abs() < 1e-9);
        assert!((s.p90_us - 4.6).abs() < 1e-9);
        assert!((s.spread - 3.2 / 3.0).abs() < 1e-9);
    }

    #[test]
    fn one_stall_among_eight_does_not_make_the_rate() {
        let s = OpStats::from_samples(&[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 100.0]).unwrap();
        assert_eq!(s.trimmed_mean_us, 1.0);
        assert!(s.mean_us > 10.0);
        // Twenty samples lose two at each end.
        let mut v: Vec<f64> = (1..=20).map(f64::from).collect();
        v[19] = 1000.0;
        let s = OpStats::from_samples(&v).unwrap();
        assert_eq!(s.trimmed_mean_us, (3..=18).sum::<i32>() as f64 / 16.0);
        assert_eq!(
            OpStats::from_samples(&[1.0, 9.0]).unwrap().trimmed_mean_us,
            5.0
        );
        // One round of three `opendir`s, one of them preempted: the middle one is the rate.
        let s = OpStats::from_samples(&[18.6, 863.7, 16.8]).unwrap();
        assert_eq!(s.trimmed_mean_us, 18.6);
        assert_eq!(
            OpStats::from_samples(&[2.0, 4.0, 900.0, 1.0])
                .unwrap()
                .trimmed_mean_us,
            3.0
        );
    }

    #[test]
    fn empty_or_nan_only_has_no_stats() {
        assert!(OpStats::from_samples(&[]).is_none());
        assert!(OpStats::from_samples(&[f64::NAN]).is_none());
        assert_eq!(OpStats::from_samples(&[7.0]).unwrap().spread, 0.0);
    }
}
