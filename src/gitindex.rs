//! The git index, read without walking the worktree.
//! (Stub: issue 3 fills this in.)

use std::path::{Path, PathBuf};

/// Up to `max` tracked paths (worktree-relative), spread evenly over the index, for timing `lstat`
/// on the repository's own files. Empty when `root` is not a git worktree.
pub fn tracked_sample(_root: &Path, _max: usize) -> Result<Vec<PathBuf>, String> {
    Ok(Vec::new())
}
