//! A `node_modules` unchanged since an earlier scan: what the package manager writes on every
//! install (npm's `node_modules/.package-lock.json`, pnpm's `.modules.yaml`, yarn's
//! `.yarn-integrity` or `.yarn-state.yml`) and the folder's own modification time (a package
//! added or removed at the top) tell it in two `lstat`s, so a next check need not walk or
//! sample it again (issue 43). The caller keeps the figures between runs; the scan only
//! compares.

use super::{Counts, DependencySample};
use serde::{Deserialize, Serialize};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// What an install leaves behind in a `node_modules`, by its stat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TreeStamp {
    /// The folder's own modification time (ns).
    pub folder_mtime_ns: i128,
    /// The package manager's record of the install, and its stat.
    pub marker: String,
    pub marker_mtime_ns: i128,
    pub marker_size: u64,
    pub marker_inode: u64,
}

/// The files each package manager rewrites on every install, most common first.
const MARKERS: [&str; 4] = [
    ".package-lock.json",
    ".modules.yaml",
    ".yarn-state.yml",
    ".yarn-integrity",
];

fn mtime_ns(meta: &std::fs::Metadata) -> i128 {
    i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec())
}

impl TreeStamp {
    /// The stamp of the `node_modules` at `dir`; None when no package manager's record is in
    /// it (nothing then says an install did not change it).
    pub fn of(dir: &Path) -> Option<TreeStamp> {
        let folder = std::fs::symlink_metadata(dir).ok()?;
        MARKERS.iter().find_map(|name| {
            let meta = std::fs::symlink_metadata(dir.join(name)).ok()?;
            meta.is_file().then(|| TreeStamp {
                folder_mtime_ns: mtime_ns(&folder),
                marker: (*name).to_string(),
                marker_mtime_ns: mtime_ns(&meta),
                marker_size: meta.len(),
                marker_inode: meta.ino(),
            })
        })
    }
}

/// A `node_modules` as an earlier scan found it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct KnownTree {
    /// Relative to the scanned root.
    pub path: PathBuf,
    pub stamp: TreeStamp,
    pub figures: Counts,
    /// How those figures were obtained, when from a sample.
    pub sample: Option<DependencySample>,
}
