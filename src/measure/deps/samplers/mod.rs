//! Timing a package manager on this machine: it installs nothing, then a sample of the
//! project's own packages, offline from its cache, into a scratch folder on the baseline disk,
//! in turns. Each manager has its own runner (how it installs, where the tree lands, how to
//! clear it for the next turn); the loop and the figures are shared.

use super::lockfiles::{self, Lock};
use super::package_manager::Manager;
use super::packages::{self, Pinned};
use crate::measure::probe::stats::median;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What the runs gave: the medians of the empty and the sample installs, and what the sample
/// placed.
#[derive(Debug, Clone, PartialEq)]
pub struct Sampled {
    pub startup_ms: f64,
    pub sample_ms: f64,
    pub packages: u64,
    pub files: u64,
    pub dirs: u64,
    pub bytes: u64,
    /// Installed from a lock of the project's entries (`Runner::NpmLock`, `Runner::Lock`).
    pub from_lock: bool,
    /// Entries of the project's lists that were not plain registry pins and were left out.
    pub left_out: u64,
}

/// Empty and sample installs made to time a manager (about 7 s in all for npm on the express
/// tree, once per machine and manager version).
const SAMPLE_RUNS: usize = 3;
/// No run may take longer than this; a manager that hangs is killed.
const RUN_LIMIT: Duration = Duration::from_secs(30);

/// Leaf packages installed for a JavaScript manager's sample: about two seconds of npm's work,
/// so that the sample is a third or more of a mid-sized tree and one slow moment is not
/// multiplied by a large ratio. On the express tree (406 packages, 6,600 files), npm 11
/// installing 60 spread leaves took 1.3-1.8 s from one run to the next, and the whole tree
/// extrapolated from them 5.3-7.9 s against a real 5.7-6.1 s; 120 leaves took 2.1-2.4 s and
/// extrapolated within 5-16%.
pub const SAMPLE_PACKAGES: usize = 120;
/// Python packages installed for uv's or pip's sample: they are larger than npm's (a wheel of
/// a few hundred files is common), and pip asks the index about each one even from its cache.
pub const PYTHON_SAMPLE_PACKAGES: usize = 12;

/// Runs `program args` in `dir` with no input or output, killed after `RUN_LIMIT`; the
/// elapsed milliseconds when it succeeded.
pub fn timed_run(program: &str, args: &[&str], dir: &Path) -> Option<f64> {
    run_saying_why(program, args, dir).ok()
}

/// As [`timed_run`], with why a run failed: the program's own words (the first lines of what
/// it printed on stderr), or that it could not start or was stopped at the limit.
pub fn run_saying_why(program: &str, args: &[&str], dir: &Path) -> Result<f64, String> {
    run_keeping_words(program, args, dir, false)
}

/// As [`run_saying_why`]; with `stdout_too`, what the program printed on stdout is read for its
/// reason too (pnpm prints its errors there).
fn run_keeping_words(
    program: &str,
    args: &[&str],
    dir: &Path,
    stdout_too: bool,
) -> Result<f64, String> {
    let start = Instant::now();
    let errors = tempfile::tempfile()
        .map_err(|e| format!("no scratch file for {program}'s errors ({e})"))?;
    let mut child = Command::new(program)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(if stdout_too {
            Stdio::from(errors.try_clone().map_err(|e| e.to_string())?)
        } else {
            Stdio::null()
        })
        .stderr(errors.try_clone().map_err(|e| e.to_string())?)
        .spawn()
        .map_err(|e| format!("{program} did not start ({e})"))?;
    loop {
        match child.try_wait() {
            Ok(Some(status)) if status.success() => return Ok(start.elapsed().as_secs_f64() * 1e3),
            Ok(Some(status)) => return Err(own_words(program, errors, status)),
            Ok(None) if start.elapsed() < RUN_LIMIT => std::thread::sleep(Duration::from_millis(5)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "{program} was stopped after {} s",
                    RUN_LIMIT.as_secs()
                ));
            }
        }
    }
}

/// What a failed run said: its first two lines that say anything, from the first that reads as
/// an error (`ERR_PNPM_...`, `error: ...`) when one does, without npm's `npm error` prefixes,
/// at most 200 characters. pnpm 11 and later print a diagnostic tree ("Error: ERR_PNPM_X",
/// "× installing dependencies", "╰─▶ the cause"): its drawing and the generic "×" heading are
/// left out, so the code is followed by the cause.
fn own_words(program: &str, mut errors: std::fs::File, status: std::process::ExitStatus) -> String {
    use std::io::{Read, Seek};
    let mut said = String::new();
    let _ = errors.rewind();
    let _ = errors.take(1024 * 1024).read_to_string(&mut said);
    let text = reason_in(&said).unwrap_or_else(|| format!("{program} failed ({status})"));
    text.chars().take(200).collect()
}

fn reason_in(said: &str) -> Option<String> {
    const DRAWING: &[char] = &['×', '╰', '├', '│', '─', '▶', ' '];
    let headed_tree = said.lines().any(|l| l.trim_start().starts_with('╰'));
    let lines: Vec<&str> = said
        .lines()
        .map(str::trim)
        .filter(|l| !(headed_tree && l.starts_with('×')))
        .map(|l| {
            l.trim_start_matches(DRAWING)
                .trim_start_matches("npm error")
                .trim_start_matches("npm ERR!")
                .trim()
        })
        .map(|l| l.strip_prefix("Error: ").unwrap_or(l))
        .filter(|l| !l.is_empty() && !l.starts_with("A complete log of this run"))
        .collect();
    let erring = |l: &&str| l.contains("ERR_") || l.to_ascii_lowercase().starts_with("error");
    let first = lines.iter().position(erring).unwrap_or(0);
    let lines: Vec<&str> = lines.into_iter().skip(first).take(2).collect();
    // pnpm pads its code with a thin space: one plain space between words reads the same.
    let text = lines.join(": ");
    let words: Vec<&str> = text.split_whitespace().collect();
    (!words.is_empty()).then(|| words.join(" "))
}

/// A scratch folder removed when dropped, also on the error paths.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// npm installing a lock: only the tarballs its `resolved` URLs name are read from the cache,
/// as a cache filled by `npm ci` (or `npm install` from a lock) holds them, never the
/// registry's metadata that installing from package.json alone needs.
const NPM_CI_ARGS: &[&str] = &[
    "ci",
    "--offline",
    "--ignore-scripts",
    "--no-audit",
    "--no-fund",
    "--loglevel=error",
];

/// How pnpm, yarn and bun install a lock of the sample offline, from their cache alone, without
/// scripts and without changing the lock.
fn lock_args(manager: Manager) -> &'static [&'static str] {
    match manager {
        Manager::Yarn => &[
            "install",
            "--offline",
            "--frozen-lockfile",
            "--ignore-scripts",
            "--non-interactive",
            "--silent",
            "--no-progress",
        ],
        Manager::Bun => &[
            "install",
            "--offline",
            "--frozen-lockfile",
            "--ignore-scripts",
            // Not --silent: that hides bun's errors too.
            "--no-progress",
            "--no-summary",
        ],
        _ => &[
            "install",
            "--offline",
            "--frozen-lockfile",
            "--ignore-scripts",
            // Not silent: that hides pnpm's errors too, which it prints on stdout.
            "--reporter=append-only",
        ],
    }
}

/// How each JavaScript manager reinstalls offline from its cache without scripts and without
/// writing a lock file, where there is no lock to install from.
fn node_args(manager: Manager) -> Option<&'static [&'static str]> {
    Some(match manager {
        Manager::Npm => &[
            "install",
            "--offline",
            "--ignore-scripts",
            "--no-audit",
            "--no-fund",
            "--no-package-lock",
            "--loglevel=error",
        ],
        Manager::Pnpm => &[
            "install",
            "--offline",
            "--ignore-scripts",
            "--config.lockfile=false",
            "--reporter=silent",
        ],
        Manager::Yarn => &[
            "install",
            "--offline",
            "--ignore-scripts",
            "--no-lockfile",
            "--non-interactive",
            "--silent",
        ],
        Manager::Bun => &[
            "install",
            "--offline",
            "--ignore-scripts",
            "--no-save",
            "--silent",
        ],
        Manager::Uv | Manager::Pip | Manager::Poetry | Manager::Cargo => return None,
    })
}

/// What a sample installs: plain registry pins only, and how many of the entries the project
/// names were left out for not being one (a path, a URL, git, an editable or an option).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sample {
    pub pins: Vec<Pinned>,
    pub left_out: u64,
}

/// The packages the project at `root` would have `manager` install for its sample: npm's
/// from its lock file (or the one it keeps in node_modules), pnpm's, yarn's and bun's from
/// theirs (else the leaves in node_modules), uv's and pip's from the virtualenv or the lock
/// files; each a plain pin of a registry package by name and version, the rest counted.
pub fn sample_for(manager: Manager, root: &Path) -> Sample {
    let (named, mut left_out) = named_for(manager, root);
    let plain = |(name, version): &Pinned| match manager {
        Manager::Uv | Manager::Pip => packages::is_plain_python_pin(name, version),
        _ => packages::is_plain_npm_pin(name, version),
    };
    let (pins, others): (Vec<Pinned>, Vec<Pinned>) = named.into_iter().partition(plain);
    left_out += others.len() as u64;
    let max = match manager {
        Manager::Uv | Manager::Pip => PYTHON_SAMPLE_PACKAGES,
        _ => SAMPLE_PACKAGES,
    };
    Sample {
        pins: packages::sample_of(pins, max),
        left_out,
    }
}

/// Every package the project names for `manager`'s sample, before it is checked and cut to
/// size, and how many entries were already left out on the way.
fn named_for(manager: Manager, root: &Path) -> (Vec<Pinned>, u64) {
    match manager {
        Manager::Uv | Manager::Pip => packages::python_packages_and_left_out(root),
        Manager::Npm => match packages::npm_lock_entries(root) {
            // Installed from the lock (`Runner::NpmLock`): leaves whose tarballs it names.
            Some(entries) => {
                let leaves = packages::npm_lock(root)
                    .map(|lock| packages::npm_leaf_packages(&lock, usize::MAX))
                    .unwrap_or_default();
                let (kept, others): (Vec<Pinned>, Vec<Pinned>) =
                    leaves.into_iter().partition(|(n, _)| entries.has(n));
                (kept, others.len() as u64)
            }
            None => (
                packages::npm_lock(root)
                    .map(|lock| packages::npm_leaf_packages(&lock, usize::MAX))
                    .filter(|s| !s.is_empty())
                    .unwrap_or_else(|| packages::node_modules_leaves(root, usize::MAX)),
                0,
            ),
        },
        Manager::Pnpm | Manager::Yarn | Manager::Bun => match lockfiles::read(manager, root) {
            Some(lock) => (lock.leaves(), 0),
            None => (packages::node_modules_leaves(root, usize::MAX), 0),
        },
        Manager::Poetry | Manager::Cargo => (packages::node_modules_leaves(root, usize::MAX), 0),
    }
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

/// Files, directories and bytes of the `entries` of `dir`, symlinks not followed (pnpm's
/// top-level packages link into its `.pnpm` folder, which is counted once).
fn counted(dir: &Path, entries: &BTreeSet<String>) -> (u64, u64, u64) {
    let (mut files, mut dirs, mut bytes) = (0, 0, 0);
    for name in entries {
        let walk = walkdir::WalkDir::new(dir.join(name)).follow_root_links(false);
        for entry in walk.into_iter().flatten() {
            let kind = entry.file_type();
            if kind.is_dir() {
                dirs += 1;
            } else if kind.is_file() {
                files += 1;
                bytes += entry.metadata().map_or(0, |m| m.len());
            }
        }
    }
    (files, dirs, bytes)
}

fn names(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// One manager's way of installing into the scratch folder.
enum Runner {
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
    fn for_manager(manager: Manager, root: &Path) -> Option<Self> {
        match manager {
            Manager::Uv | Manager::Pip => Some(Self::Python {
                manager,
                // `uv sync` reads wheels by the lock's URLs, so the index pages that
                // `uv pip install --offline` needs are never cached: the sample is the lock.
                // Only a lock of registry packages: a path, directory, git or URL source would
                // be read, fetched or built from wherever the lock says.
                lock_from: (manager == Manager::Uv
                    && root.join("pyproject.toml").is_file()
                    && std::fs::read_to_string(root.join("uv.lock"))
                        .is_ok_and(|text| packages::uv_lock_is_registry_only(&text)))
                .then(|| root.to_path_buf()),
            }),
            Manager::Npm if packages::npm_lock_entries(root).is_some() => Some(Self::NpmLock {
                entries: packages::npm_lock_entries(root)?,
            }),
            Manager::Pnpm | Manager::Yarn | Manager::Bun
                if lockfiles::read(manager, root).is_some() =>
            {
                Some(Self::Lock {
                    lock: lockfiles::read(manager, root)?,
                    store: (manager == Manager::Pnpm)
                        .then(|| pnpm_store(root))
                        .flatten(),
                })
            }
            Manager::Npm
            | Manager::Pnpm
            | Manager::Yarn
            | Manager::Bun
            | Manager::Poetry
            | Manager::Cargo => node_args(manager).map(|args| Self::Node { manager, args }),
        }
    }

    /// Makes what every run needs (the virtualenv); the entries it placed where the sample
    /// lands, which are not the sample's.
    fn set_up(&self, scratch: &Path) -> Option<(PathBuf, BTreeSet<String>)> {
        match self {
            Self::Node { .. } | Self::NpmLock { .. } | Self::Lock { .. } => {
                Some((scratch.join("node_modules"), BTreeSet::new()))
            }
            Self::Python { manager, lock_from } => {
                if let Some(root) = lock_from {
                    // The project's own table only: its `[tool.uv]` could name a cache,
                    // an index or sources, and its `[build-system]` a backend to import.
                    let project = std::fs::read_to_string(root.join("pyproject.toml")).ok()?;
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
    fn install(&self, scratch: &Path, deps: &[Pinned]) -> Result<f64, String> {
        let written = |file: &str, text: String| {
            std::fs::write(scratch.join(file), text)
                .map_err(|e| format!("cannot write the sample's {file} ({e})"))
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
                run_saying_why(Manager::Npm.name(), NPM_CI_ARGS, scratch)
            }
            Self::Lock { lock, store } => {
                let manager = lock.manager();
                written("package.json", package_json(deps))?;
                let file = lockfiles::file_name(manager).unwrap_or("lock");
                match lock.lock_of(deps) {
                    Some(text) => written(file, text)?,
                    None => match std::fs::remove_file(scratch.join(file)) {
                        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                            return Err(format!("cannot remove the sample's {file} ({e})"));
                        }
                        _ => {}
                    },
                }
                let store_arg = store
                    .as_ref()
                    .map(|dir| format!("--store-dir={}", dir.display()));
                let args: Vec<&str> = lock_args(manager)
                    .iter()
                    .copied()
                    .chain(store_arg.as_deref())
                    .collect();
                run_keeping_words(manager.name(), &args, scratch, manager == Manager::Pnpm)
            }
            Self::Python { .. } => self
                .install_python(scratch, deps)
                .ok_or_else(|| "the sample could not be installed offline".to_string()),
        }
    }

    fn install_python(&self, scratch: &Path, deps: &[Pinned]) -> Option<f64> {
        match self {
            Self::Node { .. } | Self::NpmLock { .. } | Self::Lock { .. } => None,
            Self::Python { manager, lock_from } => {
                std::fs::write(scratch.join("sample.txt"), requirements_txt(deps)).ok()?;
                let python = scratch.join(".venv/bin/python");
                let python = python.to_str()?;
                if lock_from.is_some() && !deps.is_empty() {
                    // A uv project's reinstall is `rm -rf .venv && uv sync`: the sync makes the
                    // virtualenv too (interpreter query, activation scripts; 130-160 ms of
                    // psf/requests' 300 ms on ext4), so the timed run starts without one.
                    std::fs::remove_dir_all(scratch.join(".venv")).ok()?;
                    // Never a build: a package with no wheel in the cache fails the sample
                    // instead of running its build backend.
                    let args = [
                        "sync",
                        "--offline",
                        "--frozen",
                        "--no-build",
                        "--no-install-project",
                        "-q",
                    ];
                    timed_run(Manager::Uv.name(), &args, scratch)
                } else if *manager == Manager::Uv {
                    let args = [
                        "pip",
                        "install",
                        "--offline",
                        "--no-build",
                        "-q",
                        "--no-deps",
                    ];
                    let rest = ["--python", python, "-r", "sample.txt"];
                    timed_run(
                        Manager::Uv.name(),
                        &[&args[..], &rest[..]].concat(),
                        scratch,
                    )
                } else {
                    // pip in the virtualenv, as a project reinstalls: it has no offline mode
                    // and asks the index about each package, then reads the files from its
                    // cache.
                    // Wheels only: an sdist would run its setup.py. pip has no offline mode; the
                    // index it asks is the person's (pip.conf, PIP_INDEX_URL), never one the
                    // project names, since the sample's lines are plain pins written here.
                    let args = [
                        "-m",
                        "pip",
                        "install",
                        "-q",
                        "--no-deps",
                        "--only-binary=:all:",
                    ];
                    let rest = ["--disable-pip-version-check", "-r", "sample.txt"];
                    timed_run(python, &[&args[..], &rest[..]].concat(), scratch)
                }
            }
        }
    }
}

/// The store the sample reads, never one the repository names (its `node_modules/.modules.yaml`
/// is the repository's content): the one pnpm reports for the person (`pnpm store path`, asked
/// from a neutral folder), or, for a project on another file system than that store, the one
/// pnpm itself keeps at that file system's root (`<mount>/.pnpm-store`), where it exists. Either
/// without its format folder (`v3`, `v10`, `v11`), which pnpm adds.
fn pnpm_store(root: &Path) -> Option<PathBuf> {
    let reported = version_like_output(Manager::Pnpm.name(), &["store", "path"])
        .map(|text| PathBuf::from(text.trim()))
        .filter(|dir| dir.is_absolute());
    let reported = reported.map(|dir| without_format_folder(&dir));
    let on_project_fs = mount_root(root)
        .map(|mount| mount.join(".pnpm-store"))
        .filter(|dir| dir.is_dir());
    let same_fs = |a: &Path, b: &Path| {
        use std::os::unix::fs::MetadataExt;
        match (std::fs::metadata(a), std::fs::metadata(b)) {
            (Ok(a), Ok(b)) => a.dev() == b.dev(),
            _ => false,
        }
    };
    match (reported, on_project_fs) {
        (Some(home), Some(mount)) if !same_fs(&home, root) => Some(mount),
        (Some(home), _) => Some(home),
        (None, mount) => mount,
    }
}

fn without_format_folder(dir: &Path) -> PathBuf {
    let versioned = dir.file_name().map(|n| n.to_string_lossy().into_owned());
    let format_folder = versioned.is_some_and(|n| {
        n.strip_prefix('v')
            .is_some_and(|d| !d.is_empty() && d.chars().all(|c| c.is_ascii_digit()))
    });
    match dir.parent() {
        Some(parent) if format_folder => parent.to_path_buf(),
        _ => dir.to_path_buf(),
    }
}

/// The top folder of the file system `path` is on: the last ancestor on the same device.
fn mount_root(path: &Path) -> Option<PathBuf> {
    use std::os::unix::fs::MetadataExt;
    let dev = std::fs::metadata(path).ok()?.dev();
    let mut top = path.to_path_buf();
    for ancestor in path.ancestors().skip(1) {
        match std::fs::metadata(ancestor) {
            Ok(meta) if meta.dev() == dev => top = ancestor.to_path_buf(),
            _ => break,
        }
    }
    Some(top)
}

/// A virtualenv at `scratch/.venv`: uv's own, or, for pip, the Python that the `pip` on PATH
/// runs under, without pip and with that pip linked in (making one with pip takes seconds, and
/// pip in a virtualenv is what a project's reinstall runs).
fn python_venv(manager: Manager, scratch: &Path) -> Option<()> {
    if manager == Manager::Uv {
        timed_run(
            Manager::Uv.name(),
            &["venv", "--offline", "-q", ".venv"],
            scratch,
        )?;
        return Some(());
    }
    let (pip, python) = pip_location()?;
    timed_run(&python, &["-m", "venv", "--without-pip", ".venv"], scratch)?;
    let site = packages::site_packages(scratch).into_iter().next()?;
    std::os::unix::fs::symlink(&pip, site.join("pip")).ok()
}

/// Where the `pip` on PATH lives and the Python it names, from its `--version` line ("pip 24.0
/// from /usr/lib/python3/dist-packages/pip (python 3.12)"): the folder and `python3.12`.
fn pip_location() -> Option<(PathBuf, String)> {
    let text = version_output(Manager::Pip.name())?;
    let (pip, python) = pip_version_line(&text)?;
    pip.is_dir().then_some((pip, python))
}

/// Where a manager is started when it has no scratch folder of its own: never the repository,
/// whose `.yarnrc` (`yarn-path`), `.yarnrc.yml` (`yarnPath`), `.npmrc` or `packageManager` field
/// would otherwise choose the program that runs or its options. The root folder is the
/// system's, and no manager finds a project there.
const NEUTRAL_DIR: &str = "/";

/// What `program --version` prints, when it runs and succeeds; None when it is not installed.
pub(super) fn version_output(program: &str) -> Option<String> {
    version_like_output(program, &["--version"])
}

/// How long a question to a manager (its version, its store) may take: a manager that hangs
/// is killed and counted as not installed.
const QUESTION_LIMIT: Duration = Duration::from_secs(15);

/// What `program args` prints, started in the neutral folder, when it succeeds within
/// `QUESTION_LIMIT`.
fn version_like_output(program: &str, args: &[&str]) -> Option<String> {
    use std::io::{Read, Seek};
    let mut out = tempfile::tempfile().ok()?;
    let mut child = Command::new(program)
        .args(args)
        .current_dir(NEUTRAL_DIR)
        .stdin(Stdio::null())
        .stdout(out.try_clone().ok()?)
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if start.elapsed() < QUESTION_LIMIT => {
                std::thread::sleep(Duration::from_millis(2));
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    };
    let mut text = String::new();
    out.rewind().ok()?;
    out.take(1024 * 1024).read_to_string(&mut text).ok()?;
    status.success().then_some(text)
}

fn pip_version_line(text: &str) -> Option<(PathBuf, String)> {
    let (_, rest) = text.trim().split_once(" from ")?;
    let (path, python) = rest.rsplit_once(" (python ")?;
    let version = python.trim_end_matches(')');
    Some((PathBuf::from(path), format!("python{version}")))
}

/// `manager` (for the project at `root`) installing nothing and `sample`, offline, in a scratch folder under `dir`, in
/// turns, `SAMPLE_RUNS` times; the median of each. Err when a run fails (the manager is
/// missing, a package is not in its cache: the manager's own reason) or the sample placed no
/// package.
pub fn measure(
    manager: Manager,
    dir: &Path,
    sample: &Sample,
    root: &Path,
) -> Result<Sampled, String> {
    let left_out = sample.left_out;
    let sample = &sample.pins[..];
    let runner = Runner::for_manager(manager, root)
        .ok_or_else(|| format!("{manager} has no sample install"))?;
    if sample.is_empty() {
        return Err("the project names no package to sample".to_string());
    }
    // Private (0700) and made exclusively under a name no one can guess: nothing planted
    // beforehand can stand in for it or be reached through it.
    let scratch = tempfile::Builder::new()
        .prefix(&format!(".wsl-place-{manager}-"))
        .tempdir_in(dir)
        .map_err(|e| format!("cannot make a scratch folder in {} ({e})", dir.display()))?;
    let scratch = Scratch(scratch.keep());
    let (target, before) = runner
        .set_up(&scratch.0)
        .ok_or_else(|| "the sample's folder could not be set up".to_string())?;
    // Empty and sample installs in turns, so both see the machine at the same pace; the median
    // of each is cached and multiplied by the project's size over the sample's, so it must be
    // a typical run: one preempted run (a maximum) or one lucky run (a minimum: the faster of
    // two put the express tree's reinstall 7-26% low in three runs out of three) would set
    // every later prediction on this machine.
    let (mut empties, mut samples, mut tree) = (Vec::new(), Vec::new(), None);
    let mut failed = None;
    for _ in 0..SAMPLE_RUNS {
        empties.push(runner.install(&scratch.0, &[])?);
        let ms = match runner.install(&scratch.0, sample) {
            Ok(ms) => ms,
            Err(why) => {
                failed = Some(why);
                break;
            }
        };
        samples.push(ms);
        let placed: BTreeSet<String> = names(&target).difference(&before).cloned().collect();
        tree = tree.or_else(|| Some(placed_tree(&runner, &target, &placed)));
        // A tree that will not go ends the runs; those made so far stand.
        if !clear(&target, &placed) {
            break;
        }
    }
    let no_sample = || {
        failed
            .clone()
            .unwrap_or_else(|| "the sample placed nothing".to_string())
    };
    let (packages, files, dirs, bytes) = tree.ok_or_else(no_sample)?;
    match (median(&empties), median(&samples)) {
        (Some(startup_ms), Some(sample_ms)) if packages > 0 => Ok(Sampled {
            startup_ms,
            sample_ms,
            packages,
            files,
            dirs,
            bytes,
            from_lock: matches!(runner, Runner::NpmLock { .. } | Runner::Lock { .. }),
            left_out,
        }),
        _ => Err(no_sample()),
    }
}

/// Packages, files, directories and bytes the sample placed: node_modules' package folders
/// (`name`, `@scope/name`, symlinks to pnpm's store included), or a virtualenv's `*.dist-info`.
fn placed_tree(runner: &Runner, target: &Path, placed: &BTreeSet<String>) -> (u64, u64, u64, u64) {
    let (files, dirs, bytes) = counted(target, placed);
    let packages = match runner {
        Runner::Node { .. } | Runner::NpmLock { .. } | Runner::Lock { .. } => placed
            .iter()
            .filter(|n| !n.starts_with('.'))
            .map(|n| {
                if n.starts_with('@') {
                    names(&target.join(n)).len() as u64
                } else {
                    1
                }
            })
            .sum(),
        Runner::Python { .. } => placed.iter().filter(|n| n.ends_with(".dist-info")).count() as u64,
    };
    (packages, files, dirs, bytes)
}

/// Removes what the sample placed; false when something would not go.
fn clear(target: &Path, placed: &BTreeSet<String>) -> bool {
    placed.iter().all(|name| {
        let path = target.join(name);
        match std::fs::symlink_metadata(&path) {
            Ok(meta) if meta.is_dir() => std::fs::remove_dir_all(&path).is_ok(),
            Ok(_) => std::fs::remove_file(&path).is_ok(),
            Err(_) => true,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_manager_but_cargo_has_a_runner() {
        use Manager::{Bun, Npm, Pip, Pnpm, Uv, Yarn};
        for manager in [Npm, Pnpm, Yarn, Bun, Uv, Pip] {
            assert!(
                Runner::for_manager(manager, Path::new("/")).is_some(),
                "{manager}"
            );
        }
        assert!(Runner::for_manager(Manager::Cargo, Path::new("/")).is_none());
        let none = Path::new("/nonexistent");
        assert!(measure(Manager::Cargo, none, &Sample::default(), none).is_err());
    }

    #[test]
    fn a_managers_reason_is_its_code_and_cause() {
        let pnpm12 = "Error: ERR_PNPM_NO_OFFLINE_TARBALL\n\n  × installing dependencies\n  ╰─▶ Failed to fetch tarball for a@1.0.0 in offline mode: snapshot not present in local store\n  help: Drop `--offline`\n";
        assert_eq!(
            reason_in(pnpm12).as_deref(),
            Some(
                "ERR_PNPM_NO_OFFLINE_TARBALL: Failed to fetch tarball for a@1.0.0 in offline mode: snapshot not present in local store"
            )
        );
        let pnpm10 = "Progress: resolved 1\n ERR_PNPM_NO_OFFLINE_TARBALL\u{2009} A package is missing from the store\n";
        assert_eq!(
            reason_in(pnpm10).as_deref(),
            Some("ERR_PNPM_NO_OFFLINE_TARBALL A package is missing from the store")
        );
        let npm = "npm error code ENOTCACHED\nnpm error request to https://x failed\nnpm error A complete log of this run can be found in: /x\n";
        assert_eq!(
            reason_in(npm).as_deref(),
            Some("code ENOTCACHED: request to https://x failed")
        );
        assert_eq!(reason_in("\n  \n"), None);
    }

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

    #[test]
    fn what_the_sample_placed_is_counted_and_cleared() {
        let dir = tempfile::tempdir().unwrap();
        let nm = dir.path().join("node_modules");
        for file in ["a/index.js", "a/package.json", "@s/b/index.js", "@s/c/x.js"] {
            let path = nm.join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, "12345").unwrap();
        }
        std::fs::create_dir_all(nm.join(".bin")).unwrap();
        let runner = Runner::for_manager(Manager::Npm, dir.path()).unwrap();
        let placed = names(&nm);
        assert_eq!(
            placed_tree(&runner, &nm, &placed),
            (3, 4, 5, 20),
            "three packages, four files, the scope's and each package's folders and .bin"
        );
        assert!(clear(&nm, &placed));
        assert!(names(&nm).is_empty());
    }
}
