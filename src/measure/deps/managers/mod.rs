//! The package managers: which one a project installs with, read from its lock files, and
//! what each one is (`rules::PackageManager`, one file per manager: `npm.rs`, `pnpm.rs`, ...).
//! Adding a manager is its file, its name in `kind::Manager` and its line in [`of`].

mod bun;
mod cargo;
mod kind;
mod lock;
#[cfg(test)]
mod lock_tests;
mod npm;
mod pip;
mod pnpm;
mod poetry;
mod rules;
mod uv;
mod yarn;

pub use kind::Manager;
pub use lock::{Lock, blocks, without_trailing_commas};
pub use npm::REFERENCE_FIT as NPM_REFERENCE_FIT;
pub use rules::{Ecosystem, PackageManager, Waits};
use serde::Serialize;
use std::collections::BTreeSet;
use std::path::Path;

/// What `manager` is and does.
pub fn of(manager: Manager) -> &'static dyn PackageManager {
    match manager {
        Manager::Npm => &npm::Npm,
        Manager::Pnpm => &pnpm::Pnpm,
        Manager::Yarn => &yarn::Yarn,
        Manager::Bun => &bun::Bun,
        Manager::Uv => &uv::Uv,
        Manager::Pip => &pip::Pip,
        Manager::Poetry => &poetry::Poetry,
        Manager::Cargo => &cargo::Cargo,
    }
}

/// The lock of `manager` at `root` with at least one leaf read; None for a manager whose lock
/// is not read here, no such lock, or a format not read here (pnpm's before 9, yarn's from
/// version 2, `bun.lockb`).
pub fn read_lock(manager: Manager, root: &Path) -> Option<Lock> {
    read_lock_with_source(manager, root).map(|(lock, _)| lock)
}

/// As [`read_lock`], with the file it was read from (`sample_lock_sources`, in order).
pub fn read_lock_with_source(manager: Manager, root: &Path) -> Option<(Lock, &'static str)> {
    let rules = of(manager);
    rules.sample_lock_sources().iter().find_map(|&file| {
        let text = crate::base::repo_file::manifest(root, file)?;
        let lock = rules.read_lock(&text, file)?;
        (!lock.leaves.is_empty()).then_some((lock, file))
    })
}

/// The lock file installing `deps` (leaves of `lock`; others are left out) beside a
/// package.json that names each at its exact version; None when there should be none.
pub fn sample_lock(lock: &Lock, deps: &[crate::measure::deps::packages::Pinned]) -> Option<String> {
    of(lock.manager).write_lock(lock, &lock.chosen(deps))
}

/// A manager's version outside the range its sample is tested with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UntestedVersion {
    pub manager: Manager,
    pub version: String,
    pub side: VersionSide,
    /// The tested majors, lowest and highest.
    pub tested: (u32, u32),
}

/// Where an untested version lies against the tested majors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum VersionSide {
    Newer,
    Older,
    /// Its major cannot be read (`canary`).
    Unreadable,
}

/// Why `manager` at `version` is not sampled: its major is outside the tested range, or the
/// version cannot be read. None when it is sampled.
pub fn untested_version(manager: Manager, version: &str) -> Option<UntestedVersion> {
    let (low, high) = of(manager).tested_majors()?;
    let major = version
        .trim_start_matches('v')
        .split(['.', '-', '+'])
        .next()
        .and_then(|m| m.parse::<u32>().ok());
    let side = match major {
        Some(m) if (low..=high).contains(&m) => return None,
        Some(m) if m > high => VersionSide::Newer,
        Some(_) => VersionSide::Older,
        None => VersionSide::Unreadable,
    };
    Some(UntestedVersion {
        manager,
        version: version.to_string(),
        side,
        tested: (low, high),
    })
}

/// The manager a project's lock file names, if any: the JavaScript locks, `uv.lock`,
/// `poetry.lock`, pinned `requirements*.txt` (pip), `Cargo.lock`; else a `node_modules` (npm)
/// or a virtualenv (pip).
pub fn detect(root: &Path) -> Option<Manager> {
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
    Manager::ALL
        .into_iter()
        .find(|&manager| of(manager).lock_files().iter().any(|name| file(name)))
        .or_else(|| {
            names
                .iter()
                .any(|n| super::packages::is_requirements(Path::new(n)))
                .then_some(Manager::Pip)
        })
        .or_else(|| file("Cargo.lock").then_some(Manager::Cargo))
        .or_else(|| {
            (has("node_modules") && root.join("node_modules").is_dir()).then_some(Manager::Npm)
        })
        .or_else(|| venv().then_some(Manager::Pip))
}

#[cfg(test)]
mod tests {
    use super::kind::UnknownManager;
    use super::*;

    #[test]
    fn each_manager_is_spelled_as_its_program_everywhere() {
        for manager in Manager::ALL {
            let json = serde_json::to_string(&manager).unwrap();
            assert_eq!(json, format!("\"{}\"", manager.name()));
            assert_eq!(serde_json::from_str::<Manager>(&json).unwrap(), manager);
            assert_eq!(manager.to_string().parse::<Manager>(), Ok(manager));
        }
        assert_eq!(
            "gradle".parse::<Manager>(),
            Err(UnknownManager("gradle".into()))
        );
        assert!(serde_json::from_str::<Manager>("\"Npm\"").is_err());
    }

    #[test]
    fn only_tested_majors_are_sampled() {
        assert_eq!(untested_version(Manager::Pnpm, "12.25.1"), None);
        assert_eq!(untested_version(Manager::Pnpm, "9.15.9"), None);
        assert_eq!(untested_version(Manager::Yarn, "1.22.22"), None);
        assert_eq!(untested_version(Manager::Bun, "1.4.5"), None);
        assert_eq!(untested_version(Manager::Uv, "0.9.1"), None);
        let side = |manager, version| untested_version(manager, version).map(|u| u.side);
        assert_eq!(side(Manager::Pnpm, "13.0.0"), Some(VersionSide::Newer));
        assert_eq!(
            untested_version(Manager::Pnpm, "13.0.0").map(|u| u.tested),
            Some((9, 12))
        );
        assert_eq!(side(Manager::Yarn, "4.18.1"), Some(VersionSide::Newer));
        assert_eq!(side(Manager::Pnpm, "8.15.9"), Some(VersionSide::Older));
        assert_eq!(side(Manager::Bun, "canary"), Some(VersionSide::Unreadable));
    }

    #[test]
    fn lock_files_name_the_manager() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(detect(dir.path()), None);
        std::fs::create_dir_all(dir.path().join(".venv")).unwrap();
        // A folder called .venv is not a virtualenv without its pyvenv.cfg.
        assert_eq!(detect(dir.path()), None);
        std::fs::write(dir.path().join(".venv/pyvenv.cfg"), "home = /usr/bin\n").unwrap();
        assert_eq!(detect(dir.path()), Some(Manager::Pip));
        std::fs::write(dir.path().join("Cargo.lock"), "").unwrap();
        assert_eq!(detect(dir.path()), Some(Manager::Cargo));
        std::fs::write(dir.path().join("requirements-dev.txt"), "").unwrap();
        assert_eq!(detect(dir.path()), Some(Manager::Pip));
        std::fs::write(dir.path().join("poetry.lock"), "").unwrap();
        assert_eq!(detect(dir.path()), Some(Manager::Poetry));
        std::fs::write(dir.path().join("uv.lock"), "").unwrap();
        assert_eq!(detect(dir.path()), Some(Manager::Uv));
        std::fs::write(dir.path().join("yarn.lock"), "").unwrap();
        assert_eq!(detect(dir.path()), Some(Manager::Yarn));
        std::fs::write(dir.path().join("package-lock.json"), "{}").unwrap();
        assert_eq!(detect(dir.path()), Some(Manager::Npm));
    }

    #[test]
    fn every_manager_has_its_rules_and_the_node_ones_a_sample_that_installs_offline() {
        for manager in Manager::ALL {
            let rules = of(manager);
            assert!(!rules.runtime().is_empty(), "{manager}");
            if rules.ecosystem() == Ecosystem::Node {
                let args = rules.manifest_install_args().unwrap_or_default();
                assert!(args.contains(&"--offline"), "{manager}: {args:?}");
                assert!(args.contains(&"--ignore-scripts"), "{manager}: {args:?}");
                assert!(rules.tested_majors().is_some(), "{manager}");
            }
            if let Some(args) = rules.lock_install_args() {
                assert!(args.contains(&"--offline"), "{manager}: {args:?}");
                assert!(args.contains(&"--ignore-scripts"), "{manager}: {args:?}");
            }
        }
    }
}
