//! The calibrated small-file probe: what one file operation costs on a mount, measured in a
//! private scratch directory in a few hundred milliseconds, plus `lstat` on the repository's own
//! tracked files, the closest thing to what `git status` does.

pub mod measure;
pub mod scratch;
pub mod stats;

use crate::cli::{CheckArgs, Format, GlobalArgs, ProbeArgs};
use crate::error::{ExitCode, Failure, Result};
use crate::host::HostEnv;
use crate::location::{self, Location, MountTable};
use crate::mounts::{MountEntry, MountKind};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub use measure::CPU_BOUND_US;
pub use stats::{OpStats, ParallelLstat};

/// Thread counts for the parallel `lstat` figures: git's preload-index uses one thread per 500
/// index entries, at least 2 and at most 20; the model interpolates between these.
pub const LSTAT_THREADS: &[usize] = &[2, 8, 20];
/// Tracked files timed for `lstat`: enough for a stable median, few enough for a slow mount.
pub const TRACKED_SAMPLE: usize = 400;

/// Per-operation costs, microseconds per call.
#[derive(Debug, Clone, Serialize)]
pub struct Ops {
    /// create + write 4 KiB + close.
    pub create: OpStats,
    /// open + read 4 KiB + close.
    pub read: OpStats,
    pub lstat: OpStats,
    /// Listing cost per directory entry.
    pub readdir_entry: OpStats,
    /// Opening and listing an empty directory: the per-directory cost of a walk.
    pub opendir: OpStats,
    pub unlink: OpStats,
    pub mkdir: OpStats,
    pub rename: OpStats,
    /// Writing one 1 MiB file (create, 16 writes of 64 KiB, close): the bandwidth figure.
    pub write_mib: OpStats,
}

/// One mount's probe.
#[derive(Debug, Clone, Serialize)]
pub struct ProbeReport {
    /// The directory the scratch folder was made in.
    pub dir: PathBuf,
    pub mount_point: PathBuf,
    pub fstype: String,
    pub kind: MountKind,
    /// Why nothing was measured here, as a sentence; None when `ops` holds figures.
    pub skipped: Option<String>,
    pub ops: Option<Ops>,
    /// lstat throughput by thread count: from the tracked files when there are any.
    pub parallel_lstat: Vec<ParallelLstat>,
    /// Serial lstat of a sample of the repository's tracked files (relative to its root, as git).
    pub tracked_lstat: Option<OpStats>,
    #[serde(flatten)]
    pub run: measure::RunSummary,
    /// The scratch folder is gone again.
    pub cleaned: bool,
    pub elapsed_ms: u64,
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
    fn empty(dir: &Path, mount: &MountEntry) -> Self {
        Self {
            dir: dir.to_path_buf(),
            mount_point: mount.mount_point.clone(),
            fstype: mount.fstype.clone(),
            kind: mount.kind(),
            skipped: None,
            ops: None,
            parallel_lstat: Vec::new(),
            tracked_lstat: None,
            run: measure::RunSummary::default(),
            cleaned: true,
            elapsed_ms: 0,
        }
    }

    /// A report that measured nothing, with the reason.
    pub fn skipped(dir: &Path, mount: &MountEntry, reason: String) -> Self {
        Self {
            skipped: Some(reason),
            ..Self::empty(dir, mount)
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
    report.elapsed_ms = start.elapsed().as_millis() as u64;
    report
}

/// Serial and parallel `lstat` on the repository's own tracked files, within `limit`.
fn measure_tracked(report: &mut ProbeReport, target: &Target, limit: Duration) {
    let Some((root, paths)) = target.tracked.filter(|(_, p)| !p.is_empty()) else {
        return;
    };
    if let Ok(samples) = measure::tracked_lstat(root, paths, limit) {
        report.tracked_lstat = OpStats::from_samples(&samples);
    }
    let serial = report.lstat_us().unwrap_or(1.0);
    report.parallel_lstat = parallel_figures(target, target.threads, serial, || {
        if scratch::interrupted() {
            return Vec::new();
        }
        measure::tracked_parallel(root, paths, target.threads, serial).unwrap_or_default()
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
            source: "cores",
        })
        .collect()
}

/// The scratch rounds: one at least, more while `budget` allows and the figures move. The
/// parallel `lstat` figures come from here only when the tracked files gave none.
fn measure_scratch(report: &mut ProbeReport, target: &Target, budget: Duration) {
    let scratch = match scratch::Scratch::create(target.dir) {
        Ok(s) => s,
        Err(e) => {
            report.skipped = Some(format!(
                "the probe was skipped: cannot create a scratch folder in {} ({e}); run from a writable directory on that mount.",
                target.dir.display()
            ));
            return;
        }
    };
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
    let outcome = measure::rounds(scratch.path(), budget, threads, skip_parallel_below);
    report.cleaned = scratch.remove();
    match outcome {
        Ok(o) => fill(report, &o, target),
        Err(e) => {
            scratch::exit_if_interrupted();
            report.skipped = Some(format!(
                "the probe in {} stopped on an I/O error ({e}); its scratch folder was removed.",
                target.dir.display()
            ));
        }
    }
}

fn fill(report: &mut ProbeReport, o: &measure::Outcome, target: &Target) {
    let s = &o.samples;
    let stat = OpStats::from_samples;
    report.ops = (|| {
        Some(Ops {
            create: stat(&s.create)?,
            read: stat(&s.read)?,
            lstat: stat(&s.lstat)?,
            readdir_entry: stat(&s.readdir_entry)?,
            opendir: stat(&s.opendir)?,
            unlink: stat(&s.unlink)?,
            mkdir: stat(&s.mkdir)?,
            rename: stat(&s.rename)?,
            write_mib: stat(&s.write_mib)?,
        })
    })();
    if report.parallel_lstat.is_empty() {
        let threads: Vec<usize> = s.parallel.iter().map(|(t, _)| *t).collect();
        let serial = report
            .ops
            .as_ref()
            .map_or(f64::INFINITY, |o| o.lstat.median_us);
        report.parallel_lstat = parallel_figures(target, &threads, serial, || {
            s.parallel
                .iter()
                .filter_map(|(t, runs)| ParallelLstat::from_runs(*t, "scratch", runs))
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
    /// Reads the index of the repository `root` is in.
    pub fn read(root: &Path) -> Self {
        Self::from_paths(crate::gitindex::tracked_sample(root, usize::MAX).unwrap_or_default())
    }

    /// From an index already read (by the scan).
    pub fn from_index(index: Option<&crate::gitindex::RootIndex>) -> Self {
        Self::from_paths(index.map_or_else(Vec::new, |i| i.tracked_paths(usize::MAX)))
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
            crate::gitindex::spread(&refs, TRACKED_SAMPLE)
                .into_iter()
                .cloned()
                .collect()
        };
        Self { sample, shape }
    }

    /// The thread counts git's preload-index would use here: the one figure the model needs.
    pub fn git_threads(&self) -> Vec<usize> {
        let entries = self.shape.map_or(0, |s| s.0);
        match crate::model::git_preload_threads(entries) {
            1 => Vec::new(),
            t => vec![t],
        }
    }
}

fn mount_of<'a>(table: &'a MountTable, dir: &Path) -> Result<&'a MountEntry> {
    table.mount_for(dir).ok_or_else(|| {
        Failure::input(format!(
            "no mount in the mount table contains {}; the mountinfo looks incomplete.",
            dir.display()
        ))
    })
}

/// `wsl-place probe [DIR]`.
pub fn run_command(env: &HostEnv, global: &GlobalArgs, args: &ProbeArgs) -> Result<ExitCode> {
    let dir = location::canonical_dir(&args.dir)?;
    let table = MountTable::read(env)?;
    let mount = mount_of(&table, &dir)?;
    let tracked = Tracked::read(&dir);
    let report = probe(&Target {
        dir: &dir,
        mount,
        budget: Duration::from_millis(args.probe_budget_ms),
        tracked: Some((&dir, &tracked.sample)),
        threads: LSTAT_THREADS,
        derive_cpu_bound: false,
    });
    if !global.quiet {
        let text = match global.format {
            Format::Json => crate::report::to_json(&report)?,
            _ => crate::report::probe_table(&report, &crate::report::Style { color: false }),
        };
        crate::print(&text)?;
    }
    match &report.skipped {
        Some(reason) if report.ops.is_none() => Err(Failure::input(reason.clone())),
        _ => Ok(ExitCode::Ok),
    }
}

/// Both probes of `check`, and where the baseline stands.
#[derive(Debug, Clone, Serialize)]
pub struct ProbeSet {
    pub current: ProbeReport,
    /// None when there is no fair baseline (tmpfs, not a local disk, no $HOME): see `baseline_note`.
    pub baseline: Option<ProbeReport>,
    /// Why the baseline is missing or equals the current mount, as a sentence.
    pub baseline_note: Option<String>,
    /// The baseline lives on the repository's own mount; its figures are the current ones.
    pub baseline_same_mount: bool,
    /// Where the repository would live after a move, for the headline.
    pub baseline_label: Option<String>,
    /// The faster of two `git --version` runs: process start-up, independent of the mount.
    pub git_startup_ms: Option<f64>,
    /// Tracked files on disk and the directories holding them (root included), from the index:
    /// what git's walk covers, without `.git` and ignored trees.
    pub index_files: Option<u64>,
    pub index_dirs: Option<u64>,
    pub elapsed_ms: u64,
}

enum Baseline<'a> {
    Probe(PathBuf, &'a MountEntry),
    Same(PathBuf, String),
    None(String),
}

fn same_mount(a: &MountEntry, b: &MountEntry) -> bool {
    a.mount_point == b.mount_point && a.source == b.source && a.fstype == b.fstype
}

fn choose_baseline<'a>(
    env: &HostEnv,
    args: &CheckArgs,
    table: &'a MountTable,
    current: &MountEntry,
) -> Result<Baseline<'a>> {
    let dir = match (&args.baseline, env.home()) {
        (Some(dir), _) => location::canonical_dir(dir)?,
        (None, Some(home)) => match location::canonical_dir(&home) {
            Ok(dir) => dir,
            Err(e) => {
                return Ok(Baseline::None(format!(
                    "No baseline: $HOME is unusable ({e}); pass --baseline DIR on the Linux disk to compare against."
                )));
            }
        },
        (None, None) => {
            return Ok(Baseline::None(
                "No baseline: $HOME is not set; pass --baseline DIR on the Linux disk to compare against.".into(),
            ));
        }
    };
    let Some(mount) = table.mount_for(&dir) else {
        return Ok(Baseline::None(format!(
            "No baseline: no mount contains {}; the mount table looks incomplete.",
            dir.display()
        )));
    };
    let shown = dir.display();
    Ok(match mount.kind() {
        _ if same_mount(mount, current) => Baseline::Same(
            dir.clone(),
            format!(
                "The baseline {shown} is on the same mount as the repository ({} {}), so both sides are the same disk: there is nothing faster to move to here (pass --baseline DIR to compare with another disk).",
                mount.mount_point.display(),
                mount.fstype
            ),
        ),
        MountKind::Tmpfs => Baseline::None(format!(
            "The baseline {shown} is on tmpfs, which is memory rather than a disk and would flatter the move; pass --baseline DIR on the Linux disk (ext4) for a fair comparison."
        )),
        MountKind::Local | MountKind::Overlay | MountKind::Other => {
            Baseline::Probe(dir.clone(), mount)
        }
        kind => Baseline::None(format!(
            "The baseline {shown} is not on a local disk ({}, {}), so comparing against it would mislead; pass --baseline DIR on the Linux disk (ext4).",
            kind.as_str(),
            mount.fstype
        )),
    })
}

/// The faster of two `git --version` runs: process start-up, which one unlucky schedule on a
/// busy machine would overstate.
fn git_startup_ms() -> Option<f64> {
    (0..2)
        .filter_map(|_| {
            let start = Instant::now();
            let status = std::process::Command::new("git")
                .arg("--version")
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .status()
                .ok()?;
            status
                .success()
                .then(|| start.elapsed().as_secs_f64() * 1e3)
        })
        .min_by(f64::total_cmp)
}

fn label_for(env: &HostEnv, args: &CheckArgs, dir: &Path, repo: &Path) -> String {
    let name = repo
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "repo".into());
    match (&args.baseline, env.home()) {
        (None, Some(home))
            if home == dir || location::canonical_dir(&home).ok().as_deref() == Some(dir) =>
        {
            format!("~/src/{name}")
        }
        _ => dir.display().to_string(),
    }
}

/// Of the `git status` the pilot predicts, the share the whole probe may cost (beyond the
/// first scratch round on each mount, which always runs): what it predicts must stay dearer
/// than finding it out.
pub const PROBE_SHARE: f64 = 0.5;

/// How long the scratch rounds may run: what is left of the share of the predicted
/// `git status` once both probes have `spent` so much, when there is a prediction, and never
/// more than `left` of this probe's own budget.
fn rounds_budget(pilot_ms: Option<f64>, spent: Duration, left: Duration) -> Duration {
    match pilot_ms {
        Some(ms) => Duration::from_secs_f64((ms * PROBE_SHARE / 1e3).max(0.0))
            .saturating_sub(spent)
            .min(left),
        None => left,
    }
}

/// The probes `check` runs: the repository's tracked files (from `index`, which the scan read),
/// a pilot prediction from them that sizes the rest, the scratch rounds on the repository's
/// mount, then the baseline.
pub fn for_check(
    env: &HostEnv,
    table: &MountTable,
    location: &Location,
    args: &CheckArgs,
    index: Option<&crate::gitindex::RootIndex>,
) -> Result<ProbeSet> {
    let start = Instant::now();
    let root = &location.paths.linux;
    let current_mount = mount_of(table, root)?;
    let baseline = choose_baseline(env, args, table, current_mount)?;
    let budget = Duration::from_millis(args.probe_budget_ms);
    let tracked = Tracked::from_index(index);
    let threads = tracked.git_threads();
    let startup = git_startup_ms();
    let target = Target {
        dir: root,
        mount: current_mount,
        budget,
        tracked: Some((root, &tracked.sample)),
        threads: &threads,
        derive_cpu_bound: true,
    };
    let mut current = ProbeReport::empty(root, current_mount);
    measure_tracked(&mut current, &target, budget.mul_f64(0.3));
    let pilot = tracked
        .shape
        .zip(current.tracked_lstat.as_ref())
        .map(|((files, dirs), lstat)| {
            let parallel = current
                .parallel_lstat
                .iter()
                .map(|l| (l.threads, l.per_entry_us))
                .collect();
            crate::model::git_status_pilot_ms(
                files,
                dirs,
                lstat.trimmed_mean_us,
                parallel,
                startup.unwrap_or(crate::model::GIT_STARTUP_MS),
            )
        });
    let spent = start.elapsed();
    measure_scratch(
        &mut current,
        &target,
        rounds_budget(pilot, spent, budget.saturating_sub(spent)),
    );
    current.elapsed_ms = start.elapsed().as_millis() as u64;
    let (baseline, baseline_note, same, label) = match baseline {
        Baseline::Probe(dir, mount) => {
            let begun = Instant::now();
            let mut report = ProbeReport::empty(&dir, mount);
            let target = Target {
                dir: &dir,
                mount,
                budget,
                tracked: None,
                threads: &threads,
                derive_cpu_bound: true,
            };
            measure_scratch(
                &mut report,
                &target,
                rounds_budget(pilot, start.elapsed(), budget),
            );
            report.elapsed_ms = begun.elapsed().as_millis() as u64;
            let label = label_for(env, args, &dir, root);
            (Some(report), None, false, Some(label))
        }
        Baseline::Same(dir, note) => {
            let label = label_for(env, args, &dir, root);
            (Some(current.clone()), Some(note), true, Some(label))
        }
        Baseline::None(note) => (None, Some(note), false, None),
    };
    Ok(ProbeSet {
        current,
        baseline,
        baseline_note,
        baseline_same_mount: same,
        baseline_label: label,
        git_startup_ms: startup,
        index_files: tracked.shape.map(|s| s.0),
        index_dirs: tracked.shape.map(|s| s.1),
        elapsed_ms: start.elapsed().as_millis() as u64,
    })
}

/// The model's predictions from the scan and the probes; None when the current mount was not
/// measured. Reads `package-lock.json` when the scan found no node_modules.
pub fn predict(
    scan: &crate::scan::ScanReport,
    probes: &ProbeSet,
    root: &Path,
) -> Option<crate::model::Prediction> {
    use crate::model::{self, MountCosts, RepoFigures};
    let current = MountCosts::from_probe(&probes.current)?;
    let baseline = probes.baseline.as_ref().and_then(MountCosts::from_probe);
    let lock = if scan.node_modules.is_empty() {
        std::fs::read_to_string(root.join("package-lock.json"))
            .ok()
            .and_then(|text| model::lock_packages(&text))
    } else {
        None
    };
    let startup = probes.git_startup_ms.unwrap_or(model::GIT_STARTUP_MS);
    // Files inside `.git` are not worktree files git status would look at.
    let git_dir_files = scan.git.as_ref().and_then(|g| g.git_dir_files);
    let mut repo = RepoFigures::from_scan(scan, lock, git_dir_files);
    repo.refine_with_index(probes.index_files, probes.index_dirs);
    Some(model::predict(&repo, &current, baseline.as_ref(), startup))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: fn(u64) -> Duration = Duration::from_millis;

    #[test]
    fn rounds_get_a_share_of_the_predicted_status_within_the_budget() {
        // A 1 s git status leaves 500 ms for both probes; 100 ms are spent already.
        assert_eq!(rounds_budget(Some(1000.0), MS(100), MS(600)), MS(400));
        // What is left of the probe's own budget still caps it.
        assert_eq!(rounds_budget(Some(10_000.0), MS(100), MS(600)), MS(600));
        // A fast disk: the share is spent, so only the first round runs.
        assert_eq!(rounds_budget(Some(10.0), MS(8), MS(692)), Duration::ZERO);
        // Nothing to predict (not a repository): each probe's budget decides.
        assert_eq!(rounds_budget(None, MS(900), MS(700)), MS(700));
        assert_eq!(rounds_budget(None, MS(100), Duration::ZERO), Duration::ZERO);
    }

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
