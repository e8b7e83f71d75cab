//! The staging directory's journal and the manifest.
//!
//! Both files are lines of tab-separated fields; paths in them are in the lossless text form of
//! [`crate::base::pathtext`].
//!
//! Journal lines (`staging/journal`), appended as each file is verified:
//! `F <size> <mtime_s> <mtime_ns> <ctime_s> <ctime_ns> <inode> <crc32> <path>` and `S`
//! ("everything above is on disk"). Entries after the last `S` may describe files whose data a
//! power cut lost, and any staged file may have been changed between runs: on resume every
//! entry's staged file is read back and checked against its CRC32, never trusted on its stat
//! alone. Lines without ctime and inode (written by an older version) are read, but never
//! trusted without reading the source file again.

use crate::base::error::{Failure, Result};
use crate::store::manifest::FileRecord;
use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// What an earlier, interrupted run left in the journal.
#[derive(Debug, Clone, Default)]
pub struct Recovered {
    /// Entries written before the last sync mark: on disk for certain.
    pub synced: HashMap<PathBuf, FileRecord>,
    /// Entries after it: to be read back before they are trusted.
    pub unsynced: HashMap<PathBuf, FileRecord>,
}

/// Parses a journal. A torn last line (a kill mid-write) and unknown lines are ignored: at worst
/// a file is copied again.
pub fn parse_journal(text: &str) -> Recovered {
    let mut recovered = Recovered::default();
    let complete = match text.rfind('\n') {
        Some(end) => &text[..=end],
        None => "",
    };
    for line in complete.lines() {
        if line == "S" {
            let pending = std::mem::take(&mut recovered.unsynced);
            recovered.synced.extend(pending);
        } else if let Some(record) = FileRecord::parse(line) {
            recovered.synced.remove(&record.rel);
            recovered.unsynced.insert(record.rel.clone(), record);
        }
    }
    recovered
}

pub fn read_journal(path: &Path) -> Result<Recovered> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(parse_journal(&String::from_utf8_lossy(&bytes))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Recovered::default()),
        Err(e) => Err(Failure::io("read the migration journal", path, &e)),
    }
}

/// Flushes the whole file system that holds `dir` (one `syncfs`, not one `fsync` per file).
pub fn sync_filesystem(dir: &Path) -> Result<()> {
    let handle = File::open(dir).map_err(|e| Failure::io("open", dir, &e))?;
    rustix::fs::syncfs(&handle)
        .map_err(|e| Failure::io("flush to disk", dir, &std::io::Error::from(e)))
}

struct Writer {
    out: BufWriter<File>,
    unflushed: usize,
    last_sync: Instant,
}

/// The append-only journal, shared by the copy threads.
pub struct Journal {
    path: PathBuf,
    tree: PathBuf,
    writer: Mutex<Writer>,
}

/// A kill loses at most this many verified files (they are redone).
const FLUSH_EVERY: usize = 256;
/// A power cut costs at most this much re-verification on resume.
const SYNC_EVERY: Duration = Duration::from_secs(5);

impl Journal {
    pub fn open(path: &Path, tree: &Path) -> Result<Self> {
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| Failure::io("open the migration journal", path, &e))?;
        Ok(Self {
            path: path.to_path_buf(),
            tree: tree.to_path_buf(),
            writer: Mutex::new(Writer {
                out: BufWriter::with_capacity(64 * 1024, file),
                unflushed: 0,
                last_sync: Instant::now(),
            }),
        })
    }

    fn fail(&self, e: &std::io::Error) -> Failure {
        Failure::io("write the migration journal", &self.path, e)
    }

    pub fn append(&self, record: &FileRecord) -> Result<()> {
        let mut w = self.writer.lock().unwrap_or_else(|p| p.into_inner());
        w.out
            .write_all(record.line().as_bytes())
            .map_err(|e| self.fail(&e))?;
        w.unflushed += 1;
        if w.unflushed >= FLUSH_EVERY {
            w.out.flush().map_err(|e| self.fail(&e))?;
            w.unflushed = 0;
        }
        if w.last_sync.elapsed() >= SYNC_EVERY {
            self.sync_locked(&mut w)?;
        }
        Ok(())
    }

    /// Makes every file and every journal line so far durable, then records that fact.
    fn sync_locked(&self, w: &mut Writer) -> Result<()> {
        w.out.flush().map_err(|e| self.fail(&e))?;
        sync_filesystem(&self.tree)?;
        w.out.write_all(b"S\n").map_err(|e| self.fail(&e))?;
        w.out.flush().map_err(|e| self.fail(&e))?;
        w.out.get_ref().sync_data().map_err(|e| self.fail(&e))?;
        w.unflushed = 0;
        w.last_sync = Instant::now();
        Ok(())
    }

    pub fn sync(&self) -> Result<()> {
        let mut w = self.writer.lock().unwrap_or_else(|p| p.into_inner());
        self.sync_locked(&mut w)
    }

    /// Pushes buffered lines to the kernel (enough to survive our own death, not a power cut).
    pub fn flush(&self) -> Result<()> {
        let mut w = self.writer.lock().unwrap_or_else(|p| p.into_inner());
        w.out.flush().map_err(|e| self.fail(&e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::manifest::{ManifestEntry, Stamp, manifest_text, parse_manifest};
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;

    fn os(bytes: &[u8]) -> &OsStr {
        OsStr::from_bytes(bytes)
    }

    fn record(name: &[u8], crc32: u32) -> FileRecord {
        FileRecord {
            rel: PathBuf::from(os(name)),
            size: 12,
            mtime: (1_700_000_000, 123),
            stamp: Some(Stamp {
                ctime: (1_700_000_001, 456),
                ino: 789,
            }),
            crc32,
        }
    }

    #[test]
    fn journal_survives_a_torn_line_and_tracks_sync_marks() {
        let a = record(b"a", 1);
        let b = record(b"dir/b\xff", 2);
        let c = record(b"c", 3);
        let text = format!("{}S\n{}{}", a.line(), b.line(), &c.line()[..6]);
        let got = parse_journal(&text);
        assert_eq!(got.synced.get(&a.rel), Some(&a));
        assert_eq!(got.unsynced.get(&b.rel), Some(&b));
        assert!(!got.synced.contains_key(&c.rel) && !got.unsynced.contains_key(&c.rel));
        // A later line for the same file replaces the earlier one.
        let a2 = record(b"a", 9);
        let got = parse_journal(&format!("{}S\n{}", a.line(), a2.line()));
        assert!(got.synced.is_empty());
        assert_eq!(got.unsynced.get(&a.rel), Some(&a2));
    }

    #[test]
    fn manifest_round_trips() {
        let entries = vec![
            ManifestEntry::Dir(PathBuf::from("d\u{1}")),
            ManifestEntry::File(record(b"d/f\xfe", 0xdead_beef)),
            ManifestEntry::Symlink {
                rel: PathBuf::from("link"),
                target: PathBuf::from("../out side"),
            },
        ];
        let text = manifest_text(Path::new("/mnt/c/src/app"), Path::new("/h/app"), &entries);
        let (source, parsed) = parse_manifest(&text).unwrap();
        assert_eq!(source, PathBuf::from("/mnt/c/src/app"));
        assert_eq!(parsed, entries);
        assert!(parse_manifest(&text.replace("file\t", "fiel\t")).is_none());
    }

    #[test]
    fn records_without_a_stamp_are_read_but_never_unchanged() {
        let old = "# wsl-place manifest 1\n# source\t/s\nfile\t12\t1700000000\t123\t0000002a\ta\n";
        let (_, parsed) = parse_manifest(old).unwrap();
        let ManifestEntry::File(r) = &parsed[0] else {
            panic!("{parsed:?}")
        };
        assert_eq!((r.size, r.crc32, r.stamp), (12, 42, None));
        assert!(!r.unchanged(12, (1_700_000_000, 123), Stamp::default()));
        let new = record(b"a", 1);
        let stamp = new.stamp.unwrap();
        assert!(new.unchanged(12, (1_700_000_000, 123), stamp));
        // Same size and mtime put back by `touch -d`: the ctime tells.
        let touched = Stamp {
            ctime: (1_700_000_500, 0),
            ..stamp
        };
        assert!(!new.unchanged(12, (1_700_000_000, 123), touched));
    }
}
