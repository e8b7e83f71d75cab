//! The package manager behind a dependency tree, and what its own work costs on this machine.
//!
//! A warm-cache reinstall is the manager's own work (resolving the lock file, reading its cache,
//! checking integrity, extracting, linking) plus the file-system work on the mount. The first
//! part is measured here, not taken from another machine: the detected manager installs nothing,
//! then a sample of the project's own packages, offline from its cache, into a scratch folder on
//! the baseline disk (`samplers`: npm, pnpm, yarn, bun, uv, pip). The figures are cached per
//! machine and manager version. Where no sample can be installed (the manager is not on PATH,
//! no lock file, a cold cache), this says so ([`Timing::Untimed`]) and the model's reference
//! fit stands in (`model::estimated`). Network is never counted (pip, which has no offline
//! mode, asks the index about each package of its sample).

use super::manager_timing::{ManagerTiming, Skipped, TimingSource};
use super::managers::{Manager, detect};
use super::sample_reasons::SampleFailed;
use super::samplers;
use super::timing_cache;
use crate::base::reason::Noted;
use crate::host::HostEnv;
use crate::host::programs::{self, OnPath, WindowsProgram};
use crate::measure::cpu::pace;
use crate::store::{CacheFile, Store};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

/// What is known of a manager's own work on this machine.
#[derive(Debug, Clone, PartialEq)]
pub enum Timing {
    /// Measured by this run or cached from an earlier one.
    Timed(Box<ManagerTiming>),
    /// Not measured (not on PATH, nothing to sample, a cold cache, or not allowed to): the
    /// model's reference fit for its manager stands in.
    Untimed(Untimed),
}

/// A manager not timed, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Untimed {
    pub manager: Manager,
    pub version: String,
    /// Why a sample failed (this run, or within the last day).
    pub failed: Option<SampleFailed>,
    /// Why no sample was tried though one could have been.
    pub skipped: Option<Skipped>,
    /// Entries left out of the sample for not being plain registry pins.
    pub left_out: u64,
    /// The manager's cache holds none of the packages the sample could take.
    pub cache_lacks_all: bool,
}

/// What starting the manager would start: its version (None when it is not installed), or
/// Windows' program, which is never started (`host::programs`).
///
/// A property of the machine, not of the repository: asked once per run and manager, so a
/// survey of many repositories starts each manager once (npm: about 350 ms of node each time),
/// and parallel scans wait for that one answer instead of each starting it; and kept per
/// manager build (`HostEnv::executable_identity`), so the next check does not start it at all.
pub fn version(env: &HostEnv, manager: Manager) -> Result<Option<String>, WindowsProgram> {
    type Asked = Result<Option<String>, WindowsProgram>;
    static ASKED: Mutex<BTreeMap<Manager, Asked>> = Mutex::new(BTreeMap::new());
    let mut asked = ASKED.lock().unwrap_or_else(PoisonError::into_inner);
    asked
        .entry(manager)
        .or_insert_with(|| match programs::find(env, manager.name()) {
            OnPath::Windows(program) => Err(program),
            OnPath::Missing => Ok(None),
            OnPath::Linux(_) => Ok(linux_version(env, manager)),
        })
        .clone()
}

/// The version of the Linux manager on `PATH`, from the cache kept per build or asked.
fn linux_version(env: &HostEnv, manager: Manager) -> Option<String> {
    let identity = env.executable_identity(manager.name())?;
    let (store, name) = (Store::of(env), manager.to_string());
    let file = CacheFile::ManagerVersion(&name);
    // No cache folder (no home, no XDG_CACHE_HOME): the manager is not asked either.
    store.cache_file(file)?;
    let known = store
        .load::<KnownVersion>(file, "package-manager version cache file")
        .filter(|known| known.identity == identity);
    if let Some(known) = known {
        return Some(known.version);
    }
    let version = version_number(manager, &super::asked::version_output(manager.name())?)?;
    let known = KnownVersion {
        identity,
        version: version.clone(),
    };
    store.keep(file, &known);
    Some(version)
}

/// What a manager build said its version is.
#[derive(Serialize, Deserialize)]
struct KnownVersion {
    identity: String,
    version: String,
}

/// How long a project whose sample could not be installed (a package missing from the
/// manager's offline cache) is estimated without trying again: the attempt costs seconds.
const UNSAMPLED_FOR_SECS: u64 = 24 * 3600;

/// The file that says the sample of `root`'s packages failed for this manager version.
fn unsampled_file(env: &HostEnv, manager: Manager, version: &str, root: &Path) -> Option<PathBuf> {
    let manager = manager.to_string();
    Store::of(env).cache_file(CacheFile::UnsampledNote {
        manager: &manager,
        version,
        root,
    })
}

/// Whether a sample of `root`'s packages failed with this manager version within a day, and
/// why (the note's second line: the reason as JSON; older notes kept the manager's words, or
/// nothing); None when it did not.
fn recently_unsampled(
    env: &HostEnv,
    manager: Manager,
    version: &str,
    root: &Path,
) -> Option<Option<SampleFailed>> {
    let file = unsampled_file(env, manager, version, root)?;
    let text = crate::base::input::read_cache(&file, "package-manager sample note")
        .and_then(|bytes| String::from_utf8(bytes).ok())?;
    let mut lines = text.lines();
    let then = lines.next()?.trim().parse::<u64>().ok()?;
    crate::base::clock::younger_than(then, UNSAMPLED_FOR_SECS - 1).then(|| {
        let line = lines.next().unwrap_or("");
        serde_json::from_str(line).ok().or_else(|| {
            let words: String = line.chars().filter(|c| !c.is_control()).collect();
            (!words.is_empty()).then(|| SampleFailed::Said {
                program: manager.name().to_string(),
                words,
            })
        })
    })
}

fn note_unsampled(env: &HostEnv, manager: Manager, version: &str, root: &Path, why: &SampleFailed) {
    let file =
        unsampled_file(env, manager, version, root).filter(|_| Store::of(env).may_write_cache());
    let Ok(why) = serde_json::to_string(why) else {
        return;
    };
    if let Some((dir, file)) = file.as_ref().and_then(|f| Some((f.parent()?, f))) {
        // A failure only costs the next check another attempt.
        let note = format!("{}\n{why}\n", crate::base::clock::now_unix());
        let _ = std::fs::create_dir_all(dir).and_then(|()| std::fs::write(file, note));
    }
}

/// The version number in what `manager --version` prints: npm, pnpm, yarn and bun print it
/// alone, cargo, uv and pip after their name and before more ("cargo 1.95.0 (f2d3ce0bd
/// 2026-03-21)"), which the report would otherwise show as "cargo cargo 1.95.0 (...)".
fn version_number(manager: Manager, text: &str) -> Option<String> {
    let mut words = text.split_whitespace();
    let first = words.next()?;
    let number = if first == manager.name() {
        words.next()?
    } else {
        first
    };
    Some(number.to_string())
}

/// A cached timing at the CPU's pace `cpu` now: the manager's work is CPU work, so a figure
/// taken while the machine was busier (or quieter) is scaled by the two paces.
fn rescaled(cached: ManagerTiming, cpu: f64) -> ManagerTiming {
    let k = cached
        .cpu_sha1_us_per_mib
        .map_or(1.0, |then| pace(cpu, then));
    ManagerTiming {
        startup_ms: cached.startup_ms * k,
        sample_ms: cached.sample_ms * k,
        cpu_sha1_us_per_mib: Some(cpu),
        ..cached
    }
}

/// The manager's timing for the project at `root`: cached when `reuse` and this machine
/// measured this manager version before (on a sample large enough to stand for any project,
/// else on this project's own: `timing_cache`); else measured in a scratch folder under
/// `scratch_dir` when `may_measure` and the manager is on PATH with a sample to install
/// (`samplers`); else `Untimed`. None when there is no manager, or it is cargo. `cpu` is the
/// CPU's pace now (`cpu::sha1_us_per_mib`); `reuse` false (`check --fresh`) retimes.
pub fn timing(
    env: &HostEnv,
    root: &Path,
    scratch_dir: Option<&Path>,
    (may_measure, reuse): (bool, bool),
    cpu: f64,
) -> Option<Timing> {
    // Cargo installs nothing a reinstall redoes: what moving costs is rewriting target/, which
    // the model prices as file writes alone (compile time not counted).
    let manager = detect(root).filter(|&m| m != Manager::Cargo)?;
    // Asking the manager its version starts it (npm: about 350 ms of node): the hook, which
    // may not measure, cannot afford that and takes the estimate for an unknown version.
    let installed = match may_measure.then(|| version(env, manager)).transpose() {
        Err(windows) => return Some(windows_program(manager, windows)),
        Ok(installed) => installed.flatten(),
    };
    let version = installed.clone().unwrap_or_else(|| "unknown".into());
    // One sample at a time (survey prices its repositories in parallel): the first times the
    // manager and caches it, the others then find it cached instead of installing at once and
    // slowing each other's samples.
    static SAMPLING: Mutex<()> = Mutex::new(());
    let _one_sample_at_a_time =
        may_measure.then(|| SAMPLING.lock().unwrap_or_else(PoisonError::into_inner));
    if let Some(cached) = reuse
        .then(|| cached(env, manager, &version, root))
        .flatten()
    {
        return Some(Timing::Timed(Box::new(rescaled(cached, cpu))));
    }
    let earlier = (installed.is_some() && reuse)
        .then(|| recently_unsampled(env, manager, &version, root))
        .flatten();
    let skipped = installed
        .as_deref()
        .and_then(|v| super::managers::untested_version(manager, v))
        .map(Skipped::UntestedVersion);
    let may_sample = may_measure && installed.is_some() && earlier.is_none() && skipped.is_none();
    let npm_cache = samplers::npm_cache::NpmCache::of(env);
    let (before, sampled) = sample((env, manager, root), (scratch_dir, npm_cache), may_sample);
    let noted = scratch_dir.is_some() && !before.cache_lacks_all;
    let failed = failure_of(
        &sampled,
        earlier,
        noted.then_some((env, manager, &version, root)),
    );
    let measured = sampled
        .and_then(Result::ok)
        .map(|s| measured(manager, &version, &s, cpu));
    match measured {
        Some(timing) => Some(Timing::Timed(Box::new(kept(env, root, timing)))),
        None => Some(Timing::Untimed(Untimed {
            manager,
            version,
            failed,
            skipped,
            left_out: before.left_out,
            cache_lacks_all: before.cache_lacks_all,
        })),
    }
}

/// The timing this machine keeps for `manager` at `version`: the machine's before the
/// project's own, which is kept only when too small or odd to stand for others.
fn cached(env: &HostEnv, manager: Manager, version: &str, root: &Path) -> Option<ManagerTiming> {
    let own = || {
        let timing = timing_cache::load(env, manager, version, Some(root))?;
        // Why it is the project's own is not read back: worked out again from its figures.
        Some(ManagerTiming {
            sample_not_shared: Noted(timing_cache::not_shared(&timing)),
            ..timing
        })
    };
    timing_cache::load(env, manager, version, None).or_else(own)
}

/// Windows' manager first on `PATH`: nothing is started, not even for its version, and this
/// reason comes before any of the cache's.
fn windows_program(manager: Manager, program: WindowsProgram) -> Timing {
    Timing::Untimed(Untimed {
        manager,
        version: "unknown".into(),
        failed: None,
        skipped: Some(Skipped::WindowsProgram { manager, program }),
        left_out: 0,
        cache_lacks_all: false,
    })
}

/// Why the sample failed this run (noted for a day at `note`, unless Ctrl-C stopped it: that
/// says nothing of the next), else why it failed within the day (`earlier`).
fn failure_of(
    sampled: &Option<Result<samplers::Sampled, SampleFailed>>,
    earlier: Option<Option<SampleFailed>>,
    note: Option<(&HostEnv, Manager, &str, &Path)>,
) -> Option<SampleFailed> {
    match sampled {
        Some(Err(why)) => {
            if let Some((env, manager, version, root)) = note
                && !crate::base::interrupt::requested()
            {
                note_unsampled(env, manager, version, root, why);
            }
            Some(why.clone())
        }
        _ => earlier.flatten(),
    }
}

/// A timing this run measured, kept for the machine when its sample may stand for other
/// projects, else for the project at `root` alone, saying why.
fn kept(env: &HostEnv, root: &Path, timing: ManagerTiming) -> ManagerTiming {
    let not_shared = timing_cache::not_shared(&timing);
    let own_project = not_shared.is_some().then_some(root);
    let timing = ManagerTiming {
        sample_not_shared: Noted(not_shared),
        ..timing
    };
    timing_cache::keep(env, &timing, own_project);
    timing
}

/// The entries of `root`'s lists left out of its sample, and the sample installed into a
/// scratch folder under `scratch_dir` (Err: why it could not be); None unless `may_sample`.
fn sample(
    (env, manager, root): (&HostEnv, Manager, &Path),
    (scratch_dir, npm_cache): (Option<&Path>, Option<samplers::npm_cache::NpmCache>),
    may_sample: bool,
) -> (Before, Option<Result<samplers::Sampled, SampleFailed>>) {
    let npm_cache = npm_cache.filter(|_| manager == Manager::Npm);
    // pnpm's store as pnpm would read it for this project; asking pnpm the person's
    // `store-dir` (from `/`) is no install.
    let pnpm_store = (may_sample && manager == Manager::Pnpm)
        .then(samplers::pnpm_store::asked_setting)
        .flatten()
        .and_then(|setting| samplers::pnpm_store::store_for(&setting, env, root));
    let offline = match (&npm_cache, &pnpm_store) {
        (Some(cache), _) => samplers::Offline::Npm(cache),
        (_, Some(store)) => samplers::Offline::PnpmStore(store),
        _ => samplers::Offline::Unknown,
    };
    let sample = may_sample.then(|| samplers::sample_for(manager, root, offline));
    let before = Before {
        left_out: sample.as_ref().map_or(0, |s| s.left_out),
        cache_lacks_all: sample.as_ref().is_some_and(|s| s.empty_because.is_some()),
    };
    let sampled = sample.map(|sample| {
        let dir = scratch_dir.ok_or(SampleFailed::NoScratchFolder)?;
        samplers::measure(manager, dir, &sample, root)
    });
    (before, sampled)
}

/// What was known of a sample before any manager ran: the entries it left out, and whether
/// the manager's cache lacks every package it could take (a failure that cost no manager run,
/// so none is noted against trying again: the next check reads the cache again, as cheaply).
struct Before {
    left_out: u64,
    cache_lacks_all: bool,
}

/// The figures of a sample this run installed.
fn measured(manager: Manager, version: &str, s: &samplers::Sampled, cpu: f64) -> ManagerTiming {
    ManagerTiming {
        manager,
        version: version.to_string(),
        startup_ms: s.startup_ms,
        sample_ms: s.sample_ms,
        sample_packages: s.packages,
        sample_files: s.files,
        sample_dirs: s.dirs,
        sample_bytes: s.bytes,
        source: TimingSource::Measured,
        cpu_sha1_us_per_mib: Some(cpu),
        sample_failed: Noted(None),
        sample_skipped: Default::default(),
        sample_skipped_cause: None,
        windows_program: None,
        sample_left_out: s.left_out,
        sample_from_lock: s.from_lock,
        lifecycle_startups: 0.0,
        build_startups: 0.0,
        sample_source: s.source.map(str::to_string),
        sample_uncached: s.uncached,
        sample_not_shared: Noted(None),
        sample_cache_lacks_all: false,
        copies_from_store: false,
        pnpm_store: None,
        // pnpm was started for the sample anyway: the person's `store-dir` is asked now and
        // kept with the timing, so that a later check works out the store without starting it.
        pnpm_store_setting: (manager == Manager::Pnpm)
            .then(samplers::pnpm_store::asked_setting)
            .flatten(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn npm_timing(cpu: f64) -> ManagerTiming {
        ManagerTiming {
            manager: Manager::Npm,
            version: "11".into(),
            startup_ms: 310.0,
            sample_ms: 7000.0,
            sample_packages: 1000,
            sample_files: 0,
            sample_dirs: 0,
            sample_bytes: 0,
            source: TimingSource::Measured,
            cpu_sha1_us_per_mib: Some(cpu),
            sample_failed: Noted(None),
            sample_skipped: Default::default(),
            sample_skipped_cause: None,
            windows_program: None,
            sample_left_out: 0,
            sample_from_lock: false,
            lifecycle_startups: 0.0,
            build_startups: 0.0,
            sample_source: None,
            sample_uncached: 0,
            sample_not_shared: Noted(None),
            sample_cache_lacks_all: false,
            copies_from_store: false,
            pnpm_store: None,
            pnpm_store_setting: None,
        }
    }

    #[test]
    fn the_version_is_the_number_alone() {
        assert_eq!(
            version_number(Manager::Npm, "11.19.1\n").as_deref(),
            Some("11.19.1")
        );
        assert_eq!(
            version_number(Manager::Cargo, "cargo 1.95.0 (f2d3ce0bd 2026-03-21)\n").as_deref(),
            Some("1.95.0")
        );
        assert_eq!(
            version_number(
                Manager::Pip,
                "pip 24.0 from /usr/lib/python3/dist-packages/pip (python 3.12)"
            )
            .as_deref(),
            Some("24.0")
        );
        assert_eq!(version_number(Manager::Uv, "uv").as_deref(), None);
        assert_eq!(version_number(Manager::Bun, "  ").as_deref(), None);
    }

    #[test]
    fn a_cached_timing_follows_the_cpu_pace() {
        let cached = ManagerTiming {
            source: TimingSource::Cached,
            ..npm_timing(1200.0)
        };
        let now = rescaled(cached.clone(), 600.0);
        assert!((now.sample_ms - cached.sample_ms / 2.0).abs() < 1e-9);
        assert!((now.startup_ms - cached.startup_ms / 2.0).abs() < 1e-9);
        assert_eq!(now.cpu_sha1_us_per_mib, Some(600.0));
        // A cache from before the pace was recorded is taken as it is.
        let old = ManagerTiming {
            cpu_sha1_us_per_mib: None,
            ..cached.clone()
        };
        assert_eq!(rescaled(old, 600.0).sample_ms, cached.sample_ms);
    }
}
