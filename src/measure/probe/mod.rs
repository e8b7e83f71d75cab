//! The calibrated small-file probe: what one file operation costs on a mount, measured in a
//! private scratch directory in a few hundred milliseconds, plus `lstat` on the repository's own
//! tracked files, the closest thing to what `git status` does.

pub mod cold;
pub mod measure;
pub mod ops;
pub mod reasons;
pub mod scratch;
pub mod tap;
pub mod tracked;
pub mod worker;

use crate::base::error::{Failure, Result};
use crate::base::interrupt;
use crate::base::reason::Noted;
use crate::host::location::MountTable;
use crate::host::mounts::{MountEntry, MountKind};
use crate::measure::gitindex;
use crate::measure::stats::{LstatSource, OpStats, ParallelLstat};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub use measure::CPU_BOUND_US;
pub use ops::PerOp;
pub use reasons::{FolderProblem, NoBaseline, ProbeSkipped};

/// Thread counts for the parallel `lstat` figures: git's preload-index uses one thread per 500
/// index entries, at least 2 and at most 20; the model interpolates between these.
pub const LSTAT_THREADS: &[usize] = &[2, 8, 20];
/// The least the probe waits for its scratch rounds whatever the budget, so that starting the
/// worker and one round of eight files fit on a busy machine (on a local disk the round takes
/// milliseconds, on 9p a few hundred) and a budget of 0 ("the first round only", as `migrate`
/// probes its destination) still measures.
pub const FIRST_ROUND_WAIT: Duration = Duration::from_millis(500);
/// Tracked files timed for `lstat`: enough for a stable median, few enough for a slow mount.
pub const TRACKED_SAMPLE: usize = 400;

/// Per-operation costs, microseconds per call.
pub type Ops = PerOp<OpStats>;

/// One mount's probe.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ProbeReport {
    /// The directory the scratch folder was made in.
    #[serde(with = "crate::base::pathtext::json")]
    pub dir: PathBuf,
    #[serde(with = "crate::base::pathtext::json")]
    pub mount_point: PathBuf,
    pub fstype: String,
    pub kind: MountKind,
    /// Why nothing was measured here (`skipped` in JSON, its kind `skipped_kind`); None when
    /// `ops` holds figures. A cached report is one that measured, so none is read back.
    #[serde(flatten, skip_deserializing)]
    pub skipped: Noted<ProbeSkipped>,
    pub ops: Option<Ops>,
    /// lstat throughput by thread count: from the tracked files when there are any.
    pub parallel_lstat: Vec<ParallelLstat>,
    /// Serial lstat of a sample of the repository's tracked files (relative to its root, as git).
    pub tracked_lstat: Option<OpStats>,
    /// Reads that miss the page cache (`cold`), on a disk where `lstat` is CPU work; None
    /// elsewhere, where the warm figures are the cold ones.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cold_read: Option<cold::ColdRead>,
    #[serde(flatten)]
    pub run: measure::RunSummary,
    /// The scratch folder is gone again.
    pub cleaned: bool,
    /// A call that alone outlasted the budget: the probe stopped waiting for it (a report with
    /// one is never cached, so it is never read back).
    #[serde(skip_serializing_if = "Option::is_none", skip_deserializing)]
    pub slow_call: Option<SlowCall>,
    /// What stopped it was the system's (a full disk, an I/O error), not where it was run.
    #[serde(skip)]
    pub system_failure: bool,
    pub elapsed_ms: u64,
    /// When the figures were measured, for figures read back from the mount cache (another
    /// run's probe, whose scratch folder `dir` named is long gone); None for this run's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_unix: Option<u64>,
}

/// Where to probe and what else to time there.
pub struct Target<'a> {
    pub dir: &'a Path,
    pub mount: &'a MountEntry,
    pub budget: Duration,
    /// The repository root and tracked paths relative to it, for the tracked `lstat` figures.
    pub tracked: Option<(&'a Path, &'a [PathBuf])>,
    /// Thread counts for the parallel `lstat` figures.
    pub threads: &'a [usize],
    /// On a local disk, derive the parallel figures from the cores instead of measuring them:
    /// `check` must cost less than what it predicts; `wsl-place probe` measures everything.
    pub derive_cpu_bound: bool,
}

impl ProbeReport {
    /// A report with nothing measured yet.
    pub fn empty(dir: &Path, mount: &MountEntry) -> Self {
        Self {
            dir: dir.to_path_buf(),
            mount_point: mount.mount_point.clone(),
            fstype: mount.fstype.clone(),
            kind: mount.kind(),
            skipped: Noted(None),
            ops: None,
            parallel_lstat: Vec::new(),
            tracked_lstat: None,
            cold_read: None,
            run: measure::RunSummary::default(),
            cleaned: true,
            slow_call: None,
            system_failure: false,
            elapsed_ms: 0,
            cached_unix: None,
        }
    }

    /// The serial lstat latency that best matches git: the tracked files' when measured.
    pub fn lstat_us(&self) -> Option<f64> {
        self.lstat_stats().map(|s| s.median_us)
    }

    pub fn lstat_stats(&self) -> Option<&OpStats> {
        self.tracked_lstat
            .as_ref()
            .or(self.ops.as_ref().map(|o| &o.lstat))
    }
}

/// Probes one directory's mount: the tracked files first, then the scratch rounds with what is
/// left of the budget. Never fails: a probe that cannot run says why in `skipped`.
pub fn probe(target: &Target) -> ProbeReport {
    let start = Instant::now();
    let mut report = ProbeReport::empty(target.dir, target.mount);
    measure_tracked(&mut report, target, target.budget.mul_f64(0.3));
    let left = target.budget.saturating_sub(start.elapsed());
    measure_scratch(&mut report, target, left);
    measure_cold(&mut report, target);
    report.elapsed_ms = start.elapsed().as_millis() as u64;
    report
}

/// Cold reads where `lstat` is CPU work (a local disk, whose page cache a reboot empties);
/// a few milliseconds, mostly the flushes of the files it then reads.
pub fn measure_cold(report: &mut ProbeReport, target: &Target) {
    let local = report
        .ops
        .as_ref()
        .is_some_and(|ops| ops.lstat.median_us > 0.0 && ops.lstat.median_us < CPU_BOUND_US);
    if local && !interrupt::requested() {
        report.cold_read = cold::cold_read(target.dir);
    }
}

/// Serial and parallel `lstat` on the repository's own tracked files, within `limit`.
pub fn measure_tracked(report: &mut ProbeReport, target: &Target, limit: Duration) {
    let Some((root, paths)) = target.tracked.filter(|(_, p)| !p.is_empty()) else {
        return;
    };
    if let Ok(samples) = tracked::tracked_lstat(root, paths, limit) {
        report.tracked_lstat = OpStats::from_samples(&samples);
    }
    let serial = report.lstat_us().unwrap_or(1.0);
    report.parallel_lstat = parallel_figures(target, target.threads, serial, || {
        if interrupt::requested() {
            return Vec::new();
        }
        tracked::tracked_parallel(root, paths, target.threads, serial).unwrap_or_default()
    });
}

/// The parallel `lstat` figures: derived from the cores where `lstat` is CPU work and the
/// target allows it, else what `measured` times.
fn parallel_figures(
    target: &Target,
    threads: &[usize],
    serial_us: f64,
    measured: impl FnOnce() -> Vec<ParallelLstat>,
) -> Vec<ParallelLstat> {
    if target.derive_cpu_bound && serial_us < CPU_BOUND_US {
        cpu_bound(threads, serial_us)
    } else {
        measured()
    }
}

/// Parallel `lstat` where it is CPU-bound: the serial figure over the cores the threads can
/// use. Measuring it would take git's own 500 calls per thread to get past the threads'
/// start-up on a fast disk, which costs as much as the preload it predicts.
fn cpu_bound(threads: &[usize], serial_us: f64) -> Vec<ParallelLstat> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    threads
        .iter()
        .map(|&t| ParallelLstat {
            threads: t,
            per_entry_us: serial_us / t.min(cores).max(1) as f64,
            spread: 0.0,
            samples: 0,
            source: LstatSource::Cores,
        })
        .collect()
}

/// Calls a first scratch round makes per file, in `lstat`s where each call is a round trip: a
/// round of 8 files took about 450 ms on the emulator (drvfs-9p, scale 1) whose tracked `lstat`
/// took 4.8 ms.
const ROUND_LSTATS_PER_FILE: f64 = 12.0;

/// Files in the first scratch round: the full round, unless on a mount where each call is a
/// round trip (the tracked `lstat` says so) it would not fit in `rounds`, what the predicted
/// `git status` leaves for the probe; then the small round, which still samples every call.
fn first_round(report: &ProbeReport, budget: Duration, rounds: Duration) -> usize {
    let full = measure::first_batch(budget);
    match report.lstat_us() {
        Some(us) if us >= CPU_BOUND_US => {
            let round_us = full as f64 * ROUND_LSTATS_PER_FILE * us;
            if Duration::from_secs_f64(round_us / 1e6) > rounds {
                full.min(measure::SMALL_FIRST_BATCH)
            } else {
                full
            }
        }
        _ => full,
    }
}

/// The scratch rounds: one at least, more while `budget` allows and the figures move, in a
/// worker process waited for at most the probe's whole budget (first round included). The
/// parallel `lstat` figures come from here only when the tracked files gave none.
pub fn measure_scratch(report: &mut ProbeReport, target: &Target, budget: Duration) {
    let threads = if report.parallel_lstat.is_empty() {
        target.threads
    } else {
        &[]
    };
    let skip_parallel_below = if target.derive_cpu_bound {
        CPU_BOUND_US
    } else {
        0.0
    };
    let job = worker::Job {
        dir: target.dir.to_path_buf(),
        budget_ms: budget.as_millis() as u64,
        first_batch: first_round(report, target.budget, budget),
        threads: threads.to_vec(),
        skip_parallel_below_us: skip_parallel_below,
    };
    let run = worker::run(&job, budget.max(target.budget).max(FIRST_ROUND_WAIT));
    report.cleaned = run.cleaned;
    let dir = target.dir.to_path_buf();
    match run.ending {
        worker::Ending::Finished => fill(report, &run.outcome, target),
        worker::Ending::TimedOut { op, running } => {
            fill_timed_out(report, run.outcome, (op, running), target);
        }
        worker::Ending::NoScratch(e) => {
            report.system_failure = disk_full(&e);
            report.skipped = Noted(Some(ProbeSkipped::NoScratch {
                dir,
                error: e.to_string(),
            }));
        }
        // Ctrl-C: not an I/O error to report.
        worker::Ending::Interrupted => {
            report.skipped = Noted(Some(ProbeSkipped::Interrupted));
        }
        worker::Ending::Failed(e) => {
            report.system_failure = true;
            report.skipped = Noted(Some(ProbeSkipped::IoError {
                dir,
                error: e.to_string(),
                scratch_removed: report.cleaned,
            }));
        }
    }
}

/// The figures of rounds that ended with the call `op` still running after `running`: that
/// call is the slow one, and its time so far one of its samples.
fn fill_timed_out(
    report: &mut ProbeReport,
    mut outcome: measure::Outcome,
    (op, running): (Option<ops::Op>, Duration),
    target: &Target,
) {
    if let Some(op) = op {
        // A lower bound: the call had run this long and had not returned.
        outcome
            .samples
            .ops
            .get_mut(op)
            .push(running.as_secs_f64() * 1e6);
    }
    report.slow_call = Some(SlowCall {
        op,
        over_ms: running.as_millis() as u64,
        scratch_cleaned: report.cleaned,
    });
    fill_partial(report, &outcome, target);
}

/// Whether an error's text (as the worker tells it) is a full disk or quota: ENOSPC, EDQUOT.
fn disk_full(error: &str) -> bool {
    [rustix::io::Errno::NOSPC, rustix::io::Errno::DQUOT]
        .iter()
        .any(|code| error.ends_with(&format!("(os error {})", code.raw_os_error())))
}

/// A call that alone outlasted the probe's budget, and what was done about it. In JSON its
/// sentence too, under `message` (worded in `report/text/probe.rs`).
#[derive(Debug, Clone, PartialEq)]
pub struct SlowCall {
    /// The operation; None when the probe had not begun one.
    pub op: Option<ops::Op>,
    /// How long the call had run, without returning, when the probe stopped waiting.
    pub over_ms: u64,
    /// Whether the probe's scratch folder was removed (else it goes once the mount answers).
    pub scratch_cleaned: bool,
}

impl Serialize for SlowCall {
    fn serialize<S: serde::Serializer>(
        &self,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        use crate::base::reason::Worded;
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(4))?;
        // `create`, the JSON name in `ops`.
        map.serialize_entry("operation", &self.op.map(ops::Op::name))?;
        map.serialize_entry("over_ms", &self.over_ms)?;
        map.serialize_entry("scratch_cleaned", &self.scratch_cleaned)?;
        map.serialize_entry("message", &self.sentence())?;
        map.end()
    }
}

fn fill(report: &mut ProbeReport, o: &measure::Outcome, target: &Target) {
    let ops = o
        .samples
        .ops
        .try_map(|samples| OpStats::from_samples(samples));
    fill_with(report, ops, o, target);
}

/// [`fill`] for rounds cut short: an operation never reached counts as free (no samples), so
/// every prediction made from these figures is a lower bound.
fn fill_partial(report: &mut ProbeReport, o: &measure::Outcome, target: &Target) {
    let ops = o
        .samples
        .ops
        .map(|samples| OpStats::from_samples(samples).unwrap_or_else(OpStats::unmeasured));
    fill_with(report, Some(ops), o, target);
}

fn fill_with(report: &mut ProbeReport, ops: Option<Ops>, o: &measure::Outcome, target: &Target) {
    let s = &o.samples;
    report.ops = ops;
    if report.parallel_lstat.is_empty() {
        let threads: Vec<usize> = s.parallel.iter().map(|(t, _)| *t).collect();
        let serial = report
            .ops
            .as_ref()
            .map_or(f64::INFINITY, |o| o.lstat.median_us);
        report.parallel_lstat = parallel_figures(target, &threads, serial, || {
            s.parallel
                .iter()
                .filter_map(|(t, runs)| ParallelLstat::from_runs(*t, LstatSource::Scratch, runs))
                .collect()
        });
    }
    report.run = o.run.clone();
}

/// What `check` and `probe` learn from the index before measuring anything.
#[derive(Debug, Default)]
pub struct Tracked {
    /// Tracked paths for the `lstat` sample, spread over the index (empty: not a repository,
    /// unreadable index, nothing tracked).
    pub sample: Vec<PathBuf>,
    /// What git's walk covers: tracked files on disk and the directories holding them (root
    /// included). None when this is not a git worktree.
    pub shape: Option<(u64, u64)>,
}

impl Tracked {
    /// Reads the index of the repository `root` is in (Windows drives under `automount_root`).
    pub fn read(root: &Path, automount_root: &Path) -> Self {
        Self::from_paths(
            gitindex::tracked_sample(root, usize::MAX, automount_root).unwrap_or_default(),
        )
    }

    /// From an index already read (by the scan).
    pub fn from_index(index: Option<&gitindex::RootIndex>) -> Self {
        let Some(index) = index else {
            return Self::default();
        };
        let (sample, shape) = index.tracked_sample_and_shape(TRACKED_SAMPLE);
        Self { sample, shape }
    }

    fn from_paths(all: Vec<PathBuf>) -> Self {
        if all.is_empty() {
            return Self::default();
        }
        let dirs: std::collections::HashSet<&Path> =
            all.iter().flat_map(|p| p.ancestors().skip(1)).collect();
        let shape = Some((all.len() as u64, dirs.len().max(1) as u64));
        let sample = if all.len() <= TRACKED_SAMPLE {
            all
        } else {
            let refs: Vec<&PathBuf> = all.iter().collect();
            gitindex::spread(&refs, TRACKED_SAMPLE)
                .into_iter()
                .cloned()
                .collect()
        };
        Self { sample, shape }
    }

    /// The thread counts git's preload-index would use here: the one figure the model needs.
    pub fn git_threads(&self) -> Vec<usize> {
        let entries = self.shape.map_or(0, |s| s.0);
        match gitindex::git_preload_threads(entries) {
            1 => Vec::new(),
            t => vec![t],
        }
    }
}

/// The mount `dir` is on, or a sentence saying the mount table is incomplete.
pub fn mount_of<'a>(table: &'a MountTable, dir: &Path) -> Result<&'a MountEntry> {
    table.mount_for(dir).ok_or_else(|| {
        Failure::input(format!(
            "no mount in the mount table contains {}; the mountinfo looks incomplete.",
            dir.display()
        ))
    })
}

/// Both probes of `check`, and where the baseline stands.
#[derive(Debug, Clone, Serialize)]
pub struct ProbeSet {
    pub current: ProbeReport,
    /// None when there is no fair baseline (tmpfs, not a local disk, no $HOME): see `baseline_note`.
    pub baseline: Option<ProbeReport>,
    /// Why the baseline is missing or equals the current mount (`baseline_note` in JSON, its
    /// kind `baseline_note_kind`).
    #[serde(flatten)]
    pub baseline_note: Noted<NoBaseline>,
    /// The baseline lives on the repository's own mount; its figures are the current ones.
    pub baseline_same_mount: bool,
    /// Where the repository would live after a move, for the headline.
    pub baseline_label: Option<String>,
    /// The faster of two `git --version` runs: process start-up, independent of the mount.
    pub git_startup_ms: Option<f64>,
    /// The CPU's pace: microseconds to hash one MiB with git's SHA-1 (`cpu::sha1_us_per_mib`),
    /// which scales the model's CPU terms.
    pub cpu_sha1_us_per_mib: Option<f64>,
    /// Tracked files on disk and the directories holding them (root included), from the index:
    /// what git's walk covers, without `.git` and ignored trees.
    pub index_files: Option<u64>,
    pub index_dirs: Option<u64>,
    /// Git's walk from the index and its exclude rules (None when this is not a repository).
    pub git_walk: Option<crate::measure::gitindex::GitWalk>,
    /// The package manager's own work, timed on this machine (None without dependencies).
    pub manager: Option<crate::measure::deps::manager_timing::ManagerTiming>,
    pub elapsed_ms: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn git_threads_follow_the_index_size() {
        let shape = |n| Tracked {
            sample: Vec::new(),
            shape: Some((n, 1)),
        };
        assert!(shape(999).git_threads().is_empty());
        assert_eq!(shape(1000).git_threads(), vec![2]);
        assert_eq!(shape(1_000_000).git_threads(), vec![20]);
        assert!(Tracked::default().git_threads().is_empty());
    }
}
