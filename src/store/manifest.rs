//! The manifest of a finished migration: what was copied, each file with its source's stat at
//! the copy and the CRC32 of its bytes. The migration writes it; the old place reads it to tell
//! what changed there since (`measure::changes`), and a sync or `--remove-source` to prove what
//! the copy holds.
//!
//! Lines of tab-separated fields after a `# wsl-place manifest 2` header and `# source` /
//! `# destination` lines; paths in the lossless text form of [`crate::base::pathtext`].

use crate::base::dirfd::Meta;
use crate::base::pathtext::{escape_path, unescape_path};
use std::path::{Path, PathBuf};

/// What no one but the kernel can set on a source file: its ctime moves with every write, chmod
/// or `touch -d` that puts the mtime back, and its inode changes when an editor replaces the file
/// by a rename. Equal stamps (with equal size and mtime) prove the file was not changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Stamp {
    pub ctime: (i64, i64),
    pub ino: u64,
}

impl Stamp {
    pub fn of(meta: &Meta) -> Self {
        Self {
            ctime: (meta.ctime(), meta.ctime_nsec()),
            ino: meta.ino(),
        }
    }
}

/// One verified file: its source's size, mtime and stamp when it was copied, and the CRC32 of
/// its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileRecord {
    pub rel: PathBuf,
    pub size: u64,
    pub mtime: (i64, i64),
    /// None in a journal or manifest written before stamps were recorded.
    pub stamp: Option<Stamp>,
    pub crc32: u32,
}

impl FileRecord {
    /// Whether the source file, as `lstat` sees it now, is the one this record describes.
    pub fn unchanged(&self, size: u64, mtime: (i64, i64), stamp: Stamp) -> bool {
        self.size == size && self.mtime == mtime && self.stamp == Some(stamp)
    }

    /// `unchanged`, from a fresh `lstat` of the source file.
    pub fn unchanged_on_disk(&self, meta: &Meta) -> bool {
        meta.is_file()
            && self.unchanged(
                meta.len(),
                (meta.mtime(), meta.mtime_nsec()),
                Stamp::of(meta),
            )
    }

    pub fn line(&self) -> String {
        let stamp = match self.stamp {
            Some(s) => format!("{}\t{}\t{}\t", s.ctime.0, s.ctime.1, s.ino),
            None => String::new(),
        };
        format!(
            "F\t{}\t{}\t{}\t{stamp}{:08x}\t{}\n",
            self.size,
            self.mtime.0,
            self.mtime.1,
            self.crc32,
            escape_path(&self.rel)
        )
    }

    /// A `F` line with a stamp, or one written before stamps were recorded (six fields).
    pub fn parse(line: &str) -> Option<Self> {
        let f: Vec<&str> = line.split('\t').collect();
        let (size, mtime, stamp, crc32, rel) = match f.as_slice() {
            ["F", size, ms, mns, crc, rel] => (size, (ms, mns), None, crc, rel),
            ["F", size, ms, mns, cs, cns, ino, crc, rel] => {
                (size, (ms, mns), Some((cs, cns, ino)), crc, rel)
            }
            _ => return None,
        };
        let stamp = match stamp {
            Some((cs, cns, ino)) => Some(Stamp {
                ctime: (cs.parse().ok()?, cns.parse().ok()?),
                ino: ino.parse().ok()?,
            }),
            None => None,
        };
        let rel = unescape_path(rel)?;
        if rel.as_os_str().is_empty() {
            return None;
        }
        Some(Self {
            rel,
            size: size.parse().ok()?,
            mtime: (mtime.0.parse().ok()?, mtime.1.parse().ok()?),
            stamp,
            crc32: u32::from_str_radix(crc32, 16).ok()?,
        })
    }
}

/// One line of the manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ManifestEntry {
    File(FileRecord),
    Dir(PathBuf),
    Symlink { rel: PathBuf, target: PathBuf },
}

impl ManifestEntry {
    /// Its path, relative to the tree it describes.
    pub fn rel(&self) -> &Path {
        match self {
            Self::File(r) => &r.rel,
            Self::Dir(rel) => rel,
            Self::Symlink { rel, .. } => rel,
        }
    }
}

/// Version 2 added ctime and inode to file lines; version 1 manifests are still read.
pub const MANIFEST_HEADER: &str = "# wsl-place manifest 2";
const MANIFEST_HEADER_V1: &str = "# wsl-place manifest 1";

pub fn manifest_text(source: &Path, destination: &Path, entries: &[ManifestEntry]) -> String {
    let mut out = format!(
        "{MANIFEST_HEADER}\n# source\t{}\n# destination\t{}\n# columns: file <size> <mtime_s> <mtime_ns> <ctime_s> <ctime_ns> <inode> <crc32> <path> | dir <path> | symlink <target> <path>; paths %XX-escaped\n",
        escape_path(source),
        escape_path(destination)
    );
    for entry in entries {
        match entry {
            ManifestEntry::File(r) => out.push_str(&format!("file{}", &r.line()[1..])),
            ManifestEntry::Dir(rel) => out.push_str(&format!("dir\t{}\n", escape_path(rel))),
            ManifestEntry::Symlink { rel, target } => out.push_str(&format!(
                "symlink\t{}\t{}\n",
                escape_path(target),
                escape_path(rel)
            )),
        }
    }
    out
}

/// The manifest's source and entries; None for a file that is not a complete manifest.
pub fn parse_manifest(text: &str) -> Option<(PathBuf, Vec<ManifestEntry>)> {
    let mut lines = text.lines();
    if !is_header(lines.next()?) {
        return None;
    }
    let mut source = None;
    let mut entries = Vec::new();
    for line in lines {
        if let Some(rest) = line.strip_prefix(SOURCE_LINE) {
            source = Some(unescape_path(rest)?);
        } else if line.starts_with('#') {
            continue;
        } else if let Some(rest) = line.strip_prefix("file\t") {
            entries.push(ManifestEntry::File(FileRecord::parse(&format!(
                "F\t{rest}"
            ))?));
        } else if let Some(rest) = line.strip_prefix("dir\t") {
            entries.push(ManifestEntry::Dir(unescape_path(rest)?));
        } else if let Some(rest) = line.strip_prefix("symlink\t") {
            let (target, rel) = rest.split_once('\t')?;
            entries.push(ManifestEntry::Symlink {
                rel: unescape_path(rel)?,
                target: unescape_path(target)?,
            });
        } else {
            return None;
        }
    }
    Some((source?, entries))
}

/// The paths of the files among `entries`: what a migration copied as files.
pub fn file_paths(entries: &[ManifestEntry]) -> std::collections::HashSet<&Path> {
    entries
        .iter()
        .filter_map(|e| match e {
            ManifestEntry::File(r) => Some(r.rel.as_path()),
            _ => None,
        })
        .collect()
}

/// The manifest at `path`: its source and entries; None when it is missing or incomplete.
pub fn read(path: &Path) -> Option<(PathBuf, Vec<ManifestEntry>)> {
    parse_manifest(&std::fs::read_to_string(path).ok()?)
}
/// The source a manifest's header names, read from its first lines only (a manifest of a large
/// tree is megabytes, and `migrate` run in the copy needs just this).
pub fn source_named(path: &Path) -> Option<PathBuf> {
    use std::io::BufRead;
    let file = std::io::BufReader::new(std::fs::File::open(path).ok()?);
    let mut lines = file.lines().take(4).map_while(|l| l.ok());
    if !is_header(&lines.next()?) {
        return None;
    }
    lines.find_map(|l| l.strip_prefix(SOURCE_LINE).and_then(unescape_path))
}

/// The first line of a manifest of either version.
fn is_header(line: &str) -> bool {
    matches!(line, MANIFEST_HEADER | MANIFEST_HEADER_V1)
}

/// How the header names the source: the whole parser and `source_named` read it alike.
const SOURCE_LINE: &str = "# source\t";

/// A staging folder's owner file: the source it copies, as one line.
pub fn owner_text(source: &Path) -> String {
    format!("{}\n", escape_path(source))
}

/// The source an owner file names; None when it is not one whole line.
pub fn parse_owner(text: &str) -> Option<PathBuf> {
    unescape_path(text.strip_suffix('\n')?)
}
