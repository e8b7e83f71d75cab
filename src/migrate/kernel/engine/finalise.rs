//! Finalising: make the verified copy durable, write the manifest and rename staging into place
//! (`--remove-source` comes after, in `removal`).
//!
//! State lives in the staging directory so a kill at any point is resumed by running again:
//! `finalising` present means the copy is verified and complete; then `tree/` still there means
//! the rename has not happened, `manifest` still there means it has not been moved beside the
//! destination, and the staging directory still there means the fix-ups may not have finished.

use super::journal;
use super::plan::{self, Kind, Plan};
use super::staging::Staging;
use crate::base::dirfd;
use crate::base::error::{Failure, Result};
use crate::store::manifest::{self, FileRecord, ManifestEntry};
use crate::store::moved;
use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

pub fn write_durable(path: &Path, content: &[u8]) -> Result<()> {
    let mut file = File::create(path).map_err(|e| Failure::io("create", path, &e))?;
    file.write_all(content)
        .and_then(|_| file.sync_all())
        .map_err(|e| Failure::io("write", path, &e))
}

pub fn sync_dir(dir: &Path) {
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
    let mut entries = Vec::with_capacity(plan.copy.entries.len());
    for entry in plan
        .copy
        .entries
        .iter()
        .filter(|e| !problems.contains(&e.rel))
    {
        match entry.kind {
            Kind::Dir => entries.push(ManifestEntry::Dir(entry.rel.clone())),
            Kind::File => {
                if let Some(r) = by_rel.get(entry.rel.as_path()) {
                    entries.push(ManifestEntry::File((*r).clone()));
                }
            }
            Kind::Symlink => {
                let dst = tree.join(&entry.rel);
                let target = dirfd::read_link(&dst)
                    .map_err(|e| Failure::io("read the staged symlink", &dst, &e))?;
                entries.push(ManifestEntry::Symlink {
                    rel: entry.rel.clone(),
                    target,
                });
            }
        }
    }
    let text = manifest::manifest_text(&plan.copy.source, &plan.copy.destination, &entries);
    journal::sync_filesystem(&tree)?;
    write_durable(&staging.manifest(), text.as_bytes())?;
    let record = staging.node_modules();
    let node_modules = serde_json::to_vec(&plan.node_modules).map_err(|e| {
        Failure::internal(format!(
            "cannot write the node_modules list to {} ({e}); run the same command again to finish.",
            record.display()
        ))
    })?;
    write_durable(&record, &node_modules)?;
    write_durable(&staging.marker(), b"verified\n")?;
    sync_dir(staging.path());
    Ok(())
}

/// What in a sealed copy no longer holds what its manifest says, each staged file read back
/// (in parallel: it is on the local disk): the manifest is a claim, and finishing, the report
/// and a later `--remove-source` rely on it. None when all holds, or the copy is already in
/// place (its fix-ups have rewritten some of git's files since).
pub fn changed_since_sealing(staging: &Staging) -> Option<String> {
    use rayon::prelude::*;
    let tree = staging.tree();
    if !tree.exists() {
        return None;
    }
    let manifest = staging.manifest();
    let Some((_, entries)) = std::fs::read_to_string(&manifest)
        .ok()
        .and_then(|text| manifest::parse_manifest(&text))
    else {
        return Some(format!(
            "its manifest {} cannot be read",
            manifest.display()
        ));
    };
    entries.par_iter().find_map_any(|entry| match entry {
        ManifestEntry::File(r) => super::verify::file_matches(&tree.join(&r.rel), r.size, r.crc32)
            .is_err()
            .then(|| crate::base::pathtext::escape_path(&r.rel)),
        _ => None,
    })
}

/// Takes the seal off a copy that no longer matches its manifest, so the run copies what changed
/// again (the journal's records are read back too). The marker goes first: a kill midway leaves
/// an unsealed copy, which is resumed.
pub fn unseal(staging: &Staging) -> Result<()> {
    for path in [staging.marker(), staging.manifest(), staging.node_modules()] {
        match std::fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Failure::io("remove", &path, &e)),
        }
    }
    Ok(())
}

/// The node_modules the sealing run planned for. A copy sealed by a version that kept no such
/// record gets none: its next steps then lack the reinstall, which nothing else depends on.
pub fn sealed_node_modules(staging: &Staging) -> Vec<plan::NodeModules> {
    std::fs::read(staging.node_modules())
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default()
}

/// Where the manifest of a migration to `destination` is kept: the state folder, or beside the
/// destination when there is none.
pub fn manifest_for(env: &crate::host::HostEnv, destination: &Path) -> PathBuf {
    moved::manifest_path(env, destination)
        .unwrap_or_else(|| moved::legacy_manifest_path(destination))
}

/// The manifest of a finished migration of `source` to `destination`: from the state folder,
/// or beside the destination where an earlier version left it (then moved to the state folder;
/// where that fails it is read where it is).
pub fn finished_manifest(
    env: &crate::host::HostEnv,
    source: &Path,
    destination: &Path,
) -> Option<PathBuf> {
    if !destination.is_dir() {
        return None;
    }
    let names_source = |manifest: &Path| {
        std::fs::read_to_string(manifest)
            .ok()
            .and_then(|text| manifest::parse_manifest(&text))
            .is_some_and(|(listed, _)| listed == source)
    };
    let kept = moved::manifest_path(env, destination);
    if let Some(kept) = kept.as_ref().filter(|m| names_source(m)) {
        return Some(kept.clone());
    }
    let legacy = moved::legacy_manifest_path(destination);
    if !names_source(&legacy) {
        return None;
    }
    match kept {
        Some(kept) if move_manifest(&legacy, &kept).is_ok() => Some(kept),
        _ => Some(legacy),
    }
}

/// Renames the sealed copy into place and moves the manifest to `manifest` (under the state
/// folder: see `measure::moved`). Safe to repeat.
pub fn commit(staging: &Staging, destination: &Path, manifest: &Path) -> Result<PathBuf> {
    let tree = staging.tree();
    if tree.exists() {
        if std::fs::symlink_metadata(destination).is_ok() {
            // Renaming the copy over it would lose what it holds.
            return Err(Failure::would_lose_data(format!(
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
    let staged = staging.manifest();
    if staged.exists() {
        move_manifest(&staged, manifest)?;
    }
    Ok(manifest.to_path_buf())
}

/// Moves a manifest to `to`, durably, across file systems too (the state folder is in the
/// home, the staging folder beside the destination): written whole under a temporary name,
/// flushed and renamed, and only then removed from where it was. Safe to repeat.
pub fn move_manifest(from: &Path, to: &Path) -> Result<()> {
    let parent = to.parent().unwrap_or(Path::new("/"));
    std::fs::create_dir_all(parent).map_err(|e| Failure::io("create", parent, &e))?;
    if std::fs::rename(from, to).is_err() {
        let text = std::fs::read(from).map_err(|e| Failure::io("read the manifest", from, &e))?;
        crate::base::input::replace_whole(to, &text, None)
            .map_err(|e| Failure::io("move the manifest to", to, &e))?;
        sync_dir(parent);
        match std::fs::remove_file(from) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Failure::io("remove the moved manifest", from, &e)),
        }
    }
    sync_dir(parent);
    if let Some(old) = from.parent() {
        sync_dir(old);
    }
    Ok(())
}
