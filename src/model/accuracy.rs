//! How right the predictions have been on this machine, and the bounded correction that
//! follows from it (docs/accuracy.md). Pure: the record is read and written in
//! `store::accuracy`.

use super::uncertainty::{Compared, Figure};
use serde::Serialize;

/// Verifications on one mount before its predictions are corrected: with fewer, one odd run
/// would move every later figure.
pub const CORRECTION_MIN_CHECKS: usize = 3;
/// The newest verifications the correction weighs: a mount that changed (a new drive, a
/// driver update) is followed within this many checks.
pub const CORRECTION_WINDOW: usize = 9;
/// The shrinkage constant k in the weight n / (n + k): how many verifications' worth of
/// belief the model keeps. 0.25 lets three verifications take 12/13 of the way in log space
/// (a 1.5x miss is then left at 3%, a 2x one at 5.5%, a 3x one at 9%).
pub const CORRECTION_SHRINK: f64 = 0.25;
/// The correction never scales a prediction by more than this either way: beyond it the model
/// is wrong in a way a factor does not mend.
pub const CORRECTION_LIMIT: f64 = 3.0;

/// Repositories with verifications on a mount before their figures correct another
/// repository's there: one repository's own quirks (a hook, a filter, files no other has) never
/// set the mount's figure for every other.
pub const MOUNT_MIN_REPOSITORIES: usize = 2;

/// The newest verifications the accuracy line speaks for: how right the tool is now, not
/// before a correction mended it.
pub const ACCURACY_WINDOW: usize = 10;

/// One prediction checked against the real thing: "predicted 1.5 s, measured 1.4 s, -7%".
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Checked {
    pub predicted_ms: f64,
    pub measured_ms: f64,
    /// measured / predicted - 1: negative when the real thing was faster.
    pub error: f64,
}

impl Checked {
    pub fn new(predicted_ms: f64, measured_ms: f64) -> Self {
        let error = if predicted_ms > 0.0 {
            measured_ms / predicted_ms - 1.0
        } else {
            0.0
        };
        Self {
            predicted_ms,
            measured_ms,
            error,
        }
    }
}

/// How right the shown predictions have been: the largest error of `checks` verifications.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Accuracy {
    pub checks: usize,
    /// The largest |measured / predicted - 1| among them.
    pub within: f64,
}

impl Accuracy {
    /// From (predicted, measured) pairs, oldest first: the newest `ACCURACY_WINDOW` of them;
    /// None without any.
    pub fn of(pairs: impl IntoIterator<Item = (f64, f64)>) -> Option<Self> {
        let all: Vec<f64> = pairs
            .into_iter()
            .map(|(p, m)| Checked::new(p, m).error.abs())
            .collect();
        let errors = &all[all.len().saturating_sub(ACCURACY_WINDOW)..];
        (!errors.is_empty()).then(|| Self {
            checks: errors.len(),
            within: errors.iter().copied().fold(0.0, f64::max),
        })
    }
}

/// The factor a mount's predictions are scaled by after its verifications.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Correction {
    pub factor: f64,
    /// The verifications it follows from (at most `CORRECTION_WINDOW`).
    pub checks: usize,
    /// Their median measured / model ratio, before shrinking and clamping.
    pub median_ratio: f64,
    /// How many repositories' verifications it follows from: 1 is the repository's own; more
    /// is the mount's, each repository's median ratio counted once.
    pub repositories: usize,
}

/// The correction from the measured / model ratios of one mount's verifications, oldest first:
/// the median ratio m of the newest `CORRECTION_WINDOW`, shrunk toward 1 in log space with
/// weight w = n / (n + k), factor = m^w, clamped to [1/3, 3]. None below
/// `CORRECTION_MIN_CHECKS` or when the ratios are not positive figures.
pub fn correction(ratios: &[f64]) -> Option<Correction> {
    let usable = newest_usable(ratios);
    if usable.len() < CORRECTION_MIN_CHECKS {
        return None;
    }
    // Every ratio left is a positive figure, and there are at least CORRECTION_MIN_CHECKS.
    let median_ratio = crate::measure::stats::median(&usable)?;
    Some(shrunk(median_ratio, usable.len(), 1))
}

/// The mount's correction from its repositories' ratios (each oldest first, the repositories
/// in the order of their newest verification): the median of each one's newest ratios, then
/// the median of those medians, so a repository verified ten times weighs as much as one
/// verified three times. None below `MOUNT_MIN_REPOSITORIES` repositories or
/// `CORRECTION_MIN_CHECKS` verifications in all.
pub fn correction_across(repositories: &[Vec<f64>]) -> Option<Correction> {
    let newest = &repositories[repositories.len().saturating_sub(CORRECTION_WINDOW)..];
    let per_repository: Vec<(f64, usize)> = newest
        .iter()
        .map(|ratios| newest_usable(ratios))
        .filter_map(|usable| Some((crate::measure::stats::median(&usable)?, usable.len())))
        .collect();
    let checks: usize = per_repository.iter().map(|(_, n)| n).sum();
    if per_repository.len() < MOUNT_MIN_REPOSITORIES || checks < CORRECTION_MIN_CHECKS {
        return None;
    }
    let medians: Vec<f64> = per_repository.iter().map(|(m, _)| *m).collect();
    let median_ratio = crate::measure::stats::median(&medians)?;
    Some(shrunk(
        median_ratio,
        checks.min(CORRECTION_WINDOW),
        medians.len(),
    ))
}

/// The newest `CORRECTION_WINDOW` ratios that are positive figures.
fn newest_usable(ratios: &[f64]) -> Vec<f64> {
    ratios[ratios.len().saturating_sub(CORRECTION_WINDOW)..]
        .iter()
        .copied()
        .filter(|r| r.is_finite() && *r > 0.0)
        .collect()
}

/// `median_ratio` from `checks` verifications, shrunk toward 1 and clamped.
fn shrunk(median_ratio: f64, checks: usize, repositories: usize) -> Correction {
    let n = checks as f64;
    let weight = n / (n + CORRECTION_SHRINK);
    let factor = median_ratio
        .powf(weight)
        .clamp(1.0 / CORRECTION_LIMIT, CORRECTION_LIMIT);
    Correction {
        factor,
        checks,
        median_ratio,
        repositories,
    }
}

impl Compared {
    /// The same prediction with its current side scaled by `current` and its baseline by
    /// `baseline` (ranges scale with their figures; the errors are unchanged).
    pub fn scaled(&self, current: f64, baseline: f64) -> Self {
        let speedup_error = self.speedup_error.unwrap_or(0.0);
        Self::from_figures(
            Figure {
                value: self.current * current,
                error: self.error,
            },
            self.baseline.map(|b| Figure {
                value: b * baseline,
                error: self
                    .baseline_range
                    .filter(|_| b > 0.0)
                    .map_or(0.0, |r| r.high / b - 1.0),
            }),
            speedup_error,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_verifications_mend_a_one_and_a_half_times_miss_to_within_fifteen_percent() {
        assert_eq!(correction(&[1.5, 1.5]), None);
        let c = correction(&[1.5, 1.5, 1.5]).unwrap();
        let left = 1.5 / c.factor - 1.0;
        assert!(left.abs() < 0.15, "{c:?} leaves {left}");
        assert!(c.factor < 1.5, "shrunk toward 1: {c:?}");
        // The same the other way.
        let c = correction(&[1.0 / 1.5; 3]).unwrap();
        assert!(((1.0 / 1.5) / c.factor - 1.0).abs() < 0.15);
    }

    #[test]
    fn the_correction_is_bounded_and_robust() {
        assert_eq!(correction(&[50.0; 5]).unwrap().factor, CORRECTION_LIMIT);
        assert_eq!(
            correction(&[0.001; 5]).unwrap().factor,
            1.0 / CORRECTION_LIMIT
        );
        // One wild run among steady ones barely moves it (the median).
        let c = correction(&[1.2, 1.2, 40.0, 1.2]).unwrap();
        assert!((c.median_ratio - 1.2).abs() < 1e-9);
        // Only the newest window counts.
        let mut ratios = vec![3.0; 20];
        ratios.extend([1.0; CORRECTION_WINDOW]);
        assert!((correction(&ratios).unwrap().factor - 1.0).abs() < 1e-9);
    }

    #[test]
    fn one_repository_never_sets_the_mounts_correction() {
        // Three verifications of one slow repository: its own figure is corrected, no other's.
        assert_eq!(correction_across(&[vec![3.0; 3]]), None);
        // Another repository that the model gets right: the mount's median is of the two
        // repositories' medians, each counted once however often it was verified.
        let c = correction_across(&[vec![3.0; 9], vec![1.0]]).unwrap();
        assert_eq!((c.repositories, c.checks), (2, 9));
        assert!((c.median_ratio - 2.0).abs() < 1e-9, "{c:?}");
        let c = correction_across(&[vec![3.0; 9], vec![1.0], vec![1.0]]).unwrap();
        assert!((c.median_ratio - 1.0).abs() < 1e-9, "{c:?}");
        assert_eq!(correction_across(&[vec![1.2], vec![1.2]]), None);
    }

    #[test]
    fn checked_and_accuracy() {
        let c = Checked::new(1500.0, 1400.0);
        assert!((c.error + 1.0 / 15.0).abs() < 1e-9);
        let a = Accuracy::of([(100.0, 109.0), (100.0, 95.0)]).unwrap();
        assert_eq!(a.checks, 2);
        assert!((a.within - 0.09).abs() < 1e-9);
        assert_eq!(Accuracy::of([]), None);
    }

    #[test]
    fn scaling_keeps_the_errors() {
        let c = Compared::from_figures(
            Figure {
                value: 1000.0,
                error: 0.2,
            },
            Some(Figure {
                value: 10.0,
                error: 0.2,
            }),
            0.3,
        );
        let s = c.scaled(1.5, 1.0);
        assert!((s.current - 1500.0).abs() < 1e-9);
        assert!((s.current_range.high - 1800.0).abs() < 1e-9);
        assert!((s.speedup.unwrap() - 150.0).abs() < 1e-9);
        assert!((s.baseline_range.unwrap().high - 12.0).abs() < 1e-9);
    }
}
