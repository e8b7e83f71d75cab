//! The sync's plan made path by path: what each change at the source does at the destination,
//! given what changed there, and what the copy stages for it.

use super::SyncPlan;
use crate::base::error::{Failure, Result};
use crate::base::pathtext::RelPath;
use crate::measure::changes::{self, Seen, SeenKind};
use crate::migrate::kernel::engine::plan::{Entry, Kind};
use crate::migrate::kernel::outcome::Conflict;
use crate::migrate::sync::guard::Guard;
use crate::store::moved;
use crate::store::sync_ops::Op;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

/// Builds the operations and the copy's plan, path by path.
pub(super) struct Planner<'a> {
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

impl<'a> Planner<'a> {
    pub(super) fn new(
        moved: &'a moved::Moved,
        seen: HashMap<&'a Path, &'a Seen>,
        touched: HashSet<&'a Path>,
        day: &'a str,
        guard: Guard<'a>,
        sync: SyncPlan,
    ) -> Self {
        Planner {
            source: &moved.source,
            destination: &moved.destination,
            seen,
            touched,
            day,
            sync,
            saved: HashSet::new(),
            dirs: BTreeSet::new(),
            staged_dirs: HashSet::new(),
            guard,
            held: HashSet::new(),
        }
    }

    /// The plan for what changed at the source (`here`), given what changed at the destination
    /// (`there`).
    pub(super) fn plan(
        mut self,
        here: &changes::Changes,
        there: &changes::Changes,
    ) -> Result<SyncPlan> {
        self.operations(here, there)?;
        self.finish(there);
        self.sync.report.changed_at_destination = self.kept_there();
        Ok(self.sync)
    }
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
            let why = match (made_again, removed_there, added) {
                (Some(why), _, _) => why,
                (None, true, _) => "removed at the destination, changed here",
                (None, false, true) => "added at both places",
                (None, false, false) => "changed at both places",
            };
            self.save_beside(rel, seen, why);
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

    /// A conflict: the source's version is put beside the destination's, under a free name.
    fn save_beside(&mut self, rel: &Path, seen: &Seen, why: &str) {
        let saved = self.free_name(rel);
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
            copy.totals.dirs += 1;
        }
        copy.entries.push(entry(seen, kind));
        match kind {
            Kind::File => {
                copy.totals.files += 1;
                copy.totals.bytes += seen.size;
            }
            _ => copy.totals.symlinks += 1,
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
        self.folder_times();
        for rel in there
            .added
            .iter()
            .chain(&there.changed)
            .chain(&there.removed)
        {
            self.sync.ops.push(Op::Keep(rel.clone()));
        }
        self.order_copy();
    }

    /// The times and modes of the folders the sync touches (those above what it puts or
    /// removes), set again once their content changed.
    fn folder_times(&mut self) {
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
    }

    /// The copy's plan in order, with the names of one file linked as at the source.
    fn order_copy(&mut self) {
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
