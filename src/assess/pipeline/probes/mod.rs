//! The probes `check` runs and what the model makes of them: which baseline is fair, how much
//! probing the predicted `git status` is worth, and the predictions from scan and probes.

use super::phases::{Phases, timed};
use super::{Reuse, Settings, mount_cache};
use crate::base::error::Result;
use crate::base::interrupt;
use crate::base::reason::Noted;
use crate::host::HostEnv;
use crate::host::location::{Location, MountTable};
use crate::host::mounts::MountEntry;
use crate::measure::cpu;
use crate::measure::deps;
use crate::measure::deps::managers::{self, Manager};
use crate::measure::gitindex::{GitWalk, RootIndex};
use crate::measure::probe::{self, NoBaseline, ProbeReport, ProbeSet, Target, Tracked, mount_of};
use crate::measure::scan::ScanReport;
use crate::measure::stats::OpStats;
use crate::model::{self, InstallSource, MountCosts, Prediction, RepoFigures};
use std::path::Path;
use std::time::{Duration, Instant};

mod baseline;
mod manager_work;
mod python;

use baseline::label_for;
pub use baseline::{Baseline, choose_baseline};
pub use manager_work::manager_timing;

/// Of the `git status` the pilot predicts, the share the whole probe may cost (beyond the
/// first scratch round on each mount, which always runs, small where a full one would not fit):
/// what it predicts must stay dearer than finding it out, the whole check at most a quarter of
/// one `git status` on a slow mount. At 0.5 a 361-file repository on the emulator (drvfs-9p,
/// scale 1) cost 0.35 of its `git status`.
pub const PROBE_SHARE: f64 = 0.2;

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

/// One mount's probe shared by every repository on it (`survey`): `lstat` on the tracked files
/// of the repository in `dir` when there is one (files nobody just created, as git meets them),
/// the parallel figures the model interpolates between, and the scratch rounds.
pub fn shared(
    dir: &Path,
    mount: &MountEntry,
    budget: Duration,
    automount_root: &Path,
) -> ProbeReport {
    let tracked = Tracked::read(dir, automount_root);
    probe::probe(&Target {
        dir,
        mount,
        budget,
        tracked: Some((dir, &tracked.sample)),
        threads: probe::LSTAT_THREADS,
        derive_cpu_bound: true,
    })
}

/// The pilot prediction of `git status` from the tracked `lstat` figures alone, over the
/// directories git's walk opens.
fn pilot_ms(
    tracked: &Tracked,
    git_walk: Option<&GitWalk>,
    current: &ProbeReport,
    startup: Option<f64>,
) -> Option<f64> {
    let ((files, dirs), lstat) = tracked.shape.zip(current.tracked_lstat.as_ref())?;
    let parallel = current
        .parallel_lstat
        .iter()
        .map(|l| (l.threads, l.per_entry_us))
        .collect();
    Some(model::git_status_pilot_ms(
        files,
        git_walk.map_or(dirs, |w| w.walked_dirs),
        lstat.trimmed_mean_us,
        parallel,
        startup.unwrap_or(model::GIT_STARTUP_MS),
    ))
}

/// The probes `check` runs: the repository's tracked files (from `index`, which the scan read),
/// a pilot prediction from them that sizes the rest, the scratch rounds on the repository's
/// mount, then the baseline. `startup` is git's start-up time, read once with its version;
/// `move_to` is where the policy moves repositories (`~/src`), for the baseline's label.
pub fn for_check(
    env: &HostEnv,
    (table, location): (&MountTable, &Location),
    settings: &Settings,
    index: Option<&RootIndex>,
    startup: Option<f64>,
    move_to: &str,
    phases: &mut Phases,
) -> Result<ProbeSet> {
    let start = Instant::now();
    let root = &location.paths.linux;
    let current_mount = mount_of(table, root)?;
    let baseline = choose_baseline(env, settings, table, current_mount)?;
    phases.doing.set("timing small-file operations here");
    let ((current, current_ms), (cpu_pace, cpu_ms)) = beside_the_pace(|| {
        timed(|| {
            CurrentSide::probed(
                env,
                settings,
                (root, current_mount, index),
                Began { startup, start },
            )
        })
    });
    phases.probe_current_ms = Some(current_ms);
    phases.cpu_ms = Some(cpu_ms);
    // Ctrl-C: no baseline probe; the command reports the interruption.
    let baseline = if interrupt::requested() {
        Baseline::None(NoBaseline::Interrupted)
    } else {
        baseline
    };
    if let Some(manager) = managers::detect(root) {
        phases.doing.set(format!(
            "timing {manager}'s own work on a sample of this project's packages"
        ));
    }
    let (manager, manager_ms) =
        timed(|| manager_timing(env, root, &baseline, settings.purpose, cpu_pace));
    phases.manager_ms = Some(manager_ms);
    phases
        .doing
        .set("timing small-file operations on the Linux disk");
    let baseline_began = Instant::now();
    let label = |dir: &Path| label_for(env, settings, dir, root, move_to);
    let other = BaselineSide::probed(env, settings, baseline, &current, label, start);
    phases.probe_baseline_ms = Some(baseline_began.elapsed().as_millis() as u64);
    Ok(ProbeSet {
        baseline: other.report,
        baseline_note: Noted(other.note),
        baseline_same_mount: other.same,
        baseline_label: other.label,
        git_startup_ms: startup,
        cpu_sha1_us_per_mib: Some(cpu_pace),
        manager,
        elapsed_ms: start.elapsed().as_millis() as u64,
        ..current.into_probe_set()
    })
}

/// `probe_current` and the CPU's pace with the time it took. With a core to spare the pace is
/// timed on a thread of its own while the mount's probe runs: hashing is one core's work and
/// the probe mostly waits on calls (or, on the Linux disk, keeps the other core), so the check
/// no longer pays the two in turn.
fn beside_the_pace<T>(probe_current: impl FnOnce() -> T) -> (T, (f64, u64)) {
    if !spare_core() {
        let pace = timed(cpu::sha1_us_per_mib);
        return (probe_current(), pace);
    }
    std::thread::scope(|scope| {
        let pace = scope.spawn(|| timed(cpu::sha1_us_per_mib));
        let current = probe_current();
        let pace = pace.join().unwrap_or_else(|_| timed(cpu::sha1_us_per_mib));
        (current, pace)
    })
}

/// Whether the machine has more than one core for the CPU's pace to be timed on beside the
/// probe.
fn spare_core() -> bool {
    std::thread::available_parallelism().is_ok_and(|n| n.get() > 1)
}

/// The repository's own side of `check`'s comparison: its tracked files (from the index the
/// scan read), git's walk over them, the threads git would use, and its mount's probe with the
/// pilot prediction that sized it.
struct CurrentSide {
    tracked: Tracked,
    git_walk: Option<GitWalk>,
    threads: Vec<usize>,
    report: ProbeReport,
    pilot: Option<f64>,
}

/// When the check's probes began, and git's start-up time (read once with its version): what
/// the pilot prediction and the rounds' budget are worked out from.
#[derive(Clone, Copy)]
struct Began {
    startup: Option<f64>,
    start: Instant,
}

impl CurrentSide {
    /// The repository's mount (`root` on `mount`), cached or probed (see `current_figures`).
    fn probed(
        env: &HostEnv,
        settings: &Settings,
        (root, mount, index): (&Path, &MountEntry, Option<&RootIndex>),
        began: Began,
    ) -> Self {
        let tracked = Tracked::from_index(index);
        let git_walk = index.map(|index| index.git_walk(!settings.purpose.first_look()));
        let threads = tracked.git_threads();
        let target = Target {
            dir: root,
            mount,
            budget: settings.probe_budget,
            tracked: Some((root, &tracked.sample)),
            threads: &threads,
            derive_cpu_bound: true,
        };
        let (report, pilot) =
            current_figures(env, settings, (&target, &tracked, git_walk.as_ref()), began);
        CurrentSide {
            tracked,
            git_walk,
            threads,
            report,
            pilot,
        }
    }

    /// The probe set with this side's figures; the baseline's and the rest are left empty.
    fn into_probe_set(self) -> ProbeSet {
        ProbeSet {
            current: self.report,
            baseline: None,
            baseline_note: Noted(None),
            baseline_same_mount: false,
            baseline_label: None,
            git_startup_ms: None,
            cpu_sha1_us_per_mib: None,
            index_files: self.tracked.shape.map(|s| s.0),
            index_dirs: self
                .git_walk
                .as_ref()
                .map(|w| w.walked_dirs)
                .or(self.tracked.shape.map(|s| s.1)),
            manager: None,
            git_walk: self.git_walk,
            elapsed_ms: 0,
        }
    }
}

/// The Linux disk's side of the comparison: its probe (or the repository's own, on the same
/// mount), why there is none or why it is the same, and its label.
struct BaselineSide {
    report: Option<ProbeReport>,
    note: Option<NoBaseline>,
    same: bool,
    label: Option<String>,
}

impl BaselineSide {
    /// The baseline's probe, cached or measured (then cached) within what the pilot leaves of
    /// the probe's budget since `start`; `label` names a baseline folder for the report.
    fn probed(
        env: &HostEnv,
        settings: &Settings,
        baseline: Baseline,
        current: &CurrentSide,
        label: impl Fn(&Path) -> String,
        start: Instant,
    ) -> Self {
        let budget = settings.probe_budget;
        let (pilot, threads) = (current.pilot, &current.threads);
        let (baseline, baseline_note, same, label) = match baseline {
            Baseline::Probe(dir, mount) => {
                let cached = (settings.purpose.reuse() != Reuse::Nothing)
                    .then(|| mount_cache::load(env, mount))
                    .flatten();
                let report = cached.unwrap_or_else(|| {
                    let report = probe_baseline(
                        &dir,
                        mount,
                        threads,
                        (budget, rounds_budget(pilot, start.elapsed(), budget)),
                    );
                    mount_cache::store(env, mount, &report);
                    report
                });
                (Some(report), None, false, Some(label(&dir)))
            }
            Baseline::Same(dir, note) => (
                Some(current.report.clone()),
                Some(note),
                true,
                Some(label(&dir)),
            ),
            Baseline::None(note) => (None, Some(note), false, None),
        };
        BaselineSide {
            report: baseline,
            note: baseline_note,
            same,
            label,
        }
    }
}

/// The repository's mount, cached or measured (and then cached). The hook takes any mount's
/// cached figures as they are; a full check takes them too, within the same cache rule, and
/// times just this repository's tracked files on top (the figure git's `lstat`s follow), so
/// the next check of a repository on a mount timed today pays for its own files only.
fn current_figures(
    env: &HostEnv,
    settings: &Settings,
    (target, tracked, git_walk): (&Target, &Tracked, Option<&GitWalk>),
    Began { startup, start }: Began,
) -> (ProbeReport, Option<f64>) {
    let cached = match settings.purpose.reuse() {
        Reuse::Mounts => mount_cache::load(env, target.mount),
        Reuse::Timed => mount_cache::load(env, target.mount).map(|mut report| {
            probe::measure_tracked(&mut report, target, target.budget.mul_f64(0.3));
            report
        }),
        _ => None,
    };
    if let Some(current) = cached {
        let pilot = pilot_ms(tracked, git_walk, &current, startup);
        return (current, pilot);
    }
    // The hook's first look samples fewer tracked files: a provisional answer.
    let tracked_share = if settings.purpose.first_look() {
        0.15
    } else {
        0.3
    };
    let began = Began { startup, start };
    let measured = probe_current(target, (tracked, tracked_share), git_walk, began);
    mount_cache::store(env, target.mount, &measured.0);
    measured
}

/// The repository's mount: its tracked files, the pilot prediction they give, then the scratch
/// rounds within what the pilot leaves of the budget.
fn probe_current(
    target: &Target,
    (tracked, tracked_share): (&Tracked, f64),
    git_walk: Option<&GitWalk>,
    Began { startup, start }: Began,
) -> (ProbeReport, Option<f64>) {
    let budget = target.budget;
    let mut current = ProbeReport::empty(target.dir, target.mount);
    probe::measure_tracked(&mut current, target, budget.mul_f64(tracked_share));
    let pilot = pilot_ms(tracked, git_walk, &current, startup);
    let spent = start.elapsed();
    probe::measure_scratch(
        &mut current,
        target,
        rounds_budget(pilot, spent, budget.saturating_sub(spent)),
    );
    probe::measure_cold(&mut current, target);
    current.elapsed_ms = start.elapsed().as_millis() as u64;
    (current, pilot)
}

/// The scratch rounds on the Linux disk, within `rounds`; the worker is waited for `budget`.
fn probe_baseline(
    dir: &Path,
    mount: &MountEntry,
    threads: &[usize],
    (budget, rounds): (Duration, Duration),
) -> ProbeReport {
    let begun = Instant::now();
    let mut report = ProbeReport::empty(dir, mount);
    let target = Target {
        dir,
        mount,
        budget,
        tracked: None,
        threads,
        derive_cpu_bound: true,
    };
    probe::measure_scratch(&mut report, &target, rounds);
    probe::measure_cold(&mut report, &target);
    report.elapsed_ms = begun.elapsed().as_millis() as u64;
    report
}

/// The packages the JavaScript lock at `root` says this machine installs: `package-lock.json`
/// first (as before: every entry), else pnpm's, yarn classic's or bun's lock filtered to this
/// platform (`deps::lock_counts`), so a project checked before its install has a tree to price.
pub fn lock_packages(root: &Path) -> Option<model::LockCount> {
    use deps::lock_counts::{bun_packages, pnpm_shape, yarn_packages};
    // Packages and the symlinks the manager makes for them (pnpm's alone are counted).
    type Count = fn(&str) -> Option<(u64, u64)>;
    let locks: [(&str, InstallSource, Count); 4] = [
        ("package-lock.json", InstallSource::PackageLock, |text| {
            model::lock_packages(text).map(|n| (n, 0))
        }),
        ("pnpm-lock.yaml", InstallSource::PnpmLock, pnpm_shape),
        ("yarn.lock", InstallSource::YarnLock, |text| {
            yarn_packages(text).map(|n| (n, 0))
        }),
        ("bun.lock", InstallSource::BunLock, |text| {
            bun_packages(text).map(|n| (n, 0))
        }),
    ];
    locks.into_iter().find_map(|(file, source, count)| {
        let text = crate::base::repo_file::manifest(root, file)?;
        count(&text).map(|(packages, links)| model::LockCount {
            packages,
            source,
            links,
        })
    })
}

/// The model's predictions from the scan and the probes; None when the current mount was not
/// measured. `lock` is what `lock_packages` found.
pub fn predict(
    env: &HostEnv,
    scan: &ScanReport,
    probes: &ProbeSet,
    root: &Path,
    lock: Option<model::LockCount>,
) -> Option<Prediction> {
    let current = mount_costs(&probes.current, probes.cpu_sha1_us_per_mib)?;
    let baseline = probes
        .baseline
        .as_ref()
        .and_then(|b| mount_costs(b, probes.cpu_sha1_us_per_mib));
    let startup = probes.git_startup_ms.unwrap_or(model::GIT_STARTUP_MS);
    // Files inside `.git` are not worktree files git status would look at.
    let git_dir_files = scan.git.as_ref().and_then(|g| g.git_dir_files);
    let mut repo = RepoFigures::from_scan(scan, lock, git_dir_files);
    if let Some(installed) = without_tracked_node_modules(scan, probes.git_walk.as_ref()) {
        repo.install = RepoFigures::from_scan(&installed, lock, git_dir_files).install;
    }
    // A Python project reinstalls its virtualenv, a Rust one rewrites target/: not the
    // node_modules figures, nor every dependency tree lumped together.
    // The manager names each file by its whole path: every component below the mount's root
    // is a round trip on a slow mount.
    let root_depth = root
        .strip_prefix(&probes.current.mount_point)
        .map_or(0, |below| below.components().count() as u32);
    match managers::detect(root) {
        Some(manager @ (Manager::Uv | Manager::Pip | Manager::Poetry)) => {
            repo.install = python::reinstall(env, scan, probes, root, manager, root_depth);
        }
        Some(Manager::Cargo) => repo.install = model::rust_target(scan),
        Some(Manager::Pnpm) => match repo.install.as_mut() {
            Some(install) if install.source == InstallSource::PnpmLock => {
                install.depth += f64::from(root_depth);
            }
            // An installed tree: the reinstall makes again the links the scan met in it.
            Some(install) if install.source == InstallSource::NodeModules => {
                install.links = scan.node_modules.iter().map(|t| t.symlinks).sum();
            }
            _ => {}
        },
        Some(Manager::Npm | Manager::Yarn | Manager::Bun) | None => {}
    }
    if let Some(walk) = &probes.git_walk {
        repo.refine_with_index(walk);
    }
    Some(model::predict(
        &repo,
        &current,
        baseline.as_ref(),
        startup,
        probes.manager.as_ref(),
    ))
}

/// The scan less the `node_modules` folders that hold tracked files, when it has any: a test
/// fixture committed with its packages (remy/nodemon's `test/fixtures/watch-count`, 244 files)
/// is source, which no install writes or removes, and priced as the installed tree it put a
/// reinstall of 806 locked packages at a quarter of its time. Only the install's figures
/// change; git's walk still counts those files.
fn without_tracked_node_modules(scan: &ScanReport, walk: Option<&GitWalk>) -> Option<ScanReport> {
    let tracked = &walk?.tracked_node_modules;
    let source = |path: &Path| tracked.iter().any(|t| t == path);
    if !scan.node_modules.iter().any(|t| source(&t.path)) {
        return None;
    }
    let mut installed = scan.clone();
    installed.node_modules.retain(|t| !source(&t.path));
    Some(installed)
}

/// Means, not medians: git's wall time is a sum of many calls, and a sum is N x mean,
/// preemptions on a busy machine included; trimmed, so a single stall in a small sample
/// does not pass for a rate. `sha1_us_per_mib` is the CPU's pace (`measure::cpu`).
pub fn mount_costs(p: &ProbeReport, sha1_us_per_mib: Option<f64>) -> Option<MountCosts> {
    let ops = p.ops.as_ref()?;
    let mut parallel: Vec<(usize, f64)> = p
        .parallel_lstat
        .iter()
        .map(|l| (l.threads, l.per_entry_us))
        .collect();
    parallel.sort_by_key(|&(t, _)| t);
    Some(MountCosts {
        lstat_us: p.lstat_stats()?.trimmed_mean_us,
        parallel_lstat: parallel,
        scratch: ops.map(|stats| stats.trimmed_mean_us),
        sha1_us_per_mib: sha1_us_per_mib.unwrap_or(0.0),
        cold_read: p.cold_read,
        sampling_error: sampling_error(&[p.lstat_stats()?, &ops.create, &ops.read]),
    })
}

/// About two standard errors of the mean, as a fraction of it, for the worst of `stats`: the
/// standard deviation taken from the p10-p90 spread (2.56 of them for a normal spread).
fn sampling_error(stats: &[&OpStats]) -> f64 {
    stats
        .iter()
        .filter(|s| s.samples > 0 && s.median_us > 0.0)
        .map(|s| 2.0 * (s.p90_us - s.p10_us) / 2.56 / s.median_us / (s.samples as f64).sqrt())
        .fold(0.0, f64::max)
        .min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: fn(u64) -> Duration = Duration::from_millis;

    #[test]
    fn rounds_get_a_share_of_the_predicted_status_within_the_budget() {
        // A 1 s git status leaves 200 ms for both probes; 100 ms are spent already.
        assert_eq!(rounds_budget(Some(1000.0), MS(100), MS(600)), MS(100));
        // What is left of the probe's own budget still caps it.
        assert_eq!(rounds_budget(Some(10_000.0), MS(100), MS(600)), MS(600));
        // A fast disk: the share is spent, so only the first round runs.
        assert_eq!(rounds_budget(Some(10.0), MS(8), MS(692)), Duration::ZERO);
        // Nothing to predict (not a repository): each probe's budget decides.
        assert_eq!(rounds_budget(None, MS(900), MS(700)), MS(700));
        assert_eq!(rounds_budget(None, MS(100), Duration::ZERO), Duration::ZERO);
    }
}
