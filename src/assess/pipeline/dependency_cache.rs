//! A repository's `node_modules` figures between checks: a next `check` (or `survey`) of a
//! repository whose dependencies no install changed since takes them again instead of walking
//! or sampling the tree (the scan compares each tree's stamp, `scan::known`).

use crate::base::clock::now_unix;
use crate::host::HostEnv;
use crate::measure::scan::ScanReport;
use crate::measure::scan::known::KnownTree;
use crate::store::{CacheFile, Store};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// How long figures are taken again while their stamp holds: a week, so a tree changed
/// behind the package manager's back (files copied in by hand) is counted again at least
/// that often.
pub const MAX_AGE_SECS: u64 = 7 * 24 * 3600;

#[derive(Serialize, Deserialize)]
struct Entry {
    root: PathBuf,
    created_unix: u64,
    trees: Vec<KnownTree>,
}

/// The trees an earlier scan of `root` found, within `MAX_AGE_SECS`.
pub fn load(env: &HostEnv, root: &Path) -> Vec<KnownTree> {
    Store::of(env)
        .load::<Entry>(
            CacheFile::Dependencies(root),
            "dependency figures cache file",
        )
        .filter(|e| {
            e.root == root && crate::base::clock::younger_than(e.created_unix, MAX_AGE_SECS)
        })
        .map(|e| e.trees)
        .unwrap_or_default()
}

/// Keeps the `node_modules` trees of `scan` (of `root`) that carry a stamp and were counted
/// in full (a budget that ran out leaves nothing worth keeping); the figures taken again keep
/// their first day. A failure to write only costs the next run a walk.
pub fn store(env: &HostEnv, root: &Path, scan: &ScanReport) {
    let trees: Vec<KnownTree> = scan
        .node_modules
        .iter()
        .filter(|t| !t.estimated && t.reached)
        .filter_map(|t| {
            Some(KnownTree {
                path: t.path.clone(),
                stamp: t.stamp.clone()?,
                figures: crate::measure::scan::Counts {
                    files: t.files,
                    dirs: t.dirs,
                    symlinks: t.symlinks,
                    bytes: t.bytes,
                    ..t.counted
                },
                sample: t.sample.clone(),
            })
        })
        .collect();
    if trees.is_empty() || scan.node_modules.iter().all(|t| t.reused) {
        return;
    }
    let entry = Entry {
        root: root.to_path_buf(),
        created_unix: now_unix(),
        trees,
    };
    Store::of(env).keep(CacheFile::Dependencies(root), &entry);
}
