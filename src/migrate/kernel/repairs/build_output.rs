//! Build output a tool throws away after a move: copying it costs time and buys nothing. Which
//! kinds are is measured, not assumed (docs/migrate.md, "Build output after a move"): Cargo's
//! `target/`, Next.js' `.next/` and pnpm's `node_modules` are used as they are after a move; a
//! Jest cache kept inside the tree (`cacheDirectory`) is written again whole, because its keys
//! hold the project's absolute path. So only a Jest cache is offered to be left behind.

use super::super::engine::plan::{Kind, Plan};
use crate::base::pathtext::RelPath;
use crate::measure::changes::{BuildKind, rebuilt_after_a_move};
use serde::Serialize;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// One folder of build output the plan found.
#[derive(Debug, Clone, Serialize)]
pub struct BuildOutput {
    /// Its folder, relative to the repository.
    pub path: RelPath,
    /// What made it.
    pub kind: BuildKind,
    pub files: u64,
    pub bytes: u64,
    /// Left behind (the answer).
    pub skipped: bool,
    /// The copy time leaving it behind saves, from the plan's estimate; None when the source or
    /// the destination could not be measured.
    pub saved_ms: Option<u64>,
}

/// The folder `rel` marks as build output, and its kind: the parent of a name only its tool
/// writes (outside `node_modules`, which has its own question).
pub fn marked_by(rel: &Path, is_dir: bool) -> Option<(PathBuf, BuildKind)> {
    let name = rel.file_name()?.as_bytes();
    let what = rebuilt_after_a_move(name, is_dir)?;
    if rel.components().any(|c| c.as_os_str() == "node_modules") {
        return None;
    }
    Some((rel.parent()?.to_path_buf(), what))
}

/// The build output among the plan's entries, each folder with what it holds.
pub fn found_in(plan: &Plan) -> Vec<BuildOutput> {
    let entries = &plan.copy.entries;
    let marked: Vec<(PathBuf, BuildKind)> = entries
        .iter()
        .filter_map(|e| marked_by(&e.rel, e.kind == Kind::Dir))
        .collect();
    let files: Vec<(&Path, u64)> = entries
        .iter()
        .filter(|e| e.kind == Kind::File)
        .map(|e| (e.rel.as_path(), e.size))
        .collect();
    of(&marked, &files)
}

/// Each marked folder with what it holds (`files`: each regular file's path and size; the first
/// kind seen names it).
pub fn of(marked: &[(PathBuf, BuildKind)], files: &[(&Path, u64)]) -> Vec<BuildOutput> {
    let mut found: Vec<BuildOutput> = Vec::new();
    for (root, kind) in marked {
        if root.as_os_str().is_empty() || found.iter().any(|o| o.path.as_path() == root) {
            continue;
        }
        let inside = files.iter().filter(|(rel, _)| rel.starts_with(root));
        let (files, bytes) = inside.fold((0, 0), |(n, b), (_, size)| (n + 1, b + size));
        found.push(BuildOutput {
            path: RelPath::from(root.as_path()),
            kind: *kind,
            files,
            bytes,
            skipped: false,
            saved_ms: None,
        });
    }
    found
}
