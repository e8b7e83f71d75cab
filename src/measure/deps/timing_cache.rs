//! Where a manager's timing is kept between runs, and which timings may stand for other
//! projects. A timing is the manager's work per package and file on this machine, read off one
//! project's sample; a sample of one package (mostly npm's start-up), or one that left out the
//! project's git or path dependencies, says little of that, and once cached it priced every
//! other project on the machine (a one-package project put a 414-package reinstall at +870%).
//! Such a timing is kept for its own project only; a timing kept for the machine is retimed
//! after `MAX_AGE_SECS`, and `check --fresh` retimes either.

use super::manager_timing::{ManagerTiming, TimingSource};
use super::managers::{Ecosystem, Manager};
use super::sample_reasons::NotShared;
use crate::host::HostEnv;
use crate::store::{CacheFile, Store};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// How the sample is taken and read; a cached timing taken another way is measured again (the
/// 60-package sample of method 1, read as 120 would be, put npm's own work 40% low; method 2
/// kept the faster of two runs, 3 the median of three; 4 times uv's sync of a lock with the
/// making of its virtualenv, which 3 left out: psf/requests' reinstall came out 53-66% low; 5
/// installs pnpm's, yarn's and bun's samples from a lock and records that it did; 6 reads what
/// the manager placed, filtered to this platform, and keeps a small sample for its project; 7
/// makes uv's virtualenv in the empty run too, so a sync's fixed cost is not read as work per
/// package).
pub const SAMPLE_METHOD: u32 = 7;

/// A timing older than this is taken again: the manager, node or the machine's setup changed.
pub const MAX_AGE_SECS: u64 = 30 * 24 * 3600;

/// The smallest sample whose timing stands for other projects: JavaScript managers (packages,
/// files). Ten leaves of a few files each are past npm's start-up noise; one package is not.
const MIN_SHARED_NODE: (u64, u64) = (10, 50);
/// The same for uv and pip, whose packages are larger and whose samples hold at most 12.
const MIN_SHARED_PYTHON: (u64, u64) = (4, 50);

/// Why `timing` (just measured) is kept for its own project only; None when it may stand for
/// every project on this machine.
pub fn not_shared(timing: &ManagerTiming) -> Option<NotShared> {
    let python = super::managers::of(timing.manager).ecosystem() == Ecosystem::Python;
    let (min_packages, min_files) = match python {
        true => MIN_SHARED_PYTHON,
        false => MIN_SHARED_NODE,
    };
    if timing.sample_packages < min_packages || timing.sample_files < min_files {
        return Some(NotShared::TooSmall {
            packages: timing.sample_packages,
            files: timing.sample_files,
            min_packages,
            min_files,
        });
    }
    (timing.sample_left_out > 0).then_some(NotShared::LeftOut {
        entries: timing.sample_left_out,
    })
}

#[derive(Serialize, Deserialize)]
struct CacheEntry {
    machine: String,
    /// `SAMPLE_METHOD` when written; 1 in caches from before it was recorded.
    #[serde(default = "first_method")]
    method: u32,
    /// When the timing was taken (seconds since 1970); 0 in caches from before it was kept,
    /// which are then retimed.
    #[serde(default)]
    taken_unix: u64,
    timing: ManagerTiming,
}

fn first_method() -> u32 {
    1
}

/// The cache file of `manager`'s `version` on this machine, or of one project (`root`).
fn file<'a>(manager: &'a str, version: &'a str, root: Option<&'a Path>) -> CacheFile<'a> {
    match root {
        Some(root) => CacheFile::ProjectManagerTiming {
            manager,
            version,
            root,
        },
        None => CacheFile::ManagerTiming { manager, version },
    }
}

/// The timing kept for this machine (`root` None) or for the project at `root`, when it was
/// taken by this sampling method on this machine within `MAX_AGE_SECS`.
pub fn load(
    env: &HostEnv,
    manager: Manager,
    version: &str,
    root: Option<&Path>,
) -> Option<ManagerTiming> {
    let manager = &manager.to_string();
    let file = file(manager, version, root);
    let entry: CacheEntry = Store::of(env).load(file, "package-manager timing cache file")?;
    let fresh = crate::base::clock::younger_than(entry.taken_unix, MAX_AGE_SECS);
    (entry.machine == machine(env) && entry.method == SAMPLE_METHOD && fresh).then_some(
        ManagerTiming {
            source: TimingSource::Cached,
            ..entry.timing
        },
    )
}

/// Keeps `timing` for this machine, or for the project at `root` alone; a failure to write
/// only costs the next check a calibration.
pub fn keep(env: &HostEnv, timing: &ManagerTiming, root: Option<&Path>) {
    // What was left out is the measured project's, not the manager's.
    let entry = CacheEntry {
        machine: machine(env),
        method: SAMPLE_METHOD,
        taken_unix: crate::base::clock::now_unix(),
        timing: ManagerTiming {
            sample_left_out: if root.is_some() {
                timing.sample_left_out
            } else {
                0
            },
            ..timing.clone()
        },
    };
    let manager = &timing.manager.to_string();
    Store::of(env).keep(file(manager, &timing.version, root), &entry);
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
            sample_failed: Default::default(),
            sample_skipped: Default::default(),
            sample_skipped_cause: None,
            windows_program: None,
            sample_left_out: 0,
            sample_from_lock: false,
            lifecycle_startups: 0.0,
            build_startups: 0.0,
            sample_source: None,
            sample_uncached: 0,
            sample_not_shared: Default::default(),
            sample_cache_lacks_all: false,
            copies_from_store: false,
            pnpm_store: None,
            pnpm_store_setting: None,
        }
    }

    fn env_in(dir: &Path) -> HostEnv {
        let vars = [("XDG_CACHE_HOME", dir.to_string_lossy().to_string())]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        HostEnv::from_vars(vars)
    }

    #[test]
    fn a_cache_from_another_sampling_method_or_too_old_is_measured_again() {
        let dir = tempfile::tempdir().unwrap();
        let env = env_in(dir.path());
        let timing = npm_timing(580.0);
        keep(&env, &timing, None);
        let cached = load(&env, Manager::Npm, "11", None).expect("the entry just stored");
        assert_eq!(cached.source, TimingSource::Cached);
        assert_eq!(cached.sample_ms, timing.sample_ms);
        // The cache spells the manager and the source as the JSON always has.
        let file = Store::of(&env)
            .cache_file(CacheFile::ManagerTiming {
                manager: "npm",
                version: "11",
            })
            .unwrap();
        assert!(file.ends_with("manager/npm-11.json"), "{}", file.display());
        let mut entry: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
        assert_eq!(entry["timing"]["manager"], "npm");
        assert_eq!(entry["timing"]["source"], "measured");
        // Taken longer ago than `MAX_AGE_SECS`: retimed.
        let taken = entry["taken_unix"].as_u64().unwrap();
        entry["taken_unix"] = (taken - MAX_AGE_SECS - 60).into();
        std::fs::write(&file, entry.to_string()).unwrap();
        assert_eq!(load(&env, Manager::Npm, "11", None), None);
        entry["taken_unix"] = taken.into();
        // The same entry as the first method wrote it (no `method`) is not read.
        entry.as_object_mut().unwrap().remove("method");
        std::fs::write(&file, entry.to_string()).unwrap();
        assert_eq!(load(&env, Manager::Npm, "11", None), None);
        // Nor one naming a manager this build does not know: it is measured again.
        entry["method"] = SAMPLE_METHOD.into();
        entry["timing"]["manager"] = "gradle".into();
        std::fs::write(&file, entry.to_string()).unwrap();
        assert_eq!(load(&env, Manager::Npm, "11", None), None);
    }

    #[test]
    fn a_small_or_odd_sample_stands_for_its_project_only() {
        let big = ManagerTiming {
            sample_packages: 120,
            sample_files: 900,
            ..npm_timing(580.0)
        };
        assert_eq!(not_shared(&big), None);
        let one = ManagerTiming {
            sample_packages: 1,
            sample_files: 7,
            ..big.clone()
        };
        assert_eq!(
            not_shared(&one),
            Some(NotShared::TooSmall {
                packages: 1,
                files: 7,
                min_packages: 10,
                min_files: 50
            })
        );
        let with_git = ManagerTiming {
            sample_left_out: 1,
            ..big.clone()
        };
        assert_eq!(
            not_shared(&with_git),
            Some(NotShared::LeftOut { entries: 1 })
        );
        // Kept for its project, the machine's file stays empty.
        let dir = tempfile::tempdir().unwrap();
        let env = env_in(dir.path());
        let root = Path::new("/work/tiny");
        keep(&env, &one, Some(root));
        assert_eq!(load(&env, Manager::Npm, "11", None), None);
        let own = load(&env, Manager::Npm, "11", Some(root)).unwrap();
        assert_eq!(own.sample_packages, 1);
        assert_eq!(
            load(&env, Manager::Npm, "11", Some(Path::new("/work/big"))),
            None
        );
    }
}
