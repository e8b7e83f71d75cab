//! Verification: every staged file read back and its CRC32 compared; the staged tree's entries
//! counted against the plan.
//!
//! The read-back goes through the kernel like any reader's would (no O_DIRECT), so it proves what
//! the destination file system returns, which is what the user's tools will see.

use super::plan::{CopyPlan, Kind};
use crate::base::dirfd::{self, Meta};
use crate::base::error::{Failure, Result};
use crate::base::pathtext::escape_path;
use crate::store::manifest::FileRecord;
use std::collections::HashSet;
use std::ffi::OsStr;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// How much of a file one read takes while checksumming.
const READ_CHUNK: usize = 256 * 1024;

pub fn crc_of(path: &Path) -> std::io::Result<(u64, u32)> {
    crc_of_reader(dirfd::open_read(path)?)
}

/// Size and CRC32 of everything `file` holds from where it is.
pub fn crc_of_reader(mut file: impl Read) -> std::io::Result<(u64, u32)> {
    let mut hasher = crc32fast::Hasher::new();
    let mut buf = vec![0u8; READ_CHUNK];
    let mut size = 0u64;
    loop {
        match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                hasher.update(&buf[..n]);
                size += n as u64;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
    Ok((size, hasher.finalize()))
}

/// Reads `path` back and fails unless it has exactly `size` bytes with CRC32 `crc32`.
pub fn file_matches(path: &Path, size: u64, crc32: u32) -> Result<()> {
    let (got_size, got_crc) = crc_of(path).map_err(|e| {
        Failure::internal(format!(
            "cannot read back {} to verify it: {e}; nothing was deleted and the source is untouched.",
            path.display()
        ))
    })?;
    if got_size != size || got_crc != crc32 {
        return Err(Failure::internal(format!(
            "verification failed for {}: read back {got_size} bytes with CRC32 {got_crc:08x}, expected {size} bytes with {crc32:08x}; the destination disk is not returning what was written, nothing was deleted.",
            path.display()
        )));
    }
    Ok(())
}

/// Counts the staged tree against the plan. Entries that an earlier run copied but the source
/// no longer has are removed (they are our own copies, never the user's files).
pub fn tree(
    plan: &CopyPlan,
    tree: &Path,
    records: &[FileRecord],
    problems: &HashSet<PathBuf>,
) -> Result<()> {
    let expected: HashSet<&Path> = plan
        .entries
        .iter()
        .filter(|e| !problems.contains(&e.rel))
        .map(|e| e.rel.as_path())
        .collect();
    let found = count_and_prune(tree, &expected)?;
    let want = |k: Kind| {
        plan.entries
            .iter()
            .filter(|e| e.kind == k && !problems.contains(&e.rel))
            .count() as u64
    };
    let wanted = (want(Kind::Dir), want(Kind::File), want(Kind::Symlink));
    if found != wanted || records.len() as u64 != wanted.1 {
        return Err(Failure::internal(format!(
            "the staged copy in {} holds {} directories, {} files and {} symlinks ({} verified), but the plan has {}, {} and {}; it is kept, run the same command again to resume.",
            tree.display(),
            found.0,
            found.1,
            found.2,
            records.len(),
            wanted.0,
            wanted.1,
            wanted.2
        )));
    }
    still_staged(tree, records)
}

/// Counts the staged tree's folders, files and symlinks the plan expects; anything else is an
/// earlier run's copy of what the source no longer has, and is removed.
fn count_and_prune(tree: &Path, expected: &HashSet<&Path>) -> Result<(u64, u64, u64)> {
    let mut extras = Vec::new();
    let mut found = (0u64, 0u64, 0u64);
    for (rel, kind) in staged_entries(tree)? {
        if !expected.contains(rel.as_path()) {
            extras.push(rel);
        } else if kind == rustix::fs::FileType::Directory {
            found.0 += 1;
        } else if kind == rustix::fs::FileType::RegularFile {
            found.1 += 1;
        } else if kind == rustix::fs::FileType::Symlink {
            found.2 += 1;
        }
    }
    // Deepest first, and a whole extra folder at once (its contents are extras too).
    extras.sort();
    for extra in extras.iter().rev() {
        let path = tree.join(extra);
        dirfd::remove_all(&path)
            .map_err(|e| Failure::io("remove the stale staged copy", &path, &e))?;
    }
    Ok(found)
}

/// Each verified file is still in the staged copy, at the size it was verified at.
fn still_staged(tree: &Path, records: &[FileRecord]) -> Result<()> {
    for record in records {
        let staged = tree.join(&record.rel);
        let meta = dirfd::lstat(&staged).map_err(|e| {
            Failure::internal(format!(
                "verified file {} is missing from the staged copy: {e}; run the same command again.",
                escape_path(&record.rel)
            ))
        })?;
        if meta.len() != record.size {
            return Err(Failure::internal(format!(
                "staged file {} changed size after verification; run the same command again.",
                staged.display()
            )));
        }
    }
    Ok(())
}

/// Every entry of the staged tree (relative to it) and its type, from the scan's own walker, so
/// a tree deeper than PATH_MAX is counted whole.
fn staged_entries(tree: &Path) -> Result<Vec<(PathBuf, rustix::fs::FileType)>> {
    let found = Mutex::new(Vec::new());
    let each = |dir: &Path, name: &OsStr, meta: &std::io::Result<Meta>| {
        let rel = dir.strip_prefix(tree).unwrap_or(dir).join(name);
        if let (Ok(meta), Ok(mut found)) = (meta, found.lock()) {
            found.push((rel, meta.file_type()));
        }
    };
    let unlisted =
        crate::measure::scan::walk_each(tree, &crate::base::progress::Drawn::hidden(), &each);
    if let Some((rel, error)) = unlisted.first() {
        return Err(Failure::internal(format!(
            "cannot walk the staged copy {}: {error}; it is kept for a resume.",
            tree.join(rel).display()
        )));
    }
    Ok(found.into_inner().unwrap_or_else(|p| p.into_inner()))
}
