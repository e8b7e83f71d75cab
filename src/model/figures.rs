//! The repository as the model sees it: what the scan and the index counted, and what a
//! dependency install recreates.

use crate::measure::deps::uv_cache::SyncTree;
use crate::measure::gitindex::GitWalk;
use crate::measure::scan::{DependencyKind, ScanReport};
use serde::Serialize;

/// Average npm package, from lock-file counts when node_modules is absent: the installed trees
/// of koajs/koa e0ba8ef3 (376 packages: 8,249 files, 1,094 directories, 35.6 MB) and
/// expressjs/express a3714473 (406: 6,569 files, 968 directories, 49.7 MB) on npm 11, pooled:
/// 19.0 files, 2.6 directories and 109 KB a package. (The earlier 28, 5 and 140 KB put koa's
/// files 28% and its directories 72% high, and on a slow mount, where each file and directory
/// is a round trip, the reinstall with them; the held-out npm trees hold 16-26 files a lock
/// entry.)
pub const FILES_PER_PACKAGE: u64 = 19;
pub const DIRS_PER_PACKAGE: u64 = 3;
pub const BYTES_PER_PACKAGE: u64 = 110_000;

/// pnpm's package, from its lock when `node_modules` is absent: the trees pnpm 10.34 placed
/// for unjs/c12 2d19d39 (345 packages: 8,917 files, 1,847 folders, 181 MB) and unjs/unbuild
/// 4cce495 (421: 10,309 files, 2,493 folders, 124 MB), pooled: 25.1 files, 5.7 folders and
/// 398 KB a package. Its folders are npm's and two more: `.pnpm/<name>@<version>` and the
/// `node_modules` inside it; its files include a `.bin` shim per command a package's
/// dependencies bring.
pub const PNPM_FILES_PER_PACKAGE: u64 = 25;
pub const PNPM_DIRS_PER_PACKAGE: u64 = 6;
pub const PNPM_BYTES_PER_PACKAGE: u64 = 400_000;
/// Path components from the project's root to one of pnpm's files, on average
/// (`node_modules/.pnpm/<name>@<version>/node_modules/<name>/dist/index.js`): 7.5 in c12's
/// tree, 7.8 in unbuild's.
pub const PNPM_TREE_DEPTH: f64 = 7.6;

/// Where the install figures come from; in JSON `node_modules`, `package-lock.json` or
/// `dependency trees`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum InstallSource {
    /// The node_modules trees the scan counted.
    #[serde(rename = "node_modules")]
    NodeModules,
    /// An estimate per package in package-lock.json, when node_modules is absent.
    #[serde(rename = "package-lock.json")]
    PackageLock,
    /// The same from pnpm's, yarn classic's or bun's lock (`measure::deps::lock_counts`).
    #[serde(rename = "pnpm-lock.yaml")]
    PnpmLock,
    #[serde(rename = "yarn.lock")]
    YarnLock,
    #[serde(rename = "bun.lock")]
    BunLock,
    /// The other dependency trees the scan counted (venv, vendor, ...).
    #[serde(rename = "dependency trees")]
    DependencyTrees,
    /// What a package manager installed to be timed (`deps::manager`).
    #[serde(rename = "sample")]
    Sample,
    /// The project's virtualenvs (`.venv`, `venv`), for uv, pip and poetry.
    #[serde(rename = "virtualenv")]
    Virtualenv,
    /// An estimate per package in `uv.lock`, `poetry.lock` or pinned requirements, when there
    /// is no virtualenv.
    #[serde(rename = "python lock")]
    PythonLock,
    /// What `uv sync` writes, counted from the wheels its `uv.lock` names: each wheel's files
    /// from its RECORD in uv's cache, else from its size in the lock.
    #[serde(rename = "uv.lock")]
    UvLock,
    /// pip's install from requirement files without a virtualenv: the packages they and the
    /// editable project name, with their dependencies estimated (`model::pip`).
    #[serde(rename = "pip requirements")]
    PipRequirements,
    /// Cargo's `target/`: not an install but what rebuilding writes (compile time not counted).
    #[serde(rename = "target")]
    Target,
}

impl InstallSource {
    /// The JSON name, for people too.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::NodeModules => "node_modules",
            Self::PackageLock => "package-lock.json",
            Self::PnpmLock => "pnpm-lock.yaml",
            Self::YarnLock => "yarn.lock",
            Self::BunLock => "bun.lock",
            Self::DependencyTrees => "dependency trees",
            Self::Sample => "sample",
            Self::Virtualenv => "virtualenv",
            Self::PythonLock => "python lock",
            Self::UvLock => "uv.lock",
            Self::PipRequirements => "pip requirements",
            Self::Target => "target",
        }
    }
}

/// Average installed Python package, from a lock file's count when there is no virtualenv:
/// the 60 packages of this project's fitting set (flask, requests, numpy, pandas and their
/// dependencies) held 8,900 files in 700 directories, 260 MB.
pub const PY_FILES_PER_PACKAGE: u64 = 150;
pub const PY_DIRS_PER_PACKAGE: u64 = 12;
pub const PY_BYTES_PER_PACKAGE: u64 = 4_000_000;

/// What a dependency install recreates.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InstallFigures {
    pub files: u64,
    pub dirs: u64,
    pub bytes: u64,
    /// Packages: from the lock file when there is one, else the files over an average package.
    pub packages: u64,
    /// `node_modules`, `dependency trees` or `package-lock.json` (an estimate per package).
    pub source: InstallSource,
    /// Path components from the root of the mount to one of its files, on average, as a
    /// package manager names them (whole paths): on a mount where each component is a round
    /// trip, every call that names a file pays for all of them. 0 when not known (the model
    /// then counts none beyond the one each timed call includes).
    pub depth: f64,
    /// Symlinks the manager makes (pnpm's dependency edges and hoisted names, counted from its
    /// lock: `measure::deps::pnpm_links`); 0 where not counted (npm's few `.bin` links).
    pub links: u64,
    /// Whether the manager links each file from its cache rather than writing it, here and
    /// on the baseline (uv, by where its cache is: `measure::deps::uv_cache`); None: decided
    /// by the mounts (a manager that links does so on the baseline's disk only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_links: Option<CacheLinks>,
}

impl InstallFigures {
    /// A tree of (files, directories, bytes) whose depth is not counted and whose files are
    /// written, not linked.
    fn flat((files, dirs, bytes): (u64, u64, u64), packages: u64, source: InstallSource) -> Self {
        Self {
            files,
            dirs,
            bytes,
            packages,
            source,
            depth: 0.0,
            links: 0,
            cache_links: None,
        }
    }
}

/// See [`InstallFigures::cache_links`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct CacheLinks {
    pub current: bool,
    pub baseline: bool,
}

/// The packages a JavaScript lock says this machine installs, and which lock said it
/// (`InstallSource::PackageLock`, `PnpmLock`, `YarnLock` or `BunLock`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LockCount {
    pub packages: u64,
    pub source: InstallSource,
    /// The symlinks the manager makes for it (pnpm's; 0 for the other locks).
    pub links: u64,
}

impl LockCount {
    /// `packages` counted in a package-lock.json.
    pub fn package_lock(packages: u64) -> Self {
        Self {
            packages,
            source: InstallSource::PackageLock,
            links: 0,
        }
    }
}

/// The folders of a `.git` inside the scanned root, which the scan counts and git's walk never
/// opens (without an index to refine the walk, they priced an empty repository's status 35 ms
/// high on a slow mount).
fn git_dir_dirs(scan: &ScanReport) -> u64 {
    scan.git
        .as_ref()
        .filter(|g| g.git_dir_inside_root)
        .and_then(|g| g.git_dir_dirs)
        .unwrap_or(0)
}

/// Files of an average npm package (node_modules over its packages), when only files are known.
pub const FILES_PER_INSTALLED_PACKAGE: u64 = 16;

/// The repository as the model sees it: a small value, so the model is testable without a scan.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RepoFigures {
    /// Index entries (0 when this is not a git repository).
    pub tracked: u64,
    /// Files and directories git's untracked walk visits: the tree minus dependency trees and
    /// minus what `.gitignore` excludes.
    pub worktree_files: u64,
    pub worktree_dirs: u64,
    pub worktree_bytes: u64,
    /// Bytes of the tracked files as the index records them, and the part in files over 32 KiB
    /// (which git maps rather than reads); None when the index gave no sizes.
    pub tracked_bytes: Option<u64>,
    pub mapped_bytes: u64,
    /// Bytes of the tracked files git scans for line endings as it hashes them (`text`,
    /// `eol`), and of those it also compares with the index's blob (`text=auto`,
    /// `core.autocrlf`): `.gitattributes` as git reads it.
    pub text_bytes: u64,
    pub auto_text_bytes: u64,
    pub install: Option<InstallFigures>,
    /// `HEAD` names a branch with no commit yet: `git status` resolves no ref and reads no
    /// commit, about half its fixed calls.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub unborn_head: bool,
}

impl RepoFigures {
    /// From the scan; `lock` counts a JavaScript lock (the install's packages, and its files
    /// when node_modules is absent); `git_dir_files` are the files of a `.git` inside
    /// the root, which the scan counts in `files` but git's walk never lists.
    pub fn from_scan(
        scan: &ScanReport,
        lock: Option<LockCount>,
        git_dir_files: Option<u64>,
    ) -> Self {
        let deps = scan.node_modules.iter().chain(&scan.dependency_trees);
        let (dep_files, dep_dirs, dep_bytes) = deps.fold((0, 0, 0), |(f, d, b), t| {
            (f + t.files, d + t.dirs, b + t.bytes)
        });
        let lock = lock.filter(|l| l.packages > 0);
        let install = if !scan.node_modules.is_empty() {
            let nm = scan.node_modules.iter().fold((0, 0, 0), |(f, d, b), t| {
                (f + t.files, d + t.dirs, b + t.bytes)
            });
            let packages = lock.map_or((nm.0 / FILES_PER_INSTALLED_PACKAGE).max(1), |l| l.packages);
            Some(InstallFigures::flat(
                nm,
                packages,
                InstallSource::NodeModules,
            ))
        } else if let Some(count) = lock {
            Some(from_lock(count))
        } else if dep_files > 0 {
            let packages = (dep_files / FILES_PER_INSTALLED_PACKAGE).max(1);
            let tree = (dep_files, dep_dirs, dep_bytes);
            Some(InstallFigures::flat(
                tree,
                packages,
                InstallSource::DependencyTrees,
            ))
        } else {
            None
        };
        let tracked = scan.tracked.unwrap_or(0);
        Self {
            tracked,
            worktree_files: scan
                .totals
                .files
                .saturating_sub(dep_files + git_dir_files.unwrap_or(0))
                .max(tracked),
            worktree_dirs: scan
                .totals
                .dirs
                .saturating_sub(dep_dirs + git_dir_dirs(scan))
                .max(1),
            worktree_bytes: scan.totals.bytes.saturating_sub(dep_bytes),
            tracked_bytes: None,
            mapped_bytes: 0,
            text_bytes: 0,
            auto_text_bytes: 0,
            install,
            unborn_head: scan.git.as_ref().is_some_and(|g| g.unborn_head),
        }
    }

    /// The index knows what the scan cannot separate: which tracked files git's walk lists
    /// and which directories it opens (those holding tracked files that `.gitignore` does not
    /// exclude), and the sizes of the tracked files.
    pub fn refine_with_index(&mut self, walk: &GitWalk) {
        self.tracked = self.tracked.max(walk.tracked);
        // Tracked files under an ignored directory are `lstat`ed but never listed.
        let untracked = self.worktree_files.saturating_sub(self.tracked);
        self.worktree_files = walk.listed_tracked + untracked;
        self.worktree_dirs = walk.walked_dirs.max(1);
        if walk.tracked_bytes > 0 {
            self.tracked_bytes = Some(walk.tracked_bytes);
            self.mapped_bytes = walk.mapped_bytes;
            self.text_bytes = walk.text_bytes;
            self.auto_text_bytes = walk.auto_text_bytes;
        }
    }

    pub(super) fn tracked_bytes(&self) -> f64 {
        if let Some(bytes) = self.tracked_bytes {
            return bytes as f64;
        }
        if self.worktree_files == 0 {
            return 0.0;
        }
        self.worktree_bytes as f64 * (self.tracked as f64 / self.worktree_files as f64).min(1.0)
    }
}

/// The tree a JavaScript lock's packages make when nothing is installed: npm's average package
/// for npm's, yarn's and bun's locks, pnpm's own (`PNPM_FILES_PER_PACKAGE`) and its symlinks
/// for pnpm's.
fn from_lock(
    LockCount {
        packages,
        source,
        links,
    }: LockCount,
) -> InstallFigures {
    let pnpm = source == InstallSource::PnpmLock;
    let (files, dirs, bytes) = if pnpm {
        (
            PNPM_FILES_PER_PACKAGE,
            PNPM_DIRS_PER_PACKAGE,
            PNPM_BYTES_PER_PACKAGE,
        )
    } else {
        (FILES_PER_PACKAGE, DIRS_PER_PACKAGE, BYTES_PER_PACKAGE)
    };
    InstallFigures {
        files: packages * files,
        dirs: packages * dirs,
        bytes: packages * bytes,
        packages,
        source,
        depth: if pnpm { PNPM_TREE_DEPTH } else { 0.0 },
        links,
        cache_links: None,
    }
}

/// The trees of `kind` the scan counted: files, directories, bytes.
fn trees(scan: &ScanReport, kind: DependencyKind) -> Option<(u64, u64, u64)> {
    let found: Vec<_> = scan
        .dependency_trees
        .iter()
        .filter(|t| t.kind == kind)
        .collect();
    (!found.is_empty()).then(|| {
        found.iter().fold((0, 0, 0), |(f, d, b), t| {
            (f + t.files, d + t.dirs, b + t.bytes)
        })
    })
}

/// Path components from a Python project's root to a file of its virtualenv, on average
/// (`.venv/lib/python3.x/site-packages/<package>/.../<file>`): 10.6 in the uv tree of this
/// project's fitting project for the path walk (pallets/flask 2ac89889, 8,355 files), 10.3 in
/// its pip tree (9,401 files with their bytecode). (psf/requests 1f6589ec, used to judge the
/// fit, has 11.3 in its uv tree of 6,861 files.)
pub const PY_TREE_DEPTH: f64 = 10.5;

/// What `uv venv` writes before any package (pyvenv.cfg, the interpreter's links, the
/// activation scripts, `_virtualenv.py` and its `.pth`, `.gitignore`, `CACHEDIR.TAG`): 17
/// files in 5 folders with uv 0.13.
pub const VENV_FILES: u64 = 17;
pub const VENV_DIRS: u64 = 5;
/// Files a sync writes per package beyond its wheel's RECORD: `INSTALLER`, `REQUESTED`, its
/// console scripts, the project's own editable install spread over the rest. Fitted on the
/// virtualenvs of pallets/werkzeug 1b00618e, pallets/flask 2ac89889 and pallets/jinja
/// 5ef70112 (uv 0.13.9, 117 packages): 323 files beyond the RECORDs and the 3 x 17 of
/// `uv venv`, 2.8 a package.
pub const SYNC_FILES_PER_PACKAGE: f64 = 2.8;

/// A Python project's reinstall: its virtualenvs as the scan counted them, else what a uv
/// sync writes as its lock and uv's cache say (`synced`), else `packages` (from its lock file
/// or pinned requirements) times an average package. `root_depth` is the project root's path
/// components below the root of its mount.
pub fn python_install(
    scan: &ScanReport,
    packages: u64,
    root_depth: u32,
    synced: Option<&SyncTree>,
) -> Option<InstallFigures> {
    let depth = f64::from(root_depth) + PY_TREE_DEPTH;
    if let Some((files, dirs, bytes)) = trees(scan, DependencyKind::Venv) {
        return Some(InstallFigures {
            files,
            dirs,
            bytes,
            packages: if packages > 0 {
                packages
            } else {
                (files / PY_FILES_PER_PACKAGE).max(1)
            },
            source: InstallSource::Virtualenv,
            depth,
            links: 0,
            cache_links: None,
        });
    }
    if let Some(tree) = synced {
        // Its files' own depth: attrs' (one binary a tool) lie far shallower than flask's.
        let depth = f64::from(root_depth) + tree.depth().unwrap_or(PY_TREE_DEPTH);
        return Some(InstallFigures {
            files: tree.files
                + VENV_FILES
                + (tree.packages as f64 * SYNC_FILES_PER_PACKAGE).round() as u64,
            dirs: tree.dirs + VENV_DIRS,
            bytes: tree.bytes,
            packages: tree.packages,
            source: InstallSource::UvLock,
            depth,
            links: 0,
            cache_links: None,
        });
    }
    (packages > 0).then(|| InstallFigures {
        files: packages * PY_FILES_PER_PACKAGE,
        dirs: packages * PY_DIRS_PER_PACKAGE,
        bytes: packages * PY_BYTES_PER_PACKAGE,
        packages,
        source: InstallSource::PythonLock,
        depth,
        links: 0,
        cache_links: None,
    })
}

/// A Rust project's `target/` as the scan counted it: what rebuilding it writes. No package
/// manager's work is added (compile time is not counted); None without a `target/`.
pub fn rust_target(scan: &ScanReport) -> Option<InstallFigures> {
    trees(scan, DependencyKind::Target).map(|(files, dirs, bytes)| InstallFigures {
        files,
        dirs,
        bytes,
        packages: 0,
        source: InstallSource::Target,
        depth: 0.0,
        links: 0,
        cache_links: None,
    })
}

/// Packages in a package-lock.json (v2/v3 `packages`, else v1 nested `dependencies`).
pub fn lock_packages(text: &str) -> Option<u64> {
    let value: serde_json::Value = serde_json::from_str(text).ok()?;
    if let Some(packages) = value.get("packages").and_then(|p| p.as_object()) {
        return Some(
            packages
                .keys()
                .filter(|k| k.contains("node_modules/"))
                .count() as u64,
        );
    }
    fn count(deps: &serde_json::Value) -> u64 {
        deps.as_object().map_or(0, |map| {
            map.values()
                .map(|d| 1 + d.get("dependencies").map_or(0, count))
                .sum()
        })
    }
    value.get("dependencies").map(count)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::counts::TreeCounts;

    #[test]
    fn figures_from_a_scan_leave_dependency_trees_out_of_the_walk() {
        use crate::measure::scan::{DependencyKind, DependencyTree};
        let scan = ScanReport {
            totals: TreeCounts {
                files: 5000,
                dirs: 600,
                bytes: 50_000_000,
                ..TreeCounts::default()
            },
            tracked: Some(800),
            node_modules: vec![DependencyTree {
                path: "node_modules".into(),
                kind: DependencyKind::NodeModules,
                files: 4000,
                dirs: 500,
                bytes: 40_000_000,
                ..DependencyTree::default()
            }],
            complete: true,
            ..ScanReport::default()
        };
        let r = RepoFigures::from_scan(&scan, Some(LockCount::package_lock(99)), None);
        assert_eq!(
            (r.tracked, r.worktree_files, r.worktree_dirs),
            (800, 1000, 100)
        );
        let with_git = RepoFigures::from_scan(&scan, Some(LockCount::package_lock(99)), Some(150));
        assert_eq!(with_git.worktree_files, 850);
        assert_eq!(r.worktree_bytes, 10_000_000);
        let i = r.install.unwrap();
        assert_eq!(
            (i.files, i.dirs, i.source),
            (4000, 500, InstallSource::NodeModules)
        );

        let bare = ScanReport {
            totals: TreeCounts {
                files: 10,
                dirs: 2,
                ..TreeCounts::default()
            },
            ..ScanReport::default()
        };
        let mut r = RepoFigures::from_scan(&bare, Some(LockCount::package_lock(3)), None);
        r.refine_with_index(&GitWalk {
            tracked: 40,
            listed_tracked: 40,
            walked_dirs: 7,
            ..GitWalk::default()
        });
        assert_eq!((r.tracked, r.worktree_files, r.worktree_dirs), (40, 40, 7));
        // Tracked files under an ignored directory are lstat'ed, but neither they nor their
        // directories are walked.
        let mut ignored = RepoFigures::from_scan(&bare, None, None);
        ignored.refine_with_index(&GitWalk {
            tracked: 20_000,
            listed_tracked: 400,
            walked_dirs: 30,
            ignored_dirs: 3000,
            ..GitWalk::default()
        });
        assert_eq!(
            (
                ignored.tracked,
                ignored.worktree_files,
                ignored.worktree_dirs
            ),
            (20_000, 400, 30)
        );
        assert_eq!(r.install.unwrap().files, 3 * FILES_PER_PACKAGE);
        assert!(RepoFigures::from_scan(&bare, None, None).install.is_none());
    }

    #[test]
    fn lock_files_of_both_formats_count_packages() {
        let v3 = r#"{"lockfileVersion":3,"packages":{"":{},"node_modules/a":{},"node_modules/a/node_modules/b":{}}}"#;
        assert_eq!(lock_packages(v3), Some(2));
        let v1 = r#"{"lockfileVersion":1,"dependencies":{"a":{"dependencies":{"b":{}}},"c":{}}}"#;
        assert_eq!(lock_packages(v1), Some(3));
        assert_eq!(lock_packages("not json"), None);
    }
}
