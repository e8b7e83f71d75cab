//! Fault injection: a disk that fills up, and a subtree whose reads fail.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

pub struct Faults {
    /// Total bytes the mount accepts before writes fail; `None` means unlimited.
    enospc_after: Option<u64>,
    written: AtomicU64,
    eio_prefixes: Vec<PathBuf>,
}

impl Faults {
    pub fn new(enospc_after: Option<u64>, eio_prefixes: Vec<PathBuf>) -> Self {
        Faults {
            enospc_after,
            written: AtomicU64::new(0),
            // Accept "sub/dir", "/sub/dir" and "./sub/dir" alike: all mean relative to
            // the mount root.
            eio_prefixes: eio_prefixes
                .into_iter()
                .map(|p| {
                    p.components()
                        .filter(|c| matches!(c, std::path::Component::Normal(_)))
                        .collect()
                })
                .collect(),
        }
    }

    /// Reserves room for a write of `len` bytes and returns how many may be written.
    /// Like a real full disk, a write that straddles the limit is cut short and the
    /// next one gets ENOSPC, so callers see a short write before the error.
    pub fn reserve(&self, len: u64) -> Option<u64> {
        let Some(limit) = self.enospc_after else {
            return Some(len);
        };
        let mut granted = 0;
        let res = self
            .written
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |done| {
                granted = len.min(limit.saturating_sub(done));
                (granted > 0).then_some(done + granted)
            });
        match res {
            Ok(_) => Some(granted),
            Err(_) if len == 0 => Some(0),
            Err(_) => None,
        }
    }

    /// Gives back the part of a reservation that the backing write did not use.
    pub fn refund(&self, unused: u64) {
        if self.enospc_after.is_some() && unused > 0 {
            self.written.fetch_sub(unused, Ordering::SeqCst);
        }
    }

    /// `rel` is relative to the mount root; prefixes match whole components so that
    /// `sub` does not catch `subway`.
    pub fn read_fails(&self, rel: &Path) -> bool {
        self.eio_prefixes.iter().any(|p| rel.starts_with(p))
    }
}
