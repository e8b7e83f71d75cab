//! Reads that miss the page cache, for the first `git status` after a copy when the copied
//! files are no longer cached (a reboot, memory pressure): a few scratch files are written,
//! flushed (`fdatasync`), dropped from the page cache (`posix_fadvise(DONTNEED)`, which needs
//! no root, unlike dropping every cache), and read again, so each read goes to the disk. The
//! files' inodes stay cached, so this is the data's part of a cold read.
//!
//! Only where `lstat` is CPU work (a local disk): a network or 9p mount serves its reads from
//! the server each time anyway, so its warm figures are already its cold ones.

use rustix::fs::{Advice, Mode, OFlags};
use serde::{Deserialize, Serialize};
use std::io::{Read, Write};
use std::path::Path;
use std::time::Instant;

/// Small files timed: the median of these is the figure.
const FILES: usize = 8;
const FILE_BYTES: usize = 4096;
const MIB: usize = 1 << 20;

/// Cold reads on one mount, microseconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ColdRead {
    /// Open, read 4 KiB and close a file whose data is not cached (the median of a few).
    pub file_us: f64,
    /// Map a 1 MiB file whose data is not cached and touch every page, as git hashes a file
    /// over 32 KiB.
    pub mib_us: f64,
}

/// Times cold reads in a scratch folder made in `dir` (and removed again); None when a call
/// fails (a read-only mount, a full disk): the prediction then has no cold figure. The folder is
/// the probe's own kind (`scratch::Scratch`): removed on every path and on Ctrl-C, skipped by the
/// scan, removed by the next run after a kill, and `dir`'s modification time put back.
pub fn cold_read(dir: &Path) -> Option<ColdRead> {
    let scratch = super::scratch::Scratch::create(dir).ok()?;
    let timed = timed_reads(scratch.path());
    scratch.remove();
    timed
}

fn timed_reads(scratch: &Path) -> Option<ColdRead> {
    let small: Vec<_> = (0..FILES).map(|i| scratch.join(format!("f{i}"))).collect();
    let big = scratch.join("big");
    for path in &small {
        written(path, &vec![0x5a; FILE_BYTES]).ok()?;
    }
    written(&big, &vec![0xa5; MIB]).ok()?;
    let mut times: Vec<f64> = small
        .iter()
        .filter_map(|path| {
            let t = Instant::now();
            let mut buf = Vec::with_capacity(FILE_BYTES * 2);
            std::fs::File::open(path).ok()?.read_to_end(&mut buf).ok()?;
            Some(t.elapsed().as_secs_f64() * 1e6)
        })
        .collect();
    if times.len() < FILES {
        return None;
    }
    times.sort_by(f64::total_cmp);
    let t = Instant::now();
    let file = std::fs::File::open(&big).ok()?;
    // SAFETY: the file is private to this scratch folder and nothing truncates it while it
    // is mapped.
    #[allow(unsafe_code)]
    let map = unsafe { memmap2::Mmap::map(&file) }.ok()?;
    let touched: u64 = map.iter().step_by(4096).map(|&b| u64::from(b)).sum();
    std::hint::black_box(touched);
    drop(map);
    drop(file);
    let mib_us = t.elapsed().as_secs_f64() * 1e6;
    Some(ColdRead {
        file_us: times[FILES / 2],
        mib_us,
    })
}

/// Writes `data` to a new file at `path`, flushes it to the disk and drops its pages from the
/// page cache.
fn written(path: &Path, data: &[u8]) -> std::io::Result<()> {
    let fd = rustix::fs::open(
        path,
        OFlags::CREATE | OFlags::WRONLY | OFlags::TRUNC | OFlags::CLOEXEC,
        Mode::from_raw_mode(0o644),
    )?;
    let mut file = std::fs::File::from(fd);
    file.write_all(data)?;
    rustix::fs::fdatasync(&file)?;
    rustix::fs::fadvise(&file, 0, None, Advice::DontNeed)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cold_reads_are_timed_and_cleaned_up() {
        let dir = tempfile::tempdir().unwrap();
        let got = cold_read(dir.path()).expect("a writable temporary folder");
        assert!(got.file_us > 0.0 && got.mib_us > 0.0, "{got:?}");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
