//! The destination as a finished migration (or its last sync) left it: each entry's stat (size,
//! mtime, ctime, inode) and each link's target, kept under the state folder
//! (`measure::moved::snapshot_path`). What changed at the destination since is what differs
//! from it; `--abort` after a finished migration and a sync ask that, and never read a byte.
//!
//! The manifest cannot answer it: it holds the source's stat, and the migration's own fix-ups
//! (`git update-index --refresh`, reset settings, re-pointed links) rewrite some of git's files
//! after the copy. A migration finished by a version that kept no snapshot is compared with its
//! manifest by size and mtime alone (the copy keeps each file's mtime), so those files show.
//!
//! Written in the manifest's line format with its own header; the CRC32 column is 0 (nothing
//! is read to take it).

use super::manifest::{self, FileRecord, ManifestEntry};
use crate::base::dirfd;
use crate::measure::changes::{self, Changes, SeenKind, Unseen};
use std::path::Path;

const HEADER: &str = "# wsl-place destination 1";

/// Every entry below `destination` as it is now, in the manifest's terms (sorted by path); Err
/// when the walk stopped short (`changes::Unseen`).
pub fn take(destination: &Path) -> Result<Vec<ManifestEntry>, Unseen> {
    Ok(changes::walk(destination)?
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

/// Writes the snapshot whole under a temporary name, flushed, then renamed over the old one:
/// a kill at any point leaves one complete snapshot.
pub fn write(
    file: &Path,
    source: &Path,
    destination: &Path,
    entries: &[ManifestEntry],
) -> std::io::Result<()> {
    let text = manifest::manifest_text(source, destination, entries);
    let text = text.replacen(manifest::MANIFEST_HEADER, HEADER, 1);
    if let Some(parent) = file.parent() {
        std::fs::create_dir_all(parent)?;
    }
    crate::base::input::replace_whole(file, text.as_bytes(), None)
}

/// The snapshot at `file`; None when it is missing or incomplete.
pub fn read(file: &Path) -> Option<Vec<ManifestEntry>> {
    let text = std::fs::read_to_string(file).ok()?;
    let rest = text.strip_prefix(HEADER)?;
    let (_, entries) = manifest::parse_manifest(&format!("{}{rest}", manifest::MANIFEST_HEADER))?;
    Some(entries)
}

/// What the destination is compared with: its snapshot, or (none kept) the manifest's files
/// by size and mtime alone.
pub fn baseline(file: Option<&Path>, manifest: &[ManifestEntry]) -> Vec<ManifestEntry> {
    if let Some(entries) = file.and_then(read) {
        return entries;
    }
    manifest
        .iter()
        .map(|entry| match entry {
            ManifestEntry::File(r) => ManifestEntry::File(FileRecord {
                stamp: None,
                ..r.clone()
            }),
            other => other.clone(),
        })
        .collect()
}

/// What changed at `destination` since `baseline` was taken: files and links added, changed
/// and removed there, by their stat; Err when the walk stopped short.
pub fn changes(destination: &Path, baseline: &[ManifestEntry]) -> Result<Changes, Unseen> {
    Ok(changes::classify(
        destination,
        baseline,
        &changes::walk(destination)?,
    ))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_snapshot_reads_back_and_tells_what_changed() {
        let tmp = tempfile::tempdir().unwrap();
        let dest = tmp.path().join("app");
        std::fs::create_dir_all(dest.join("d")).unwrap();
        std::fs::write(dest.join("d/a"), b"one").unwrap();
        std::fs::write(dest.join("b"), b"two").unwrap();
        let file = tmp.path().join("state/app.snapshot");
        write(&file, Path::new("/src/app"), &dest, &take(&dest).unwrap()).unwrap();
        let kept = read(&file).unwrap();
        assert_eq!(kept.len(), 3, "{kept:?}");
        assert!(changes(&dest, &kept).unwrap().is_empty());
        std::fs::write(dest.join("d/a"), b"ONE!").unwrap();
        std::fs::write(dest.join("c"), b"new").unwrap();
        std::fs::remove_file(dest.join("b")).unwrap();
        let found = changes(&dest, &kept).unwrap();
        assert_eq!(
            (found.added.len(), found.changed.len(), found.removed.len()),
            (1, 1, 1),
            "{found:?}"
        );
    }
}
