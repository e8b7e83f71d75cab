//! Each manager's way of installing the sample into the scratch folder (`Runner`): the files it
//! is given (a package.json, a lock of the sample, a requirements list), the arguments that keep
//! it offline and away from scripts, and, for pnpm, the store it reads.

use super::super::asked::{version_like_output, version_output};
use super::super::managers::{self, Lock, Manager};
use super::super::packages::{self, Pinned};
use super::super::sample_reasons::{FileStep, SampleFailed};
use super::names;
use super::run::{run_keeping_words, run_saying_why, timed_run};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The file a sample's lock is written as: the manager's first lock file.
fn sample_lock_file(manager: Manager) -> &'static str {
    managers::of(manager)
        .lock_files()
        .first()
        .copied()
        .unwrap_or("lock")
}

fn package_json(deps: &[Pinned]) -> String {
    let deps: serde_json::Map<String, serde_json::Value> = deps
        .iter()
        .map(|(n, v)| (n.clone(), serde_json::Value::String(v.clone())))
        .collect();
    serde_json::json!({
        "name": packages::SAMPLE_NAME,
        "version": "0.0.0",
        "private": true,
        "dependencies": deps,
    })
    .to_string()
}

fn requirements_txt(deps: &[Pinned]) -> String {
    deps.iter().map(|(n, v)| format!("{n}=={v}\n")).collect()
}

/// One manager's way of installing into the scratch folder.
pub(super) enum Runner {
    /// npm, pnpm, yarn, bun: a package.json listing the sample, installed into node_modules.
    Node {
        manager: Manager,
        args: &'static [&'static str],
    },
    /// npm with the project's lock: the sample's entries of it (resolved URL and integrity),
    /// installed by `npm ci`.
    NpmLock { entries: packages::LockEntries },
    /// pnpm, yarn or bun with the project's lock: a lock of the sample's leaves, their entries
    /// copied from it, installed frozen; pnpm from the store the project's install used.
    Lock { lock: Lock, store: Option<PathBuf> },
    /// uv or pip into a virtualenv made in the scratch folder (not timed); for uv with a
    /// `uv.lock`, the project folder whose `pyproject.toml` and lock file are synced whole.
    Python {
        manager: Manager,
        lock_from: Option<PathBuf>,
    },
}

impl Runner {
    /// `pnpm_store`: the store pnpm reads for the project (`Sample::pnpm_store`), never one
    /// the repository names (its `node_modules/.modules.yaml` is the repository's content).
    pub(super) fn for_manager(
        manager: Manager,
        root: &Path,
        pnpm_store: Option<&Path>,
    ) -> Option<Self> {
        match manager {
            Manager::Uv | Manager::Pip => Some(Self::Python {
                manager,
                // `uv sync` reads wheels by the lock's URLs, so the index pages that
                // `uv pip install --offline` needs are never cached: the sample is the lock.
                // Only a lock of registry packages: a path, directory, git or URL source would
                // be read, fetched or built from wherever the lock says.
                lock_from: (manager == Manager::Uv
                    && root.join("pyproject.toml").is_file()
                    && crate::base::repo_file::manifest(root, "uv.lock")
                        .is_some_and(|text| packages::uv_lock_is_registry_only(&text)))
                .then(|| root.to_path_buf()),
            }),
            Manager::Npm if packages::npm_lock_entries(root).is_some() => Some(Self::NpmLock {
                entries: packages::npm_lock_entries(root)?,
            }),
            Manager::Pnpm | Manager::Yarn | Manager::Bun
                if managers::read_lock(manager, root).is_some() =>
            {
                Some(Self::Lock {
                    lock: managers::read_lock(manager, root)?,
                    store: pnpm_store
                        .filter(|_| manager == Manager::Pnpm)
                        .map(Path::to_path_buf),
                })
            }
            Manager::Npm
            | Manager::Pnpm
            | Manager::Yarn
            | Manager::Bun
            | Manager::Poetry
            | Manager::Cargo => managers::of(manager)
                .manifest_install_args()
                .map(|args| Self::Node { manager, args }),
        }
    }

    /// Makes what every run needs (the virtualenv); the entries it placed where the sample
    /// lands, which are not the sample's.
    pub(super) fn set_up(&self, scratch: &Path) -> Option<(PathBuf, BTreeSet<String>)> {
        match self {
            Self::Node { .. } | Self::NpmLock { .. } | Self::Lock { .. } => {
                Some((scratch.join("node_modules"), BTreeSet::new()))
            }
            Self::Python { manager, lock_from } => {
                if let Some(root) = lock_from {
                    // The project's own table only: its `[tool.uv]` could name a cache,
                    // an index or sources, and its `[build-system]` a backend to import.
                    let project = crate::base::repo_file::manifest(root, "pyproject.toml")?;
                    std::fs::write(
                        scratch.join("pyproject.toml"),
                        packages::project_table_only(&project)?,
                    )
                    .ok()?;
                    std::fs::copy(root.join("uv.lock"), scratch.join("uv.lock")).ok()?;
                }
                python_venv(*manager, scratch)?;
                let site = packages::site_packages(scratch).into_iter().next()?;
                let before = names(&site);
                Some((site, before))
            }
        }
    }

    /// One timed install of `deps` (none: the manager's start-up and empty install); Err: why
    /// it failed, in the manager's own words.
    pub(super) fn install(&self, scratch: &Path, deps: &[Pinned]) -> Result<f64, SampleFailed> {
        let written = |file: &str, text: String| {
            std::fs::write(scratch.join(file), text).map_err(|e| SampleFailed::ScratchFile {
                step: FileStep::Write,
                file: file.to_string(),
                error: e.to_string(),
            })
        };
        match self {
            Self::Node { manager, args } => {
                written("package.json", package_json(deps))?;
                run_saying_why(manager.name(), args, scratch)
            }
            Self::NpmLock { entries } => {
                written("package.json", package_json(deps))?;
                written(
                    "package-lock.json",
                    entries.lock_of(deps, &package_json(deps)),
                )?;
                let args = managers::of(Manager::Npm)
                    .lock_install_args()
                    .unwrap_or_default();
                run_saying_why(Manager::Npm.name(), args, scratch)
            }
            Self::Lock { lock, store } => {
                let manager = lock.manager();
                written("package.json", package_json(deps))?;
                let file = sample_lock_file(manager);
                match managers::sample_lock(lock, deps) {
                    Some(text) => written(file, text)?,
                    None => match std::fs::remove_file(scratch.join(file)) {
                        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                            return Err(SampleFailed::ScratchFile {
                                step: FileStep::Remove,
                                file: file.to_string(),
                                error: e.to_string(),
                            });
                        }
                        _ => {}
                    },
                }
                let store_arg = store
                    .as_ref()
                    .map(|dir| format!("--store-dir={}", dir.display()));
                let args: Vec<&str> = managers::of(manager)
                    .lock_install_args()
                    .unwrap_or_default()
                    .iter()
                    .copied()
                    .chain(store_arg.as_deref())
                    .collect();
                run_keeping_words(manager.name(), &args, scratch, manager == Manager::Pnpm)
            }
            Self::Python { .. } => self
                .install_python(scratch, deps)
                .ok_or(SampleFailed::NotInstalledOffline),
        }
    }

    fn install_python(&self, scratch: &Path, deps: &[Pinned]) -> Option<f64> {
        match self {
            Self::Node { .. } | Self::NpmLock { .. } | Self::Lock { .. } => None,
            Self::Python { manager, lock_from } => {
                std::fs::write(scratch.join("sample.txt"), requirements_txt(deps)).ok()?;
                match (lock_from.is_some(), *manager) {
                    (true, _) if deps.is_empty() => timed_uv_venv(scratch),
                    (true, _) => timed_uv_sync(scratch),
                    (false, Manager::Uv) => timed_uv_pip(scratch),
                    (false, _) => timed_pip(scratch),
                }
            }
        }
    }

    /// Why the sample's install must not be used, even though it ran: a package that ships
    /// the installer's own package (`pip`, `uv`) or a script named after an interpreter or an
    /// installer (`python`, `pip`), which a later run would start. `placed`: the top-level
    /// names the sample put in site-packages.
    pub(super) fn hijacks(
        &self,
        scratch: &Path,
        placed: &BTreeSet<String>,
    ) -> Option<SampleFailed> {
        if !matches!(self, Self::Python { .. }) {
            return None;
        }
        if let Some(name) = placed.iter().find(|name| is_installer_name(name)) {
            return Some(SampleFailed::ShipsInstaller { name: name.clone() });
        }
        // Scripts land in the virtualenv's `bin/`, or, as pip installs into site-packages, in
        // its `bin/` there.
        let folders = packages::site_packages(scratch)
            .into_iter()
            .map(|site| site.join("bin"))
            .chain([scratch.join(".venv/bin")]);
        let planted = folders
            .flat_map(|dir| std::fs::read_dir(dir).into_iter().flatten().flatten())
            .find(|entry| {
                let name = entry.file_name().to_string_lossy().into_owned();
                // The virtualenv's own interpreter is a link to the base one; a regular file in
                // its place, or an installer's script, came with a package.
                let regular = entry.file_type().is_ok_and(|t| t.is_file());
                regular && (name.starts_with("python") || is_installer_name(&name))
            })?;
        Some(SampleFailed::ShipsScript {
            name: planted.file_name().to_string_lossy().into_owned(),
        })
    }
}

/// The names of the installers and their packages, which no sampled package may take.
fn is_installer_name(name: &str) -> bool {
    let stem = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    matches!(
        stem,
        "pip" | "uv" | "uvx" | "setuptools" | "_virtualenv" | "ensurepip"
    )
}

/// A new virtualenv of uv's at `scratch/.venv`, the one before removed.
fn fresh_uv_venv(scratch: &Path) -> Option<()> {
    match std::fs::remove_dir_all(scratch.join(".venv")) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return None,
        _ => {}
    }
    timed_run(
        Manager::Uv.name(),
        &["venv", "--offline", "-q", ".venv"],
        scratch,
    )
    .map(drop)
}

/// The interpreter the `pip` on PATH belongs to, by the absolute path it gives of itself
/// (asked in isolated mode from the neutral folder).
fn base_python() -> Option<PathBuf> {
    static BASE: OnceLock<Option<PathBuf>> = OnceLock::new();
    BASE.get_or_init(|| {
        let (_, python) = pip_location()?;
        let said =
            version_like_output(&python, &["-I", "-c", "import sys; print(sys.executable)"])?;
        let path = PathBuf::from(said.trim());
        path.is_absolute().then_some(path)
    })
    .clone()
}

/// A reinstall from uv's lock is `rm -rf .venv && uv sync`: the sync makes the virtualenv too
/// (130-160 ms of psf/requests' 300 ms on ext4), timed without one. Never a build: a package
/// with no wheel in the cache fails the sample instead of running its build backend.
fn timed_uv_sync(scratch: &Path) -> Option<f64> {
    std::fs::remove_dir_all(scratch.join(".venv")).ok()?;
    let args = [
        "sync",
        "--offline",
        "--frozen",
        "--no-build",
        "--no-install-project",
        "-q",
    ];
    timed_run(Manager::Uv.name(), &args, scratch)
}

/// `uv pip install` of the sample into a virtualenv made afresh for each turn, outside the
/// timing: uv asks the virtualenv's interpreter about itself, and a wheel of the turn before
/// may have put a script of its own in that interpreter's place.
fn timed_uv_pip(scratch: &Path) -> Option<f64> {
    fresh_uv_venv(scratch)?;
    let python = scratch.join(".venv/bin/python");
    let args = [
        "pip",
        "install",
        "--offline",
        "--no-build",
        "-q",
        "--no-deps",
        "--python",
        python.to_str()?,
        "-r",
        "sample.txt",
    ];
    timed_run(Manager::Uv.name(), &args, scratch)
}

/// The person's pip, run by the interpreter it belongs to (its path asked of it, never a
/// program in the scratch folder that an install could replace), in isolated mode (no current
/// folder on its path), writing only into the scratch virtualenv's site-packages: nothing of
/// the person's installation is linked there or written. Wheels only: an sdist would run its
/// setup.py. pip has no offline mode; the index it asks is the person's (pip.conf,
/// PIP_INDEX_URL), never one the project names, since the sample's lines are plain pins
/// written here.
fn timed_pip(scratch: &Path) -> Option<f64> {
    let python = base_python()?;
    let site = packages::site_packages(scratch).into_iter().next()?;
    let args = [
        "-I",
        "-m",
        "pip",
        "install",
        "-q",
        "--no-deps",
        "--only-binary=:all:",
        "--upgrade",
        "--disable-pip-version-check",
        "--target",
        site.to_str()?,
        "-r",
        "sample.txt",
    ];
    timed_run(python.to_str()?, &args, scratch)
}

/// The empty run of a uv sync from a lock: the sync's fixed cost is the virtualenv it makes
/// (interpreter query, activation scripts), so the empty run makes one too and that cost is not
/// read as per-package work, multiplied by a larger project's packages (attrs: +1,149%).
fn timed_uv_venv(scratch: &Path) -> Option<f64> {
    std::fs::remove_dir_all(scratch.join(".venv")).ok()?;
    let args = ["venv", "--offline", "-q", ".venv"];
    timed_run(Manager::Uv.name(), &args, scratch)
}

/// A virtualenv at `scratch/.venv`: uv's own, or, for pip, one of the interpreter the `pip` on
/// PATH runs under, without pip (making one with pip takes seconds); the person's pip installs
/// into it from outside, and nothing of theirs is linked in.
fn python_venv(manager: Manager, scratch: &Path) -> Option<()> {
    if manager == Manager::Uv {
        return fresh_uv_venv(scratch);
    }
    let python = base_python()?;
    let args = ["-I", "-m", "venv", "--without-pip", ".venv"];
    timed_run(python.to_str()?, &args, scratch).map(drop)
}

/// Where the `pip` on PATH lives and the Python it names, from its `--version` line ("pip 24.0
/// from /usr/lib/python3/dist-packages/pip (python 3.12)"): the folder and `python3.12`.
fn pip_location() -> Option<(PathBuf, String)> {
    let text = version_output(Manager::Pip.name())?;
    let (pip, python) = pip_version_line(&text)?;
    pip.is_dir().then_some((pip, python))
}

fn pip_version_line(text: &str) -> Option<(PathBuf, String)> {
    let (_, rest) = text.trim().split_once(" from ")?;
    let (path, python) = rest.rsplit_once(" (python ")?;
    let version = python.trim_end_matches(')');
    Some((PathBuf::from(path), format!("python{version}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pips_version_line_names_its_folder_and_python() {
        assert_eq!(
            pip_version_line("pip 24.0 from /usr/lib/python3/dist-packages/pip (python 3.12)\n"),
            Some((
                PathBuf::from("/usr/lib/python3/dist-packages/pip"),
                "python3.12".to_string()
            ))
        );
        assert_eq!(pip_version_line("pip 24.0"), None);
    }

    #[test]
    fn the_sample_files_pin_each_package() {
        let deps = vec![("six".to_string(), "1.16.0".to_string())];
        assert_eq!(requirements_txt(&deps), "six==1.16.0\n");
        let json: serde_json::Value = serde_json::from_str(&package_json(&deps)).unwrap();
        assert_eq!(json["dependencies"]["six"], "1.16.0");
    }
}
