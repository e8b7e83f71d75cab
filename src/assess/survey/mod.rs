//! `wsl-place survey`: every repository below a folder, judged as `check` judges one, with one
//! probe per mount shared by all the repositories on it.

use crate::assess::pipeline::probes::{self, Baseline};
use crate::assess::pipeline::{self, Measurements, RepoHints, decide, with_fsmonitor};
use crate::base::error::Result;
use crate::base::progress::{Drawn, Progress};
use crate::decide::policy::{self, Level, PolicySource, Verdict};
use crate::host::git::version::{GitFacts, GitVersion};
use crate::host::location::{self, MountInfo, MountTable, Paths};
use crate::host::mounts::MountEntry;
use crate::host::{Host, HostEnv};
use crate::measure::cpu;
use crate::measure::discover::{Discovery, Found, Nested, discover, nested_in};
use crate::measure::gitindex::RootIndex;
use crate::measure::probe::{ProbeReport, ProbeSet, mount_of};
use crate::measure::scan::{self, ScanOptions, ScanReport};
use crate::model::Prediction;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

mod scans;
mod shared;
pub use scans::Scans;
use shared::{probe_set, probed_mounts, with_index_figures, with_manager};

/// What `survey` measures and how long each part may take, decided once from the command line.
#[derive(Debug, Clone)]
pub struct Settings {
    pub dir: PathBuf,
    pub probe: bool,
    /// Each repository's scan at most, on its own clock (`--scan-budget-ms`, only when given:
    /// scans share their threads, so a scan's clock runs slower than `check`'s would).
    pub scan_budget: Option<Duration>,
    /// The whole survey: every scan stops when this has passed since the survey started.
    pub budget: Duration,
    /// Each mount's probe.
    pub probe_budget: Duration,
    /// The search for repositories.
    pub discover_budget: Duration,
    pub baseline: Option<PathBuf>,
    pub policy: Option<PathBuf>,
    /// `--exact`: every dependency tree walked whole (see `ScanOptions::exact`).
    pub exact: bool,
    /// `--fresh`: each package manager timed again.
    pub fresh: bool,
}

/// One mount's probe and who used it.
#[derive(Debug, Clone, Serialize)]
pub struct MountProbe {
    #[serde(with = "crate::base::pathtext::json")]
    pub mount_point: PathBuf,
    pub fstype: String,
    /// Repositories on this mount.
    pub repositories: usize,
    /// This mount is where the Linux-disk side of the comparison was measured.
    pub baseline: bool,
    pub probe: ProbeReport,
}

/// One repository's line: the same `scan`, `predict` and `verdict` as `check`'s report.
#[derive(Debug, Clone, Serialize)]
pub struct RepositoryReport {
    #[serde(with = "crate::base::pathtext::json")]
    pub path: PathBuf,
    pub mount: MountInfo,
    pub paths: Paths,
    pub nested: Vec<Nested>,
    /// Its `complete` is false when the budget stopped the scan: the counts are estimates.
    pub scan: ScanReport,
    pub predict: Option<Prediction>,
    pub policy: PolicySource,
    pub verdict: Verdict,
    /// Why the Linux-disk side is missing or is this same disk (and `baseline_note_kind`).
    #[serde(flatten)]
    pub baseline_note: crate::base::reason::Noted<crate::measure::probe::NoBaseline>,
    /// The old place of a finished migration, as in `check`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub moved: Option<crate::measure::changes::OldPlace>,
}

/// The summary line's figures.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    pub repositories: usize,
    pub ok: usize,
    pub advise: usize,
    #[serde(rename = "move")]
    pub move_: usize,
    /// Old places of finished migrations.
    pub moved: usize,
    pub worst: Level,
    /// Repositories judged `advise` or `move` (not `moved`): the ones that would gain from moving.
    pub would_gain: usize,
    /// Their predicted `git status`, added up, here and on the Linux disk.
    pub git_status_here_ms: f64,
    pub git_status_linux_ms: Option<f64>,
    /// What moving them needs on the Linux disk, counted as `migrate`'s plan counts it: the
    /// files in whole 4 KiB blocks and a 4 KiB block for each folder and link.
    pub bytes_to_move: u64,
    pub elapsed_ms: u64,
}

/// A repository found and not judged (its own `.wsl-place.toml` is malformed, say), and why.
#[derive(Debug, Clone, Serialize)]
pub struct NotJudged {
    #[serde(with = "crate::base::pathtext::json")]
    pub path: PathBuf,
    /// The sentence `check` would have failed with.
    pub why: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct SurveyReport {
    pub schema: u32,
    #[serde(with = "crate::base::pathtext::json")]
    pub dir: PathBuf,
    pub host: Host,
    pub git_version: Option<GitVersion>,
    pub discovery: Discovery,
    pub probes: Vec<MountProbe>,
    pub scans: Scans,
    /// Sorted by predicted `git status` here, slowest first.
    pub repositories: Vec<RepositoryReport>,
    /// Repositories that could not be judged, with why; the others are judged all the same.
    pub not_judged: Vec<NotJudged>,
    pub summary: Summary,
}

const INTERRUPTED: &str = "the probes' scratch folders were removed; nothing was printed.";

/// Finds, probes, scans, predicts and judges every repository below `settings.dir`; Ctrl-C
/// stops it between repositories.
pub fn run(env: &HostEnv, settings: &Settings, progress: &dyn Progress) -> Result<SurveyReport> {
    let start = Instant::now();
    let dir = location::canonical_dir(&settings.dir)?;
    let table = MountTable::read(env)?;
    let host = location::host(env, &table);
    // git's startup as `check` took it (cached per boot): one Linux-disk figure on both screens.
    let git = pipeline::git_cache::facts(env, true);
    let (discovery, removed) = discovered(env, settings, &dir)?;
    let check_settings = check_settings(settings, &dir);
    let plan = planned(env, &check_settings, &table, &discovery)?;
    let cpu_pace = settings.probe.then(cpu::sha1_us_per_mib);
    let mounts = probed_mounts(env, settings, &plan, progress);
    let place = Place {
        env,
        table: &table,
        host: &host,
        git: &git,
        deadline: start + settings.budget,
    };
    let threads = scans::threads_for(
        mounts
            .iter()
            .filter(|m| m.repositories > 0)
            .map(|m| &m.probe),
    );
    let scans_started = Instant::now();
    let judged = judge_all(
        &place,
        (settings, &check_settings),
        (&plan, &mounts, cpu_pace),
        threads,
        progress,
    );
    crate::base::interrupt::check(INTERRUPTED)?;
    let (mut repositories, mut not_judged) =
        sort_out(plan.iter().map(|(found, _, _)| *found), judged)?;
    not_judged.extend(removed);
    let scans = scans::Scans {
        threads,
        budget_ms: settings.budget.as_millis() as u64,
        stopped: repositories.iter().filter(|r| !r.scan.complete).count(),
        elapsed_ms: scans_started.elapsed().as_millis() as u64,
    };
    repositories.sort_by(|a, b| git_status_here(b).total_cmp(&git_status_here(a)));
    let summary = summarise(&repositories, start.elapsed());
    Ok(SurveyReport {
        schema: pipeline::SCHEMA_VERSION,
        dir,
        host,
        git_version: git.version,
        discovery,
        probes: mounts,
        scans,
        repositories,
        not_judged,
        summary,
    })
}

/// A repository found, with its mount and its baseline.
type Planned<'a> = (&'a Found, &'a MountEntry, Baseline<'a>);

/// Scans and judges every repository of the `plan` on `threads`, each with its mount's shared
/// probe (with `--probe`); Ctrl-C stops it between repositories.
fn judge_all(
    place: &Place,
    (settings, check_settings): (&Settings, &pipeline::Settings),
    (plan, mounts, cpu_pace): (&[Planned], &[MountProbe], Option<f64>),
    threads: usize,
    progress: &dyn Progress,
) -> Vec<Result<RepositoryReport>> {
    let (env, git) = (place.env, place.git);
    scans::each_in_parallel(
        plan,
        threads,
        progress,
        |(found, _, _)| format!("scanned {}", crate::base::pathtext::display(&found.root)),
        |(found, mount, baseline)| {
            crate::base::interrupt::check(INTERRUPTED)?;
            let shared = || {
                settings.probe.then(|| {
                    probe_set(mounts, mount, baseline, (git.startup_ms, cpu_pace))
                        .map(|set| with_manager(set, env, &found.root, baseline, check_settings))
                })
            };
            judge(place, settings, found, shared)
        },
    )
}

/// The repositories below `dir`, without those whose source a migration removed (returned
/// apart, not judged). A --policy file that is wrong is wrong for every repository: said once,
/// exit 2, before anything is looked for.
fn discovered(
    env: &HostEnv,
    settings: &Settings,
    dir: &Path,
) -> Result<(Discovery, Vec<NotJudged>)> {
    if let Some(file) = &settings.policy {
        policy::load(Some(file), dir)?;
    }
    let mut discovery = discover(dir, settings.discover_budget);
    let removed = removed_sources(env, dir, &mut discovery);
    Ok((discovery, removed))
}

/// The settings each repository is checked with, as `check` takes them, from the survey's.
fn check_settings(settings: &Settings, dir: &Path) -> pipeline::Settings {
    pipeline::Settings {
        path: dir.to_path_buf(),
        probe: settings.probe,
        scan_budget: settings.scan_budget.unwrap_or(settings.budget),
        probe_budget: settings.probe_budget,
        baseline: settings.baseline.clone(),
        purpose: pipeline::Purpose::Survey {
            fresh: settings.fresh,
        },
        exact: settings.exact,
    }
}

/// Each repository found with its mount and its baseline.
fn planned<'a>(
    env: &HostEnv,
    check_settings: &pipeline::Settings,
    table: &'a MountTable,
    discovery: &'a Discovery,
) -> Result<Vec<Planned<'a>>> {
    let mut plan = Vec::new();
    for found in &discovery.repositories {
        let mount = mount_of(table, &found.root)?;
        let baseline = probes::choose_baseline(env, check_settings, table, mount)?;
        plan.push((found, mount, baseline));
    }
    Ok(plan)
}

/// The repositories judged, and those not judged with why: one repository's input error (its
/// malformed `.wsl-place.toml`) is its own, and the survey goes on with the others. Any other
/// failure stops the survey.
fn sort_out<'a>(
    found: impl Iterator<Item = &'a Found>,
    judged: Vec<Result<RepositoryReport>>,
) -> Result<(Vec<RepositoryReport>, Vec<NotJudged>)> {
    let mut repositories = Vec::new();
    let mut not_judged = Vec::new();
    for (found, result) in found.zip(judged) {
        match result {
            Ok(report) => repositories.push(report),
            Err(failure) if failure.code == crate::base::error::ExitCode::Input => {
                not_judged.push(NotJudged {
                    path: found.root.clone(),
                    why: failure.message,
                });
            }
            Err(failure) => return Err(failure),
        }
    }
    Ok((repositories, not_judged))
}

/// The old places whose source `--remove-source` removed (what is left there is the person's
/// kept files, or a `.git` kept whole): no repository to survey, and no mount to probe from
/// them. Taken out of `discovery` and said as not judged, with the old place's words.
fn removed_sources(env: &HostEnv, dir: &Path, discovery: &mut Discovery) -> Vec<NotJudged> {
    let mut removed = Vec::new();
    discovery.repositories.retain(|found| {
        let Some(record) =
            crate::store::moved::recorded(env, &found.root).filter(|r| r.source_removed)
        else {
            return true;
        };
        let old = crate::measure::changes::told(env, &record, crate::measure::changes::Count::Walk);
        removed.push(NotJudged {
            path: found.root.clone(),
            why: format!("{}; no repository to survey here", old.message.sentence()),
        });
        false
    });
    // Without its `.git` the search does not find an old place; the records do.
    for record in crate::store::moved::removed_below(env, dir) {
        if removed.iter().any(|r: &NotJudged| r.path == record.source) {
            continue;
        }
        let old = crate::measure::changes::told(env, &record, crate::measure::changes::Count::Walk);
        removed.push(NotJudged {
            path: record.source.clone(),
            why: format!("{}; no repository to survey here", old.message.sentence()),
        });
    }
    removed
}

/// What every repository is judged against: the host, its mounts, its git.
struct Place<'a> {
    env: &'a HostEnv,
    table: &'a MountTable,
    host: &'a Host,
    git: &'a GitFacts,
    /// When every scan stops: the survey's start plus its budget.
    deadline: Instant,
}

/// Scans, predicts and judges one repository with the shared probes (`shared` makes its set).
fn judge(
    place: &Place,
    settings: &Settings,
    found: &Found,
    shared: impl FnOnce() -> Option<Option<ProbeSet>> + Send,
) -> Result<RepositoryReport> {
    let location = location::locate_in(place.host, place.table, &found.root)?;
    let (policy, policy_source) = policy::load(settings.policy.as_deref(), &found.root)?;
    let (scanned, (hints, shared)) = beside_the_scan(
        || scanned(place, settings, &found.root),
        || (RepoHints::read(&found.root), shared()),
    );
    let (mut scan, index) = scanned?;
    let nested = nested_of(&found.root, index.as_ref(), &mut scan);
    let mut probes = shared.flatten();
    if let Some(set) = probes.as_mut() {
        with_index_figures(set, index.as_ref());
    }
    let mut predict = probes
        .as_ref()
        .and_then(|set| probes::predict(place.env, &scan, set, &found.root, hints.lock));
    if let (Some(prediction), Some(set)) = (predict.as_mut(), probes.as_ref()) {
        with_fsmonitor(prediction, set, place.git, &scan, &policy);
    }
    let mut verdict = decide(
        place.env,
        &location,
        (&scan, hints),
        Measurements {
            probes: probes.as_ref(),
            predict: predict.as_ref(),
        },
        &policy,
        place.git,
    );
    let moved = crate::measure::changes::old_place(
        place.env,
        &found.root,
        crate::measure::changes::Count::Walk,
    );
    if let Some(old) = &moved {
        verdict = crate::decide::moved::verdict(old);
    }
    Ok(RepositoryReport {
        path: found.root.clone(),
        mount: location.mount,
        paths: location.paths,
        nested,
        scan,
        predict,
        policy: policy_source,
        verdict,
        baseline_note: crate::base::reason::Noted(probes.and_then(|p| p.baseline_note.0)),
        moved,
    })
}

/// The repositories nested in the one at `root`, from what its scan saw and its index's
/// gitlinks (the scan's own list is taken).
fn nested_of(root: &Path, index: Option<&RootIndex>, scan: &mut ScanReport) -> Vec<Nested> {
    let gitlinks = index.map(RootIndex::gitlinks).unwrap_or_default();
    nested_in(root, &gitlinks, &std::mem::take(&mut scan.nested_git))
}

/// `scan` with `beside` run on a thread of its own meanwhile, as `check` reads a repository's
/// hints while it walks: on a slow mount git's settings, the lock file and the manager's files
/// are each a string of round trips, which in turn after the scan made every repository's
/// judging as long as both.
fn beside_the_scan<S, B: Send>(
    scan: impl FnOnce() -> S,
    beside: impl FnOnce() -> B + Send,
) -> (S, B) {
    std::thread::scope(|scope| {
        let side = scope.spawn(beside);
        let scanned = scan();
        let aside = side
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (scanned, aside)
    })
}

/// The repository at `root` scanned within what is left of the survey's budget, its
/// dependency trees known from the last scan where unchanged; the index the scan read. Err:
/// a `.git` that leads nowhere (a moved or deleted repository) has nothing to judge, said with
/// `check`'s words, as a repository not judged, rather than a verdict with no reason.
fn scanned(
    place: &Place,
    settings: &Settings,
    root: &Path,
) -> Result<(ScanReport, Option<RootIndex>)> {
    let (scan, index) = scan::scan_keeping_index(
        root,
        &ScanOptions {
            budget: scans::budget_now(place.deadline, settings.scan_budget),
            automount_root: place.env.automount_root(),
            exact: settings.exact,
            known: pipeline::dependency_cache::load(place.env, root),
        },
        // The survey's own bar shows the scans.
        &Drawn::hidden(),
    );
    pipeline::dependency_cache::store(place.env, root, &scan);
    if let Some(broken) = scan.git.as_ref().and_then(|git| git.error.as_ref()) {
        use crate::base::reason::Worded;
        return Err(crate::base::error::Failure::input(format!(
            "broken .git: {}",
            broken.sentence().trim_end_matches('.')
        )));
    }
    Ok((scan, index))
}

fn git_status_here(report: &RepositoryReport) -> f64 {
    report
        .predict
        .as_ref()
        .map_or(-1.0, |p| p.git_status_ms.current)
}

fn summarise(repositories: &[RepositoryReport], elapsed: Duration) -> Summary {
    let count = |level| {
        repositories
            .iter()
            .filter(|r| r.verdict.level == level)
            .count()
    };
    // A moved repository's old place gains nothing from moving again.
    let gaining: Vec<&RepositoryReport> = repositories
        .iter()
        .filter(|r| r.verdict.level > Level::Ok && r.verdict.level != Level::Moved)
        .collect();
    let statuses: Vec<_> = gaining
        .iter()
        .filter_map(|r| r.predict.as_ref().map(|p| &p.git_status_ms))
        .collect();
    let git_status_linux_ms = statuses
        .iter()
        .map(|c| c.baseline)
        .sum::<Option<f64>>()
        .filter(|_| !statuses.is_empty());
    Summary {
        repositories: repositories.len(),
        ok: count(Level::Ok),
        advise: count(Level::Advise),
        move_: count(Level::Move),
        moved: count(Level::Moved),
        worst: repositories
            .iter()
            .map(|r| r.verdict.level)
            .max()
            .unwrap_or(Level::Ok),
        would_gain: gaining.len(),
        git_status_here_ms: statuses.iter().fold(0.0, |sum, c| sum + c.current),
        git_status_linux_ms,
        bytes_to_move: gaining.iter().map(|r| space_needed(&r.scan)).sum(),
        elapsed_ms: elapsed.as_millis() as u64,
    }
}

/// The space a repository's copy takes on the Linux disk, as the migration's plan counts it
/// (`needed_bytes`): its files in whole 4 KiB blocks (their allocated space where the scan
/// sized them, never less than their bytes), and one block for each folder and link.
fn space_needed(scan: &crate::measure::scan::ScanReport) -> u64 {
    let files = scan.allocated_bytes.max(scan.totals.bytes);
    files + 4096 * (scan.totals.dirs + scan.totals.symlinks)
}
