//! A folder a walk listed, kept open for whoever acts in it later (`*at` calls by name: one
//! lookup on a slow mount, where a path costs one per component). Each is a descriptor held
//! until its last user is done, so how many may be held at once is bounded by the process's
//! descriptor limit: past the bound a folder is not shared and its users go by path.

use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Shared folders held open now, in the whole process.
static HELD: AtomicUsize = AtomicUsize::new(0);
/// At most this many, however high the limit.
const MOST: usize = 512;

#[derive(Debug)]
pub struct SharedDir {
    fd: OwnedFd,
}

impl SharedDir {
    /// A copy of `dir` to share, or None when the bound is reached or it cannot be copied.
    pub fn of(dir: BorrowedFd<'_>) -> Option<Arc<SharedDir>> {
        let bound = bound();
        if HELD.fetch_add(1, Ordering::Relaxed) >= bound {
            HELD.fetch_sub(1, Ordering::Relaxed);
            return None;
        }
        match dir.try_clone_to_owned() {
            Ok(fd) => Some(Arc::new(SharedDir { fd })),
            Err(_) => {
                HELD.fetch_sub(1, Ordering::Relaxed);
                None
            }
        }
    }
}

/// An eighth of the soft descriptor limit: the rest is the copy's own files, the walk's
/// folders and whatever else the process holds (a limit of 64 shares 8).
fn bound() -> usize {
    let limit = rustix::process::getrlimit(rustix::process::Resource::Nofile).current;
    limit.map_or(MOST, |n| (n / 8).min(MOST as u64) as usize)
}

impl AsFd for SharedDir {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

impl Drop for SharedDir {
    fn drop(&mut self) {
        HELD.fetch_sub(1, Ordering::Relaxed);
    }
}
