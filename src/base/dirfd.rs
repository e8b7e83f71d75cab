//! File operations that work however long a path is.
//!
//! The kernel refuses any path of PATH_MAX (4096) bytes or more in one system call, yet a tree
//! can be deeper than that (Windows tools with long paths enabled write such trees to /mnt/c).
//! Two ways past the limit, both relative to open directories (the `openat` family):
//!
//! - [`Place`], for walks: a directory reached from an open ancestor (its anchor) by a relative
//!   path kept under [`ANCHOR_SPAN`] bytes. A walk re-anchors once per ~2 KB of depth, so it
//!   holds a handful of descriptors per branch being walked, never one per directory.
//! - [`At`], for one entry below a root: a path short enough is used as it is (one system call,
//!   exactly as before); a longer one is reached by opening its ancestors a few kilobytes at a
//!   time and acting on the last component relative to them.

use rustix::fs::{AtFlags, Dir, FileType, Mode, OFlags, Timespec, Timestamps};
use std::ffi::{CString, OsStr};
use std::fs::File;
use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

/// The longest path handed to one system call: under PATH_MAX (4096 with its NUL), with margin.
pub const SPAN: usize = 4000;
/// How long a walk's relative path may grow before the directory it reaches becomes the anchor.
/// Any one name is at most 255 bytes, so anchor path plus name stays well under [`SPAN`].
pub const ANCHOR_SPAN: usize = 2048;

/// What `lstat` says about an entry. Its accessors are named as `std`'s `MetadataExt`, so code
/// reads the same whichever way the entry was reached.
#[derive(Debug, Clone, Copy)]
pub struct Meta {
    kind: FileType,
    mode: u32,
    len: u64,
    blocks: u64,
    nlink: u64,
    dev: u64,
    ino: u64,
    atime: (i64, i64),
    mtime: (i64, i64),
    ctime: (i64, i64),
}

impl Meta {
    // The field widths of `struct stat` differ between architectures; on some these casts are
    // no-ops, on others they widen.
    #[allow(clippy::unnecessary_cast, clippy::useless_conversion)]
    fn from_stat(st: &rustix::fs::Stat) -> Meta {
        Meta {
            kind: FileType::from_raw_mode(st.st_mode as _),
            mode: st.st_mode as u32,
            len: st.st_size.max(0) as u64,
            blocks: st.st_blocks as u64,
            nlink: st.st_nlink as u64,
            dev: st.st_dev as u64,
            ino: st.st_ino as u64,
            atime: (st.st_atime as i64, st.st_atime_nsec as i64),
            mtime: (st.st_mtime as i64, st.st_mtime_nsec as i64),
            ctime: (st.st_ctime as i64, st.st_ctime_nsec as i64),
        }
    }

    pub fn file_type(&self) -> FileType {
        self.kind
    }

    pub fn is_dir(&self) -> bool {
        self.kind == FileType::Directory
    }

    pub fn is_file(&self) -> bool {
        self.kind == FileType::RegularFile
    }

    pub fn is_symlink(&self) -> bool {
        self.kind == FileType::Symlink
    }

    /// `st_mode`, type bits included.
    pub fn mode(&self) -> u32 {
        self.mode
    }

    // A file's size, named as `std`'s; "empty" means nothing for a directory entry's stat.
    #[allow(clippy::len_without_is_empty)]
    pub fn len(&self) -> u64 {
        self.len
    }

    /// 512-byte blocks allocated.
    pub fn blocks(&self) -> u64 {
        self.blocks
    }

    pub fn nlink(&self) -> u64 {
        self.nlink
    }

    pub fn dev(&self) -> u64 {
        self.dev
    }

    pub fn ino(&self) -> u64 {
        self.ino
    }

    pub fn atime(&self) -> i64 {
        self.atime.0
    }

    pub fn atime_nsec(&self) -> i64 {
        self.atime.1
    }

    pub fn mtime(&self) -> i64 {
        self.mtime.0
    }

    pub fn mtime_nsec(&self) -> i64 {
        self.mtime.1
    }

    pub fn ctime(&self) -> i64 {
        self.ctime.0
    }

    pub fn ctime_nsec(&self) -> i64 {
        self.ctime.1
    }
}

fn c_name(bytes: &[u8]) -> io::Result<CString> {
    CString::new(bytes).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))
}

/// Opens the directory `path` (absolute, or relative to `base`), however long, for use as the
/// `dirfd` of `*at` calls: at most [`SPAN`] bytes of it per system call.
fn open_path(base: BorrowedFd<'_>, path: &Path, flags: OFlags) -> io::Result<OwnedFd> {
    let mut current: Option<OwnedFd> = None;
    let mut chunk: Vec<u8> = Vec::new();
    let open = |at: &Option<OwnedFd>, chunk: &[u8], flags: OFlags| -> io::Result<OwnedFd> {
        let dir = at.as_ref().map_or(base, |fd| fd.as_fd());
        let name = if chunk.is_empty() { &b"."[..] } else { chunk };
        Ok(rustix::fs::openat(
            dir,
            c_name(name)?.as_c_str(),
            flags | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )?)
    };
    for component in path.components() {
        let bytes = match component {
            Component::RootDir => {
                chunk.push(b'/');
                continue;
            }
            other => other.as_os_str().as_bytes(),
        };
        if !chunk.is_empty() && chunk.len() + 1 + bytes.len() >= SPAN {
            current = Some(open(&current, &chunk, OFlags::PATH)?);
            chunk.clear();
        }
        if !chunk.is_empty() && !chunk.ends_with(b"/") {
            chunk.push(b'/');
        }
        chunk.extend_from_slice(bytes);
    }
    open(&current, &chunk, flags)
}

/// A directory a walk reaches: an open ancestor and the short path from it.
#[derive(Debug, Clone)]
pub struct Place {
    anchor: Arc<OwnedFd>,
    rel: PathBuf,
}

impl Place {
    /// The top of a walk: `path` itself is the anchor.
    pub fn root(path: &Path) -> io::Result<Place> {
        Ok(Place {
            anchor: Arc::new(open_path(rustix::fs::CWD, path, OFlags::PATH)?),
            rel: PathBuf::new(),
        })
    }

    /// Opens the directory to list it, never through a symlink. Also returns the place its
    /// children are named from: this one, or the directory itself once the path from the anchor
    /// has grown past [`ANCHOR_SPAN`] (a duplicate of the listing's descriptor, no lookup).
    pub fn enter(&self) -> io::Result<(Dir, Place)> {
        let rel = self.rel.as_os_str().as_bytes();
        let fd = open_path(
            self.anchor.as_fd(),
            &self.rel,
            OFlags::RDONLY | OFlags::NOFOLLOW,
        )?;
        let base = if rel.len() > ANCHOR_SPAN {
            Place {
                anchor: Arc::new(fd.try_clone()?),
                rel: PathBuf::new(),
            }
        } else {
            self.clone()
        };
        Ok((Dir::new(fd)?, base))
    }

    /// The place of the subdirectory `name` of this one.
    pub fn child(&self, name: &OsStr) -> Place {
        Place {
            anchor: Arc::clone(&self.anchor),
            rel: self.rel.join(name),
        }
    }
}

/// `lstat` of `name` in an open directory.
pub fn lstat_in(dir: BorrowedFd<'_>, name: &OsStr) -> io::Result<Meta> {
    let st = rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW)?;
    Ok(Meta::from_stat(&st))
}

/// One entry below a root, ready for `*at` calls however long its path.
#[derive(Debug)]
pub struct At {
    /// None: `name` is the whole path, short enough for one call.
    dir: Option<OwnedFd>,
    name: CString,
}

impl At {
    pub fn path(path: &Path) -> io::Result<At> {
        let bytes = path.as_os_str().as_bytes();
        if bytes.len() < SPAN {
            return Ok(At {
                dir: None,
                name: c_name(bytes)?,
            });
        }
        let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
            return Err(io::Error::from(io::ErrorKind::InvalidInput));
        };
        Ok(At {
            dir: Some(open_path(rustix::fs::CWD, parent, OFlags::PATH)?),
            name: c_name(name.as_bytes())?,
        })
    }

    fn dir(&self) -> BorrowedFd<'_> {
        self.dir.as_ref().map_or(rustix::fs::CWD, |fd| fd.as_fd())
    }

    pub fn lstat(&self) -> io::Result<Meta> {
        let st = rustix::fs::statat(self.dir(), &self.name, AtFlags::SYMLINK_NOFOLLOW)?;
        Ok(Meta::from_stat(&st))
    }

    /// Opens a file to read it; a symlink is refused, never followed.
    pub fn open_read(&self) -> io::Result<File> {
        let flags = OFlags::RDONLY | OFlags::CLOEXEC | OFlags::NOFOLLOW;
        Ok(rustix::fs::openat(self.dir(), &self.name, flags, Mode::empty())?.into())
    }

    /// Creates (or truncates) a file to write, with `mode` if new; never through a symlink.
    pub fn create(&self, mode: u32) -> io::Result<File> {
        let flags =
            OFlags::WRONLY | OFlags::CREATE | OFlags::TRUNC | OFlags::CLOEXEC | OFlags::NOFOLLOW;
        let mode = Mode::from_raw_mode(mode as _);
        Ok(rustix::fs::openat(self.dir(), &self.name, flags, mode)?.into())
    }

    pub fn mkdir(&self, mode: u32) -> io::Result<()> {
        Ok(rustix::fs::mkdirat(
            self.dir(),
            &self.name,
            Mode::from_raw_mode(mode as _),
        )?)
    }

    pub fn read_link(&self) -> io::Result<PathBuf> {
        let target = rustix::fs::readlinkat(self.dir(), &self.name, Vec::new())?;
        Ok(PathBuf::from(OsStr::from_bytes(target.as_bytes())))
    }

    pub fn symlink(&self, target: &Path) -> io::Result<()> {
        Ok(rustix::fs::symlinkat(target, self.dir(), &self.name)?)
    }

    /// Removes a file or symlink.
    pub fn unlink(&self) -> io::Result<()> {
        Ok(rustix::fs::unlinkat(
            self.dir(),
            &self.name,
            AtFlags::empty(),
        )?)
    }

    /// Removes an empty directory.
    pub fn rmdir(&self) -> io::Result<()> {
        Ok(rustix::fs::unlinkat(
            self.dir(),
            &self.name,
            AtFlags::REMOVEDIR,
        )?)
    }

    /// Sets the permission bits; follows a symlink (Linux cannot change a link's own mode).
    pub fn chmod(&self, mode: u32) -> io::Result<()> {
        Ok(rustix::fs::chmodat(
            self.dir(),
            &self.name,
            Mode::from_raw_mode(mode as _),
            AtFlags::empty(),
        )?)
    }

    /// Sets access and modification times of the entry itself, a symlink included.
    pub fn set_times(&self, atime: (i64, i64), mtime: (i64, i64)) -> io::Result<()> {
        let spec = |(secs, nanos): (i64, i64)| Timespec {
            tv_sec: secs,
            tv_nsec: nanos.clamp(0, 999_999_999) as _,
        };
        let times = Timestamps {
            last_access: spec(atime),
            last_modification: spec(mtime),
        };
        Ok(rustix::fs::utimensat(
            self.dir(),
            &self.name,
            &times,
            AtFlags::SYMLINK_NOFOLLOW,
        )?)
    }

    /// Removes the entry and, for a directory, everything below it, however deep; a missing
    /// entry is fine. Holds one descriptor per [`ANCHOR_SPAN`] of depth, not one per level.
    pub fn remove_all(&self) -> io::Result<()> {
        match self.lstat() {
            Ok(meta) if meta.is_dir() => {}
            Ok(_) => return self.unlink(),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(e),
        }
        let place = Place {
            anchor: Arc::new(rustix::fs::openat(
                self.dir(),
                &self.name,
                OFlags::PATH | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                Mode::empty(),
            )?),
            rel: PathBuf::new(),
        };
        empty_dir(&place)?;
        match self.rmdir() {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }
}

/// `lstat`, however long the path.
pub fn lstat(path: &Path) -> io::Result<Meta> {
    At::path(path)?.lstat()
}

/// Opens a file to read, however long the path; a symlink is refused, never followed.
pub fn open_read(path: &Path) -> io::Result<File> {
    At::path(path)?.open_read()
}

/// Opens a file to read, however long the path, as a copy does: a symlink is refused and a FIFO
/// or device cannot block (it is no regular file, which the caller's `fstat` then says).
pub fn open_file(path: &Path) -> io::Result<File> {
    let at = At::path(path)?;
    open_file_in(at.dir(), OsStr::from_bytes(at.name.as_bytes()))
}

/// [`open_file`] of `name` in an open directory: one lookup, however deep the directory is.
pub fn open_file_in(dir: BorrowedFd<'_>, name: &OsStr) -> io::Result<File> {
    let flags = OFlags::RDONLY | OFlags::CLOEXEC | OFlags::NOFOLLOW | OFlags::NONBLOCK;
    Ok(rustix::fs::openat(dir, name, flags, Mode::empty())?.into())
}

/// What an open file is now (no path is looked up again).
pub fn fstat(file: &File) -> io::Result<Meta> {
    Ok(Meta::from_stat(&rustix::fs::fstat(file)?))
}

/// Creates or truncates a file to write (`mode` if new), however long the path.
pub fn create(path: &Path, mode: u32) -> io::Result<File> {
    At::path(path)?.create(mode)
}

pub fn mkdir(path: &Path, mode: u32) -> io::Result<()> {
    At::path(path)?.mkdir(mode)
}

pub fn read_link(path: &Path) -> io::Result<PathBuf> {
    At::path(path)?.read_link()
}

/// Makes `path` a symlink to `target`.
pub fn symlink(target: &Path, path: &Path) -> io::Result<()> {
    At::path(path)?.symlink(target)
}

/// Makes `path` another name of the file `existing` (a hard link); neither is followed if it
/// is a symlink.
pub fn hard_link(existing: &Path, path: &Path) -> io::Result<()> {
    let (from, to) = (At::path(existing)?, At::path(path)?);
    Ok(rustix::fs::linkat(
        from.dir(),
        &from.name,
        to.dir(),
        &to.name,
        AtFlags::empty(),
    )?)
}

/// Removes a file or symlink.
pub fn unlink(path: &Path) -> io::Result<()> {
    At::path(path)?.unlink()
}

/// Removes an empty directory.
pub fn rmdir(path: &Path) -> io::Result<()> {
    At::path(path)?.rmdir()
}

/// Sets permission bits (following a symlink, as `chmod` does).
pub fn chmod(path: &Path, mode: u32) -> io::Result<()> {
    At::path(path)?.chmod(mode)
}

/// Sets access and modification times of the entry itself, never a symlink's target.
pub fn set_times(path: &Path, atime: (i64, i64), mtime: (i64, i64)) -> io::Result<()> {
    At::path(path)?.set_times(atime, mtime)
}

/// Removes `path` and everything below it however deep; a missing `path` is fine.
pub fn remove_all(path: &Path) -> io::Result<()> {
    At::path(path)?.remove_all()
}

/// A directory reached from a root without crossing a symlink anywhere on the way: what a
/// deletion walks, so that a folder replaced by a link after the copy (to the copy itself, or to
/// somewhere unrelated) stops the walk instead of steering it. Named, like [`Place`], from an
/// anchor by a short relative path, so a walk holds one descriptor per ~2 KB of depth.
#[derive(Debug, Clone)]
pub struct Fenced {
    anchor: Arc<OwnedFd>,
    rel: PathBuf,
}

/// An open directory of a [`Fenced`] walk: every `*at` call on it names one entry and never
/// follows that entry if it is a symlink.
#[derive(Debug)]
pub struct FencedDir {
    fd: OwnedFd,
}

impl Fenced {
    /// The top of a walk: `path` must be a directory itself, not a symlink to one; the folders
    /// above it are the user's and are resolved as usual.
    pub fn root(path: &Path) -> io::Result<Fenced> {
        let fd = open_path(rustix::fs::CWD, path, OFlags::RDONLY | OFlags::NOFOLLOW)?;
        Ok(Fenced {
            anchor: Arc::new(fd),
            rel: PathBuf::new(),
        })
    }

    pub fn child(&self, name: &OsStr) -> Fenced {
        Fenced {
            anchor: Arc::clone(&self.anchor),
            rel: self.rel.join(name),
        }
    }

    /// Opens the directory; fails (ELOOP or ENOTDIR) when it or any folder between it and the
    /// anchor is now a symlink or not a folder.
    pub fn open(&self) -> io::Result<FencedDir> {
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        if self.rel.as_os_str().is_empty() {
            return Ok(FencedDir {
                fd: rustix::fs::openat(&*self.anchor, ".", flags, Mode::empty())?,
            });
        }
        let resolve = rustix::fs::ResolveFlags::NO_SYMLINKS
            | rustix::fs::ResolveFlags::NO_MAGICLINKS
            | rustix::fs::ResolveFlags::BENEATH;
        match rustix::fs::openat2(&*self.anchor, &self.rel, flags, Mode::empty(), resolve) {
            Ok(fd) => Ok(FencedDir { fd }),
            // Kernels before 5.6, and sandboxes that filter openat2: one component at a time.
            Err(rustix::io::Errno::NOSYS | rustix::io::Errno::PERM) => {
                let mut fd = rustix::fs::openat(&*self.anchor, ".", flags, Mode::empty())?;
                for component in self.rel.components() {
                    let Component::Normal(name) = component else {
                        return Err(io::Error::from(io::ErrorKind::InvalidInput));
                    };
                    fd = rustix::fs::openat(&fd, name, flags, Mode::empty())?;
                }
                Ok(FencedDir { fd })
            }
            Err(e) => Err(e.into()),
        }
    }

    /// What is at this place now, for saying why it cannot be opened; never followed at the end.
    pub fn lstat(&self) -> io::Result<Meta> {
        let name: &Path = if self.rel.as_os_str().is_empty() {
            Path::new(".")
        } else {
            &self.rel
        };
        lstat_in(self.anchor.as_fd(), name.as_os_str())
    }

    /// Where this directory's children are named from: this place, or `dir` itself once the
    /// path from the anchor has grown long.
    pub fn base(&self, dir: &FencedDir) -> io::Result<Fenced> {
        if self.rel.as_os_str().len() > ANCHOR_SPAN {
            Ok(Fenced {
                anchor: Arc::new(dir.fd.try_clone()?),
                rel: PathBuf::new(),
            })
        } else {
            Ok(self.clone())
        }
    }
}

impl FencedDir {
    pub fn lstat(&self, name: &OsStr) -> io::Result<Meta> {
        lstat_in(self.fd.as_fd(), name)
    }

    /// Opens a regular file to read; a symlink is refused, and a FIFO or device cannot block.
    pub fn open_file(&self, name: &OsStr) -> io::Result<(File, Meta)> {
        let flags = OFlags::RDONLY | OFlags::CLOEXEC | OFlags::NOFOLLOW | OFlags::NONBLOCK;
        let file: File = rustix::fs::openat(&self.fd, name, flags, Mode::empty())?.into();
        let meta = Meta::from_stat(&rustix::fs::fstat(&file)?);
        if !meta.is_file() {
            return Err(io::Error::other("not a regular file"));
        }
        Ok((file, meta))
    }

    pub fn read_link(&self, name: &OsStr) -> io::Result<PathBuf> {
        let target = rustix::fs::readlinkat(&self.fd, name, Vec::new())?;
        Ok(PathBuf::from(OsStr::from_bytes(target.as_bytes())))
    }

    /// Removes a file or symlink (never what a symlink points to).
    pub fn unlink(&self, name: &OsStr) -> io::Result<()> {
        Ok(rustix::fs::unlinkat(&self.fd, name, AtFlags::empty())?)
    }

    /// Removes an empty subdirectory; a symlink in its place fails with ENOTDIR.
    pub fn rmdir(&self, name: &OsStr) -> io::Result<()> {
        Ok(rustix::fs::unlinkat(&self.fd, name, AtFlags::REMOVEDIR)?)
    }
}

/// Removes everything in the directory at `place`. Each listing is read whole and closed before
/// descending, so open descriptors stay bounded by the anchors.
fn empty_dir(place: &Place) -> io::Result<()> {
    let (mut dir, base) = place.enter()?;
    let mut subdirs = Vec::new();
    let mut others = Vec::new();
    while let Some(entry) = dir.read() {
        let entry = entry?;
        let name = OsStr::from_bytes(entry.file_name().to_bytes()).to_os_string();
        if name == "." || name == ".." {
            continue;
        }
        let kind = match entry.file_type() {
            FileType::Unknown => lstat_in(dir.fd()?, &name)?.file_type(),
            kind => kind,
        };
        if kind == FileType::Directory {
            subdirs.push(name);
        } else {
            others.push(name);
        }
    }
    let fd = dir.fd()?;
    // A directory we cannot write into cannot be emptied: make it writable first (our own
    // staged copies of read-only source folders).
    if let Ok(st) = rustix::fs::fstat(fd) {
        let mode = st.st_mode & 0o7777;
        if mode & 0o700 != 0o700 && !(subdirs.is_empty() && others.is_empty()) {
            let _ = rustix::fs::fchmod(fd, Mode::from_raw_mode((mode | 0o700) as _));
        }
    }
    for name in &others {
        match rustix::fs::unlinkat(fd, name.as_os_str(), AtFlags::empty()) {
            Ok(()) | Err(rustix::io::Errno::NOENT) => {}
            Err(e) => return Err(e.into()),
        }
    }
    drop(dir);
    for name in &subdirs {
        let child = base.child(name);
        empty_dir(&child)?;
        // Named from the anchor (a short path), so no descriptor is held across the descent.
        match rustix::fs::unlinkat(base.anchor.as_fd(), &child.rel, AtFlags::REMOVEDIR) {
            Ok(()) | Err(rustix::io::Errno::NOENT) => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A chain of `levels` directories named long enough to pass PATH_MAX, built with `*at`.
    fn deep_chain(root: &Path, levels: usize) -> PathBuf {
        let mut rel = PathBuf::new();
        let mut fd = open_path(rustix::fs::CWD, root, OFlags::PATH).unwrap();
        for i in 0..levels {
            let name = format!("level-{i:04}-{}", "x".repeat(40));
            rustix::fs::mkdirat(&fd, name.as_str(), Mode::from_raw_mode(0o755)).unwrap();
            fd = rustix::fs::openat(
                &fd,
                name.as_str(),
                OFlags::PATH | OFlags::DIRECTORY,
                Mode::empty(),
            )
            .unwrap();
            rel.push(name);
        }
        rel
    }

    #[test]
    fn entries_past_path_max_are_created_read_and_removed() {
        let tmp = tempfile::tempdir().unwrap();
        let rel = deep_chain(tmp.path(), 120);
        assert!(tmp.path().join(&rel).as_os_str().len() > 5000);
        let file = At::path(&tmp.path().join(rel.join("f"))).unwrap();
        std::io::Write::write_all(&mut file.create(0o640).unwrap(), b"deep").unwrap();
        let meta = file.lstat().unwrap();
        assert!(meta.is_file());
        assert_eq!((meta.len(), meta.mode() & 0o7777), (4, 0o640));
        let mut text = String::new();
        std::io::Read::read_to_string(&mut file.open_read().unwrap(), &mut text).unwrap();
        assert_eq!(text, "deep");
        let link = At::path(&tmp.path().join(rel.join("l"))).unwrap();
        link.symlink(Path::new("f")).unwrap();
        assert_eq!(link.read_link().unwrap(), Path::new("f"));
        assert!(link.open_read().is_err(), "a symlink is never followed");
        link.set_times((1, 2), (3, 4)).unwrap();
        let meta = link.lstat().unwrap();
        assert_eq!((meta.mtime(), meta.mtime_nsec()), (3, 4));
        At::path(&tmp.path().join(rel.join("d")))
            .unwrap()
            .mkdir(0o500)
            .unwrap();
        let top = rel.components().next().unwrap().as_os_str();
        At::path(&tmp.path().join(top))
            .unwrap()
            .remove_all()
            .unwrap();
        assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
    }
}
