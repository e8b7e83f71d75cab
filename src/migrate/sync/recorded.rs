//! The old place's files that came through git (`history.rs`), written into the manifest once
//! the fetch has brought their commits. The manifest is what every surface at the old place
//! counts changes against: without this, each committed file stayed "changed here since" after
//! every sync, while `--sync` said it had nothing to copy.

use crate::base::dirfd;
use crate::measure::changes::{Seen, SeenKind};
use crate::migrate::kernel::verify;
use crate::store::manifest::{self, FileRecord, ManifestEntry};
use crate::store::moved::Moved;
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

/// Records the `committed` paths in `record`'s manifest: each file as the plan's walk saw it
/// (`files`), and a path the walk did not see (its removal was committed) dropped. A file whose
/// `lstat` moved since the walk is left out: it was edited after git said it was committed, so
/// it is still a change here, and the next sync copies it.
pub(super) fn record_committed(
    record: &Moved,
    committed: &[PathBuf],
    files: &[Seen],
) -> std::io::Result<()> {
    if committed.is_empty() {
        return Ok(());
    }
    let Some((listed, entries)) = manifest::read(&record.manifest) else {
        return Ok(());
    };
    if listed != record.source {
        return Ok(());
    }
    let mut by_rel: BTreeMap<PathBuf, ManifestEntry> = entries
        .into_iter()
        .map(|e| (e.rel().to_path_buf(), e))
        .collect();
    let seen: HashSet<&Path> = files.iter().map(|s| s.rel.as_path()).collect();
    for rel in committed.iter().filter(|rel| !seen.contains(rel.as_path())) {
        by_rel.remove(rel);
    }
    for seen in files.iter().filter(|s| s.kind == SeenKind::File) {
        let Some(file) = still_as_seen(&record.source, seen) else {
            continue;
        };
        for dir in seen.rel.ancestors().skip(1) {
            if !dir.as_os_str().is_empty() && record.source.join(dir).is_dir() {
                by_rel
                    .entry(dir.to_path_buf())
                    .or_insert_with(|| ManifestEntry::Dir(dir.to_path_buf()));
            }
        }
        by_rel.insert(seen.rel.clone(), ManifestEntry::File(file));
    }
    let entries: Vec<ManifestEntry> = by_rel.into_values().collect();
    let text = manifest::manifest_text(&record.source, &record.destination, &entries);
    crate::base::input::replace_whole(&record.manifest, text.as_bytes(), None)
}

/// The file's record when its bytes were read while it stayed as the walk saw it.
fn still_as_seen(source: &Path, seen: &Seen) -> Option<FileRecord> {
    let path = source.join(&seen.rel);
    let mut record = FileRecord {
        rel: seen.rel.clone(),
        size: seen.size,
        mtime: seen.mtime,
        stamp: Some(seen.stamp),
        crc32: 0,
    };
    if !record.unchanged_on_disk(&dirfd::lstat(&path).ok()?) {
        return None;
    }
    let (size, crc32) = verify::crc_of(&path).ok()?;
    if size != seen.size || !record.unchanged_on_disk(&dirfd::lstat(&path).ok()?) {
        return None;
    }
    record.crc32 = crc32;
    Some(record)
}
