//! The four figures every report of a tree gives, in one type so that a scan, a migration's
//! plan and its result count a tree alike.

use serde::{Deserialize, Serialize};

/// For `#[serde(skip_serializing_if = "crate::base::counts::is_zero_count")]`: a count left out
/// of the JSON while it is 0.
pub fn is_zero_count(n: &u64) -> bool {
    *n == 0
}

/// Files, folders, symlinks and bytes of a tree (or of the part of it a piece of work touches).
/// A report holds it `#[serde(flatten)]`, so its JSON keeps the four keys `files`, `dirs`,
/// `symlinks` and `bytes`, in that order.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TreeCounts {
    pub files: u64,
    pub dirs: u64,
    pub symlinks: u64,
    /// Apparent size of its regular files.
    pub bytes: u64,
}
