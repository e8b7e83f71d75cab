//! Reading a source file, shared by the copy and the estimate's pilot so the pilot pays the
//! same round trips the copy will.
//!
//! On a slow mount every request is a round trip and every path component a lookup, so a file
//! costs only what its bytes and its change check need: opened by name in the directory the
//! walk listed (one lookup) when the walk is at hand, by its path otherwise; the walk's `lstat`
//! is its state before the read, and `fstat` on the open descriptor its state after.

use super::plan::Entry;
use crate::base::dirfd::{self, Meta};
use crate::store::manifest::Stamp;
use std::ffi::OsStr;
use std::fs::File;
use std::io::{ErrorKind, Read};
use std::os::fd::BorrowedFd;
use std::path::Path;

/// Where a source file is opened from.
#[derive(Clone, Copy)]
pub enum SourceFile<'a> {
    /// Its whole path: a lookup per component on a slow mount.
    Path(&'a Path),
    /// Its name in its directory, open since the walk listed it: one lookup.
    In(BorrowedFd<'a>, &'a OsStr),
}

impl SourceFile<'_> {
    /// Opens it to read; a symlink is refused and a FIFO cannot block the copy.
    pub fn open(&self) -> std::io::Result<File> {
        match self {
            SourceFile::Path(path) => dirfd::open_file(path),
            SourceFile::In(dir, name) => dirfd::open_file_in(*dir, name),
        }
    }
}

/// What the copy compares before and after reading a file: a write moves the size, the mtime or
/// at least the ctime, and a replacement the inode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct State {
    pub len: u64,
    pub mtime: (i64, i64),
    pub stamp: Stamp,
}

impl State {
    pub fn of(meta: &Meta) -> Self {
        State {
            len: meta.len(),
            mtime: (meta.mtime(), meta.mtime_nsec()),
            stamp: Stamp::of(meta),
        }
    }

    /// The file as the walk's `lstat` saw it.
    pub fn walked(entry: &Entry) -> Self {
        State {
            len: entry.size,
            mtime: entry.mtime,
            stamp: entry.stamp,
        }
    }
}

/// Reads the `size` bytes the caller expects without asking past them: the size probe
/// `read_to_end` makes and the read that finds the end are each a round trip on a slow mount.
/// A file that grew is read short and one that shrank ends early: the caller's `fstat` after
/// the read sees the new size either way and retries it.
pub fn read_known(input: &mut File, size: u64, data: &mut Vec<u8>) -> std::io::Result<()> {
    data.resize(size as usize, 0);
    let mut filled = 0;
    while filled < data.len() {
        match input.read(&mut data[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    data.truncate(filled);
    Ok(())
}
