//! The comparison of what the source holds now with what was copied (the manifest): one seen
//! entry at a time against the copy's entry of the same path and kind, then what was copied and
//! is gone.

use super::{Changes, FileRecord, ManifestEntry, Seen, SeenKind, dirfd};
use std::collections::{HashMap, HashSet};
use std::path::Path;

/// The manifest's entries by kind, looked up by path.
pub(super) struct Copied<'a> {
    files: HashMap<&'a Path, &'a FileRecord>,
    links: HashMap<&'a Path, &'a Path>,
    pub(super) dirs: HashSet<&'a Path>,
}

impl<'a> Copied<'a> {
    pub(super) fn of(entries: &'a [ManifestEntry]) -> Self {
        let mut copied = Copied {
            files: HashMap::new(),
            links: HashMap::new(),
            dirs: HashSet::new(),
        };
        for entry in entries {
            match entry {
                ManifestEntry::File(r) => {
                    copied.files.insert(&r.rel, r);
                }
                ManifestEntry::Symlink { rel, target } => {
                    copied.links.insert(rel, target);
                }
                ManifestEntry::Dir(rel) => {
                    copied.dirs.insert(rel);
                }
            }
        }
        copied
    }

    /// Notes in `changes` how the entry `s` of `source` differs from its copy; true when it was
    /// copied (as the same kind).
    pub(super) fn compare(&self, source: &Path, s: &Seen, changes: &mut Changes) -> bool {
        let rel = s.rel.as_path();
        match s.kind {
            SeenKind::File => match self.files.get(rel) {
                Some(r) => {
                    if !unchanged(r, s) {
                        changes.changed.push(s.rel.clone());
                        changes.bytes += s.size;
                    }
                    true
                }
                None => {
                    changes.added.push(s.rel.clone());
                    changes.bytes += s.size;
                    false
                }
            },
            SeenKind::Symlink => match self.links.get(rel) {
                Some(target) => {
                    let now = dirfd::read_link(&source.join(rel)).ok();
                    if now.as_deref() != Some(*target) {
                        changes.changed.push(s.rel.clone());
                    }
                    true
                }
                None => {
                    changes.added.push(s.rel.clone());
                    false
                }
            },
            SeenKind::Dir if self.dirs.contains(rel) => true,
            SeenKind::Dir => {
                changes.added_dirs.push(s.rel.clone());
                false
            }
            SeenKind::Other => false,
        }
    }

    /// Notes in `changes` what was copied and is not `present` now.
    pub(super) fn removed(&self, present: &HashSet<&Path>, changes: &mut Changes) {
        for rel in self.files.keys().chain(self.links.keys()) {
            if !present.contains(rel) {
                changes.removed.push(rel.to_path_buf());
            }
        }
        for rel in &self.dirs {
            if !present.contains(rel) {
                changes.removed_dirs.push(rel.to_path_buf());
            }
        }
    }
}

/// The file as it was copied: its stat as recorded (size and mtime alone for a manifest written
/// before stamps were).
fn unchanged(r: &FileRecord, s: &Seen) -> bool {
    match r.stamp {
        Some(_) => r.unchanged(s.size, s.mtime, s.stamp),
        None => r.size == s.size && r.mtime == s.mtime,
    }
}
