//! One pass over the tree, stoppable at a deadline, with every directory's result either counted
//! or extrapolated from its siblings.
//!
//! Each directory is listed once (`readdir`, whose `d_type` already says file/dir/symlink), and
//! only regular files get an `lstat` (through the directory's fd), for their size. Directories
//! and symlinks cost no `stat` at all. When the deadline passes, listings already read still
//! count exactly; the sizes of files not yet stat'ed and the contents of directories not yet
//! listed are estimated (see `docs/scan.md`).
//!
//! Directories are opened relative to an open ancestor ([`crate::base::dirfd::Place`]), never by their
//! full path, so trees deeper than PATH_MAX are walked whole.

mod list;
mod pnpm_store;
mod sample;

use super::known::{KnownTree, TreeStamp};
use super::{Counts, DependencyKind, DependencySample};
use crate::base::dirfd::{Meta, Place};
use crate::base::interrupt;
use crate::base::shared_dir::SharedDir;
use crate::measure::gitindex::RootIndex;
use list::Listed;
use rayon::prelude::*;
use std::collections::HashSet;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// What a directory is, for the report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tag {
    /// A dependency or build tree; the string is its kind (`node_modules`, `venv`, ...).
    Dependency(DependencyKind),
    GitDir,
    GitObjects,
    GitPacks,
}

/// Whether we are already inside a tagged tree (nested ones are part of the outer one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Inside {
    Plain,
    Dependency,
    /// A package walked for a dependency tree's sample: only one file in `SIZED_EVERY` is
    /// `lstat`ed, the others' sizes are their folder's mean.
    Sampled,
    Git,
}

/// In a sampled package, one file in this many is sized by `lstat` (see `Inside::Sampled`).
const SIZED_EVERY: u64 = 4;

/// A directory's total: what was counted, and the best estimate (equal when complete).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Subtree {
    pub counted: Counts,
    pub estimate: Counts,
    pub complete: bool,
    /// True when part of it was extrapolated from a sample of packages (see `sample`), not
    /// from a budget that ran out: `estimate` then holds the figures, `counted` what was seen.
    pub sampled: bool,
}

#[derive(Debug, Clone)]
pub struct Tagged {
    pub tag: Tag,
    /// Relative to the root, or absolute for a git dir outside it.
    pub path: PathBuf,
    pub subtree: Subtree,
    /// False when the deadline passed before the directory was even listed.
    pub visited: bool,
    /// How a dependency tree's figures were estimated from a sample of its packages.
    pub sample: Option<DependencySample>,
    /// Its figures are an earlier scan's (`known`).
    pub reused: bool,
    /// What the package manager's last install left in it (`node_modules` only).
    pub stamp: Option<TreeStamp>,
}

/// Live counters for the progress display.
#[derive(Debug, Default)]
pub struct Live {
    pub files: AtomicU64,
    pub dirs: AtomicU64,
}

pub struct Walker<'a> {
    root: PathBuf,
    deadline: Instant,
    stopped: AtomicBool,
    parallel: bool,
    live: &'a Live,
    git_dirs: GitPaths,
    /// Tracked files' sizes as git recorded them: those files need no `lstat`.
    sizes: Option<&'a RootIndex>,
    pub(super) index_sized: AtomicU64,
    inodes: Mutex<HashSet<(u64, u64)>>,
    pub(super) hardlinks: AtomicU64,
    /// Per depth: sum of complete subtrees and how many, the fallback for unlisted directories.
    depth_means: Mutex<Vec<(Counts, u64)>>,
    /// Sum of sizes and number of files stat'ed, the fallback for unstat'ed files.
    stat_bytes: AtomicU64,
    stat_alloc: AtomicU64,
    stat_files: AtomicU64,
    pub(super) unvisited_dirs: AtomicU64,
    /// Unlisted directories guessed as empty because no directory anywhere had been listed to
    /// go by: their contents are unknown, not estimated.
    pub(super) unguessed_dirs: AtomicU64,
    pub(super) unstatted_files: AtomicU64,
    pub(super) errors: AtomicU64,
    pub(super) unreadable: Mutex<Vec<(PathBuf, String)>>,
    pub(super) tagged: Mutex<Vec<Tagged>>,
    /// Directories by the number of files directly in them, largest first, at most `TOP`.
    pub(super) largest: Mutex<Vec<(u64, PathBuf)>>,
    largest_floor: AtomicU64,
    /// The root's own children, for the largest top-level subtrees.
    pub(super) top: Mutex<Vec<(OsString, Option<Subtree>)>>,
    /// Folders below the root holding `.git`, and whether it is a directory (see `nested_git`).
    pub(super) nested_git: Mutex<Vec<(PathBuf, bool)>>,
    /// Handed every entry with its `lstat` when set (the migration plan), so that one walker
    /// serves both the scan and the plan.
    each: Option<&'a EachEntryAt<'a>>,
    /// Price `node_modules` trees from a sample of their packages instead of walking them
    /// whole (`--exact` and the migration plan walk everything).
    sample_dependencies: bool,
    /// Trees an earlier scan found (see `known`).
    known: &'a [KnownTree],
}

/// What the walk hands each entry: its directory, its name, and its `lstat`.
pub type EachEntry<'a> = dyn Fn(&Path, &OsStr, &std::io::Result<Meta>) + Sync + 'a;

/// [`EachEntry`] with the directory open as the walk listed it, shared (one descriptor per
/// directory, closed with its last holder): a caller that opens the entry later names it from
/// there, one request on a slow mount instead of one per component of its path.
pub type EachEntryAt<'a> =
    dyn Fn(&Path, &OsStr, &std::io::Result<Meta>, Option<&Arc<SharedDir>>) + Sync + 'a;

/// Where the repository's git directory and its object store are, canonicalized.
#[derive(Debug, Clone, Default)]
pub struct GitPaths {
    pub common: Option<PathBuf>,
    pub objects: Option<PathBuf>,
    pub packs: Option<PathBuf>,
}

pub const TOP: usize = 10;
/// Check the clock once per this many files, so a huge directory cannot overrun the budget.
const CLOCK_EVERY: usize = 64;

impl<'a> Walker<'a> {
    pub fn new(
        root: PathBuf,
        deadline: Instant,
        parallel: bool,
        live: &'a Live,
        git_dirs: GitPaths,
        sizes: Option<&'a RootIndex>,
    ) -> Self {
        Walker {
            root,
            deadline,
            stopped: AtomicBool::new(false),
            parallel,
            live,
            git_dirs,
            sizes,
            index_sized: AtomicU64::new(0),
            inodes: Mutex::new(HashSet::new()),
            hardlinks: AtomicU64::new(0),
            depth_means: Mutex::new(Vec::new()),
            stat_bytes: AtomicU64::new(0),
            stat_alloc: AtomicU64::new(0),
            stat_files: AtomicU64::new(0),
            unvisited_dirs: AtomicU64::new(0),
            unguessed_dirs: AtomicU64::new(0),
            unstatted_files: AtomicU64::new(0),
            errors: AtomicU64::new(0),
            unreadable: Mutex::new(Vec::new()),
            tagged: Mutex::new(Vec::new()),
            largest: Mutex::new(Vec::new()),
            largest_floor: AtomicU64::new(0),
            top: Mutex::new(Vec::new()),
            nested_git: Mutex::new(Vec::new()),
            each: None,
            sample_dependencies: false,
            known: &[],
        }
    }

    /// Takes a `node_modules` an earlier scan found again when no install changed it since.
    pub fn knowing(mut self, known: &'a [KnownTree]) -> Self {
        self.known = known;
        self
    }

    /// Prices `node_modules` trees from a sample of their packages (see `sample`).
    pub fn sampling_dependencies(mut self, sample: bool) -> Self {
        self.sample_dependencies = sample && self.each.is_none();
        self
    }

    /// Hands every entry, with its `lstat`, to `each` as the walk lists it.
    pub fn with_each(mut self, each: &'a EachEntryAt<'a>) -> Self {
        self.each = Some(each);
        self
    }

    pub fn stopped(&self) -> bool {
        if self.stopped.load(Ordering::Relaxed) {
            return true;
        }
        if Instant::now() >= self.deadline || interrupt::requested() {
            self.stopped.store(true, Ordering::Relaxed);
            return true;
        }
        false
    }

    /// Walks the root; its own entry is not counted (`dirs` are the directories below it).
    pub fn walk_root(&self) -> Subtree {
        let root = self.root.clone();
        self.walk_dir(&root, Place::root(&root), 0, Inside::Plain)
    }

    /// Walks a git directory outside the root; its counts are reported apart from the tree's.
    pub fn walk_outside_git_dir(&self, dir: &Path) -> Option<Subtree> {
        if self.stopped() {
            return None;
        }
        let subtree = self.walk_dir(dir, Place::root(dir), 1, Inside::Git);
        self.record(Tag::GitDir, dir.to_path_buf(), subtree, true);
        Some(subtree)
    }

    fn relative(&self, path: &Path) -> PathBuf {
        path.strip_prefix(&self.root).unwrap_or(path).to_path_buf()
    }

    fn record(&self, tag: Tag, path: PathBuf, subtree: Subtree, visited: bool) {
        self.push(Tagged {
            tag,
            path,
            subtree,
            visited,
            sample: None,
            reused: false,
            stamp: None,
        });
    }

    fn push(&self, tagged: Tagged) {
        if let Ok(mut all) = self.tagged.lock() {
            all.push(tagged);
        }
    }

    fn tag_for(&self, path: &Path, name: &OsStr, inside: Inside) -> Option<Tag> {
        let is = |p: &Option<PathBuf>| p.as_deref() == Some(path);
        match inside {
            Inside::Plain if is(&self.git_dirs.common) => Some(Tag::GitDir),
            Inside::Plain => DependencyKind::of(name).map(Tag::Dependency),
            Inside::Git if is(&self.git_dirs.objects) => Some(Tag::GitObjects),
            Inside::Git if is(&self.git_dirs.packs) => Some(Tag::GitPacks),
            Inside::Git | Inside::Dependency | Inside::Sampled => None,
        }
    }

    fn note_largest(&self, files: u64, dir: &Path) {
        if files == 0 || files < self.largest_floor.load(Ordering::Relaxed) {
            return;
        }
        let Ok(mut largest) = self.largest.lock() else {
            return;
        };
        largest.push((files, self.relative(dir)));
        largest.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        largest.truncate(TOP);
        if largest.len() == TOP {
            self.largest_floor
                .store(largest[TOP - 1].0, Ordering::Relaxed);
        }
    }

    fn unreadable(&self, dir: &Path, error: &std::io::Error) {
        if let Ok(mut list) = self.unreadable.lock() {
            list.push((self.relative(dir), error.to_string()));
        }
    }

    fn walk_dir(
        &self,
        dir: &Path,
        place: std::io::Result<Place>,
        depth: usize,
        inside: Inside,
    ) -> Subtree {
        let (listing, base) = match place.and_then(|p| p.enter()) {
            Ok(entered) => entered,
            Err(e) => {
                // Counted as a directory by its parent; its contents are unknown, not guessed.
                self.unreadable(dir, &e);
                return Subtree {
                    complete: true,
                    ..Subtree::default()
                };
            }
        };
        let listed = self.list_dir(dir, listing, inside);
        let own = listed.own;
        self.live.files.fetch_add(own.files, Ordering::Relaxed);
        self.live.dirs.fetch_add(own.dirs, Ordering::Relaxed);
        self.note_largest(own.files, dir);
        self.stat_bytes.fetch_add(own.bytes, Ordering::Relaxed);
        self.stat_alloc
            .fetch_add(own.allocated_bytes, Ordering::Relaxed);
        self.stat_files.fetch_add(listed.statted, Ordering::Relaxed);
        self.index_sized
            .fetch_add(listed.index_sized, Ordering::Relaxed);

        let mut estimate = own;
        self.unstatted_files
            .fetch_add(listed.unstatted, Ordering::Relaxed);
        let not_sized = listed.unstatted + listed.left_unsized;
        if not_sized > 0 {
            let (bytes, alloc) = match (
                own.bytes.checked_div(listed.statted),
                own.allocated_bytes.checked_div(listed.statted),
            ) {
                (Some(b), Some(a)) => (b, a),
                _ => self.mean_file_size(),
            };
            estimate.bytes += bytes * not_sized;
            estimate.allocated_bytes += alloc * not_sized;
        }
        let results = self.visit_children(dir, &base, depth, inside, &listed.children);
        let own_part = Subtree {
            counted: own,
            estimate,
            complete: listed.unstatted == 0,
            sampled: listed.left_unsized > 0,
        };
        let subtree = self.combine(dir, depth, inside, own_part, &results);
        if depth == 0
            && let Ok(mut top) = self.top.lock()
        {
            *top = results;
        }
        subtree
    }

    /// Walks each subdirectory (in parallel when allowed) until the deadline; None for the ones
    /// the deadline left unvisited.
    fn visit_children(
        &self,
        dir: &Path,
        base: &Place,
        depth: usize,
        inside: Inside,
        children: &[OsString],
    ) -> Vec<(OsString, Option<Subtree>)> {
        let visit = |name: &OsString| -> (OsString, Option<Subtree>) {
            if self.stopped() {
                return (name.clone(), None);
            }
            let path = dir.join(name);
            let tag = self.tag_for(&path, name, inside);
            let inner = match tag {
                Some(Tag::Dependency(_)) => Inside::Dependency,
                Some(_) => Inside::Git,
                None => inside,
            };
            if tag == Some(Tag::Dependency(DependencyKind::NodeModules)) && self.sample_dependencies
            {
                let subtree = self.node_modules(&path, base.child(name), depth + 1);
                return (name.clone(), Some(subtree));
            }
            let subtree = self.walk_dir(&path, Ok(base.child(name)), depth + 1, inner);
            if let Some(tag) = tag {
                self.record(tag, self.relative(&path), subtree, true);
            }
            (name.clone(), Some(subtree))
        };
        if self.parallel && children.len() > 1 {
            children.par_iter().map(visit).collect()
        } else {
            children.iter().map(visit).collect()
        }
    }

    /// The directory's subtree from its own part and its children's; unvisited children are
    /// guessed from the visited ones.
    fn combine(
        &self,
        dir: &Path,
        depth: usize,
        inside: Inside,
        own: Subtree,
        results: &[(OsString, Option<Subtree>)],
    ) -> Subtree {
        let Subtree {
            mut counted,
            mut estimate,
            mut complete,
            mut sampled,
        } = own;
        let mut visited_sum = Counts::default();
        let mut visited = 0u64;
        for sub in results.iter().filter_map(|(_, sub)| sub.as_ref()) {
            counted.add(&sub.counted);
            estimate.add(&sub.estimate);
            visited_sum.add(&sub.estimate);
            visited += 1;
            complete &= sub.complete;
            sampled |= sub.sampled;
        }
        let pending = results.len() as u64 - visited;
        if pending > 0 {
            complete = false;
            self.unvisited_dirs.fetch_add(pending, Ordering::Relaxed);
            let (sum, n) = self.like_unvisited(depth, pending, (visited_sum, visited));
            estimate.add(&sum.scaled(pending, n));
            self.record_unvisited(dir, inside, results, sum.scaled(1, n), sampled);
        }
        if complete {
            self.note_depth(depth, &estimate);
        }
        // A complete subtree's estimate is what was counted, but for the packages a sample
        // stood for.
        Subtree {
            counted,
            estimate: if complete && !sampled {
                counted
            } else {
                estimate
            },
            complete,
            sampled,
        }
    }

    /// The sum and number of directories the `pending` unvisited children of a directory at
    /// `depth` are taken to be like. Unlisted siblings are like the listed ones (readdir order
    /// is not by size); with none listed here, like complete directories at the same depth
    /// anywhere; with none anywhere, empty (counted as unguessed).
    fn like_unvisited(&self, depth: usize, pending: u64, visited: (Counts, u64)) -> (Counts, u64) {
        if visited.1 > 0 {
            visited
        } else if let Some(mean) = self.depth_mean(depth + 1) {
            mean
        } else {
            self.unguessed_dirs.fetch_add(pending, Ordering::Relaxed);
            (Counts::default(), 1)
        }
    }

    /// Records the tagged trees among the unvisited children, each guessed at `each`.
    fn record_unvisited(
        &self,
        dir: &Path,
        inside: Inside,
        results: &[(OsString, Option<Subtree>)],
        each: Counts,
        sampled: bool,
    ) {
        for (name, _) in results.iter().filter(|(_, sub)| sub.is_none()) {
            let path = dir.join(name);
            if let Some(tag) = self.tag_for(&path, name, inside) {
                let guessed = Subtree {
                    counted: Counts::default(),
                    estimate: each,
                    complete: false,
                    sampled,
                };
                self.record(tag, self.relative(&path), guessed, false);
            }
        }
    }

    fn mean_file_size(&self) -> (u64, u64) {
        let n = self.stat_files.load(Ordering::Relaxed);
        if n == 0 {
            return (0, 0);
        }
        (
            self.stat_bytes.load(Ordering::Relaxed) / n,
            self.stat_alloc.load(Ordering::Relaxed) / n,
        )
    }

    fn note_depth(&self, depth: usize, counts: &Counts) {
        if let Ok(mut means) = self.depth_means.lock() {
            if means.len() <= depth {
                means.resize(depth + 1, (Counts::default(), 0));
            }
            means[depth].0.add(counts);
            means[depth].1 += 1;
        }
    }

    /// The mean complete subtree at `depth`, or at the nearest depth that has one; None before
    /// any directory has been listed to the end.
    fn depth_mean(&self, depth: usize) -> Option<(Counts, u64)> {
        let means = self.depth_means.lock().ok()?;
        (0..means.len())
            .filter(|&d| means[d].1 > 0)
            .min_by_key(|&d| d.abs_diff(depth))
            .map(|d| means[d])
    }
}
