//! The package manager behind a dependency tree, and what its own work costs on this machine.
//!
//! A warm-cache reinstall is the manager's own work (resolving the lock file, reading its cache,
//! checking integrity, extracting, linking) plus the file-system work on the mount. The first
//! part is measured here, not taken from another machine: the detected manager installs nothing,
//! then a sample of the project's own packages, offline from its cache, into a scratch folder on
//! the baseline disk. The figures are cached per machine and manager version. Where no sample can
//! be installed (another manager, no lock file, a cold cache), npm's fit is scaled by a short
//! CPU calibration and marked `estimated`. Network is never counted.

use super::cpu::pace;
use super::stats::median;
use crate::host::HostEnv;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

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

/// Leaf packages (no dependencies of their own) installed for the sample: about two seconds of
/// npm's work, so that the sample is a third or more of a mid-sized tree and one slow moment
/// is not multiplied by a large ratio. On the express tree (406 packages, 6,600 files), npm 11
/// installing 60 spread leaves took 1.3-1.8 s from one run to the next, and the whole tree
/// extrapolated from them 5.3-7.9 s against a real 5.7-6.1 s; 120 leaves took 2.1-2.4 s and
/// extrapolated within 5-16%.
pub const SAMPLE_PACKAGES: usize = 120;
/// Empty and sample installs made to time npm (about 7 s in all for the express tree, once per
/// machine and npm version).
const SAMPLE_RUNS: usize = 3;

/// Where npm's sample of leaf packages is read from, in order.
const NPM_LOCKS: &[&str] = &[
    "package-lock.json",
    "npm-shrinkwrap.json",
    "node_modules/.package-lock.json",
];
/// No calibration run may take longer than this; a manager that hangs is killed.
const RUN_LIMIT: Duration = Duration::from_secs(30);

/// Each manager's own work at the model's reference pace (`cpu::REFERENCE_SHA1_US_PER_MIB`) on
/// this project's 2-core machines: (manager, start-up ms, ms per package-sized unit of work,
/// `model::FILES_PER_PACKAGE_WORK`). Only used, scaled by the machine's pace, when no sample
/// can be installed. Measured on warm-cache reinstalls of the express tree (406 packages, 6,600
/// files, 846 units) on ext4 against an empty install, five interleaved runs each, medians, at
/// about 1.25 times the reference pace, and divided by that: npm 11.19 390 ms empty and 7.8 s
/// whole; pnpm 12.23 52 ms and 356 ms (it links files from its store, so little of the install
/// is its own work); yarn 1.22 272 ms and 4.1 s; bun 1.4 8 ms and 79 ms, less than the
/// file-system floor the model prices (its per-unit figure is a token one). Per unit: the whole
/// less two empty installs and the model's file-system floor on ext4, over 846. uv, pip and
/// cargo were not measured: npm's figures stand in for them.
pub(crate) const REFERENCE_FITS: &[(&str, f64, f64)] = &[
    ("npm", 310.0, 6.3),
    ("pnpm", 42.0, 0.16),
    ("yarn", 220.0, 3.3),
    ("bun", 6.0, 0.01),
];
/// Package-sized units in an estimated sample: enough that its per-unit work outweighs the
/// second start-up for every manager above, so `model::manager_work_ms` reads the fit back
/// unchanged (with 100, pnpm's and bun's came out 36% and 68% high).
const ESTIMATED_SAMPLE_UNITS: f64 = 1000.0;

/// The manager a project's lock file names, if any.
pub fn detect(root: &Path) -> Option<&'static str> {
    const LOCKS: &[(&str, &str)] = &[
        ("package-lock.json", "npm"),
        ("npm-shrinkwrap.json", "npm"),
        ("pnpm-lock.yaml", "pnpm"),
        ("yarn.lock", "yarn"),
        ("bun.lock", "bun"),
        ("bun.lockb", "bun"),
        ("uv.lock", "uv"),
        ("Cargo.lock", "cargo"),
    ];
    LOCKS
        .iter()
        .find(|(file, _)| root.join(file).is_file())
        .map(|&(_, manager)| manager)
        .or_else(|| root.join("node_modules").is_dir().then_some("npm"))
        .or_else(|| root.join(".venv").is_dir().then_some("pip"))
}

/// Leaf packages of a package-lock.json (v2/v3): `(name, version)` of top-level entries without
/// dependencies, spread over the file, at most `max`.
pub fn npm_leaf_packages(lock: &str, max: usize) -> Vec<(String, String)> {
    let Ok(value) = serde_json::from_str::<serde_json::Value>(lock) else {
        return Vec::new();
    };
    let Some(packages) = value.get("packages").and_then(|p| p.as_object()) else {
        return Vec::new();
    };
    let leaves: Vec<(String, String)> = packages
        .iter()
        .filter_map(|(key, entry)| {
            let name = key.strip_prefix("node_modules/")?;
            let nested = name.contains("node_modules/");
            let has_deps = ["dependencies", "optionalDependencies", "peerDependencies"]
                .iter()
                .any(|k| {
                    entry
                        .get(k)
                        .and_then(|d| d.as_object())
                        .is_some_and(|d| !d.is_empty())
                });
            let linked = entry.get("link").and_then(|l| l.as_bool()) == Some(true);
            let version = entry.get("version")?.as_str()?;
            (!nested && !has_deps && !linked).then(|| (name.to_string(), version.to_string()))
        })
        .collect();
    crate::measure::gitindex::spread(&leaves.iter().collect::<Vec<_>>(), max)
        .into_iter()
        .cloned()
        .collect()
}

/// The text of the project's npm lock file. A project that commits none (`package-lock=false`,
/// common in libraries) still has the one npm keeps inside node_modules, in the same format.
fn npm_lock(root: &Path) -> Option<String> {
    NPM_LOCKS
        .iter()
        .find_map(|file| std::fs::read_to_string(root.join(file)).ok())
}

/// Runs `program args` in `dir` with no input or output, killed after `RUN_LIMIT`; the
/// elapsed milliseconds when it succeeded.
fn timed_run(program: &str, args: &[&str], dir: &Path) -> Option<f64> {
    let start = Instant::now();
    let mut child = Command::new(program)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                return status
                    .success()
                    .then(|| start.elapsed().as_secs_f64() * 1e3);
            }
            Ok(None) if start.elapsed() < RUN_LIMIT => std::thread::sleep(Duration::from_millis(5)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
}

/// The manager's version; None when it is not installed.
fn version(manager: &str) -> Option<String> {
    let out = Command::new(manager)
        .arg("--version")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    out.status
        .success()
        .then(|| version_number(manager, &text))
        .flatten()
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
/// kept the faster of two runs, 3 the median of three).
const SAMPLE_METHOD: u32 = 3;

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
    let Some(file) = cache_file(env, &timing.manager, &timing.version) else {
        return;
    };
    let entry = CacheEntry {
        machine: machine(env),
        method: SAMPLE_METHOD,
        timing: timing.clone(),
    };
    crate::base::input::write_json_atomically(&file, &entry);
}

/// A scratch folder removed when dropped, also on the error paths.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn package_json(deps: &[(String, String)]) -> String {
    let deps: serde_json::Map<String, serde_json::Value> = deps
        .iter()
        .map(|(n, v)| (n.clone(), serde_json::Value::String(v.clone())))
        .collect();
    serde_json::json!({
        "name": "wsl-place-calibration",
        "version": "0.0.0",
        "private": true,
        "dependencies": deps,
    })
    .to_string()
}

/// Packages, files, directories and bytes of an installed `node_modules`.
fn installed(node_modules: &Path) -> (u64, u64, u64, u64) {
    let (mut packages, mut files, mut dirs, mut bytes) = (0, 0, 0, 0);
    for entry in walkdir::WalkDir::new(node_modules)
        .min_depth(1)
        .into_iter()
        .flatten()
    {
        let kind = entry.file_type();
        if kind.is_dir() {
            dirs += 1;
            let rel = entry
                .path()
                .strip_prefix(node_modules)
                .unwrap_or(entry.path());
            let parts: Vec<_> = rel.components().collect();
            let scoped = parts
                .first()
                .is_some_and(|c| c.as_os_str().to_string_lossy().starts_with('@'));
            let top = if scoped {
                parts.len() == 2
            } else {
                parts.len() == 1
            };
            if top && !rel.starts_with(".bin") && !rel.starts_with(".package-lock.json") {
                packages += 1;
            }
        } else if kind.is_file() {
            files += 1;
            bytes += entry.metadata().map_or(0, |m| m.len());
        }
    }
    (packages, files, dirs, bytes)
}

/// npm installing nothing and the sample, offline, in a scratch folder under `dir`, in turns,
/// `SAMPLE_RUNS` times; the median of each is counted.
fn measure_npm(dir: &Path, version: String, sample: &[(String, String)]) -> Option<ManagerTiming> {
    let scratch = Scratch(dir.join(format!(".wsl-place-npm-{}", std::process::id())));
    std::fs::create_dir(&scratch.0).ok()?;
    let args = [
        "install",
        "--offline",
        "--ignore-scripts",
        "--no-audit",
        "--no-fund",
        "--no-package-lock",
        "--loglevel=error",
    ];
    let node_modules = scratch.0.join("node_modules");
    // Empty and sample installs in turns, so both see the machine at the same pace; the median
    // of each is cached and multiplied by the project's size over the sample's, so it must be
    // a typical run: one preempted run (a maximum) or one lucky run (a minimum: the faster of
    // two put the express tree's reinstall 7-26% low in three runs out of three) would set
    // every later prediction on this machine.
    let (mut empties, mut samples, mut tree) = (Vec::new(), Vec::new(), None);
    for _ in 0..SAMPLE_RUNS {
        std::fs::write(scratch.0.join("package.json"), package_json(&[])).ok()?;
        empties.push(timed_run("npm", &args, &scratch.0)?);
        std::fs::write(scratch.0.join("package.json"), package_json(sample)).ok()?;
        let Some(ms) = timed_run("npm", &args, &scratch.0) else {
            break;
        };
        samples.push(ms);
        tree = tree.or_else(|| Some(installed(&node_modules)));
        // A tree that will not go ends the runs; those made so far stand.
        if std::fs::remove_dir_all(&node_modules).is_err() {
            break;
        }
    }
    let (packages, files, dirs, bytes) = tree?;
    let startup_ms = median(&empties)?;
    let sample_ms = median(&samples)?;
    (packages > 0).then(|| ManagerTiming {
        manager: "npm".into(),
        version,
        startup_ms,
        sample_ms,
        sample_packages: packages,
        sample_files: files,
        sample_dirs: dirs,
        sample_bytes: bytes,
        source: "measured".into(),
        cpu_sha1_us_per_mib: None,
    })
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
    ManagerTiming {
        manager: manager.into(),
        version,
        startup_ms,
        // The second start-up is the fixed cost of placing anything (`model::manager_work_ms`).
        sample_ms: 2.0 * startup_ms + ESTIMATED_SAMPLE_UNITS * per_unit * pace,
        sample_packages: ESTIMATED_SAMPLE_UNITS as u64,
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
/// `may_measure` (npm with a lock file, or the hidden one in node_modules); else estimated.
/// None when there is no manager. `cpu` is the CPU's pace now (`probe::cpu::sha1_us_per_mib`).
pub fn timing(
    env: &HostEnv,
    root: &Path,
    scratch_dir: Option<&Path>,
    may_measure: bool,
    cpu: f64,
) -> Option<ManagerTiming> {
    let manager = detect(root)?;
    // Asking the manager its version starts it (npm: about 350 ms of node): the hook, which
    // may not measure, cannot afford that and takes the estimate for an unknown version.
    let version = may_measure
        .then(|| version(manager))
        .flatten()
        .unwrap_or_else(|| "unknown".into());
    if let Some(cached) = load_cached(env, manager, &version) {
        return Some(rescaled(cached, cpu));
    }
    let measured = (manager == "npm" && may_measure)
        .then(|| {
            let lock = npm_lock(root)?;
            let sample = npm_leaf_packages(&lock, SAMPLE_PACKAGES);
            measure_npm(scratch_dir?, version.clone(), &sample)
        })
        .flatten()
        .map(|timing| ManagerTiming {
            cpu_sha1_us_per_mib: Some(cpu),
            ..timing
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
    fn leaf_packages_skip_nested_linked_and_dependent_entries() {
        let lock = r#"{"lockfileVersion":3,"packages":{
            "":{"dependencies":{"a":"1"}},
            "node_modules/a":{"version":"1.0.0","dependencies":{"b":"2"}},
            "node_modules/b":{"version":"2.0.0"},
            "node_modules/@s/c":{"version":"3.0.0","dependencies":{}},
            "node_modules/a/node_modules/b":{"version":"1.5.0"},
            "node_modules/l":{"version":"0.1.0","link":true}}}"#;
        assert_eq!(
            npm_leaf_packages(lock, 10),
            vec![
                ("@s/c".to_string(), "3.0.0".to_string()),
                ("b".to_string(), "2.0.0".to_string())
            ]
        );
        assert_eq!(npm_leaf_packages(lock, 1).len(), 1);
        assert!(npm_leaf_packages("not json", 5).is_empty());
    }

    #[test]
    fn the_sample_comes_from_the_lock_file_or_the_one_in_node_modules() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(npm_lock(dir.path()), None);
        std::fs::create_dir(dir.path().join("node_modules")).unwrap();
        std::fs::write(dir.path().join("node_modules/.package-lock.json"), "hidden").unwrap();
        assert_eq!(npm_lock(dir.path()).as_deref(), Some("hidden"));
        std::fs::write(dir.path().join("package-lock.json"), "committed").unwrap();
        assert_eq!(npm_lock(dir.path()).as_deref(), Some("committed"));
    }

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
        let uv = estimated("uv", "0.9".into(), 580.0);
        // pnpm links from its store: a tenth of npm's own work or less.
        assert!(pnpm.sample_ms * 10.0 < npm.sample_ms);
        assert!(pnpm.startup_ms < npm.startup_ms);
        // A manager with no fit of its own gets npm's, under its own name.
        assert_eq!(uv.sample_ms, npm.sample_ms);
        assert_eq!(uv.manager, "uv");
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
