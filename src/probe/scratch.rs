//! The probe's private scratch directory: removed on drop (normal and error paths) and, through
//! the interrupt handler, on Ctrl-C, so an interrupted `check` leaves nothing behind.

use crate::interrupt;
use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::path::{Path, PathBuf};

/// Names the scratch directory; randomness keeps two probes of the same process apart.
pub fn scratch_name() -> String {
    let mut hasher = RandomState::new().build_hasher();
    hasher.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0),
    );
    format!(
        ".wsl-place-probe-{}-{:08x}",
        std::process::id(),
        hasher.finish() as u32
    )
}

/// A scratch directory that exists exactly as long as this value.
#[derive(Debug)]
pub struct Scratch {
    path: PathBuf,
}

impl Scratch {
    /// Creates `<parent>/.wsl-place-probe-<pid>-<rand>`.
    pub fn create(parent: &Path) -> std::io::Result<Self> {
        let path = parent.join(scratch_name());
        // Registered before it exists, so a signal between the two cannot leak it.
        interrupt::remove_on_interrupt(&path);
        if let Err(e) = std::fs::create_dir(&path) {
            interrupt::forget(&path);
            return Err(e);
        }
        Ok(Self { path })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Removes the directory now and reports whether it is gone.
    pub fn remove(self) -> bool {
        let gone = remove(&self.path);
        std::mem::forget(self);
        gone
    }
}

fn remove(path: &Path) -> bool {
    let _ = std::fs::remove_dir_all(path);
    let gone = !path.exists();
    if gone {
        interrupt::forget(path);
    }
    gone
}

impl Drop for Scratch {
    fn drop(&mut self) {
        remove(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scratch_is_removed_on_drop_and_on_remove() {
        let parent = tempfile::tempdir().unwrap();
        let a = Scratch::create(parent.path()).unwrap();
        let a_path = a.path().to_path_buf();
        std::fs::write(a_path.join("f"), b"x").unwrap();
        std::fs::create_dir(a_path.join("d")).unwrap();
        drop(a);
        assert!(!a_path.exists());
        let b = Scratch::create(parent.path()).unwrap();
        let b_path = b.path().to_path_buf();
        assert!(b.remove());
        assert!(!b_path.exists());
    }

    #[test]
    fn names_are_hidden_and_distinct() {
        let (a, b) = (scratch_name(), scratch_name());
        assert!(a.starts_with(".wsl-place-probe-"));
        assert_ne!(a, b);
    }
}
