//! A sync's plan: what changed at the old place since the migration (or its last sync), against
//! the manifest, and what copying it over does at the destination, path by path. What changed at
//! the destination since (against its snapshot, `measure::snapshot`) is never overwritten: a file
//! changed at both places is a conflict, kept both ways.
//!
//! The plan is a list of operations (`Op`), written into the sync's staging folder when the copy
//! is verified, so applying it is resumed from that list alone, whatever the two trees hold then.

use super::guard::Guard;
use super::history::{self, Places};
use crate::base::error::{Failure, Result};
use crate::base::pathtext::RelPath;
use crate::measure::changes::{self, Seen, SeenKind};
use crate::measure::manifest::{self, ManifestEntry};
pub use crate::measure::sync_ops::Op;
use crate::measure::{moved, snapshot};
use crate::migrate::kernel::engine::plan::{CopyPlan, Entry, Kind};
use crate::migrate::kernel::outcome::{Conflict, SyncReport};
use std::collections::{BTreeSet, HashMap, HashSet};
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
    let untouched = "nothing was synced.";
    let seen = changes::walk(source).map_err(|u| u.failure(source, untouched))?;
    let mut here = changes::classify(source, &entries, &seen);
    let kept = moved::snapshot_path(env, destination);
    let baseline = snapshot::baseline(kept.as_deref(), &entries);
    let mut there =
        snapshot::changes(destination, &baseline).map_err(|u| u.failure(destination, untouched))?;
    // A nested repository's index (its `.git` still syncs as files) is a cache `git status`
    // rewrites: the source's replaces it (refreshed after), or it stays.
    there.changed.retain(|rel| !snapshot::is_git_index(rel));
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
    let mut plan = Planner {
        source,
        destination,
        seen: seen_at,
        touched,
        day,
        sync: SyncPlan {
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
            tracked: entries
                .iter()
                .filter(|e| matches!(e, ManifestEntry::File(r) if worktree_file(&r.rel)))
                .count() as u64,
        },
        saved: HashSet::new(),
        dirs: BTreeSet::new(),
        staged_dirs: HashSet::new(),
        guard,
        held: HashSet::new(),
    };
    plan.operations(&here, &there)?;
    plan.finish(&there);
    plan.sync.report.changed_at_destination = plan.kept_there();
    Ok(plan.sync)
}

impl Planner<'_> {
    /// The operations for what changed at the source (`here`), given what changed at the
    /// destination (`there`).
    fn operations(&mut self, here: &changes::Changes, there: &changes::Changes) -> Result<()> {
        let added: HashSet<&Path> = here.added.iter().map(PathBuf::as_path).collect();
        // Removals first: what they take away at the destination makes room for what is put.
        for rel in here.removed.iter().filter(|r| !added.contains(r.as_path())) {
            self.remove(rel, there.removed.contains(rel));
        }
        for dir in &here.added_dirs {
            if self.blocked_there(dir) {
                continue;
            }
            self.sync.ops.push(Op::Dir(dir.clone()));
            self.dirs.insert(dir.clone());
            self.parents(dir);
        }
        for rel in &here.added {
            self.copy(rel, true, there.removed.contains(rel))?;
        }
        for rel in &here.changed {
            self.copy(rel, false, there.removed.contains(rel))?;
        }
        let mut gone: Vec<&PathBuf> = here
            .removed_dirs
            .iter()
            .filter(|d| self.guard.removed_by_user(d) && self.guard.blocked(d).is_none())
            .collect();
        gone.sort_by(|a, b| b.cmp(a));
        self.sync
            .ops
            .extend(gone.into_iter().map(|d| Op::Rmdir(d.clone())));
        Ok(())
    }
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

/// Builds the operations and the copy's plan, path by path.
struct Planner<'a> {
    source: &'a Path,
    destination: &'a Path,
    seen: HashMap<&'a Path, &'a Seen>,
    /// Paths changed at the destination since.
    touched: HashSet<&'a Path>,
    day: &'a str,
    sync: SyncPlan,
    /// Names chosen for saved versions, so two conflicts never take the same one.
    saved: HashSet<PathBuf>,
    /// Folders the sync touches (the parents of what it puts or removes).
    dirs: BTreeSet<PathBuf>,
    /// Folders already in the copy's plan.
    staged_dirs: HashSet<PathBuf>,
    /// What may be done at the destination, after the move.
    guard: Guard<'a>,
    /// Removed at the source but not from the copy: kept in the manifest too.
    held: HashSet<PathBuf>,
}

impl Planner<'_> {
    /// One file or link added or changed at the source: copied over the destination's, or,
    /// when that changed too, saved beside it.
    fn copy(&mut self, rel: &Path, added: bool, removed_there: bool) -> Result<()> {
        let Some(seen) = self.seen.get(rel).copied() else {
            return Ok(());
        };
        if self.blocked_there(rel) {
            return Ok(());
        }
        let there = crate::base::dirfd::lstat(&self.destination.join(rel));
        if seen.kind == SeenKind::Symlink
            && there.as_ref().is_ok_and(|m| m.is_dir())
            && !self.guard.vacated(rel)
        {
            // A folder of the copy is a link at the source: its files may be the copy's own,
            // reached through it; the copy's folder stays as it is.
            self.sync.report.conflicts.push(Conflict {
                path: RelPath::from(rel),
                why: "a folder in the copy, a link here: the copy's folder is kept, the link is not copied".into(),
                saved_as: None,
                diff: None,
                merge: None,
            });
            return Ok(());
        }
        let exists_there = there.is_ok() && !self.guard.vacated(rel);
        let made_again = exists_there.then(|| self.guard.made_again(seen)).flatten();
        let conflict =
            self.touched.contains(rel) || (added && exists_there) || made_again.is_some();
        self.stage(seen)?;
        if conflict {
            let saved = self.free_name(rel);
            let why = match (made_again, removed_there, added) {
                (Some(why), _, _) => why,
                (None, true, _) => "removed at the destination, changed here",
                (None, false, true) => "added at both places",
                (None, false, false) => "changed at both places",
            };
            self.sync.report.conflicts.push(Conflict::saved(
                rel,
                why,
                &saved,
                seen.kind == SeenKind::File,
            ));
            if seen.kind == SeenKind::File {
                self.sync.report.saved_bytes += seen.size;
            }
            self.sync.ops.push(Op::Save {
                rel: rel.to_path_buf(),
                saved,
            });
        } else {
            match added {
                true => self.sync.report.added += 1,
                false => self.sync.report.changed += 1,
            }
            self.sync.ops.push(Op::Put(rel.to_path_buf()));
        }
        if seen.kind == SeenKind::File {
            self.sync.report.bytes += seen.size;
        }
        self.parents(rel);
        Ok(())
    }

    /// One file or link removed at the source: removed at the destination only when it is as
    /// the migration left it there.
    fn remove(&mut self, rel: &Path, removed_there: bool) {
        if removed_there {
            return;
        }
        if !self.guard.removed_by_user(rel) || self.blocked_there(rel) {
            self.held.insert(rel.to_path_buf());
            return;
        }
        if self.touched.contains(rel) {
            self.sync.report.conflicts.push(Conflict {
                path: RelPath::from(rel),
                why: "changed at the destination, removed here: the destination's is kept"
                    .to_string(),
                saved_as: None,
                diff: None,
                merge: None,
            });
            return;
        }
        self.sync.report.removed += 1;
        self.guard.removing.insert(rel.to_path_buf());
        self.sync.ops.push(Op::Remove(rel.to_path_buf()));
        self.parents(rel);
    }

    /// The entry in the copy's plan, with its folders (the staged tree holds them too).
    fn stage(&mut self, seen: &Seen) -> Result<()> {
        let kind = match seen.kind {
            SeenKind::File => Kind::File,
            SeenKind::Symlink => Kind::Symlink,
            _ => return Ok(()),
        };
        let copy = &mut self.sync.copy;
        for dir in seen.rel.ancestors().skip(1) {
            if dir.as_os_str().is_empty() || !self.staged_dirs.insert(dir.to_path_buf()) {
                continue;
            }
            let Some(d) = self.seen.get(dir) else {
                return Err(Failure::internal(format!(
                    "{} was not found while planning the sync; nothing was copied, run it again.",
                    self.source.join(dir).display()
                )));
            };
            copy.entries.push(entry(d, Kind::Dir));
            copy.dirs += 1;
        }
        copy.entries.push(entry(seen, kind));
        match kind {
            Kind::File => {
                copy.files += 1;
                copy.bytes += seen.size;
            }
            _ => copy.symlinks += 1,
        }
        Ok(())
    }

    /// A folder above `rel` at the destination is a link or a file now: nothing is written or
    /// removed through it; what the source has there stays at the source, listed.
    fn blocked_there(&mut self, rel: &Path) -> bool {
        let Some(folder) = self.guard.blocked(rel) else {
            return false;
        };
        self.held.insert(rel.to_path_buf());
        self.sync.report.conflicts.push(Conflict {
            path: RelPath::from(rel),
            why: format!(
                "{} at the destination is a link or a file now: left here, not copied",
                RelPath::from(folder)
            ),
            saved_as: None,
            diff: None,
            merge: None,
        });
        true
    }

    /// `NAME.from-source-YYYYMMDD`, or with `-2`, `-3`... when that is taken.
    fn free_name(&mut self, rel: &Path) -> PathBuf {
        let mut name = rel.file_name().unwrap_or_default().to_os_string();
        name.push(format!(".from-source-{}", self.day));
        let first = rel.with_file_name(&name);
        let mut candidate = first.clone();
        let mut n = 2;
        while self.saved.contains(&candidate)
            || crate::base::dirfd::lstat(&self.destination.join(&candidate)).is_ok()
        {
            let mut next = name.clone();
            next.push(format!("-{n}"));
            candidate = rel.with_file_name(next);
            n += 1;
        }
        self.saved.insert(candidate.clone());
        candidate
    }

    fn parents(&mut self, rel: &Path) {
        for dir in rel.ancestors().skip(1) {
            self.dirs.insert(dir.to_path_buf());
        }
    }

    /// Paths changed at the destination since and left as they are: a conflict's path is
    /// counted once, as a conflict, not also here.
    fn kept_there(&self) -> u64 {
        let conflicted: HashSet<&Path> = self
            .sync
            .report
            .conflicts
            .iter()
            .map(|c| c.path.as_path())
            .collect();
        self.touched
            .iter()
            .filter(|rel| !conflicted.contains(*rel))
            .count() as u64
    }

    /// The folders' times and modes, the kept paths, and the copy's plan in order.
    fn finish(&mut self, there: &changes::Changes) {
        // Both a removed file and an added link of one name (its kind changed): it stays.
        let put: HashSet<PathBuf> = self
            .sync
            .ops
            .iter()
            .filter_map(|op| match op {
                Op::Put(rel) | Op::Save { rel, .. } => Some(rel.clone()),
                _ => None,
            })
            .collect();
        let held = &self.held;
        self.sync
            .gone
            .retain(|rel| !put.contains(rel) && !held.contains(rel));
        for rel in self.sync.ops.clone().iter().filter_map(|op| match op {
            Op::Rmdir(rel) => Some(rel),
            _ => None,
        }) {
            self.parents(rel);
        }
        let root = crate::base::dirfd::lstat(self.source)
            .ok()
            .map(|m| Seen::of(PathBuf::new(), &m));
        for dir in &self.dirs {
            let seen = match dir.as_os_str().is_empty() {
                true => root.as_ref(),
                false => self.seen.get(dir.as_path()).copied(),
            };
            if let Some(s) = seen.filter(|s| s.kind == SeenKind::Dir) {
                self.sync.ops.push(Op::Times {
                    rel: dir.clone(),
                    mode: s.mode,
                    atime: s.atime,
                    mtime: s.mtime,
                });
            }
        }
        for rel in there
            .added
            .iter()
            .chain(&there.changed)
            .chain(&there.removed)
        {
            self.sync.ops.push(Op::Keep(rel.clone()));
        }
        // Folders before what they hold, as the first copy's plan has them.
        self.sync.copy.entries.sort_by(|a, b| a.rel.cmp(&b.rel));
        // Names of one file at the source stay one file in the copy, as the first copy made
        // them: the first name is copied, the others linked to it.
        let mut first_names: HashMap<u64, PathBuf> = HashMap::new();
        for entry in &mut self.sync.copy.entries {
            if entry.kind != Kind::File || entry.stamp.ino == 0 {
                continue;
            }
            let first = first_names
                .entry(entry.stamp.ino)
                .or_insert_with(|| entry.rel.clone());
            if *first != entry.rel {
                entry.hard_link_of = Some(first.clone());
            }
        }
    }
}

fn entry(seen: &Seen, kind: Kind) -> Entry {
    Entry {
        rel: seen.rel.clone(),
        kind,
        size: if kind == Kind::File { seen.size } else { 0 },
        mode: seen.mode,
        mtime: seen.mtime,
        atime: seen.atime,
        stamp: seen.stamp,
        hard_link_of: None,
    }
}

/// The manifest after the sync: the copied files' new records (conflicts included: the
/// source's version is at the destination, under its saved name), removed paths gone.
pub fn new_manifest(
    old: &[ManifestEntry],
    ops: &[Op],
    copy: &CopyPlan,
    records: &[crate::measure::manifest::FileRecord],
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
