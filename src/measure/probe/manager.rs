//! The package manager behind a dependency tree, and what its own work costs on this machine.
//!
//! A warm-cache reinstall is the manager's own work (resolving the lock file, reading its cache,
//! checking integrity, extracting, linking) plus the file-system work on the mount. The first
//! part is measured here, not taken from another machine: the detected manager installs nothing,
//! then a sample of the project's own packages, offline from its cache, into a scratch folder on
//! the baseline disk (`samplers`: npm, pnpm, yarn, bun, uv, pip). The figures are cached per
//! machine and manager version. Where no sample can be installed (the manager is not on PATH,
//! no lock file, a cold cache), the manager's reference fit is scaled by a short CPU calibration
//! and marked `estimated`. Network is never counted (pip, which has no offline mode, asks the
//! index about each package of its sample).

use super::cpu::pace;
use super::samplers;
use crate::host::HostEnv;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

/// What a package manager's own work was measured at on this machine: the manager installing
/// nothing, and installing a sample of the project's packages offline into a scratch folder on
/// the baseline disk.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ManagerTiming {
    /// `npm`, `pnpm`, `yarn`, `bun`, `uv`, `pip`, `cargo`.
    pub manager: String,
    pub version: String,
    /// The manager's run with nothing to install: start-up, configuration, the empty tree.
    pub startup_ms: f64,
    /// The run that installed the sample.
    pub sample_ms: f64,
    pub sample_packages: u64,
    pub sample_files: u64,
    pub sample_dirs: u64,
    pub sample_bytes: u64,
    /// `measured` (by this run), `cached` (by an earlier run on this machine, same manager
    /// version, scaled by the CPU's pace then and now) or `estimated` (no sample could be
    /// installed: npm's fit scaled by the CPU's pace).
    pub source: String,
    /// The CPU's pace when the figures were taken (`probe::cpu::sha1_us_per_mib`), so that a
    /// timing cached on a busy afternoon is scaled to a quiet morning; None in older caches.
    #[serde(default)]
    pub cpu_sha1_us_per_mib: Option<f64>,
}

/// Each manager's own work at the model's reference pace (`cpu::REFERENCE_SHA1_US_PER_MIB`) on
/// this project's 2-core machines: (manager, start-up ms, ms per package-sized unit of work,
/// `model::FILES_PER_PACKAGE_WORK`). Only used, scaled by the machine's pace, when no sample
/// can be installed. Measured on warm-cache reinstalls of the express tree (406 packages, 6,600
/// files, 846 units) on ext4 against an empty install, five interleaved runs each, medians, at
/// about 1.25 times the reference pace, and divided by that: npm 11.19 390 ms empty and 7.8 s
/// whole; pnpm 12.23 52 ms and 356 ms (it links files from its store, so little of the install
/// is its own work); yarn 1.22 272 ms and 4.1 s; bun 1.4 8 ms and 79 ms, less than the
/// file-system floor the model prices (its per-unit figure is a token one). Per unit: the whole
/// less two empty installs and the model's file-system floor on ext4, over 846. Python, on
/// this project's fitting set (flask, requests, numpy, pandas, rich, pydantic, sqlalchemy,
/// pyyaml, httpx, pytest: 35 packages; uv's tree 4,900 files, pip's 8,200 with the bytecode it
/// compiles), reinstalled from cache on ext4 at a load of about 4 (about 1.4 times the
/// reference pace): uv 0.13 180 ms empty and 390 ms whole (it links files from its cache: its
/// per-unit figure is a token one, as bun's). pip 23.2 into a virtualenv (its unit is a
/// package and 700 files, `PIP_FILES_PER_PACKAGE_WORK` in `model/install.rs`): subsets of
/// pallets/werkzeug's 68 packages on a journaled ext4 at about 1.2 times the reference pace,
/// 365 ms empty and 152 ms per unit. poetry, never timed, gets pip's. cargo has none: rebuilding target/ is
/// priced as its file writes alone.
pub(crate) const REFERENCE_FITS: &[(&str, f64, f64)] = &[
    ("npm", 310.0, 6.3),
    ("pnpm", 42.0, 0.16),
    ("yarn", 220.0, 3.3),
    ("bun", 6.0, 0.01),
    ("uv", 130.0, 0.05),
    ("pip", 300.0, 125.0),
    ("poetry", 300.0, 125.0),
];
/// Package-sized units in an estimated sample, at least: enough that its per-unit work
/// outweighs the second start-up (more for uv, whose per-unit figure is a token one), so `model::manager_work_ms` reads the fit back
/// unchanged (with 100, pnpm's and bun's came out 36% and 68% high).
const ESTIMATED_SAMPLE_UNITS: f64 = 1000.0;

/// The manager a project's lock file names, if any: the JavaScript locks, `uv.lock`,
/// `poetry.lock`, pinned `requirements*.txt` (pip), `Cargo.lock`; else a `node_modules` (npm)
/// or a virtualenv (pip).
pub fn detect(root: &Path) -> Option<&'static str> {
    const LOCKS: &[(&str, &str)] = &[
        ("package-lock.json", "npm"),
        ("npm-shrinkwrap.json", "npm"),
        ("pnpm-lock.yaml", "pnpm"),
        ("yarn.lock", "yarn"),
        ("bun.lock", "bun"),
        ("bun.lockb", "bun"),
        ("uv.lock", "uv"),
        ("poetry.lock", "poetry"),
    ];
    // One listing of the root instead of a lookup per name: on a 9p mount each lookup of a
    // file that is not there is a round trip (ten of them cost the hook about 30 ms).
    let names: BTreeSet<String> = std::fs::read_dir(root)
        .ok()?
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    let has = |name: &str| names.contains(name);
    let file = |name: &str| has(name) && root.join(name).is_file();
    let venv = || {
        super::packages::VENV_DIRS
            .iter()
            .any(|v| has(v) && root.join(v).join("pyvenv.cfg").is_file())
    };
    LOCKS
        .iter()
        .find(|(name, _)| file(name))
        .map(|&(_, manager)| manager)
        .or_else(|| {
            names
                .iter()
                .any(|n| super::packages::is_requirements(Path::new(n)))
                .then_some("pip")
        })
        .or_else(|| file("Cargo.lock").then_some("cargo"))
        .or_else(|| (has("node_modules") && root.join("node_modules").is_dir()).then_some("npm"))
        .or_else(|| venv().then_some("pip"))
}

/// The manager's version; None when it is not installed.
///
/// A property of the machine, not of the repository: asked once per run and manager, so a
/// survey of many repositories starts each manager once (npm: about 350 ms of node each time),
/// and parallel scans wait for that one answer instead of each starting it; and kept per
/// manager build (`HostEnv::executable_identity`), so the next check does not start it at all.
fn version(env: &HostEnv, manager: &str) -> Option<String> {
    static ASKED: Mutex<BTreeMap<String, Option<String>>> = Mutex::new(BTreeMap::new());
    let mut asked = ASKED.lock().unwrap_or_else(PoisonError::into_inner);
    asked
        .entry(manager.to_string())
        .or_insert_with(|| {
            let identity = env.executable_identity(manager)?;
            let file = env
                .cache_dir()?
                .join("manager")
                .join(format!("version-{manager}.json"));
            let known = crate::base::input::read_cache(&file, "package-manager version cache file")
                .and_then(|bytes| serde_json::from_slice::<KnownVersion>(&bytes).ok())
                .filter(|known| known.identity == identity);
            if let Some(known) = known {
                return Some(known.version);
            }
            let version = version_number(manager, &samplers::version_output(manager)?)?;
            if env.cache_dir_to_write().is_some() {
                let known = KnownVersion {
                    identity,
                    version: version.clone(),
                };
                crate::base::input::write_json_atomically(&file, &known);
            }
            Some(version)
        })
        .clone()
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
fn unsampled_file(env: &HostEnv, manager: &str, version: &str, root: &Path) -> Option<PathBuf> {
    let key = crate::base::pathtext::file_key(root);
    let name = format!("{manager}-{}-{key}", version.replace(['/', '\\'], "_"));
    Some(
        env.cache_dir()?
            .join("manager")
            .join("unsampled")
            .join(name),
    )
}

/// Whether a sample of `root`'s packages failed with this manager version within a day.
fn recently_unsampled(env: &HostEnv, manager: &str, version: &str, root: &Path) -> bool {
    let Some(file) = unsampled_file(env, manager, version, root) else {
        return false;
    };
    crate::base::input::read_cache(&file, "package-manager sample note")
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .and_then(|text| text.trim().parse::<u64>().ok())
        .is_some_and(|then| crate::base::clock::younger_than(then, UNSAMPLED_FOR_SECS - 1))
}

fn note_unsampled(env: &HostEnv, manager: &str, version: &str, root: &Path) {
    let file = env
        .cache_dir_to_write()
        .and(unsampled_file(env, manager, version, root));
    if let Some((dir, file)) = file.as_ref().and_then(|f| Some((f.parent()?, f))) {
        // A failure only costs the next check another attempt.
        let _ = std::fs::create_dir_all(dir)
            .and_then(|()| std::fs::write(file, crate::base::clock::now_unix().to_string()));
    }
}

/// The version number in what `manager --version` prints: npm, pnpm, yarn and bun print it
/// alone, cargo, uv and pip after their name and before more ("cargo 1.95.0 (f2d3ce0bd
/// 2026-03-21)"), which the report would otherwise show as "cargo cargo 1.95.0 (...)".
fn version_number(manager: &str, text: &str) -> Option<String> {
    let mut words = text.split_whitespace();
    let first = words.next()?;
    let number = if first == manager {
        words.next()?
    } else {
        first
    };
    Some(number.to_string())
}

/// What identifies this machine for the cache: host name, CPU model and core count.
fn machine(env: &HostEnv) -> String {
    let read = |p: &str| std::fs::read_to_string(env.proc_root().join(p)).unwrap_or_default();
    let cpu = read("cpuinfo")
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, m)| m.trim().to_string())
        .unwrap_or_default();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    format!(
        "{} / {cpu} / {cores} cores",
        read("sys/kernel/hostname").trim()
    )
}

/// How the sample is taken and read; a cached timing taken another way is measured again (the
/// 60-package sample of method 1, read as 120 would be, put npm's own work 40% low; method 2
/// kept the faster of two runs, 3 the median of three; 4 times uv's sync of a lock with the
/// making of its virtualenv, which 3 left out: psf/requests' reinstall came out 53-66% low).
const SAMPLE_METHOD: u32 = 4;

#[derive(Serialize, Deserialize)]
struct CacheEntry {
    machine: String,
    /// `SAMPLE_METHOD` when written; 1 in caches from before it was recorded.
    #[serde(default = "first_method")]
    method: u32,
    timing: ManagerTiming,
}

fn first_method() -> u32 {
    1
}

fn cache_file(env: &HostEnv, manager: &str, version: &str) -> Option<PathBuf> {
    let safe: String = version
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' {
                c
            } else {
                '_'
            }
        })
        .take(40)
        .collect();
    Some(
        env.cache_dir()?
            .join("manager")
            .join(format!("{manager}-{safe}.json")),
    )
}

fn load_cached(env: &HostEnv, manager: &str, version: &str) -> Option<ManagerTiming> {
    let file = cache_file(env, manager, version)?;
    let bytes = crate::base::input::read_cache(&file, "package-manager timing cache file")?;
    let entry: CacheEntry = serde_json::from_slice(&bytes).ok()?;
    (entry.machine == machine(env) && entry.method == SAMPLE_METHOD).then(|| ManagerTiming {
        source: "cached".into(),
        ..entry.timing
    })
}

/// Writes the cache beside and renames it; a failure only costs the next check a calibration.
fn store(env: &HostEnv, timing: &ManagerTiming) {
    let writable = env.cache_dir_to_write();
    let Some(file) = writable.and(cache_file(env, &timing.manager, &timing.version)) else {
        return;
    };
    let entry = CacheEntry {
        machine: machine(env),
        method: SAMPLE_METHOD,
        timing: timing.clone(),
    };
    crate::base::input::write_json_atomically(&file, &entry);
}

/// The manager's reference fit (`REFERENCE_FITS`, npm's for one not there) scaled by this
/// machine's pace, for managers or projects that cannot be sampled: a sample of
/// `ESTIMATED_SAMPLE_UNITS` package-sized units with no file-system work of its own.
pub(crate) fn estimated(manager: &str, version: String, cpu: f64) -> ManagerTiming {
    let pace = pace(cpu, super::cpu::REFERENCE_SHA1_US_PER_MIB);
    let (_, startup, per_unit) = REFERENCE_FITS
        .iter()
        .find(|(name, _, _)| *name == manager)
        .unwrap_or(&REFERENCE_FITS[0]);
    let startup_ms = startup * pace;
    // Enough units that their work outweighs the second start-up, so the fit reads back.
    let units = ESTIMATED_SAMPLE_UNITS.max((startup / per_unit).ceil());
    ManagerTiming {
        manager: manager.into(),
        version,
        startup_ms,
        // The second start-up is the fixed cost of placing anything (`model::manager_work_ms`).
        sample_ms: 2.0 * startup_ms + units * per_unit * pace,
        sample_packages: units as u64,
        sample_files: 0,
        sample_dirs: 0,
        sample_bytes: 0,
        source: "estimated".into(),
        cpu_sha1_us_per_mib: Some(cpu),
    }
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

/// The manager's timing for the project at `root`: cached when this machine measured this
/// manager version before; else measured in a scratch folder under `scratch_dir` when
/// `may_measure` and the manager is on PATH with a sample to install (`samplers`); else its
/// reference fit, `estimated`. None when there is no manager, or it is cargo. `cpu` is the CPU's pace now (`probe::cpu::sha1_us_per_mib`).
pub fn timing(
    env: &HostEnv,
    root: &Path,
    scratch_dir: Option<&Path>,
    may_measure: bool,
    cpu: f64,
) -> Option<ManagerTiming> {
    // Cargo installs nothing a reinstall redoes: what moving costs is rewriting target/, which
    // the model prices as file writes alone (compile time not counted).
    let manager = detect(root).filter(|&m| m != "cargo")?;
    // Asking the manager its version starts it (npm: about 350 ms of node): the hook, which
    // may not measure, cannot afford that and takes the estimate for an unknown version.
    let installed = may_measure.then(|| version(env, manager)).flatten();
    let version = installed.clone().unwrap_or_else(|| "unknown".into());
    // One sample at a time (survey prices its repositories in parallel): the first times the
    // manager and caches it, the others then find it cached instead of installing at once and
    // slowing each other's samples.
    static SAMPLING: Mutex<()> = Mutex::new(());
    let _one_sample_at_a_time =
        may_measure.then(|| SAMPLING.lock().unwrap_or_else(PoisonError::into_inner));
    if let Some(cached) = load_cached(env, manager, &version) {
        return Some(rescaled(cached, cpu));
    }
    let may_sample =
        may_measure && installed.is_some() && !recently_unsampled(env, manager, &version, root);
    let sampled = may_sample
        .then(|| {
            let sample = samplers::sample_for(manager, root);
            samplers::measure(manager, scratch_dir?, &sample, root)
        })
        .flatten();
    if may_sample && sampled.is_none() && scratch_dir.is_some() {
        note_unsampled(env, manager, &version, root);
    }
    let measured = sampled.map(|s| ManagerTiming {
        manager: manager.into(),
        version: version.clone(),
        startup_ms: s.startup_ms,
        sample_ms: s.sample_ms,
        sample_packages: s.packages,
        sample_files: s.files,
        sample_dirs: s.dirs,
        sample_bytes: s.bytes,
        source: "measured".into(),
        cpu_sha1_us_per_mib: Some(cpu),
    });
    match measured {
        Some(timing) => {
            store(env, &timing);
            Some(timing)
        }
        None => Some(estimated(manager, version, cpu)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_version_is_the_number_alone() {
        assert_eq!(
            version_number("npm", "11.19.1\n").as_deref(),
            Some("11.19.1")
        );
        assert_eq!(
            version_number("cargo", "cargo 1.95.0 (f2d3ce0bd 2026-03-21)\n").as_deref(),
            Some("1.95.0")
        );
        assert_eq!(
            version_number(
                "pip",
                "pip 24.0 from /usr/lib/python3/dist-packages/pip (python 3.12)"
            )
            .as_deref(),
            Some("24.0")
        );
        assert_eq!(version_number("uv", "uv").as_deref(), None);
        assert_eq!(version_number("bun", "  ").as_deref(), None);
    }

    #[test]
    fn lock_files_name_the_manager() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(detect(dir.path()), None);
        std::fs::create_dir_all(dir.path().join(".venv")).unwrap();
        // A folder called .venv is not a virtualenv without its pyvenv.cfg.
        assert_eq!(detect(dir.path()), None);
        std::fs::write(dir.path().join(".venv/pyvenv.cfg"), "home = /usr/bin\n").unwrap();
        assert_eq!(detect(dir.path()), Some("pip"));
        std::fs::write(dir.path().join("Cargo.lock"), "").unwrap();
        assert_eq!(detect(dir.path()), Some("cargo"));
        std::fs::write(dir.path().join("requirements-dev.txt"), "").unwrap();
        assert_eq!(detect(dir.path()), Some("pip"));
        std::fs::write(dir.path().join("poetry.lock"), "").unwrap();
        assert_eq!(detect(dir.path()), Some("poetry"));
        std::fs::write(dir.path().join("uv.lock"), "").unwrap();
        assert_eq!(detect(dir.path()), Some("uv"));
        std::fs::write(dir.path().join("yarn.lock"), "").unwrap();
        assert_eq!(detect(dir.path()), Some("yarn"));
        std::fs::write(dir.path().join("package-lock.json"), "{}").unwrap();
        assert_eq!(detect(dir.path()), Some("npm"));
    }

    #[test]
    fn the_estimate_keeps_startup_below_the_sample() {
        let t = estimated("pnpm", "9".into(), 580.0);
        assert!(t.startup_ms > 0.0 && t.sample_ms > t.startup_ms);
        assert_eq!(t.source, "estimated");
        // Twice as slow a CPU, twice the figures.
        let slow = estimated("pnpm", "9".into(), 1160.0);
        assert!((slow.sample_ms - 2.0 * t.sample_ms).abs() < 1e-9);
    }

    #[test]
    fn a_cache_from_another_sampling_method_is_measured_again() {
        let dir = tempfile::tempdir().unwrap();
        let vars = [("XDG_CACHE_HOME", dir.path().to_string_lossy().to_string())]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        let env = HostEnv::from_vars(vars);
        let timing = ManagerTiming {
            source: "measured".into(),
            ..estimated("npm", "11".into(), 580.0)
        };
        store(&env, &timing);
        let cached = load_cached(&env, "npm", "11").expect("the entry just stored");
        assert_eq!(cached.source, "cached");
        assert_eq!(cached.sample_ms, timing.sample_ms);
        // The same entry as the first method wrote it (no `method`) is not read.
        let file = cache_file(&env, "npm", "11").unwrap();
        let mut entry: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
        entry.as_object_mut().unwrap().remove("method");
        std::fs::write(&file, entry.to_string()).unwrap();
        assert_eq!(load_cached(&env, "npm", "11"), None);
    }

    #[test]
    fn each_manager_has_its_own_fit() {
        let npm = estimated("npm", "11".into(), 580.0);
        let pnpm = estimated("pnpm", "12".into(), 580.0);
        let uv = estimated("uv", "0.13".into(), 580.0);
        let pip = estimated("pip", "23".into(), 580.0);
        // pnpm and uv link from their stores: a tenth of npm's own work or less.
        assert!(pnpm.sample_ms * 10.0 < npm.sample_ms);
        assert!(uv.sample_ms * 10.0 < npm.sample_ms);
        assert!(pnpm.startup_ms < npm.startup_ms);
        // pip compiles every module it installs: far dearer per package than npm.
        assert!(pip.sample_ms > 5.0 * npm.sample_ms);
        assert_eq!(uv.manager, "uv");
        // A manager with no fit of its own gets npm's, under its own name.
        let other = estimated("gradle", "8".into(), 580.0);
        assert_eq!(other.sample_ms, npm.sample_ms);
        assert_eq!(other.manager, "gradle");
    }

    #[test]
    fn a_cached_timing_follows_the_cpu_pace() {
        let cached = ManagerTiming {
            source: "cached".into(),
            cpu_sha1_us_per_mib: Some(1200.0),
            ..estimated("npm", "11".into(), 1200.0)
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
