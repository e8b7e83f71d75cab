//! `wsl-place check`: locate, scan, probe, predict, decide, in that order.

pub mod dependency_cache;
pub mod git_cache;
mod measured;
pub mod mount_cache;
pub mod phases;
pub mod probes;

use crate::assess::accuracy;
use crate::base::error::Result;
use crate::base::progress::{Progress, working};
use crate::decide::observations::Context;
use crate::decide::observations::Observations;
use crate::decide::policy::{self, Policy, PolicySource, Verdict};
use crate::host::HostEnv;
use crate::host::git::version::{GitFacts, GitVersion};
use crate::host::location::{self, Location, MountTable};
use crate::measure::changes;
use crate::measure::gitsettings;
use crate::measure::probe;
use crate::measure::scan::{self, ScanOptions, ScanReport};
use crate::model;
use measured::Measured;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Everything `check` found; its JSON form is the documented schema.
#[derive(Debug, Clone, Serialize)]
pub struct CheckReport {
    pub schema: u32,
    #[serde(flatten)]
    pub location: Location,
    pub scan: ScanReport,
    /// The timing probes (None with --no-probe).
    pub probe: Option<probe::ProbeSet>,
    /// What the model predicts from scan + probes (None with --no-probe or when the probe failed).
    pub predict: Option<model::Prediction>,
    pub policy: PolicySource,
    pub verdict: Verdict,
    /// The `git` on PATH (`git --version`), when it runs.
    pub git_version: Option<GitVersion>,
    /// Outside any repository: the repositories found below the folder (`survey` judges them).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repositories_below: Option<usize>,
    /// With `repositories_below`: false when the search stopped at its budget (there may be
    /// more).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repositories_below_complete: Option<bool>,
    /// At the old place of a finished migration: where it went, when, and what changed here
    /// since (the verdict's `migrate` advice then says so).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub moved: Option<changes::OldPlace>,
    /// On WSL (`check` only): the Windows profile and the Windows tools installed there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub windows: Option<crate::measure::windows_tools::WindowsSide>,
    /// What the machine's record says of this mount: how right `git status` has been here and
    /// the correction applied (`assess::accuracy`); None before any verification here.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub accuracy: Option<accuracy::AccuracyReport>,
    /// `check --verify`: the real `git status` timed beside the prediction.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verify: Option<accuracy::Verified>,
    /// Where this check's time went, phase by phase.
    pub phases: phases::Phases,
}

/// The spinner's label while the probes time the mounts.
pub const TIMING: &str = "timing small-file operations here and on the Linux disk";

/// How long `check` looks for repositories below a folder that is not one.
pub const REPOSITORIES_BELOW_BUDGET: Duration = Duration::from_millis(500);

pub const SCHEMA_VERSION: u32 = 1;

/// What `check` measures and how long it may take, decided once from the command line.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The repository or directory to check.
    pub path: PathBuf,
    /// Run the timing probes (false: location and scan only).
    pub probe: bool,
    /// Stop scanning after this long and extrapolate.
    pub scan_budget: Duration,
    /// Most each probe may take.
    pub probe_budget: Duration,
    /// Directory on the Linux disk to compare against (None: a scratch folder under $HOME).
    pub baseline: Option<PathBuf>,
    /// Who is asking: what the run may spend and reuse follows from it.
    pub purpose: Purpose,
    /// `--exact`: walk every file of the dependency trees instead of pricing a large
    /// `node_modules` from a sample of its packages.
    pub exact: bool,
}

/// Which command is asking for a check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// `check`: the whole measurement; with `fresh` (`--fresh`) none of the cached probe
    /// figures either.
    Check { fresh: bool },
    /// The hook's short measurement (`check --advisory`) when no answer is cached.
    Hook,
    /// `survey`: its repositories share the probes it runs per mount itself; with `fresh`
    /// (`--fresh`) each package manager is timed again too.
    Survey { fresh: bool },
}

impl Purpose {
    /// Whether the package manager is timed when no cached timing exists (about a second, once
    /// per machine and manager version); the hook's short measurement estimates it.
    pub fn times_manager(self) -> bool {
        match self {
            Purpose::Check { .. } | Purpose::Survey { .. } => true,
            Purpose::Hook => false,
        }
    }

    /// Whether a manager timing cached by an earlier run stands in for timing it again:
    /// `--fresh` retimes.
    pub fn reuses_manager_timing(self) -> bool {
        !matches!(
            self,
            Purpose::Check { fresh: true } | Purpose::Survey { fresh: true }
        )
    }

    /// Which mounts' cached probe figures (`mount_cache`) stand in for probing them again.
    pub fn reuse(self) -> Reuse {
        match self {
            Purpose::Check { fresh: false } => Reuse::Timed,
            Purpose::Check { fresh: true } | Purpose::Survey { .. } => Reuse::Nothing,
            Purpose::Hook => Reuse::Mounts,
        }
    }

    /// The hook's first look (no answer cached): git's walk counts every directory as walked
    /// instead of reading git's exclude rules, which on a slow mount costs as much as the
    /// scan (the rules move the figure only where tracked files sit below ignored folders).
    pub fn first_look(self) -> bool {
        match self {
            Purpose::Hook => true,
            Purpose::Check { .. } | Purpose::Survey { .. } => false,
        }
    }
}

/// Which cached per-mount probes a run takes instead of probing (every run that probes a mount
/// caches what it measured).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reuse {
    /// `--fresh`: this run's measurements alone.
    Nothing,
    /// A full `check`: every mount's figures (the Linux disk's and the repository's, once per
    /// boot and kernel, within a day), with the repository's own tracked files timed on top.
    Timed,
    /// The hook: both, so a second repository on a timed mount needs only its scan.
    Mounts,
}

/// Where the repository is and which policy judges it: what every check starts from. The mount
/// table is kept so the probes reuse it instead of reading mountinfo again.
pub struct Setting {
    pub table: MountTable,
    pub location: Location,
    pub policy: Policy,
    pub policy_source: PolicySource,
    /// How long locating took (`phases.host_ms`).
    pub host_ms: u64,
}

/// Where a check runs: the mount table, the repository's place in it, the policy that judges it.
#[derive(Clone, Copy)]
pub(super) struct Place<'a> {
    pub(super) table: &'a MountTable,
    pub(super) location: &'a Location,
    pub(super) policy: &'a Policy,
}

/// What the scan gave the probes and the model: the report, the index it read at the
/// repository's top and the counts of its lock file.
#[derive(Clone, Copy)]
struct Scanned<'a> {
    scan: &'a ScanReport,
    index: Option<&'a crate::measure::gitindex::RootIndex>,
    lock: Option<model::LockCount>,
}

/// What was timed of a repository: the probes and the prediction made from them (both None
/// with `--no-probe`; the prediction None when the probe failed).
#[derive(Clone, Copy)]
pub struct Measurements<'a> {
    pub probes: Option<&'a probe::ProbeSet>,
    pub predict: Option<&'a model::Prediction>,
}

impl Setting {
    pub(super) fn place(&self) -> Place<'_> {
        Place {
            table: &self.table,
            location: &self.location,
            policy: &self.policy,
        }
    }
}

/// Locates `path` and loads its policy.
pub fn prepare(env: &HostEnv, path: &Path, policy_file: Option<&Path>) -> Result<Setting> {
    let began = std::time::Instant::now();
    let canonical = location::canonical_dir(path)?;
    let table = MountTable::read(env)?;
    let host = location::host(env, &table);
    let location = location::locate_in(&host, &table, &canonical)?;
    let (policy, policy_source) = policy::load(policy_file, &location.paths.linux)?;
    Ok(Setting {
        table,
        location,
        policy,
        policy_source,
        host_ms: began.elapsed().as_millis() as u64,
    })
}

/// Scans, probes, predicts and decides for an already prepared setting; `previous` is what the
/// last checks for this place and policy left: the verdict weighs their predictions with this
/// run's and keeps the last level while this run's ranges still support it. Each phase reports
/// to `progress` (the scan's counts, what is being timed or looked for).
pub fn measure(
    env: &HostEnv,
    settings: &Settings,
    setting: Setting,
    previous: &policy::Previous,
    progress: &dyn Progress,
) -> Result<(CheckReport, Policy)> {
    let mut phases = phases::Phases {
        host_ms: setting.host_ms,
        ..phases::Phases::default()
    };
    let began = std::time::Instant::now();
    let measured = Measured::taken(env, settings, setting.place(), progress, &mut phases)?;
    let Setting {
        table,
        location,
        policy,
        policy_source,
        ..
    } = setting;
    let mut observations = measured.observations(env, &location);
    let Measured {
        scan,
        git,
        probe,
        predict,
        mut accuracy,
        old_place,
        below,
        ..
    } = measured;
    accuracy::gate(env, &policy, &mut observations, accuracy.as_mut());
    let mut verdict = policy::evaluate_after(&policy, &observations, previous);
    let (moved, moved_ms) =
        phases::timed(|| old_place.map(|record| told_here(env, &record, &mut verdict, progress)));
    phases.moved_ms = moved_ms;
    phases.total_ms = began.elapsed().as_millis() as u64;
    let windows = windows_side(env, settings.purpose, &location, &table);
    let report = CheckReport {
        schema: SCHEMA_VERSION,
        location,
        scan,
        probe,
        predict,
        policy: policy_source,
        verdict,
        git_version: git.version,
        repositories_below: below.count,
        repositories_below_complete: below.complete,
        moved,
        windows,
        accuracy,
        verify: None,
        phases,
    };
    Ok((report, policy))
}

/// The Windows profile and tools, on WSL: only a person's `check` looks, as the hook and the
/// survey answer without asking Windows.
fn windows_side(
    env: &HostEnv,
    purpose: Purpose,
    location: &Location,
    table: &MountTable,
) -> Option<crate::measure::windows_tools::WindowsSide> {
    (location.host.wsl && matches!(purpose, Purpose::Check { .. }))
        .then(|| crate::measure::windows_tools::find(env, table))
}

/// The timing probes and what the model predicts from them and the scan (both None with
/// `--no-probe`; the prediction None when the probe failed).
fn probe_and_predict(
    env: &HostEnv,
    settings: &Settings,
    place: Place,
    scanned: Scanned,
    git: &GitFacts,
    progress: &dyn Progress,
    phases: &mut phases::Phases,
) -> Result<(Option<probe::ProbeSet>, Option<model::Prediction>)> {
    let Place {
        table,
        location,
        policy,
    } = place;
    let Scanned { scan, index, lock } = scanned;
    Ok(if settings.probe {
        let doing = phases.doing.clone();
        let probes = working(
            progress,
            || doing.now_or(TIMING),
            || {
                probes::for_check(
                    env,
                    (table, location),
                    settings,
                    index,
                    git.startup_ms,
                    &policy.migrate.destination,
                    phases,
                )
            },
        )?;
        let (mut predict, predict_ms) =
            phases::timed(|| probes::predict(env, scan, &probes, &location.paths.linux, lock));
        phases.predict_ms = Some(predict_ms);
        if let Some(prediction) = predict.as_mut() {
            with_fsmonitor(prediction, &probes, git, scan, policy);
            // The first look's range is its measured spread from one cold run to the next,
            // not the few samples' own error, which on a busy machine reached past any
            // threshold (a first look 6x past `move` blocked 15 runs out of 20).
            if settings.purpose.first_look() {
                prediction.git_status_ms = prediction.git_status_ms.as_first_look();
            }
        }
        (Some(probes), predict)
    } else {
        (None, None)
    })
}

/// The scan, with the repository's git settings and usage hints read while it walks: neither
/// is timed, and on a slow mount each costs tens of milliseconds of round trips.
fn scan_and_hints(
    env: &HostEnv,
    settings: &Settings,
    location: &Location,
    progress: &dyn Progress,
    phases: &mut phases::Phases,
) -> (
    ScanReport,
    Option<crate::measure::gitindex::RootIndex>,
    RepoHints,
) {
    let ((scan, index), (hints, hints_ms)) = std::thread::scope(|scope| {
        let local = on_local_disk(location);
        let hints = scope
            .spawn(move || phases::timed(|| RepoHints::read_on(&location.paths.linux, !local)));
        let root = &location.paths.linux;
        let scanned = scan::scan_keeping_index_on(
            root,
            &ScanOptions {
                budget: settings.scan_budget,
                automount_root: env.automount_root(),
                exact: settings.exact,
                known: dependency_cache::load(env, root),
            },
            scan_engine(location),
            progress,
        );
        dependency_cache::store(env, root, &scanned.0);
        (scanned, hints.join().unwrap_or_default())
    });
    phases.scan_ms = scan.elapsed_ms;
    phases.hints_ms = hints_ms;
    (scan, index, hints)
}

/// The walk's threads: one per core where calls are CPU work (the Linux disk, memory), the
/// many that keep a slow mount busy elsewhere.
fn scan_engine(location: &Location) -> scan::Engine {
    if on_local_disk(location) {
        scan::Engine::for_local_disk()
    } else {
        scan::Engine::default_for_host()
    }
}

/// Whether the repository is where every call is CPU work (the Linux disk, memory).
fn on_local_disk(location: &Location) -> bool {
    use crate::host::mounts::MountKind;
    matches!(
        location.mount.kind,
        MountKind::Local | MountKind::Tmpfs | MountKind::Overlay
    )
}

/// At the old place of a finished migration, what changed here since (counted now) and the
/// verdict that says so in place of the measurements'.
fn told_here(
    env: &HostEnv,
    record: &crate::store::moved::Moved,
    verdict: &mut Verdict,
    progress: &dyn Progress,
) -> changes::OldPlace {
    let old = working(
        progress,
        || "comparing with the migrated copy".into(),
        || changes::told(env, record, changes::Count::Walk),
    );
    *verdict = crate::decide::moved::verdict(&old);
    old
}

/// The repositories below `dir`, a folder that is not one, found within
/// `REPOSITORIES_BELOW_BUDGET`.
fn repositories_below(dir: &Path, progress: &dyn Progress) -> crate::measure::discover::Discovery {
    working(
        progress,
        || "looking for repositories below".into(),
        || crate::measure::discover::discover(dir, REPOSITORIES_BELOW_BUDGET),
    )
}

/// The verdict for a measured repository: what the policy makes of the measurements and of
/// what is around the repository (its `hints`, as `RepoHints::read` read them).
pub fn decide(
    env: &HostEnv,
    location: &Location,
    (scan, hints): (&ScanReport, RepoHints),
    measurements: Measurements,
    policy: &Policy,
    git: &GitFacts,
) -> Verdict {
    let mut observations = observe(env, location, scan, measurements, hints.settings);
    observations.context = context(
        location,
        git,
        (hints.usage, observations.git.as_ref()),
        scan,
    );
    policy::evaluate(policy, &observations)
}

/// Where git's fsmonitor daemon runs (git >= 2.55) and the repository is big enough for the
/// policy to advise it, the prediction gets the Linux disk's `git status` with it.
pub fn with_fsmonitor(
    prediction: &mut model::Prediction,
    probes: &probe::ProbeSet,
    git: &GitFacts,
    scan: &ScanReport,
    policy: &Policy,
) {
    let big = scan.tracked.unwrap_or(0) >= policy.git.fsmonitor_min_tracked;
    let linux = probes
        .baseline
        .as_ref()
        .and_then(|b| probes::mount_costs(b, probes.cpu_sha1_us_per_mib));
    if let (true, true, Some(costs)) = (git.has_linux_fsmonitor(), big, linux) {
        let startup = git.startup_ms.unwrap_or(model::GIT_STARTUP_MS);
        prediction.git_status_fsmonitor_ms = Some(model::git_status_fsmonitor_ms(
            &prediction.inputs,
            &costs,
            startup,
        ));
    }
}

/// What a repository's own files say beyond the scan: git's settings there (as git resolves
/// them) and signs of the tools that use it.
#[derive(Default)]
pub struct RepoHints {
    pub settings: Option<gitsettings::GitSettings>,
    pub usage: crate::measure::usage::Usage,
    /// The packages the JavaScript lock lists (`probes::lock_packages`).
    pub lock: Option<crate::model::LockCount>,
}

impl RepoHints {
    /// Git's settings in one thread, the files in another: on a slow mount each is a string
    /// of round trips.
    pub fn read(root: &Path) -> Self {
        Self::read_on(root, true)
    }

    /// As [`RepoHints::read`]; in turn on this thread unless `beside`: on the Linux disk each
    /// is a little CPU work, which a thread of its own only delays by its start and join (it
    /// runs beside the scan's walk, which keeps both cores of a 2-core machine busy).
    pub fn read_on(root: &Path, beside: bool) -> Self {
        if !beside {
            return Self {
                settings: gitsettings::read(root),
                usage: crate::measure::usage::read(root),
                lock: probes::lock_packages(root),
            };
        }
        std::thread::scope(|scope| {
            let settings = scope.spawn(|| gitsettings::read(root));
            let usage = crate::measure::usage::read(root);
            let lock = probes::lock_packages(root);
            Self {
                settings: settings.join().ok().flatten(),
                usage,
                lock,
            }
        })
    }
}

/// What the advice needs to know beyond the measurements; `usage` as `RepoHints` read it.
pub fn context(
    location: &Location,
    git: &GitFacts,
    (mut usage, settings): (
        crate::measure::usage::Usage,
        Option<&gitsettings::GitSettings>,
    ),
    scan: &ScanReport,
) -> Context {
    use crate::measure::scan::DependencyKind;
    if let Some(settings) = settings {
        usage
            .windows_tools
            .extend(crate::measure::usage::windows_git_settings(
                settings.file_mode.as_deref(),
                settings.autocrlf.as_deref(),
            ));
    }
    Context {
        wsl_version: location.host.wsl_version,
        distro: location.host.distro.clone(),
        git_version: git.version,
        usage,
        repositories_below: None,
        repositories_below_partial: false,
        build_trees: scan
            .dependency_trees
            .iter()
            .filter(|t| matches!(t.kind, DependencyKind::Venv | DependencyKind::Target))
            .map(|t| (t.path.clone(), t.kind, t.files))
            .collect(),
        unfinished_move_to: None,
    }
}

/// A prediction the policy can weigh: one with a baseline figure.
fn with_baseline(compared: &model::Compared) -> Option<model::Compared> {
    compared.baseline.is_some().then_some(*compared)
}

/// What the policy needs, gathered from the measurements.
fn observe(
    env: &HostEnv,
    location: &Location,
    scan: &ScanReport,
    Measurements { probes, predict }: Measurements,
    settings: Option<gitsettings::GitSettings>,
) -> Observations {
    let baseline_problem = probes.and_then(|p| {
        if p.baseline.is_none() || p.baseline_same_mount {
            Some(
                p.baseline_note
                    .0
                    .clone()
                    .unwrap_or(crate::measure::probe::NoBaseline::NotProbed),
            )
        } else {
            None
        }
    });
    Observations {
        path: location.paths.linux.clone(),
        home: env.home(),
        mount_kind: location.mount.kind,
        wsl: location.host.wsl,
        git_status_ms: predict.and_then(|p| with_baseline(&p.git_status_ms)),
        install_ms: predict.and_then(|p| p.install_ms.as_ref().and_then(with_baseline)),
        tracked: scan.tracked,
        // The directories git's walk opens (what `core.untrackedCache` saves), when known.
        dirs: probes
            .and_then(|p| p.git_walk.as_ref())
            .map_or(scan.totals.dirs, |w| w.walked_dirs),
        git: settings,
        baseline_problem,
        context: Context::default(),
    }
}
