//! Where a check's time goes, phase by phase (issue 43): what `check --format json` reports as
//! `phases`, so a slow first check can be told apart from a slow mount.

use serde::Serialize;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

/// Wall time of each phase of one check, in milliseconds. Phases that ran at the same time
/// overlap (the repository's hints are read while the scan walks); a phase that did not run is
/// null.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Phases {
    /// Locating the repository: its canonical path, the mount table, the host's facts and the
    /// policy (before the scan).
    pub host_ms: u64,
    /// The walk of the tree and the git index read with it.
    pub scan_ms: u64,
    /// Git's settings, the usage hints and the lock file, read while the scan walks.
    pub hints_ms: u64,
    /// `git --version` and its start-up (cached per boot).
    pub git_facts_ms: u64,
    /// The CPU's pace (`measure::cpu`), timed while the repository mount's probe runs.
    pub cpu_ms: Option<u64>,
    /// The repository mount's probe: its tracked files, the scratch rounds, the cold reads
    /// (or the cached figures).
    pub probe_current_ms: Option<u64>,
    /// The package manager's own work: cached, timed on a sample, or its reference fit.
    pub manager_ms: Option<u64>,
    /// The Linux disk's probe (or its cached figures).
    pub probe_baseline_ms: Option<u64>,
    /// The model's predictions from the scan and the probes.
    pub predict_ms: Option<u64>,
    /// Outside a repository: the search for repositories below.
    pub repositories_below_ms: Option<u64>,
    /// The old place of a migration compared with its manifest.
    pub moved_ms: u64,
    /// The whole measurement, from the scan to the verdict.
    pub total_ms: u64,
    /// What runs now, for the spinner (not reported).
    #[serde(skip)]
    pub doing: Doing,
}

/// What the check is doing now, in words: set as each phase starts, read by the spinner as it
/// redraws, so that it names the phase that runs (a package manager's sample, not "timing
/// small-file operations", for the seconds npm takes).
#[derive(Debug, Clone, Default)]
pub struct Doing(Arc<Mutex<Option<String>>>);

impl Doing {
    pub fn set(&self, what: impl Into<String>) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = Some(what.into());
    }

    /// What was set last, else `before`.
    pub fn now_or(&self, before: &str) -> String {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
            .unwrap_or_else(|| before.to_string())
    }
}

/// Runs `work` and returns what it returned with its wall time in milliseconds.
pub fn timed<T>(work: impl FnOnce() -> T) -> (T, u64) {
    let start = Instant::now();
    let out = work();
    (out, start.elapsed().as_millis() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spinner_reads_the_phase_set_last_through_any_clone() {
        let phases = Phases::default();
        let spinner_side = phases.doing.clone();
        assert_eq!(spinner_side.now_or("timing"), "timing");
        phases.doing.set("timing npm's own work");
        assert_eq!(spinner_side.now_or("timing"), "timing npm's own work");
    }
}
