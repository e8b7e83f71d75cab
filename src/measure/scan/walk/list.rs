//! Listing one directory: its entries counted by kind from `readdir`, its regular files sized
//! (from git's index without I/O, else by `lstat` through the directory's fd until the
//! deadline), its subdirectories named for the walk to visit.

use super::{CLOCK_EVERY, Inside, SIZED_EVERY, Walker};
use crate::base::dirfd::{self, Meta};
use crate::base::shared_dir::SharedDir;
use crate::measure::scan::Counts;
use rustix::fs::{Dir, FileType};
use std::ffi::{OsStr, OsString};
use std::os::fd::BorrowedFd;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::Path;
use std::sync::atomic::Ordering;

/// What one directory's listing held.
#[derive(Debug, Default)]
pub(super) struct Listed {
    /// Its own files, symlinks and others, subdirectories, and the bytes of the files sized.
    pub(super) own: Counts,
    pub(super) children: Vec<OsString>,
    /// Files sized (by `lstat` or from the index), the part of them sized from the index, and
    /// files left unsized by the deadline.
    pub(super) statted: u64,
    pub(super) index_sized: u64,
    pub(super) unstatted: u64,
    /// Files left unsized on purpose in a sampled package (see `Inside::Sampled`).
    pub(super) left_unsized: u64,
}

/// What sizing a directory's files carries from one entry to the next.
struct Sizing {
    inside: Inside,
    /// The directory's path in the index's form, when git may know its files.
    index_dir: Option<Vec<u8>>,
    lookup: Vec<u8>,
    /// Entries read so far, for checking the clock every `CLOCK_EVERY`.
    seen: usize,
    /// The deadline has passed: files not known from the index are left unsized.
    stop: bool,
}

impl Walker<'_> {
    /// One directory's own entries: files counted (sized from the index, or by `lstat` until
    /// the deadline), subdirectories named for the walk to visit.
    pub(super) fn list_dir(&self, dir: &Path, mut listing: Dir, inside: Inside) -> Listed {
        let mut listed = Listed::default();
        let mut sizing = Sizing {
            inside,
            stop: self.stopped(),
            index_dir: self.index_dir(dir, inside),
            lookup: Vec::new(),
            seen: 0,
        };
        // Duplicated once per directory, for a caller that takes it, within the descriptor bound.
        let shared = self.each.and_then(|_| SharedDir::of(listing.fd().ok()?));
        while let Some(entry) = listing.read() {
            let entry = match entry {
                Ok(e) => e,
                Err(e) => {
                    self.errors.fetch_add(1, Ordering::Relaxed);
                    self.unreadable(dir, &e.into());
                    break;
                }
            };
            let name = OsStr::from_bytes(entry.file_name().to_bytes());
            if name == "." || name == ".." {
                continue;
            }
            sizing.seen += 1;
            let Ok(fd) = listing.fd() else {
                break;
            };
            // Through the directory's open fd: one request per entry, however deep.
            let mut meta = self.each.map(|each| {
                let meta = dirfd::lstat_in(fd, name);
                each(dir, name, &meta, shared.as_ref());
                meta
            });
            let Some(kind) = self.entry_kind(fd, entry.file_type(), name, &mut meta) else {
                continue;
            };
            self.note_nested_git(dir, name, kind, inside);
            match kind {
                FileType::Directory => {
                    // A probe's scratch folder (a running probe's, or one a SIGKILL left) is
                    // ours, not the user's: never counted.
                    if !crate::measure::probe::scratch::is_scratch_name(name.as_bytes()) {
                        listed.children.push(name.to_os_string());
                    }
                }
                FileType::Symlink => listed.own.symlinks += 1,
                FileType::RegularFile => self.size_file(&mut listed, &mut sizing, fd, name, meta),
                _ => listed.own.other += 1,
            }
        }
        listed.own.dirs = listed.children.len() as u64;
        listed
    }

    /// A repository or submodule the tree holds (see `ScanReport::nested_git`).
    fn note_nested_git(&self, dir: &Path, name: &OsStr, kind: FileType, inside: Inside) {
        if name == ".git"
            && inside != Inside::Git
            && dir != self.root
            && let Ok(mut nested) = self.nested_git.lock()
        {
            nested.push((self.relative(dir), kind == FileType::Directory));
        }
    }

    /// Counts a regular file and sizes it: from the index when git knows it, else by `lstat`
    /// (or the one `meta` already holds) while the deadline allows and the sample asks for it.
    fn size_file(
        &self,
        listed: &mut Listed,
        sizing: &mut Sizing,
        fd: BorrowedFd<'_>,
        name: &OsStr,
        meta: Option<std::io::Result<Meta>>,
    ) {
        let own = &mut listed.own;
        own.files += 1;
        if let (Some(sizes), Some(base)) = (self.sizes, &sizing.index_dir)
            && let Some(size) = sizes.size(base, name.as_bytes(), &mut sizing.lookup)
        {
            // Known without I/O, so counted even after the deadline.
            listed.index_sized += 1;
            listed.statted += 1;
            own.bytes += size;
            own.allocated_bytes += size.div_ceil(4096) * 4096;
            return;
        }
        if !sizing.stop && sizing.seen % CLOCK_EVERY == CLOCK_EVERY - 1 {
            sizing.stop = self.stopped();
        }
        if sizing.stop {
            listed.unstatted += 1;
            return;
        }
        if sizing.inside == Inside::Sampled && own.files % SIZED_EVERY != 1 {
            listed.left_unsized += 1;
            return;
        }
        match meta.unwrap_or_else(|| dirfd::lstat_in(fd, name)) {
            Ok(meta) => {
                listed.statted += 1;
                if meta.nlink() > 1 && !self.first_link(meta.dev(), meta.ino()) {
                    return;
                }
                own.bytes += meta.len();
                own.allocated_bytes += meta.blocks() * 512;
            }
            // Vanished between readdir and lstat: still a name that was there.
            Err(_) => {
                self.errors.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    /// The directory's path in the index's form, when git may know its files.
    fn index_dir(&self, dir: &Path, inside: Inside) -> Option<Vec<u8>> {
        match (self.sizes, inside) {
            (Some(_), Inside::Plain | Inside::Dependency | Inside::Sampled) => {
                let mut base = self.relative(dir).into_os_string().into_vec();
                if !base.is_empty() {
                    base.push(b'/');
                }
                Some(base)
            }
            _ => None,
        }
    }

    /// The entry's type from `readdir`; some file systems leave it out, and then only an `lstat`
    /// can tell (kept in `meta` for the caller). None when that fails too.
    fn entry_kind(
        &self,
        dir: BorrowedFd<'_>,
        listed: FileType,
        name: &OsStr,
        meta: &mut Option<std::io::Result<Meta>>,
    ) -> Option<FileType> {
        if listed != FileType::Unknown {
            return Some(listed);
        }
        if let Some(Ok(m)) = meta {
            return Some(m.file_type());
        }
        match dirfd::lstat_in(dir, name) {
            Ok(m) => {
                *meta = Some(Ok(m));
                Some(m.file_type())
            }
            Err(_) => {
                self.errors.fetch_add(1, Ordering::Relaxed);
                None
            }
        }
    }

    /// True the first time an inode is seen; its bytes count once however many names it has.
    fn first_link(&self, dev: u64, ino: u64) -> bool {
        let first = self
            .inodes
            .lock()
            .map(|mut set| set.insert((dev, ino)))
            .unwrap_or(true);
        if !first {
            self.hardlinks.fetch_add(1, Ordering::Relaxed);
        }
        first
    }
}
