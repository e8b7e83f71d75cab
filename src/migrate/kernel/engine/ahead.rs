//! The one-pass move's copy: each file the walk meets goes at once, through a bounded queue, to
//! copy workers that copy it into the staging tree, read it back and journal it, as the copy
//! after a plan would. The walk does not wait for the copy to finish (only for room in the
//! queue), and the copy does not wait for the walk: on a slow source their round trips overlap.
//!
//! Only what the plan is sure to copy as it is goes ahead: regular files with one name (a
//! further name is a link made after the copy), outside `node_modules` when it is left behind,
//! and no more bytes or inodes than half of what the destination had free (so the plan's own
//! space check still decides before the disk fills). Whatever the plan then leaves behind is
//! removed from the staging tree; everything else is copied after the walk, as before.

use super::copy::{FileResult, copy_file};
use super::journal::Journal;
use super::plan::{self, Entry, outermost_node_modules};
use super::source::SourceFile;
use crate::base::dirfd::Meta;
use crate::base::error::{Failure, Result};
use crate::base::interrupt;
use crate::base::shared_dir::SharedDir;
use crate::store::manifest::FileRecord;
use std::collections::HashMap;
use std::os::fd::AsFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, sync_channel};
use std::sync::{Arc, Mutex};

/// Entries waiting for a worker: enough to keep every worker busy through a slow listing,
/// few enough that the walk never runs far ahead of the copy.
const QUEUE: usize = 1024;

/// Paths this long or longer are left to the copy after the walk (PATH_MAX is 4096).
const LONG_PATH: usize = 3072;

/// Where the copy goes and how much of the destination it may take before the plan has checked
/// the space.
pub struct Target<'a> {
    pub source: &'a Path,
    pub tree: &'a Path,
    pub journal: &'a Journal,
    pub threads: usize,
    pub free_bytes: Option<u64>,
    pub free_inodes: Option<u64>,
    pub leave_node_modules: bool,
}

/// What the workers copied, and the first failure of the destination, if any.
#[derive(Default)]
pub struct Copied {
    pub records: HashMap<PathBuf, FileRecord>,
    pub failure: Option<Failure>,
}

/// Runs `walk` with an offer that copies each file it meets, and returns what the walk returned
/// with what was copied once every worker is done.
pub fn copy_while<T>(target: &Target, walk: impl FnOnce(&plan::Offer) -> T) -> (T, Copied) {
    let (sender, receiver) = sync_channel::<Queued>(QUEUE);
    let receiver = Arc::new(Mutex::new(receiver));
    let copied = Mutex::new(Copied::default());
    let stopped = AtomicBool::new(false);
    let budget = Budget::of(target);
    let walked = std::thread::scope(|scope| {
        for _ in 0..target.threads.max(1) {
            let receiver = Arc::clone(&receiver);
            let (copied, stopped) = (&copied, &stopped);
            scope.spawn(move || work(target, &receiver, copied, stopped));
        }
        let sender = Mutex::new(Some(sender));
        let offer = |rel: &Path, meta: &Meta, dir: plan::OpenDir| {
            if stopped.load(Ordering::Relaxed)
                || !goes_ahead(target, rel, meta)
                || !budget.take(meta.len())
            {
                return;
            }
            let queue = sender.lock().unwrap_or_else(|p| p.into_inner()).clone();
            if let Some(queue) = queue {
                // A send fails only when every worker stopped: the file is copied after the walk.
                let _ = queue.send(Queued {
                    entry: Entry::file(rel.to_path_buf(), meta),
                    dir: dir.cloned(),
                });
            }
        };
        let walked = walk(&offer);
        // The workers drain the queue and end; the scope waits for them.
        drop(sender.lock().unwrap_or_else(|p| p.into_inner()).take());
        walked
    });
    (
        walked,
        copied.into_inner().unwrap_or_else(|p| p.into_inner()),
    )
}

/// A regular file with one name, where the plan copies it whatever the answers.
fn goes_ahead(target: &Target, rel: &Path, meta: &Meta) -> bool {
    meta.is_file()
        && meta.nlink() == 1
        // A path past Linux's limit is made one folder at a time by the copy after the walk.
        && target.tree.as_os_str().len() + rel.as_os_str().len() < LONG_PATH
        && !(target.leave_node_modules && outermost_node_modules(rel).is_some())
}

/// One worker: copies what the queue holds until the walk is over, the destination fails or
/// the run is interrupted (then the rest stays in the queue for the copy after the walk).
fn work(
    target: &Target,
    receiver: &Mutex<Receiver<Queued>>,
    copied: &Mutex<Copied>,
    stopped: &AtomicBool,
) {
    loop {
        let next = receiver.lock().unwrap_or_else(|p| p.into_inner()).recv();
        let Ok(queued) = next else { return };
        if stopped.load(Ordering::Relaxed) || interrupt::requested() {
            stopped.store(true, Ordering::Relaxed);
            continue;
        }
        match copy_one(target, &queued) {
            Ok(Some(record)) => {
                let mut copied = copied.lock().unwrap_or_else(|p| p.into_inner());
                copied.records.insert(record.rel.clone(), record);
            }
            // The source's trouble: the copy after the walk meets it again and says so.
            Ok(None) => {}
            Err(failure) => {
                stopped.store(true, Ordering::Relaxed);
                let mut copied = copied.lock().unwrap_or_else(|p| p.into_inner());
                copied.failure.get_or_insert(failure);
            }
        }
    }
}

/// One file into the staging tree (its folder made if the walk's order has not made it yet),
/// read back and journaled.
fn copy_one(target: &Target, queued: &Queued) -> Result<Option<FileRecord>> {
    let entry = &queued.entry;
    if let Some(parent) = target.tree.join(&entry.rel).parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| Failure::io("create the directory", parent, &e))?;
    }
    let path = target.source.join(&entry.rel);
    let from = match (&queued.dir, entry.rel.file_name()) {
        (Some(dir), Some(name)) => SourceFile::In(dir.as_fd(), name),
        _ => SourceFile::Path(&path),
    };
    match copy_file(from, target.tree, entry, false)? {
        FileResult::Done(record) => {
            target.journal.append(&record)?;
            Ok(Some(record))
        }
        FileResult::Problem(_) => Ok(None),
    }
}

/// A file waiting for a worker, with the directory the walk listed it in when it could be kept
/// open: the worker opens the file by its name there, not by its path.
struct Queued {
    entry: Entry,
    dir: Option<Arc<SharedDir>>,
}

/// Half the destination's free bytes and inodes, taken as files go ahead.
struct Budget {
    bytes: Option<u64>,
    inodes: Option<u64>,
    used_bytes: AtomicU64,
    used_inodes: AtomicU64,
}

impl Budget {
    fn of(target: &Target) -> Self {
        Self {
            bytes: target.free_bytes.map(|b| b / 2),
            inodes: target.free_inodes.map(|i| i / 2),
            used_bytes: AtomicU64::new(0),
            used_inodes: AtomicU64::new(0),
        }
    }

    /// Whether a file of `size` bytes still fits; counted when it does.
    fn take(&self, size: u64) -> bool {
        // A file takes its blocks, and its folders an inode each at most: two per file.
        let bytes = self
            .used_bytes
            .fetch_add(super::plan::blocks(size), Ordering::Relaxed);
        let inodes = self.used_inodes.fetch_add(2, Ordering::Relaxed);
        self.bytes
            .is_none_or(|b| bytes + super::plan::blocks(size) <= b)
            && self.inodes.is_none_or(|i| inodes + 2 <= i)
    }
}
