//! Repository scan: what the tree holds, in the terms that decide its placement.
//! (Stub: issue 3 fills this in; the field names are the JSON schema and stay.)

use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::Duration;

#[derive(Debug, Clone)]
pub struct ScanOptions {
    /// Stop walking after this long and extrapolate.
    pub budget: Duration,
    /// Show a progress display (only on a terminal, never with --quiet).
    pub progress: bool,
}

/// A dependency or build tree (`node_modules`, `.venv`, `target`, ...).
#[derive(Debug, Clone, Default, Serialize)]
pub struct DependencyTree {
    /// Path relative to the scanned root.
    pub path: PathBuf,
    /// `node_modules`, `venv`, `target`, `vendor`, `gradle`, `build`.
    pub kind: String,
    pub files: u64,
    pub dirs: u64,
    pub bytes: u64,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct ScanReport {
    pub files: u64,
    pub dirs: u64,
    pub symlinks: u64,
    pub bytes: u64,
    /// Entries in the git index; None when this is not a git repository or the index is unreadable.
    pub tracked: Option<u64>,
    pub git_dir_bytes: Option<u64>,
    pub node_modules: Vec<DependencyTree>,
    /// Other dependency and build trees (not node_modules).
    pub dependency_trees: Vec<DependencyTree>,
    /// False when the time budget ran out and the counts are extrapolated estimates.
    pub complete: bool,
    pub elapsed_ms: u64,
}

pub fn scan(_root: &Path, _options: &ScanOptions) -> ScanReport {
    ScanReport {
        complete: true,
        ..ScanReport::default()
    }
}
