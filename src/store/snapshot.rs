//! The destination as a finished migration (or its last sync) left it: each entry's stat (size,
//! mtime, ctime, inode) and each link's target, kept under the state folder
//! (`store::moved::snapshot_path`), taken by `measure::changes::snapshot`. What changed at the
//! destination since is what differs from it (`measure::changes::at_destination`); `--abort`
//! after a finished migration and a sync ask that, and never read a byte.
//!
//! The manifest cannot answer it: it holds the source's stat, and the migration's own fix-ups
//! (`git update-index --refresh`, reset settings, re-pointed links) rewrite some of git's files
//! after the copy. A migration finished by a version that kept no snapshot is compared with its
//! manifest by size and mtime alone (the copy keeps each file's mtime), so those files show.
//!
//! Written in the manifest's line format with its own header; the CRC32 column is 0 (nothing
//! is read to take it).

use super::manifest::{self, FileRecord, ManifestEntry};
use std::path::Path;

const HEADER: &str = "# wsl-place destination 1";

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
