//! Which package manager a project installs its dependencies with, read from its lock files.

use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::path::Path;

/// A package manager whose reinstall the model prices. Spelled in the JSON and the caches as
/// its program's name (`npm`, `uv`, ...), which is also what people read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Manager {
    Npm,
    Pnpm,
    Yarn,
    Bun,
    Uv,
    Pip,
    Poetry,
    Cargo,
}

impl Manager {
    pub const ALL: [Manager; 8] = [
        Manager::Npm,
        Manager::Pnpm,
        Manager::Yarn,
        Manager::Bun,
        Manager::Uv,
        Manager::Pip,
        Manager::Poetry,
        Manager::Cargo,
    ];

    /// The program's name: what is run, what the JSON and the caches say, what people read.
    pub fn name(self) -> &'static str {
        match self {
            Manager::Npm => "npm",
            Manager::Pnpm => "pnpm",
            Manager::Yarn => "yarn",
            Manager::Bun => "bun",
            Manager::Uv => "uv",
            Manager::Pip => "pip",
            Manager::Poetry => "poetry",
            Manager::Cargo => "cargo",
        }
    }

    /// What a person installs to have this manager on Linux.
    pub fn runtime(self) -> &'static str {
        match self {
            Manager::Npm | Manager::Pnpm | Manager::Yarn => "Node.js",
            Manager::Bun => "bun",
            Manager::Uv => "uv",
            Manager::Pip | Manager::Poetry => "Python",
            Manager::Cargo => "Rust",
        }
    }
}

/// The major versions of each manager whose sample install `.ci/run` tests (pinned there, one
/// per major): a sample is taken only with these, since a manager's flags, lock format and
/// store layout change between majors (pnpm 11 stopped reading `npm_config_*` from the
/// environment, yarn 2 is another program with another lock). None: no range is kept (uv and
/// pip are sampled whatever their version; poetry and cargo never are).
pub fn tested_majors(manager: Manager) -> Option<(u32, u32)> {
    match manager {
        Manager::Npm => Some((10, 11)),
        Manager::Pnpm => Some((9, 12)),
        Manager::Yarn => Some((1, 1)),
        Manager::Bun => Some((1, 1)),
        Manager::Uv | Manager::Pip | Manager::Poetry | Manager::Cargo => None,
    }
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
    let (low, high) = tested_majors(manager)?;
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

impl std::fmt::Display for Manager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is no package manager's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownManager(pub String);

impl std::fmt::Display for UnknownManager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?} is not a package manager wsl-place knows", self.0)
    }
}

impl std::str::FromStr for Manager {
    type Err = UnknownManager;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Manager::ALL
            .into_iter()
            .find(|m| m.name() == name)
            .ok_or_else(|| UnknownManager(name.to_string()))
    }
}

/// The manager a project's lock file names, if any: the JavaScript locks, `uv.lock`,
/// `poetry.lock`, pinned `requirements*.txt` (pip), `Cargo.lock`; else a `node_modules` (npm)
/// or a virtualenv (pip).
pub fn detect(root: &Path) -> Option<Manager> {
    const LOCKS: &[(&str, Manager)] = &[
        ("package-lock.json", Manager::Npm),
        ("npm-shrinkwrap.json", Manager::Npm),
        ("pnpm-lock.yaml", Manager::Pnpm),
        ("yarn.lock", Manager::Yarn),
        ("bun.lock", Manager::Bun),
        ("bun.lockb", Manager::Bun),
        ("uv.lock", Manager::Uv),
        ("poetry.lock", Manager::Poetry),
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
}
