//! What changed at the old place since its migration finished: source files added, changed or
//! removed, against the manifest. Stat only (size, mtime, ctime and inode as at the copy), never
//! a byte read, so it costs one walk of the source, as the plan's own; `check` at the old place
//! counts with it, and a sync (`migrate` run again) plans with it.

use crate::base::dirfd::{self, Meta};
use crate::base::error::Failure;
use crate::base::interrupt;
use crate::store::manifest::{self, FileRecord, ManifestEntry, Stamp};
use crate::store::moved::Moved;
use serde::Serialize;
use std::collections::{HashMap, HashSet};
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// One entry of the source as it is now.
#[derive(Debug, Clone)]
pub struct Seen {
    pub rel: PathBuf,
    pub kind: SeenKind,
    pub size: u64,
    pub mtime: (i64, i64),
    pub stamp: Stamp,
    /// Permission bits and atime: what a sync gives the copy it makes, as the first copy did.
    pub mode: u32,
    pub atime: (i64, i64),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeenKind {
    File,
    Dir,
    Symlink,
    /// FIFOs, sockets, devices: never copied, so never a change.
    Other,
}

impl Seen {
    pub fn of(rel: PathBuf, meta: &Meta) -> Self {
        let kind = match meta {
            m if m.is_file() => SeenKind::File,
            m if m.is_dir() => SeenKind::Dir,
            m if m.is_symlink() => SeenKind::Symlink,
            _ => SeenKind::Other,
        };
        Self {
            rel,
            kind,
            size: meta.len(),
            mtime: (meta.mtime(), meta.mtime_nsec()),
            stamp: Stamp::of(meta),
            mode: meta.mode() & 0o7777,
            atime: (meta.atime(), meta.atime_nsec()),
        }
    }
}

/// The source's changes since the copy, each list sorted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Changes {
    /// Files and symlinks that were not copied then (or were something else then).
    pub added: Vec<PathBuf>,
    /// Files whose stat moved since the copy, and symlinks that point elsewhere now.
    pub changed: Vec<PathBuf>,
    /// Files and symlinks copied then and gone from the source now.
    pub removed: Vec<PathBuf>,
    /// Folders made since, and folders copied then and gone now.
    pub added_dirs: Vec<PathBuf>,
    pub removed_dirs: Vec<PathBuf>,
    /// Bytes of the added and changed files: what a sync reads and writes.
    pub bytes: u64,
}

/// What a name inside a folder says the folder is, when it is build output its tool writes again
/// whole after a move (measured: docs/migrate.md): a Jest cache (`cacheDirectory` inside the
/// tree), whose keys hold the project's absolute path.
pub fn rebuilt_after_a_move(name: &[u8], is_dir: bool) -> Option<BuildKind> {
    let jest = (is_dir && name.starts_with(b"jest-transform-cache-"))
        || (!is_dir && name.starts_with(b"haste-map-"));
    jest.then_some(BuildKind::JestCache)
}

/// The tool whose build output a folder is; JSON writes its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BuildKind {
    JestCache,
}

impl BuildKind {
    /// Its name, as the plan's question, its JSON and every report spell it.
    pub fn name(self) -> &'static str {
        match self {
            BuildKind::JestCache => "jest cache",
        }
    }
}

impl Serialize for BuildKind {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

/// The build output left behind at the source: folders marked by `rebuilt_after_a_move` that
/// the manifest does not hold.
pub fn left_behind_output(entries: &[ManifestEntry], seen: &[Seen]) -> Vec<PathBuf> {
    let copied: HashSet<&Path> = entries
        .iter()
        .filter_map(|e| match e {
            ManifestEntry::Dir(rel) => Some(rel.as_path()),
            _ => None,
        })
        .collect();
    let mut roots: Vec<PathBuf> = seen
        .iter()
        .filter(|s| matches!(s.kind, SeenKind::File | SeenKind::Dir))
        .filter(|s| {
            s.rel.file_name().is_some_and(|n| {
                rebuilt_after_a_move(n.as_bytes(), s.kind == SeenKind::Dir).is_some()
            })
        })
        .filter_map(|s| s.rel.parent())
        .filter(|root| !root.as_os_str().is_empty() && !copied.contains(root))
        .map(Path::to_path_buf)
        .collect();
    roots.sort();
    roots.dedup();
    roots
}

/// The file that makes a folder a Python virtualenv (PEP 405).
pub const VIRTUALENV_CONFIG: &str = "pyvenv.cfg";

/// The virtualenvs of a tree: folders below its root holding a `pyvenv.cfg` in the manifest
/// (copied, then pointed at the destination) or at the source now (one left behind is only
/// there). A root holding one is no virtualenv's: nothing in it is rewritten, and leaving it
/// out would leave out the whole tree.
pub fn virtualenv_roots(entries: &[ManifestEntry], seen: &[Seen]) -> Vec<PathBuf> {
    let config = |rel: &Path| rel.file_name() == Some(std::ffi::OsStr::new(VIRTUALENV_CONFIG));
    let copied = entries.iter().filter_map(|e| match e {
        ManifestEntry::File(r) if config(&r.rel) => r.rel.parent().map(Path::to_path_buf),
        _ => None,
    });
    let here = seen
        .iter()
        .filter(|s| s.kind == SeenKind::File && config(&s.rel))
        .filter_map(|s| s.rel.parent().map(Path::to_path_buf));
    let mut roots: Vec<PathBuf> = copied
        .chain(here)
        .filter(|root| !root.as_os_str().is_empty())
        .collect();
    roots.sort();
    roots.dedup();
    roots
}

impl Changes {
    /// Leaves out every change at or below `roots`, and recounts the bytes with `size_of`:
    /// a virtualenv's copy names the destination, so the old place's version of one of its
    /// files never replaces it, and one left behind is never copied.
    pub fn leave_out(&mut self, roots: &[PathBuf], size_of: impl Fn(&Path) -> u64) {
        if roots.is_empty() {
            return;
        }
        let outside = |rel: &PathBuf| !roots.iter().any(|root| rel.starts_with(root));
        for list in [
            &mut self.added,
            &mut self.changed,
            &mut self.removed,
            &mut self.added_dirs,
            &mut self.removed_dirs,
        ] {
            list.retain(outside);
        }
        self.bytes = self
            .added
            .iter()
            .chain(&self.changed)
            .map(|rel| size_of(rel))
            .sum();
    }

    /// Files and symlinks added, changed or removed.
    pub fn count(&self) -> u64 {
        (self.added.len() + self.changed.len() + self.removed.len()) as u64
    }

    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.count() == 0 && self.added_dirs.is_empty() && self.removed_dirs.is_empty()
    }
}

pub use old_place::{Count, OldPlace, Since, Standing, old_place, told};

/// What a sync never copies as files, so no surface counts it as changed here: the
/// virtualenvs (each copy names the destination), build output left behind, and git's own
/// folder, whose history a sync brings through git (`migrate/sync/history.rs`). Counting them
/// made the old place report changes that `--sync` then said it had nothing to copy for.
pub fn not_synced_as_files(entries: &[ManifestEntry], seen: &[Seen]) -> Vec<PathBuf> {
    let mut roots = virtualenv_roots(entries, seen);
    roots.extend(left_behind_output(entries, seen));
    roots.push(PathBuf::from(".git"));
    roots
}

/// The changes at `moved.source` against its manifest that a sync would carry (None when the
/// manifest is unreadable). After `--remove-source`, what the tool removed is no change made
/// here, and `.git` (removed or kept whole, its history checked through git) holds no file a
/// sync would copy: what is left to say is the files here that differ from the copy.
pub fn since(moved: &Moved) -> Option<Changes> {
    let (listed, mut entries) = manifest::read(&moved.manifest)?;
    if listed != moved.source {
        return None;
    }
    let mut seen = walk(&moved.source).ok()?;
    // A removal that began, finished or not: what it took is no change made here.
    let removed_by_the_tool = moved.removal_began();
    if removed_by_the_tool {
        let in_git = |rel: &Path| rel.components().any(|c| c.as_os_str() == ".git");
        seen.retain(|s| !in_git(&s.rel));
        entries.retain(|e| !in_git(e.rel()));
    }
    let mut changes = classify(&moved.source, &entries, &seen);
    if removed_by_the_tool {
        changes.removed.clear();
        changes.removed_dirs.clear();
    }
    let size_of: HashMap<&Path, u64> = seen.iter().map(|s| (s.rel.as_path(), s.size)).collect();
    changes.leave_out(&not_synced_as_files(&entries, &seen), |rel| {
        size_of.get(rel).copied().unwrap_or(0)
    });
    Some(changes)
}

/// Why a walk did not see the whole tree. What it missed would pass for removed files, which a
/// sync would then remove from the copy, so an incomplete walk is never a listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unseen {
    /// Ctrl-C stopped the walk.
    Interrupted,
    /// A directory (relative to the walk's root) could not be listed, and why.
    Unreadable(PathBuf, String),
}

impl Unseen {
    /// The failure to report for a walk of `root` that stopped short; `untouched` says what was
    /// left as it was ("nothing was synced.").
    pub fn failure(&self, root: &Path, untouched: &str) -> Failure {
        match self {
            Self::Interrupted => Failure::interrupted(untouched),
            Self::Unreadable(rel, why) => Failure::input(format!(
                "{} could not be listed ({why}), so what changed below {} cannot be told and {} Make it readable, then run it again.",
                root.join(rel).display(),
                root.display(),
                untouched
            )),
        }
    }
}

/// Every entry below `source`, by the scan's parallel walker; a probe's scratch folder is not
/// the repository's. Err when Ctrl-C stopped the walk or a directory could not be listed.
pub fn walk(source: &Path) -> Result<Vec<Seen>, Unseen> {
    let found: Mutex<Vec<Seen>> = Mutex::default();
    let each = |dir: &Path, name: &OsStr, meta: &std::io::Result<Meta>| {
        let Ok(meta) = meta else {
            return;
        };
        let rel = dir.strip_prefix(source).unwrap_or(dir).join(name);
        if let Ok(mut found) = found.lock() {
            found.push(Seen::of(rel, meta));
        }
    };
    let unreadable =
        crate::measure::scan::walk_each(source, &crate::base::progress::Drawn::hidden(), &each);
    if interrupt::requested() {
        return Err(Unseen::Interrupted);
    }
    if let Some((rel, why)) = unreadable.into_iter().next() {
        return Err(Unseen::Unreadable(rel, why));
    }
    let mut found = found.into_inner().unwrap_or_else(|p| p.into_inner());
    found.sort_by(|a, b| a.rel.cmp(&b.rel));
    Ok(found)
}

/// git's lock on a repository's index (`.git/index.lock`, or a worktree's or submodule's below
/// `.git/`): a git that runs or crashed there holds it, and a copy of it would stop every git
/// at the copy from writing its index. Never copied, and no change made here.
pub fn git_index_lock(rel: &Path) -> bool {
    rel.file_name().is_some_and(|n| n == "index.lock")
        && rel.components().any(|c| c.as_os_str() == ".git")
}

/// Git's index of a repository in the tree (`.git/index`, a worktree's or a submodule's below
/// `.git/`): a cache git rewrites when it only looks (`git status` refreshes the stat it keeps),
/// so its change is no edit of anyone's.
pub fn is_git_index(rel: &Path) -> bool {
    rel.file_name().is_some_and(|n| n == "index")
        && rel
            .components()
            .next()
            .is_some_and(|c| c.as_os_str() == ".git")
}

/// Every entry below `destination` as it is now, in the manifest's terms (sorted by path): the
/// snapshot `store::snapshot` keeps. Err when the walk stopped short.
pub fn snapshot(destination: &Path) -> Result<Vec<ManifestEntry>, Unseen> {
    Ok(walk(destination)?
        .into_iter()
        .filter_map(|seen| match seen.kind {
            SeenKind::File => Some(ManifestEntry::File(FileRecord {
                rel: seen.rel,
                size: seen.size,
                mtime: seen.mtime,
                stamp: Some(seen.stamp),
                crc32: 0,
            })),
            SeenKind::Dir => Some(ManifestEntry::Dir(seen.rel)),
            SeenKind::Symlink => {
                let target = dirfd::read_link(&destination.join(&seen.rel)).ok()?;
                Some(ManifestEntry::Symlink {
                    rel: seen.rel,
                    target,
                })
            }
            SeenKind::Other => None,
        })
        .collect())
}

/// What changed at `destination` since `baseline` (its snapshot) was taken: files and links
/// added, changed and removed there, by their stat; Err when the walk stopped short.
pub fn at_destination(destination: &Path, baseline: &[ManifestEntry]) -> Result<Changes, Unseen> {
    Ok(classify(destination, baseline, &walk(destination)?))
}

/// Not the repository's, and never copied: a probe's scratch folder, a `node_modules` the
/// migration left behind (not in the manifest), and anything below either; git's index lock.
fn outside_the_copy(rel: &Path, dirs: &HashSet<&Path>) -> bool {
    git_index_lock(rel)
        || rel
            .ancestors()
            .filter(|a| !a.as_os_str().is_empty())
            .any(|a| {
                let name = a.file_name().map_or(&[][..], |n| n.as_bytes());
                crate::measure::probe::scratch::is_scratch_name(name)
                    || (name == b"node_modules" && !dirs.contains(a))
            })
}

pub mod commits;
mod copied;
mod old_place;

use copied::Copied;

/// Compares what the source holds now (`seen`) with the manifest (`entries`).
pub fn classify(source: &Path, entries: &[ManifestEntry], seen: &[Seen]) -> Changes {
    let copied = Copied::of(entries);
    let mut changes = Changes::default();
    let mut present: HashSet<&Path> = HashSet::new();
    for s in seen {
        if s.kind == SeenKind::Other || outside_the_copy(&s.rel, &copied.dirs) {
            continue;
        }
        if copied.compare(source, s, &mut changes) {
            present.insert(s.rel.as_path());
        }
    }
    copied.removed(&present, &mut changes);
    for list in [
        &mut changes.added,
        &mut changes.changed,
        &mut changes.removed,
        &mut changes.added_dirs,
        &mut changes.removed_dirs,
    ] {
        list.sort();
    }
    changes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(rel: &str, size: u64) -> Seen {
        Seen {
            rel: PathBuf::from(rel),
            kind: SeenKind::File,
            size,
            mtime: (1, 0),
            stamp: Stamp::default(),
            mode: 0o644,
            atime: (1, 0),
        }
    }

    fn record(rel: &str, size: u64) -> ManifestEntry {
        ManifestEntry::File(FileRecord {
            rel: PathBuf::from(rel),
            size,
            mtime: (1, 0),
            stamp: Some(Stamp::default()),
            crc32: 0,
        })
    }

    #[test]
    fn added_changed_and_removed_against_the_manifest() {
        let entries = vec![
            ManifestEntry::Dir(PathBuf::from("d")),
            record("d/same", 3),
            record("d/grown", 3),
            record("gone", 5),
        ];
        let seen = vec![
            Seen {
                kind: SeenKind::Dir,
                ..file("d", 0)
            },
            file("d/same", 3),
            file("d/grown", 4),
            file("new", 7),
            Seen {
                kind: SeenKind::Dir,
                ..file("node_modules", 0)
            },
            file("node_modules/x.js", 9),
            file(".wsl-place-probe-1-ab/f", 9),
            Seen {
                kind: SeenKind::Other,
                ..file("pipe", 0)
            },
        ];
        let changes = classify(Path::new("/nowhere"), &entries, &seen);
        assert_eq!(changes.added, [PathBuf::from("new")]);
        assert_eq!(changes.changed, [PathBuf::from("d/grown")]);
        assert_eq!(changes.removed, [PathBuf::from("gone")]);
        assert_eq!((changes.count(), changes.bytes), (3, 11));
        assert!(changes.added_dirs.is_empty(), "{changes:?}");
    }

    #[test]
    fn a_snapshot_reads_back_and_tells_what_changed() {
        let tmp = tempfile::tempdir().unwrap();
        let dest = tmp.path().join("app");
        std::fs::create_dir_all(dest.join("d")).unwrap();
        std::fs::write(dest.join("d/a"), b"one").unwrap();
        std::fs::write(dest.join("b"), b"two").unwrap();
        let file = tmp.path().join("state/app.snapshot");
        let taken = snapshot(&dest).unwrap();
        crate::store::snapshot::write(&file, Path::new("/src/app"), &dest, &taken).unwrap();
        let kept = crate::store::snapshot::read(&file).unwrap();
        assert_eq!(kept.len(), 3, "{kept:?}");
        assert!(at_destination(&dest, &kept).unwrap().is_empty());
        std::fs::write(dest.join("d/a"), b"ONE!").unwrap();
        std::fs::write(dest.join("c"), b"new").unwrap();
        std::fs::remove_file(dest.join("b")).unwrap();
        let found = at_destination(&dest, &kept).unwrap();
        assert_eq!(
            (found.added.len(), found.changed.len(), found.removed.len()),
            (1, 1, 1),
            "{found:?}"
        );
    }
}
