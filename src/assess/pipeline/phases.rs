//! Where a check's time goes, phase by phase (issue 43): what `check --format json` reports as
//! `phases`, so a slow first check can be told apart from a slow mount.

use serde::Serialize;
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
}

/// Runs `work` and returns what it returned with its wall time in milliseconds.
pub fn timed<T>(work: impl FnOnce() -> T) -> (T, u64) {
    let start = Instant::now();
    let out = work();
    (out, start.elapsed().as_millis() as u64)
}
