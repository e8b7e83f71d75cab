//! The way to a path below the copy after the move, checked without following a link: a sync
//! writes or removes `rel` only while every folder above it (below the copy's root) is a real
//! folder, or not there yet. A folder of the copy replaced by a link (to anywhere) or by a file
//! stops it, so nothing is ever written through a link or into a file's place.

use crate::base::dirfd;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

/// The first folder above `rel` below `root` that is a link or not a folder now, unless
/// `vacated` says this sync removes it first; None when the way is clear.
pub(in crate::migrate) fn blocked(
    root: &Path,
    rel: &Path,
    vacated: &dyn Fn(&Path) -> bool,
) -> Option<PathBuf> {
    let mut above: Vec<&Path> = rel
        .ancestors()
        .skip(1)
        .filter(|a| !a.as_os_str().is_empty())
        .collect();
    above.reverse();
    for folder in above {
        match dirfd::lstat(&root.join(folder)) {
            Ok(meta) if meta.is_dir() => {}
            // Made by the sync below a folder it makes.
            Err(e) if e.kind() == ErrorKind::NotFound => return None,
            Ok(meta) if !meta.is_symlink() && vacated(folder) => return None,
            _ => return Some(folder.to_path_buf()),
        }
    }
    None
}
