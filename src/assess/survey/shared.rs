//! One probe per mount, shared by every repository on it: which mounts the survey's plan
//! wants probed, their probes, and each repository's probe set made from its mount's and its
//! baseline's, with its own package manager and index figures.

use super::{MountProbe, Settings};
use crate::assess::pipeline;
use crate::assess::pipeline::probes::{self, Baseline};
use crate::base::progress::Progress;
use crate::host::HostEnv;
use crate::host::mounts::MountEntry;
use crate::measure::discover::Found;
use crate::measure::gitindex::RootIndex;
use crate::measure::probe::{self, ProbeReport, ProbeSet, Target, Tracked};
use std::path::Path;
use std::time::Duration;

/// The mounts of the `plan` probed once each (none without `--probe`); the progress count is
/// set here for the whole survey, probes then scans, so the bar only ever rises.
pub(super) fn probed_mounts(
    env: &HostEnv,
    settings: &Settings,
    plan: &[(&Found, &MountEntry, Baseline)],
    progress: &dyn Progress,
) -> Vec<MountProbe> {
    let wanted = if settings.probe {
        wanted_probes(plan)
    } else {
        Vec::new()
    };
    progress.start((wanted.len() + plan.len()) as u64);
    probe_mounts(
        env,
        wanted,
        (settings.probe_budget, &env.automount_root()),
        progress,
    )
}

/// A mount to probe, where, for how many repositories, and whether it is a baseline.
pub(super) type Wanted<'a> = (&'a Path, &'a MountEntry, usize, bool);

/// One probe per mount: each repository mount (in its first repository) and each baseline.
pub(super) fn wanted_probes<'a>(plan: &'a [(&Found, &MountEntry, Baseline)]) -> Vec<Wanted<'a>> {
    let mut wanted: Vec<Wanted> = Vec::new();
    for (found, mount, baseline) in plan {
        match wanted.iter_mut().find(|w| w.1.is_same_mount(mount)) {
            Some(entry) => entry.2 += 1,
            None => wanted.push((&found.root, mount, 1, false)),
        }
        if let Baseline::Probe(dir, base) = baseline {
            match wanted.iter_mut().find(|w| w.1.is_same_mount(base)) {
                Some(entry) => entry.3 = true,
                None => wanted.push((dir, base, 0, true)),
            }
        }
    }
    wanted
}

/// Probes each of `wanted`, one step of `progress` each, counted when it is done.
pub(super) fn probe_mounts(
    env: &HostEnv,
    wanted: Vec<Wanted>,
    (budget, automount_root): (Duration, &Path),
    progress: &dyn Progress,
) -> Vec<MountProbe> {
    wanted
        .into_iter()
        .map(|(dir, mount, repositories, baseline)| {
            let shown = crate::base::pathtext::display(&mount.mount_point);
            progress.step(0, &format!("probing {shown}"));
            // A mount's figures are a property of the machine: the ones `check` took (cached
            // per boot, at most a day) are the survey's too, so one repository's figures are
            // the same on both screens; on a repository mount its first repository's tracked
            // files are timed again on top, as `check` times its own.
            let probe = match (repositories, baseline) {
                (0, true) => pipeline::mount_cache::load(env, mount),
                _ => cached_with_tracked(env, dir, mount, (budget, automount_root)),
            }
            .unwrap_or_else(|| {
                let report = probes::shared(dir, mount, budget, automount_root);
                pipeline::mount_cache::store(env, mount, &report);
                report
            });
            progress.step(1, &format!("probed {shown}"));
            MountProbe {
                mount_point: mount.mount_point.clone(),
                fstype: mount.fstype.clone(),
                repositories,
                baseline,
                probe,
            }
        })
        .collect()
}

/// The cached figures of `mount` with the tracked files of the repository at `dir` timed
/// again, as `check` takes them; None when nothing usable is cached.
fn cached_with_tracked(
    env: &HostEnv,
    dir: &Path,
    mount: &MountEntry,
    (budget, automount_root): (Duration, &Path),
) -> Option<ProbeReport> {
    let mut report = pipeline::mount_cache::load(env, mount)?;
    let cached_parallel = std::mem::take(&mut report.parallel_lstat);
    let tracked = Tracked::read(dir, automount_root);
    // The serial figure only: the parallel ones, three runs at each of three thread counts,
    // are what a slow mount's probe spends most on, and the cache has them.
    let target = Target {
        dir,
        mount,
        budget,
        tracked: Some((dir, &tracked.sample)),
        threads: &[],
        derive_cpu_bound: true,
    };
    probe::measure_tracked(&mut report, &target, budget.mul_f64(0.3));
    if report.parallel_lstat.is_empty() {
        report.parallel_lstat = cached_parallel;
    }
    Some(report)
}

pub(super) fn probe_of<'a>(
    mounts: &'a [MountProbe],
    mount: &MountEntry,
) -> Option<&'a ProbeReport> {
    mounts
        .iter()
        .find(|m| m.mount_point == mount.mount_point && m.fstype == mount.fstype)
        .map(|m| &m.probe)
}

/// A repository's view of the shared probes, shaped as `check`'s.
/// `set` with the package manager's own work for the repository at `root`, priced as `check`
/// prices it (the same call: timed once per machine and version, then cached), so the two agree.
pub(super) fn with_manager(
    mut set: ProbeSet,
    env: &HostEnv,
    root: &Path,
    baseline: &Baseline,
    settings: &pipeline::Settings,
) -> ProbeSet {
    if let Some(cpu) = set.cpu_sha1_us_per_mib {
        set.manager = probes::manager_timing(env, root, baseline, settings.purpose, cpu);
    }
    set
}

pub(super) fn probe_set(
    mounts: &[MountProbe],
    mount: &MountEntry,
    baseline: &Baseline,
    (startup, cpu_pace): (Option<f64>, Option<f64>),
) -> Option<ProbeSet> {
    let current = probe_of(mounts, mount)?.clone();
    let (baseline, note, same) = match baseline {
        Baseline::Probe(_, base) => (probe_of(mounts, base).cloned(), None, false),
        Baseline::Same(_, note) => (Some(current.clone()), Some(note.clone()), true),
        Baseline::None(note) => (None, Some(note.clone()), false),
    };
    Some(ProbeSet {
        elapsed_ms: current.elapsed_ms,
        current,
        baseline,
        baseline_note: crate::base::reason::Noted(note),
        baseline_same_mount: same,
        baseline_label: None,
        git_startup_ms: startup,
        cpu_sha1_us_per_mib: cpu_pace,
        index_files: None,
        index_dirs: None,
        git_walk: None,
        manager: None,
    })
}

/// The shared probe set with this repository's own index figures: git's walk over its tracked
/// files and the directories holding them.
pub(super) fn with_index_figures(set: &mut ProbeSet, index: Option<&RootIndex>) {
    let shape = Tracked::from_index(index).shape;
    set.git_walk = index.map(|index| index.git_walk(true));
    set.index_files = shape.map(|s| s.0);
    set.index_dirs = set
        .git_walk
        .as_ref()
        .map(|w| w.walked_dirs)
        .or(shape.map(|s| s.1));
}
