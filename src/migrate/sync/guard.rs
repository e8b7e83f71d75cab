//! What a sync may do at the copy, after the move: a file missing at the source is a user's
//! deletion only at a source that is still the folder the migration copied, that the tool did
//! not empty (`--remove-source`) and that was not emptied whole, and only when no folder above
//! it at the source is a link now (its files may be the copy's, reached through it). At the
//! destination, nothing is written or removed below a folder that is a link or a file now
//! (`post_walk`), and a folder the sync empties is no conflict for what takes its place.

use crate::measure::changes::{Changes, Seen, SeenKind};
use crate::migrate::kernel::{identity, post_walk};
use crate::store::manifest::{self, ManifestEntry};
use crate::store::moved::Moved;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

pub(super) struct Guard<'a> {
    destination: &'a Path,
    /// Removals at the source are the user's (see the module's comment).
    removals_are_edits: bool,
    /// Paths at the source that are links (or special files) now.
    links_here: HashSet<&'a Path>,
    /// Folders removed at the source whose copy nothing else changed.
    removed_dirs: HashSet<&'a Path>,
    /// Paths changed at the destination since.
    touched: HashSet<&'a Path>,
    /// Files and links the sync removes at the destination.
    pub removing: HashSet<PathBuf>,
    /// `--remove-source` ran: the copied files it kept at the source. Any other file there is
    /// made again since (in a removed file's place, maybe with its inode), and never replaces
    /// the copy's version.
    removed_source: Option<HashSet<String>>,
    /// The source is not the folder the migration copied (removed and made again, or another
    /// folder moved to its path): nothing in it is an edit of the copy's files.
    source_replaced: bool,
}

impl<'a> Guard<'a> {
    pub fn new(
        moved: &'a Moved,
        entries: &[ManifestEntry],
        seen: &HashMap<&'a Path, &'a Seen>,
        here: &'a Changes,
        touched: HashSet<&'a Path>,
    ) -> Self {
        let copied_files = manifest::file_paths(entries);
        let emptied = !copied_files.is_empty()
            && !seen
                .values()
                .any(|s| s.kind == SeenKind::File && copied_files.contains(s.rel.as_path()));
        let source_replaced = !identity::same_source(moved);
        Self {
            destination: &moved.destination,
            removals_are_edits: !moved.source_removed && !emptied && !source_replaced,
            links_here: seen
                .iter()
                .filter(|(_, s)| matches!(s.kind, SeenKind::Symlink | SeenKind::Other))
                .map(|(rel, _)| *rel)
                .collect(),
            removed_dirs: here.removed_dirs.iter().map(PathBuf::as_path).collect(),
            touched,
            removing: HashSet::new(),
            removed_source: moved
                .source_removed
                .then(|| moved.kept_at_removal.iter().cloned().collect()),
            source_replaced,
        }
    }

    /// Why a file at the source is not an edit of the copy's version, which then stays (the
    /// source's is saved beside it): it was made after `--remove-source` took the one copied
    /// there, or the whole source folder was made again since.
    pub fn made_again(&self, seen: &Seen) -> Option<&'static str> {
        if self.source_replaced {
            return Some("the source folder was made again since the migration; the copy's stays");
        }
        self.removed_source
            .as_ref()
            .is_some_and(|kept| !kept.contains(&crate::base::pathtext::escape_path(&seen.rel)))
            .then_some("made here again after --remove-source; the copy's stays")
    }

    /// `rel`, gone from the source, was removed there by the user.
    pub fn removed_by_user(&self, rel: &Path) -> bool {
        self.removals_are_edits
            && !rel
                .ancestors()
                .skip(1)
                .any(|folder| self.links_here.contains(folder))
    }

    /// The sync empties `rel` at the destination and removes it before it puts anything there.
    pub fn vacated(&self, rel: &Path) -> bool {
        // A folder that is a link at the source now keeps its files in the copy (what the link
        // reaches may be those very files), so it is never emptied for the link.
        self.removing.contains(rel)
            || (self.removed_dirs.contains(rel)
                && !self.links_here.contains(rel)
                && !self.touched.iter().any(|t| t.starts_with(rel))
                && self.removed_by_user(rel))
    }

    /// The folder above `rel` at the destination that is a link or a file now (and that the
    /// sync does not remove first).
    pub fn blocked(&self, rel: &Path) -> Option<PathBuf> {
        post_walk::blocked(self.destination, rel, &|folder| self.vacated(folder))
    }
}
