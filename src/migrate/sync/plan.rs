//! A sync's plan: what changed at the old place since the migration (or its last sync), against
//! the manifest, and what copying it over does at the destination, path by path. What changed at
//! the destination since (against its snapshot, `measure::snapshot`) is never overwritten: a file
//! changed at both places is a conflict, kept both ways.
//!
//! The plan is a list of operations (`Op`), written into the sync's staging folder when the copy
//! is verified, so applying it is resumed from that list alone, whatever the two trees hold then.

mod planner;

use super::guard::Guard;
use super::history::{self, Places};
use crate::base::error::{Failure, Result};
use crate::measure::changes::{self, Seen};
use crate::migrate::kernel::engine::plan::{CopyPlan, Kind};
use crate::migrate::kernel::outcome::SyncReport;
use crate::store::manifest::{self, ManifestEntry};
use crate::store::sync_ops::Op;
use crate::store::{moved, snapshot};
use planner::Planner;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// The sync's plan: the copy's own plan (only what is copied) and the operations.
#[derive(Debug, Clone)]
pub struct SyncPlan {
    pub report: SyncReport,
    pub copy: CopyPlan,
    pub ops: Vec<Op>,
    /// Files and links removed at the source since: gone from the manifest after the sync,
    /// whether removed at the destination or kept there as a conflict.
    pub gone: Vec<PathBuf>,
    /// Files the copy holds outside `.git` and `node_modules`: what git's refresh visits.
    pub tracked: u64,
    /// Changes at the old place its commits hold, left to its history, and why git could not
    /// tell them (then every change syncs as a file).
    pub committed: Vec<PathBuf>,
    pub committed_failed: Option<String>,
    /// The committed files as the plan's walk saw them: the manifest records these once the
    /// fetch has brought their commits (`recorded.rs`).
    pub committed_seen: Vec<Seen>,
}

/// `here` without the changes the old place's commits hold (`committed`), nor a folder made
/// there only for them: the fetch brings them, a fast-forward puts them in the copy's work
/// tree, and as files they would be edits of the copy's own commit.
/// Returns them, or why git could not tell (then every change syncs as a file).
fn leave_to_history(
    places: Option<&Places>,
    here: &mut changes::Changes,
    size_of: impl Fn(&Path) -> u64,
) -> (Vec<PathBuf>, Option<String>) {
    let committed = match places.map(|p| history::committed(p, here)) {
        Some(Ok(found)) if !found.is_empty() => found,
        Some(Err(why)) => return (Vec::new(), Some(why)),
        _ => return (Vec::new(), None),
    };
    let paths: Vec<PathBuf> = committed.iter().cloned().collect();
    here.leave_out(&paths, size_of);
    let only_for_history = |dir: &PathBuf| {
        committed.iter().any(|p| p.starts_with(dir))
            && !here.added.iter().any(|p| p.starts_with(dir))
    };
    let kept: Vec<PathBuf> = here
        .added_dirs
        .iter()
        .filter(|d| !only_for_history(d))
        .cloned()
        .collect();
    here.added_dirs = kept;
    let mut paths = paths;
    paths.sort();
    (paths, None)
}

/// A file git's index may track: not git's own, not a dependency tree.
pub fn worktree_file(rel: &Path) -> bool {
    !rel.components()
        .any(|c| c.as_os_str() == ".git" || c.as_os_str() == "node_modules")
}

impl SyncPlan {
    /// Nothing to copy, remove or record (a file removed at both places is still taken out of
    /// the manifest, or the old place would count it removed forever).
    pub fn is_empty(&self) -> bool {
        self.gone.is_empty()
            && self
                .ops
                .iter()
                .all(|op| matches!(op, Op::Keep(_) | Op::Times { .. }))
    }
}

/// The source's and the destination's changes since the migration (or the last sync), and
/// what the sync does about each. Walks the source once (by `lstat`) and the destination once.
pub(super) fn build(
    env: &crate::host::HostEnv,
    moved: &moved::Moved,
    staging: &Path,
    day: &str,
    places: Option<&Places>,
) -> Result<SyncPlan> {
    let (source, destination) = (&moved.source, &moved.destination);
    let entries = read_manifest(moved)?;
    let (seen, mut here, mut there) = changes_at_both(env, moved, &entries)?;
    let seen_at: HashMap<&Path, &Seen> = seen.iter().map(|s| (s.rel.as_path(), s)).collect();
    let left_out = changes::not_synced_as_files(&entries, &seen);
    let size = |rel: &Path| seen_at.get(rel).map_or(0, |s| s.size);
    here.leave_out(&left_out, size);
    there.leave_out(&left_out, |_| 0);
    let (committed, committed_failed) = leave_to_history(places, &mut here, size);
    let touched: HashSet<&Path> = there
        .added
        .iter()
        .chain(&there.changed)
        .chain(&there.removed)
        .map(PathBuf::as_path)
        .collect();
    let guard = Guard::new(moved, &entries, &seen_at, &here, touched.clone());
    let committed_seen = committed
        .iter()
        .filter_map(|rel| seen_at.get(rel.as_path()).map(|s| (*s).clone()))
        .collect();
    let sync = SyncPlan {
        report: SyncReport {
            changed_at_destination: there.count(),
            ..SyncReport::default()
        },
        copy: CopyPlan {
            source: source.clone(),
            destination: destination.clone(),
            staging: staging.to_path_buf(),
            ..CopyPlan::default()
        },
        ops: Vec::new(),
        gone: here.removed.clone(),
        committed_seen,
        committed,
        committed_failed,
        tracked: tracked_files(&entries),
    };
    Planner::new(moved, seen_at, touched, day, guard, sync).plan(&here, &there)
}

/// The source's walk, and what changed since at the source (against the manifest) and at the
/// destination (against its snapshot, or the manifest without one).
fn changes_at_both(
    env: &crate::host::HostEnv,
    moved: &moved::Moved,
    entries: &[ManifestEntry],
) -> Result<(Vec<Seen>, changes::Changes, changes::Changes)> {
    let (source, destination) = (&moved.source, &moved.destination);
    let untouched = "nothing was synced.";
    let again = crate::migrate::kernel::engine::staging::command(source, destination, " --sync");
    // Ctrl-C during the walk: the last line still says how to go on.
    let stopped = |unseen: changes::Unseen, root: &Path| match unseen {
        changes::Unseen::Interrupted => {
            Failure::interrupted(&format!("nothing was synced; to sync later: `{again}`"))
        }
        other => other.failure(root, untouched),
    };
    let seen = changes::walk(source).map_err(|u| stopped(u, source))?;
    let here = changes::classify(source, entries, &seen);
    let kept = moved::snapshot_path(env, destination);
    let baseline = snapshot::baseline(kept.as_deref(), entries);
    let mut there =
        changes::at_destination(destination, &baseline).map_err(|u| stopped(u, destination))?;
    // A nested repository's index (its `.git` still syncs as files) is a cache `git status`
    // rewrites: the source's replaces it (refreshed after), or it stays.
    there.changed.retain(|rel| !changes::is_git_index(rel));
    Ok((seen, here, there))
}

/// The files of the copy git's index may track: what its refresh visits.
fn tracked_files(entries: &[ManifestEntry]) -> u64 {
    entries
        .iter()
        .filter(|e| matches!(e, ManifestEntry::File(r) if worktree_file(&r.rel)))
        .count() as u64
}

/// The manifest of `moved`'s migration, which must describe its source.
fn read_manifest(moved: &moved::Moved) -> Result<Vec<ManifestEntry>> {
    let source = &moved.source;
    let Some((listed, entries)) = manifest::read(&moved.manifest) else {
        return Err(Failure::internal(format!(
            "the manifest {} of the migration of {} cannot be read, so what changed since cannot be told; nothing was copied.",
            moved.manifest.display(),
            source.display()
        )));
    };
    if &listed != source {
        return Err(Failure::internal(format!(
            "the manifest {} describes {}, not {}; nothing was copied.",
            moved.manifest.display(),
            listed.display(),
            source.display()
        )));
    }
    Ok(entries)
}

/// The manifest after the sync: the copied files' new records (conflicts included: the
/// source's version is at the destination, under its saved name), removed paths gone.
pub fn new_manifest(
    old: &[ManifestEntry],
    ops: &[Op],
    copy: &CopyPlan,
    records: &[crate::store::manifest::FileRecord],
    staged: &Path,
    removed_here: &[PathBuf],
) -> Vec<ManifestEntry> {
    let gone: HashSet<&Path> = removed_here.iter().map(PathBuf::as_path).collect();
    let removed_dirs: HashSet<&Path> = ops
        .iter()
        .filter_map(|op| match op {
            Op::Rmdir(rel) => Some(rel.as_path()),
            _ => None,
        })
        .collect();
    let mut by_rel: std::collections::BTreeMap<PathBuf, ManifestEntry> = old
        .iter()
        .filter(|e| {
            let rel = e.rel();
            !gone.contains(rel) && !removed_dirs.contains(rel)
        })
        .map(|e| (e.rel().to_path_buf(), e.clone()))
        .collect();
    for r in records {
        by_rel.insert(r.rel.clone(), ManifestEntry::File(r.clone()));
    }
    for e in &copy.entries {
        match e.kind {
            Kind::Dir => {
                by_rel
                    .entry(e.rel.clone())
                    .or_insert_with(|| ManifestEntry::Dir(e.rel.clone()));
            }
            Kind::Symlink => {
                if let Ok(target) = crate::base::dirfd::read_link(&staged.join(&e.rel)) {
                    by_rel.insert(
                        e.rel.clone(),
                        ManifestEntry::Symlink {
                            rel: e.rel.clone(),
                            target,
                        },
                    );
                }
            }
            Kind::File => {}
        }
    }
    by_rel.into_values().collect()
}
