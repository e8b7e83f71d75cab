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
use crate::dirfd;
use crate::error::{Failure, Result};
use rustix::fs::FileType;
use serde::Serialize;
use std::collections::{HashMap, HashSet};
use std::ffi::OsStr;
use std::fs::File;
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
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
                let target = dirfd::read_link(&dst)
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

/// The node_modules the sealing run planned for. A copy sealed by a version that kept no such
/// record gets none: its next steps then lack the reinstall, which nothing else depends on.
pub fn sealed_node_modules(staging: &Staging) -> Vec<plan::NodeModules> {
    std::fs::read(staging.node_modules())
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default()
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
    /// Files removed on their stat alone (size, mtime, ctime and inode as when copied).
    pub proven_by_stat: u64,
    /// Files whose stat had changed, read again and found identical to the copy, then removed.
    pub proven_by_reading: u64,
    /// What is still in the source, each `path (why)`: files that differ from the copy, and
    /// what was never copied (a `node_modules` left behind, special files, files made since).
    /// A folder nothing of which was copied is one item. At most 50 listed.
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

/// Deletes from `source` only the entries the manifest lists and that still match it: files
/// whose size, mtime, ctime and inode are as recorded at the copy (no byte read over the slow
/// mount), or, when the stat moved, whose fresh CRC32 still equals the copy's; symlinks by
/// target; directories only when empty. Then says what is left and why.
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
    let mut listed = HashSet::new();
    for entry in &entries {
        match entry {
            ManifestEntry::File(r) => {
                listed.insert(r.rel.clone());
                remove_file(source, r, &mut removal);
            }
            ManifestEntry::Symlink { rel, target } => {
                listed.insert(rel.clone());
                let path = source.join(rel);
                if dirfd::read_link(&path).ok().as_ref() != Some(target) {
                    if dirfd::lstat(&path).is_ok() {
                        removal.keep(rel, "changed since the copy: it points elsewhere now");
                    }
                    continue;
                }
                match dirfd::unlink(&path) {
                    Ok(()) => removal.removed_symlinks += 1,
                    Err(e) => removal.keep(rel, &e.to_string()),
                }
            }
            ManifestEntry::Dir(rel) => {
                listed.insert(rel.clone());
                dirs.push(rel.clone());
            }
        }
    }
    dirs.sort_by_key(|d| std::cmp::Reverse(d.components().count()));
    dirs.push(PathBuf::new());
    let mut left = Vec::new();
    for rel in dirs {
        match dirfd::rmdir(&source.join(&rel)) {
            Ok(()) => removal.removed_dirs += 1,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(_) => left.push(rel),
        }
    }
    if !left.is_empty() {
        leftovers(source, &listed, &mut removal);
    }
    Ok(removal)
}

/// One manifest file: removed when proven identical to its copy, else kept with the reason.
fn remove_file(source: &Path, r: &FileRecord, removal: &mut Removal) {
    let path = source.join(&r.rel);
    let Ok(meta) = dirfd::lstat(&path) else {
        return;
    };
    if !meta.is_file() {
        removal.keep(&r.rel, "changed since the copy: no longer a regular file");
        return;
    }
    if meta.len() != r.size {
        removal.keep(&r.rel, "changed since the copy: its size differs");
        return;
    }
    let by_stat = r.unchanged_on_disk(&meta);
    if !by_stat {
        match verify::crc_of(&path) {
            Ok((size, crc)) if size == r.size && crc == r.crc32 => {}
            Ok(_) => {
                removal.keep(&r.rel, "changed since the copy: its content differs");
                return;
            }
            Err(e) => {
                removal.keep(&r.rel, &format!("cannot be read to compare: {e}"));
                return;
            }
        }
    }
    match dirfd::unlink(&path) {
        Ok(()) => {
            removal.removed_files += 1;
            if by_stat {
                removal.proven_by_stat += 1;
            } else {
                removal.proven_by_reading += 1;
            }
        }
        Err(e) => removal.keep(&r.rel, &e.to_string()),
    }
}

/// Lists what the removal left in the source and was never in the manifest, each with why: a
/// folder nothing of which was copied once (not walked into: a `node_modules` left behind can
/// hold a hundred thousand files on a slow mount). Walked through open directories, so a tree
/// past PATH_MAX is listed too.
fn leftovers(source: &Path, listed: &HashSet<PathBuf>, removal: &mut Removal) {
    if let Ok(root) = dirfd::Place::root(source) {
        leftovers_in(&root, Path::new(""), listed, removal);
    }
}

fn leftovers_in(
    place: &dirfd::Place,
    rel: &Path,
    listed: &HashSet<PathBuf>,
    removal: &mut Removal,
) {
    let Ok((mut dir, base)) = place.enter() else {
        return;
    };
    let mut names = Vec::new();
    while let Some(Ok(entry)) = dir.read() {
        let name = OsStr::from_bytes(entry.file_name().to_bytes()).to_os_string();
        if name == "." || name == ".." {
            continue;
        }
        let kind = match entry.file_type() {
            FileType::Unknown => dir
                .fd()
                .ok()
                .and_then(|fd| dirfd::lstat_in(fd, &name).ok())
                .map_or(FileType::Unknown, |m| m.file_type()),
            kind => kind,
        };
        names.push((name, kind));
    }
    // Closed before descending: open descriptors stay bounded however deep the tree.
    drop(dir);
    names.sort_by(|a, b| a.0.cmp(&b.0));
    for (name, kind) in names {
        let child = rel.join(&name);
        // Manifest entries still here were kept above, with their reasons; a listed folder
        // still here holds something that was not.
        if listed.contains(&child) {
            if kind == FileType::Directory {
                leftovers_in(&base.child(&name), &child, listed, removal);
            }
            continue;
        }
        removal.keep(&child, never_copied(&name, kind));
    }
}

fn never_copied(name: &OsStr, kind: FileType) -> &'static str {
    let name = name.as_bytes();
    match kind {
        FileType::Directory if name == b"node_modules" => {
            "node_modules left behind, never copied; reinstall it at the destination"
        }
        FileType::Directory if crate::probe::scratch::is_scratch_name(name) => {
            "a scratch folder a killed wsl-place probe left; safe to delete"
        }
        FileType::Fifo => "a FIFO; never copied",
        FileType::Socket => "a socket; never copied",
        FileType::BlockDevice | FileType::CharacterDevice => "a device; never copied",
        FileType::Directory => "a folder not in the manifest: made after the copy, or not copied",
        _ => "not in the manifest: made after the copy, or not copied",
    }
}
