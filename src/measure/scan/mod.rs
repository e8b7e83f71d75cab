//! Repository scan: what the tree holds, in the terms that decide its placement.
//!
//! One budgeted pass over the tree ([`walk`]), the git index read with gix ([`crate::measure::gitindex`]),
//! and, when the budget runs out, estimates kept beside the raw counts. Never fails: what cannot
//! be read is counted and listed in the report.

mod collect;
pub mod known;
mod walk;

use crate::base::counts::TreeCounts;
use crate::base::pathtext::RelPath;
use crate::base::progress::{Drawn, Progress};
use crate::base::reason::{Keyed, Noted};
use crate::measure::gitindex::{self, GitDirProblem, IndexProblem, IndexSummary, RepoKind};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
pub use walk::{EachEntry, EachEntryAt};
use walk::{GitPaths, Live, Subtree, Walker};

#[derive(Debug, Clone)]
pub struct ScanOptions {
    /// Stop walking after this long and extrapolate.
    pub budget: Duration,
    /// Where a `gitdir:` naming a Windows drive is looked for (see `HostEnv::automount_root`).
    pub automount_root: PathBuf,
    /// Walk every file of every dependency tree (`--exact`); otherwise a large `node_modules`
    /// is priced from a sample of its packages (`DependencySample`).
    pub exact: bool,
    /// Trees an earlier scan found, taken again when their stamp says no install changed
    /// them since (never with `exact`).
    pub known: Vec<known::KnownTree>,
}

/// How the tree is traversed. The default is decided by `bench/scan.sh` (see `docs/scan.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    Sequential,
    /// Sibling directories walked concurrently by this many threads.
    Parallel(usize),
}

impl Engine {
    pub fn default_for_host() -> Self {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        // Threads mostly wait on the file system, so more of them than cores keeps a
        // high-latency mount busy; beyond 16 the gain is gone (docs/scan.md).
        Engine::Parallel((cores * 8).clamp(4, 16))
    }

    /// Where every call is CPU work (the Linux disk, memory), threads past the cores only
    /// start, spin and wait their turn: one per core, two at least so a walk still forks.
    pub fn for_local_disk() -> Self {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        Engine::Parallel(cores.clamp(2, 16))
    }

    fn describe(self) -> String {
        match self {
            Engine::Sequential => "sequential".into(),
            Engine::Parallel(n) => format!("parallel, {n} threads"),
        }
    }
}

/// Files, directories and bytes of a tree. `dirs` never includes the tree's own top.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Counts {
    pub files: u64,
    pub dirs: u64,
    pub symlinks: u64,
    /// FIFOs, sockets and device nodes (never opened).
    pub other: u64,
    /// Apparent size of regular files (`st_size`), each hard-linked inode once.
    pub bytes: u64,
    /// Space allocated on disk (`st_blocks` x 512) for the same files.
    pub allocated_bytes: u64,
}

impl Counts {
    /// The four figures every report of a tree gives.
    pub fn tree(&self) -> TreeCounts {
        TreeCounts {
            files: self.files,
            dirs: self.dirs,
            symlinks: self.symlinks,
            bytes: self.bytes,
        }
    }

    fn add(&mut self, other: &Counts) {
        self.files += other.files;
        self.dirs += other.dirs;
        self.symlinks += other.symlinks;
        self.other += other.other;
        self.bytes += other.bytes;
        self.allocated_bytes += other.allocated_bytes;
    }

    /// `self * k / n`, field by field, for "k more like the n seen".
    fn scaled(&self, k: u64, n: u64) -> Counts {
        let f = |v: u64| ((v as u128 * k as u128) / n.max(1) as u128).min(u64::MAX as u128) as u64;
        Counts {
            files: f(self.files),
            dirs: f(self.dirs),
            symlinks: f(self.symlinks),
            other: f(self.other),
            bytes: f(self.bytes),
            allocated_bytes: f(self.allocated_bytes),
        }
    }
}

/// What kind of dependency or build tree; in JSON `node_modules`, `venv`, `target`, `vendor`,
/// `gradle` or `build`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DependencyKind {
    #[default]
    NodeModules,
    /// `.venv` or `venv`.
    Venv,
    Target,
    Vendor,
    /// `.gradle`.
    Gradle,
    Build,
}

impl DependencyKind {
    /// The kind of tree a directory of this name is, if any (by name only).
    fn of(name: &std::ffi::OsStr) -> Option<DependencyKind> {
        Some(match name.as_encoded_bytes() {
            b"node_modules" => DependencyKind::NodeModules,
            b".venv" | b"venv" => DependencyKind::Venv,
            b"target" => DependencyKind::Target,
            b"vendor" => DependencyKind::Vendor,
            b".gradle" => DependencyKind::Gradle,
            b"build" => DependencyKind::Build,
            _ => return None,
        })
    }
}

/// A dependency or build tree (`node_modules`, `.venv`, `target`, ...).
#[derive(Debug, Clone, Default, Serialize)]
pub struct DependencyTree {
    /// Path relative to the scanned root.
    #[serde(with = "crate::base::pathtext::json")]
    pub path: PathBuf,
    pub kind: DependencyKind,
    pub files: u64,
    pub dirs: u64,
    pub bytes: u64,
    pub symlinks: u64,
    /// True when the figures above are extrapolated (the budget ran out inside or before it).
    pub estimated: bool,
    /// What was actually counted in it.
    pub counted: Counts,
    /// False when the budget ran out before it was even listed: the figures are its siblings'.
    pub reached: bool,
    /// Set when its figures were estimated from a sample of its packages (not every file was
    /// walked); absent in JSON when it was walked whole.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sample: Option<DependencySample>,
    /// True when its figures are an earlier check's, taken again because no install changed
    /// the tree since (its stamp); absent in JSON otherwise.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub reused: bool,
    /// What the package manager's last install left in it, for the next scan to compare.
    #[serde(skip)]
    pub stamp: Option<known::TreeStamp>,
}

/// How a dependency tree's figures were estimated from a sample of its packages (see
/// `docs/scan.md`): "estimated from 64 of 800 packages".
#[derive(Debug, Clone, Default, PartialEq, Serialize, serde::Deserialize)]
pub struct DependencySample {
    /// Packages in the tree (its top level, `@scope/` folders and pnpm's `.pnpm/` store; a
    /// nested `node_modules/` belongs to the package holding it).
    pub packages: u64,
    /// Packages walked whole: the largest ones and the sample of the rest.
    pub walked: u64,
    /// Of `walked`, the largest packages by entries, always walked whole.
    pub largest_walked: u64,
    /// How the sample was drawn.
    pub method: String,
    /// About two standard errors of the files' and the bytes' estimates, as a fraction of them.
    pub files_error: f64,
    pub bytes_error: f64,
    /// In a walked package, one file in this many was sized by `lstat` and the others took
    /// their folder's mean: `bytes_error` leaves that out (1: every file sized; 0: not
    /// recorded, an earlier version's figures).
    #[serde(default)]
    pub sized_every: u64,
}

/// A directory and how many files it holds.
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
pub struct DirFiles {
    pub path: RelPath,
    pub files: u64,
    /// True when `files` is extrapolated.
    pub estimated: bool,
}

/// A directory that could not be listed.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Unreadable {
    pub path: RelPath,
    pub error: String,
}

/// The repository the root belongs to.
#[derive(Debug, Clone, Serialize)]
pub struct GitReport {
    pub kind: RepoKind,
    #[serde(with = "crate::base::pathtext::json")]
    pub worktree: PathBuf,
    #[serde(with = "crate::base::pathtext::json")]
    pub git_dir: PathBuf,
    /// Where `objects/` lives (the main repository's `.git` for a linked worktree).
    #[serde(with = "crate::base::pathtext::json")]
    pub common_dir: PathBuf,
    /// False when the common dir is outside the scanned root (walked separately, not in `files`).
    pub git_dir_inside_root: bool,
    /// None when the index could not be read; see `index_error`.
    pub index: Option<IndexSummary>,
    #[serde(flatten)]
    pub index_error: Noted<IndexProblem>,
    /// The part of `git_dir_bytes` in `objects/pack` (packfiles and their indexes).
    pub pack_bytes: Option<u64>,
    /// `objects/` outside `pack/`: loose objects, mostly.
    pub loose_object_bytes: Option<u64>,
    pub loose_object_files: Option<u64>,
    /// Files in the git directory, objects and all.
    pub git_dir_files: Option<u64>,
    /// Folders in the git directory, itself included: the scan counts them in `dirs`, git's
    /// walk of the work tree never opens them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub git_dir_dirs: Option<u64>,
    /// True when the git directory figures are extrapolated.
    pub estimated: bool,
    /// A `.git` that exists but could not be understood.
    #[serde(flatten)]
    pub error: Noted<GitDirProblem>,
    /// True when `HEAD` names a branch with no commit yet (`gitindex::born`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub unborn_head: bool,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct ScanReport {
    #[serde(flatten)]
    pub totals: TreeCounts,
    /// Entries in the git index; None when this is not a git repository or the index is unreadable.
    pub tracked: Option<u64>,
    pub git_dir_bytes: Option<u64>,
    pub node_modules: Vec<DependencyTree>,
    /// Other dependency and build trees (not node_modules).
    pub dependency_trees: Vec<DependencyTree>,
    /// False when the time budget ran out and the counts are extrapolated estimates. In JSON
    /// also as its opposite, `estimated`, which the schema has always had.
    #[serde(flatten, serialize_with = "complete_and_estimated")]
    pub complete: bool,
    /// True when the scan stopped before it had listed any directory to estimate the unlisted
    /// ones from: the totals are then only what was counted, and the real ones are unknown.
    pub totals_unknown: bool,
    /// True when a dependency tree's figures (and so the totals) were estimated from a sample
    /// of its packages (see `DependencyTree::sample`); `--exact` walks everything.
    pub sampled: bool,
    pub elapsed_ms: u64,
    /// What was actually counted before the budget ran out (equal to the totals when complete).
    pub counted: Counts,
    /// FIFOs, sockets, device nodes.
    pub other: u64,
    pub allocated_bytes: u64,
    /// Names of an inode already counted (hard links): counted as files, their bytes once.
    pub hardlinks: u64,
    pub budget_ms: u64,
    pub engine: String,
    /// Directories the budget left unlisted (their contents are estimated).
    pub unvisited_dirs: u64,
    /// Files the budget left without an `lstat` (their sizes are estimated).
    pub unstatted_files: u64,
    /// Tracked files whose size is the one the git index records, read instead of an `lstat`
    /// each (git status trusts the same record); a file changed since git last looked at it
    /// counts at its recorded size.
    pub index_sized_files: u64,
    /// Entries that vanished or could not be examined during the walk.
    pub errors: u64,
    pub unreadable_dirs: Vec<Unreadable>,
    /// Directories with the most files directly in them.
    pub largest_dirs: Vec<DirFiles>,
    /// The root's subdirectories with the most files below them.
    pub largest_subtrees: Vec<DirFiles>,
    pub git: Option<GitReport>,
    /// Set when the root itself could not be listed.
    #[serde(flatten)]
    pub error: Noted<RootUnlisted>,
    /// Folders below the root that hold `.git` (relative to it, and whether that `.git` is a
    /// directory): the repositories and submodules it holds, noted by the walk so that
    /// `survey` need not walk the tree a second time to find them.
    #[serde(skip)]
    pub nested_git: Vec<(PathBuf, bool)>,
}

/// The scanned folder itself could not be listed: the I/O error's words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RootUnlisted {
    #[serde(with = "crate::base::pathtext::json")]
    pub root: PathBuf,
    pub error: String,
}

impl Keyed for RootUnlisted {
    const KEY: &'static str = "error";
    const KIND_KEY: &'static str = "error_kind";
}

/// `complete` and `estimated` (its opposite) as two JSON fields from one value.
fn complete_and_estimated<S: serde::Serializer>(complete: &bool, s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut fields = s.serialize_map(Some(2))?;
    fields.serialize_entry("complete", complete)?;
    fields.serialize_entry("estimated", &!complete)?;
    fields.end()
}

/// The scan, and the index it read (None outside a repository or for an unreadable index),
/// so that `check` does not read and decode it a second time for the probe. The walk's counts
/// so far are reported to `progress` as it goes.
pub fn scan_keeping_index(
    root: &Path,
    options: &ScanOptions,
    progress: &dyn Progress,
) -> (ScanReport, Option<gitindex::RootIndex>) {
    walk_and_keep_index(root, options, Engine::default_for_host(), progress)
}

/// [`scan_keeping_index`] with `engine` (`Engine::for_local_disk` where the caller knows the
/// tree is on one).
pub fn scan_keeping_index_on(
    root: &Path,
    options: &ScanOptions,
    engine: Engine,
    progress: &dyn Progress,
) -> (ScanReport, Option<gitindex::RootIndex>) {
    walk_and_keep_index(root, options, engine, progress)
}

/// The scan with `engine`, showing nothing (the engines' benchmark).
pub fn scan_with(root: &Path, options: &ScanOptions, engine: Engine) -> ScanReport {
    walk_and_keep_index(root, options, engine, &Drawn::hidden()).0
}

fn walk_and_keep_index(
    root: &Path,
    options: &ScanOptions,
    engine: Engine,
    progress: &dyn Progress,
) -> (ScanReport, Option<gitindex::RootIndex>) {
    let start = Instant::now();
    let deadline = start + options.budget;
    let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let mut report = ScanReport {
        budget_ms: options.budget.as_millis() as u64,
        engine: engine.describe(),
        ..ScanReport::default()
    };

    let (mut git, git_paths, sizes) = git_facts(&root, &options.automount_root);
    if let Some(g) = &git {
        report.tracked = g.index.as_ref().map(|i| i.entries_under_root);
    }

    let live = Live::default();
    let walker = Walker::new(
        root.clone(),
        deadline,
        engine != Engine::Sequential,
        &live,
        git_paths.clone(),
        sizes.as_ref(),
    )
    .sampling_dependencies(!options.exact)
    .knowing(if options.exact { &[] } else { &options.known });
    let (subtree, outside) = scanning_while(&live, progress, || {
        run_on(engine, || {
            walk_root_and_git_dir(&walker, git.as_ref(), git_paths.common.as_deref())
        })
    });

    if let Err(e) = std::fs::read_dir(&root) {
        report.error = Noted(Some(RootUnlisted {
            root: root.to_path_buf(),
            error: e.to_string(),
        }));
    }
    report.complete = subtree.complete;
    report.counted = subtree.counted;
    let totals = subtree.estimate;
    report.totals = totals.tree();
    report.other = totals.other;
    report.allocated_bytes = totals.allocated_bytes;
    collect::collect(&walker, &mut report, git.as_mut(), outside);
    report.git = git;
    report.elapsed_ms = start.elapsed().as_millis() as u64;
    (report, sizes)
}

/// Walks the root, and the repository's git directory (`common`) too when it is outside it.
fn walk_root_and_git_dir(
    walker: &Walker,
    git: Option<&GitReport>,
    common: Option<&Path>,
) -> (Subtree, Option<Subtree>) {
    let subtree = walker.walk_root();
    let outside = match (git, common) {
        (Some(g), Some(common)) if !g.git_dir_inside_root => walker.walk_outside_git_dir(common),
        _ => None,
    };
    (subtree, outside)
}

/// Hands every entry below `root` (its directory, name and `lstat`, symlinks never followed) to
/// `each`, from the scan's own parallel walk without a deadline: how the migration plan walks.
/// The walk's counts so far are reported to `progress`. Returns the directories that could not
/// be listed (relative to `root`) and why.
pub fn walk_each(root: &Path, progress: &dyn Progress, each: &EachEntry) -> Vec<(PathBuf, String)> {
    walk_each_at(root, progress, &|dir, name, meta, _| each(dir, name, meta))
}

/// [`walk_each`], handing each entry its directory open as well (see [`EachEntryAt`]).
pub fn walk_each_at(
    root: &Path,
    progress: &dyn Progress,
    each: &EachEntryAt,
) -> Vec<(PathBuf, String)> {
    let live = Live::default();
    let engine = Engine::default_for_host();
    // A deadline that never comes: the plan must see everything.
    let never = Instant::now() + Duration::from_secs(100 * 365 * 24 * 3600);
    let walker = Walker::new(
        root.to_path_buf(),
        never,
        engine != Engine::Sequential,
        &live,
        GitPaths::default(),
        None,
    )
    .with_each(each);
    scanning_while(&live, progress, || run_on(engine, || walker.walk_root()));
    collect::take(&walker.unreadable)
}

/// Runs the walk on its own threads: deep trees recurse deeply, so they get a large stack.
/// Inside a pool already (a survey scanning several repositories at once in [`with_threads`]),
/// the walk shares that pool's threads instead of starting its own.
fn run_on<T: Send>(engine: Engine, work: impl FnOnce() -> T + Send) -> T {
    let threads = match engine {
        Engine::Sequential => 1,
        Engine::Parallel(n) => n.max(1),
    };
    if engine != Engine::Sequential && rayon::current_thread_index().is_some() {
        return work();
    }
    with_threads(threads, work)
}

/// Runs `work` in a pool of `threads` threads with the walk's large stacks; every scan started
/// inside it walks on those threads, so several scans share one pool.
pub fn with_threads<T: Send>(threads: usize, work: impl FnOnce() -> T + Send) -> T {
    const STACK: usize = 64 << 20;
    let threads = threads.max(1);
    match rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .stack_size(STACK)
        .thread_name(|i| format!("scan-{i}"))
        .build()
    {
        Ok(pool) => pool.install(work),
        // No threads to be had: walk here, sequentially (the walker only forks in a pool).
        Err(_) => work(),
    }
}

fn git_facts(
    root: &Path,
    automount_root: &Path,
) -> (Option<GitReport>, GitPaths, Option<gitindex::RootIndex>) {
    let repo = match gitindex::discover(root, automount_root) {
        Ok(Some(repo)) => repo,
        Ok(None) => return (None, GitPaths::default(), None),
        Err(e) => {
            let report = GitReport {
                kind: RepoKind::Repository,
                worktree: root.to_path_buf(),
                git_dir: root.join(".git"),
                common_dir: root.join(".git"),
                git_dir_inside_root: true,
                index: None,
                index_error: Noted(None),
                pack_bytes: None,
                loose_object_bytes: None,
                loose_object_files: None,
                git_dir_files: None,
                git_dir_dirs: None,
                estimated: false,
                error: Noted(Some(GitDirProblem(e))),
                unborn_head: false,
            };
            return (Some(report), GitPaths::default(), None);
        }
    };
    let common =
        std::fs::canonicalize(&repo.common_dir).unwrap_or_else(|_| repo.common_dir.clone());
    let (index, index_error, sizes) = match gitindex::read(&repo) {
        Ok((summary, sizes)) => (Some(summary), None, sizes),
        Err(e) => (None, Some(IndexProblem(e)), None),
    };
    let objects = common.join("objects");
    let paths = GitPaths {
        common: Some(common.clone()),
        packs: Some(objects.join("pack")),
        objects: Some(objects),
    };
    let report = GitReport {
        kind: repo.kind,
        worktree: repo.worktree.clone(),
        git_dir: repo.git_dir.clone(),
        common_dir: common.clone(),
        git_dir_inside_root: common.starts_with(root),
        index,
        index_error: Noted(index_error),
        pack_bytes: None,
        loose_object_bytes: None,
        loose_object_files: None,
        git_dir_files: None,
        git_dir_dirs: None,
        estimated: false,
        error: Noted(None),
        unborn_head: gitindex::born(&repo) == Some(false),
    };
    (Some(report), paths, sizes)
}

/// Runs `work`, with what the walk has seen so far reported to `progress`.
fn scanning_while<T>(live: &Live, progress: &dyn Progress, work: impl FnOnce() -> T) -> T {
    let seen = || {
        let (files, dirs) = (
            live.files.load(std::sync::atomic::Ordering::Relaxed),
            live.dirs.load(std::sync::atomic::Ordering::Relaxed),
        );
        format!(
            "scanning: {}, {}",
            crate::base::units::counted(files, "file", "files"),
            crate::base::units::counted(dirs, "directory", "directories")
        )
    };
    crate::base::progress::working(progress, seen, work)
}
