//! Finalising: make the verified copy durable, write the manifest, rename staging into place,
//! and, only when asked, delete from the source exactly what the manifest proves was copied.
//!
//! State lives in the staging directory so a kill at any point is resumed by running again:
//! `finalising` present means the copy is verified and complete; then `tree/` still there means
//! the rename has not happened, `manifest` still there means it has not been moved beside the
//! destination, and the staging directory still there means the fix-ups may not have finished.

use super::journal::{self, FileRecord, ManifestEntry};
use super::plan::{self, Kind, Plan};
use super::staging::Staging;
use super::verify;
use crate::error::{Failure, Result};
use serde::Serialize;
use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

fn write_durable(path: &Path, content: &[u8]) -> Result<()> {
    let mut file = File::create(path).map_err(|e| Failure::io("create", path, &e))?;
    file.write_all(content)
        .and_then(|_| file.sync_all())
        .map_err(|e| Failure::io("write", path, &e))
}

fn sync_dir(dir: &Path) {
    if let Ok(handle) = File::open(dir) {
        let _ = handle.sync_all();
    }
}

/// Builds the manifest from the plan and the verified records, makes everything durable, and
/// marks the staging directory as ready to finalise.
pub fn seal(
    plan: &Plan,
    staging: &Staging,
    records: &[FileRecord],
    problems: &HashSet<PathBuf>,
) -> Result<()> {
    let by_rel: HashMap<&Path, &FileRecord> =
        records.iter().map(|r| (r.rel.as_path(), r)).collect();
    let tree = staging.tree();
    let mut entries = Vec::with_capacity(plan.entries.len());
    for entry in plan.entries.iter().filter(|e| !problems.contains(&e.rel)) {
        match entry.kind {
            Kind::Dir => entries.push(ManifestEntry::Dir(entry.rel.clone())),
            Kind::File => {
                if let Some(r) = by_rel.get(entry.rel.as_path()) {
                    entries.push(ManifestEntry::File((*r).clone()));
                }
            }
            Kind::Symlink => {
                let dst = tree.join(&entry.rel);
                let target = crate::dirfd::read_link(&dst)
                    .map_err(|e| Failure::io("read the staged symlink", &dst, &e))?;
                entries.push(ManifestEntry::Symlink {
                    rel: entry.rel.clone(),
                    target,
                });
            }
        }
    }
    let text = journal::manifest_text(&plan.source, &plan.destination, &entries);
    journal::sync_filesystem(&tree)?;
    write_durable(&staging.manifest(), text.as_bytes())?;
    write_durable(&staging.marker(), b"verified\n")?;
    sync_dir(staging.path());
    Ok(())
}

/// Renames the sealed copy into place and moves the manifest beside it. Safe to repeat.
pub fn commit(staging: &Staging, destination: &Path) -> Result<PathBuf> {
    let tree = staging.tree();
    if tree.exists() {
        if std::fs::symlink_metadata(destination).is_ok() {
            return Err(Failure::input(format!(
                "{} appeared while the migration ran; the verified copy is kept in {}: move {} away and run the same command again.",
                destination.display(),
                tree.display(),
                destination.display()
            )));
        }
        std::fs::rename(&tree, destination)
            .map_err(|e| Failure::io("rename the verified copy to", destination, &e))?;
        if let Some(parent) = destination.parent() {
            sync_dir(parent);
        }
    }
    let manifest = plan::manifest_path(destination);
    let staged = staging.manifest();
    if staged.exists() {
        std::fs::rename(&staged, &manifest)
            .map_err(|e| Failure::io("move the manifest to", &manifest, &e))?;
        if let Some(parent) = manifest.parent() {
            sync_dir(parent);
        }
    }
    Ok(manifest)
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Removal {
    pub removed_files: u64,
    pub removed_symlinks: u64,
    pub removed_dirs: u64,
    /// Source entries kept because they are not in the manifest or no longer match it.
    pub kept: Vec<String>,
    pub kept_count: u64,
}

impl Removal {
    fn keep(&mut self, rel: &Path, why: &str) {
        self.kept_count += 1;
        if self.kept.len() < 50 {
            self.kept
                .push(format!("{} ({why})", journal::escape_path(rel)));
        }
    }
}

/// Deletes from `source` only the entries the manifest lists and that still match it: files by
/// size, mtime and a fresh CRC32 of the source, symlinks by target; directories only when empty.
pub fn remove_source(source: &Path, manifest: &Path) -> Result<Removal> {
    let text = std::fs::read_to_string(manifest)
        .map_err(|e| Failure::io("read the manifest", manifest, &e))?;
    let (listed_source, entries) = journal::parse_manifest(&text).ok_or_else(|| {
        Failure::internal(format!(
            "{} is not a complete wsl-place manifest, so nothing in the source was deleted.",
            manifest.display()
        ))
    })?;
    if listed_source != source {
        return Err(Failure::input(format!(
            "{} describes a copy of {}, not of {}; nothing was deleted.",
            manifest.display(),
            listed_source.display(),
            source.display()
        )));
    }
    let mut removal = Removal::default();
    let mut dirs = Vec::new();
    for entry in &entries {
        match entry {
            ManifestEntry::File(r) => {
                let path = source.join(&r.rel);
                let Ok(meta) = crate::dirfd::lstat(&path) else {
                    continue;
                };
                if !meta.is_file()
                    || meta.len() != r.size
                    || (meta.mtime(), meta.mtime_nsec()) != r.mtime
                {
                    removal.keep(&r.rel, "changed since the copy");
                    continue;
                }
                match verify::crc_of(&path) {
                    Ok((size, crc)) if size == r.size && crc == r.crc32 => {}
                    _ => {
                        removal.keep(&r.rel, "content differs from the copy");
                        continue;
                    }
                }
                match crate::dirfd::unlink(&path) {
                    Ok(()) => removal.removed_files += 1,
                    Err(e) => removal.keep(&r.rel, &e.to_string()),
                }
            }
            ManifestEntry::Symlink { rel, target } => {
                let path = source.join(rel);
                if crate::dirfd::read_link(&path).ok().as_ref() != Some(target) {
                    continue;
                }
                match crate::dirfd::unlink(&path) {
                    Ok(()) => removal.removed_symlinks += 1,
                    Err(e) => removal.keep(rel, &e.to_string()),
                }
            }
            ManifestEntry::Dir(rel) => dirs.push(rel.clone()),
        }
    }
    dirs.sort_by_key(|d| std::cmp::Reverse(d.components().count()));
    dirs.push(PathBuf::new());
    for rel in dirs {
        let path = source.join(&rel);
        match crate::dirfd::rmdir(&path) {
            Ok(()) => removal.removed_dirs += 1,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(_) => {
                if !rel.as_os_str().is_empty() {
                    removal.keep(&rel, "directory still holds files that were not copied");
                }
            }
        }
    }
    Ok(removal)
}
