//! The pass-through file system: every request is served from the backing
//! directory after sleeping for the operation's latency.

use std::collections::HashMap;
use std::ffi::{OsStr, OsString};
use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{DirBuilderExt, FileExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use fuser::{
    AccessFlags, Errno, FileAttr, FileHandle, FileType, Filesystem, FopenFlags, Generation,
    INodeNo, InitFlags, KernelConfig, LockOwner, OpenFlags, RenameFlags, ReplyAttr, ReplyCreate,
    ReplyData, ReplyDirectory, ReplyEmpty, ReplyEntry, ReplyOpen, ReplyStatfs, ReplyWrite, Request,
    TimeOrNow, WriteFlags,
};

use rustix::fs::{AtFlags, CWD, Mode, OFlags, Timespec, Timestamps, UTIME_NOW, UTIME_OMIT};
use rustix::process::{Gid, Uid};

use crate::faults::Faults;
use crate::inodes::Inodes;
use crate::latency::{Latency, Op};

/// Entry and attribute TTL: zero, so the kernel comes back to us the way 9p on WSL
/// goes back to Windows: a LOOKUP for every path component of every walk, and a
/// GETATTR for every stat (the kernel stores a zero timeout as already expired).
/// Negative entries are not cached either (errors carry no TTL).
const TTL: Duration = Duration::ZERO;

struct DirEntry {
    ino: INodeNo,
    kind: FileType,
    name: OsString,
}

/// The parts of a setattr request that we pass on to the backing file.
struct SetAttr {
    mode: Option<u32>,
    uid: Option<u32>,
    gid: Option<u32>,
    size: Option<u64>,
    atime: Option<TimeOrNow>,
    mtime: Option<TimeOrNow>,
}

pub struct SlowFs {
    backing: PathBuf,
    inodes: Mutex<Inodes>,
    files: Mutex<HashMap<u64, Arc<File>>>,
    dirs: Mutex<HashMap<u64, Arc<Vec<DirEntry>>>>,
    next_fh: AtomicU64,
    latency: Arc<Latency>,
    faults: Faults,
}

fn errno(e: &io::Error) -> Errno {
    Errno::from_i32(
        e.raw_os_error()
            .unwrap_or(rustix::io::Errno::IO.raw_os_error()),
    )
}

/// A failed system call's errno, as the kernel is answered.
fn reply_errno(e: rustix::io::Errno) -> Errno {
    Errno::from_i32(e.raw_os_error())
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic in one request must not wedge the whole mount.
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn time(secs: i64, nsecs: i64) -> SystemTime {
    let nsecs = u32::try_from(nsecs).unwrap_or(0);
    if secs >= 0 {
        UNIX_EPOCH + Duration::new(secs.unsigned_abs(), nsecs)
    } else {
        UNIX_EPOCH - Duration::from_secs(secs.unsigned_abs()) + Duration::from_nanos(nsecs.into())
    }
}

fn kind_of(mode: u32) -> FileType {
    use rustix::fs::FileType as Raw;
    match Raw::from_raw_mode(mode) {
        Raw::Directory => FileType::Directory,
        Raw::Symlink => FileType::Symlink,
        Raw::Fifo => FileType::NamedPipe,
        Raw::Socket => FileType::Socket,
        Raw::CharacterDevice => FileType::CharDevice,
        Raw::BlockDevice => FileType::BlockDevice,
        _ => FileType::RegularFile,
    }
}

fn attr(ino: INodeNo, m: &fs::Metadata) -> FileAttr {
    FileAttr {
        ino,
        size: m.size(),
        blocks: m.blocks(),
        atime: time(m.atime(), m.atime_nsec()),
        mtime: time(m.mtime(), m.mtime_nsec()),
        ctime: time(m.ctime(), m.ctime_nsec()),
        crtime: time(m.ctime(), m.ctime_nsec()),
        kind: kind_of(m.mode()),
        perm: (m.mode() & 0o7777) as u16,
        nlink: u32::try_from(m.nlink()).unwrap_or(u32::MAX),
        uid: m.uid(),
        gid: m.gid(),
        // FUSE carries a 32-bit rdev; device nodes on a repository mount are exotic.
        rdev: m.rdev() as u32,
        blksize: u32::try_from(m.blksize()).unwrap_or(4096),
        flags: 0,
    }
}

fn timespec(t: Option<TimeOrNow>) -> Timespec {
    match t {
        None => Timespec {
            tv_sec: 0,
            tv_nsec: UTIME_OMIT,
        },
        Some(TimeOrNow::Now) => Timespec {
            tv_sec: 0,
            tv_nsec: UTIME_NOW,
        },
        Some(TimeOrNow::SpecificTime(t)) => {
            let (secs, nsecs) = match t.duration_since(UNIX_EPOCH) {
                Ok(d) => (d.as_secs() as i64, i64::from(d.subsec_nanos())),
                Err(e) => {
                    let d = e.duration();
                    let (s, n) = (d.as_secs() as i64, i64::from(d.subsec_nanos()));
                    if n == 0 {
                        (-s, 0)
                    } else {
                        (-s - 1, 1_000_000_000 - n)
                    }
                }
            };
            Timespec {
                tv_sec: secs,
                tv_nsec: nsecs as _,
            }
        }
    }
}

impl SlowFs {
    pub fn new(backing: PathBuf, latency: Arc<Latency>, faults: Faults) -> Self {
        SlowFs {
            backing,
            inodes: Mutex::new(Inodes::new()),
            files: Mutex::new(HashMap::new()),
            dirs: Mutex::new(HashMap::new()),
            next_fh: AtomicU64::new(1),
            latency,
            faults,
        }
    }

    fn rel(&self, ino: INodeNo) -> Result<PathBuf, Errno> {
        lock(&self.inodes).path(ino).ok_or(Errno::ENOENT)
    }

    fn real(&self, rel: &Path) -> PathBuf {
        self.backing.join(rel)
    }

    fn child(&self, parent: INodeNo, name: &OsStr) -> Result<PathBuf, Errno> {
        if name.as_bytes().contains(&b'/') {
            return Err(Errno::EINVAL);
        }
        Ok(self.rel(parent)?.join(name))
    }

    fn file(&self, fh: FileHandle) -> Result<Arc<File>, Errno> {
        lock(&self.files).get(&fh.0).cloned().ok_or(Errno::EBADF)
    }

    fn add_file(&self, f: File) -> FileHandle {
        let fh = self.next_fh.fetch_add(1, Ordering::Relaxed);
        lock(&self.files).insert(fh, Arc::new(f));
        FileHandle(fh)
    }

    /// Stats a new or looked-up name and takes the kernel's lookup reference on it.
    fn entry(&self, rel: &Path) -> Result<FileAttr, Errno> {
        let m = fs::symlink_metadata(self.real(rel)).map_err(|e| errno(&e))?;
        let ino = lock(&self.inodes).intern(rel, true);
        Ok(attr(ino, &m))
    }

    fn reply_entry(&self, rel: Result<PathBuf, Errno>, reply: ReplyEntry) {
        match rel.and_then(|rel| self.entry(&rel)) {
            Ok(a) => reply.entry(&TTL, &a, Generation(0)),
            Err(e) => reply.error(e),
        }
    }

    fn stat(&self, ino: INodeNo, fh: Option<FileHandle>) -> Result<FileAttr, Errno> {
        // Through the handle when there is one: the name may be unlinked already.
        let m = match fh.map(|fh| self.file(fh)) {
            Some(Ok(f)) => f.metadata(),
            _ => fs::symlink_metadata(self.real(&self.rel(ino)?)),
        };
        Ok(attr(ino, &m.map_err(|e| errno(&e))?))
    }

    fn setattr_inner(
        &self,
        ino: INodeNo,
        fh: Option<FileHandle>,
        SetAttr {
            mode,
            uid,
            gid,
            size,
            atime,
            mtime,
        }: SetAttr,
    ) -> Result<FileAttr, Errno> {
        let path = self.real(&self.rel(ino)?);
        let handle = fh.and_then(|fh| self.file(fh).ok());
        if let Some(mode) = mode {
            // Symlink modes are meaningless and chmod would follow the link.
            let is_link = fs::symlink_metadata(&path)
                .map(|m| m.file_type().is_symlink())
                .unwrap_or(false);
            if !is_link {
                rustix::fs::chmod(&path, Mode::from_raw_mode(mode & 0o7777))
                    .map_err(reply_errno)?;
            }
        }
        if uid.is_some() || gid.is_some() {
            // An id left out stays as it is.
            rustix::fs::chownat(
                CWD,
                &path,
                uid.map(Uid::from_raw_unchecked),
                gid.map(Gid::from_raw_unchecked),
                AtFlags::SYMLINK_NOFOLLOW,
            )
            .map_err(reply_errno)?;
        }
        if let Some(size) = size {
            let res = match &handle {
                Some(f) => f.set_len(size),
                None => OpenOptions::new()
                    .write(true)
                    .open(&path)
                    .and_then(|f| f.set_len(size)),
            };
            res.map_err(|e| errno(&e))?;
        }
        if atime.is_some() || mtime.is_some() {
            let times = Timestamps {
                last_access: timespec(atime),
                last_modification: timespec(mtime),
            };
            rustix::fs::utimensat(CWD, &path, &times, AtFlags::SYMLINK_NOFOLLOW)
                .map_err(reply_errno)?;
        }
        self.stat(ino, fh)
    }

    fn open_inner(&self, ino: INodeNo, flags: OpenFlags) -> Result<FileHandle, Errno> {
        let path = self.real(&self.rel(ino)?);
        let f = open_with_flags(&path, flags.0, None)?;
        Ok(self.add_file(f))
    }

    fn read_dir(&self, ino: INodeNo) -> Result<Vec<DirEntry>, Errno> {
        let rel = self.rel(ino)?;
        let real = self.real(&rel);
        // The mount root's ".." is outside the mount; the kernel does not use
        // readdir's numbers for anything, so the root's own will do there.
        let parent = match rel.parent() {
            Some(p) => lock(&self.inodes).intern(p, false),
            None => ino,
        };
        let mut out = vec![
            DirEntry {
                ino,
                kind: FileType::Directory,
                name: ".".into(),
            },
            DirEntry {
                ino: parent,
                kind: FileType::Directory,
                name: "..".into(),
            },
        ];
        let mut names = Vec::new();
        for entry in fs::read_dir(&real).map_err(|e| errno(&e))? {
            let entry = entry.map_err(|e| errno(&e))?;
            let kind = entry
                .file_type()
                .ok()
                .and_then(FileType::from_std)
                .unwrap_or(FileType::RegularFile);
            names.push((entry.file_name(), kind));
        }
        let mut inodes = lock(&self.inodes);
        for (name, kind) in names {
            let ino = inodes.intern(&rel.join(&name), false);
            out.push(DirEntry { ino, kind, name });
        }
        Ok(out)
    }

    fn write_inner(&self, fh: FileHandle, offset: u64, data: &[u8]) -> Result<u32, Errno> {
        let f = self.file(fh)?;
        let granted = self
            .faults
            .reserve(data.len() as u64)
            .ok_or(Errno::ENOSPC)?;
        let chunk = &data[..granted as usize];
        match f.write_at(chunk, offset) {
            Ok(n) => {
                self.faults.refund(granted - n as u64);
                Ok(n as u32)
            }
            Err(e) => {
                self.faults.refund(granted);
                Err(errno(&e))
            }
        }
    }

    fn rename_inner(
        &self,
        parent: INodeNo,
        name: &OsStr,
        newparent: INodeNo,
        newname: &OsStr,
        flags: RenameFlags,
    ) -> Result<(), Errno> {
        let from = self.child(parent, name)?;
        let to = self.child(newparent, newname)?;
        let (real_from, real_to) = (self.real(&from), self.real(&to));
        // Hold the table across the backing rename so that no lookup sees the new
        // name mapped to a stale inode.
        let mut inodes = lock(&self.inodes);
        // The kernel's flags, passed on as they came.
        rustix::fs::renameat_with(
            CWD,
            &real_from,
            CWD,
            &real_to,
            rustix::fs::RenameFlags::from_bits_retain(flags.bits()),
        )
        .map_err(reply_errno)?;
        if flags.contains(RenameFlags::RENAME_EXCHANGE) {
            inodes.exchanged(&from, &to);
        } else {
            inodes.renamed(&from, &to);
        }
        Ok(())
    }
}

fn open_with_flags(path: &Path, flags: i32, mode: Option<u32>) -> Result<File, Errno> {
    let mut opts = OpenOptions::new();
    let flags = OFlags::from_bits_retain(flags as u32);
    match flags & OFlags::ACCMODE {
        OFlags::WRONLY => opts.write(true),
        OFlags::RDWR => opts.read(true).write(true),
        _ => opts.read(true),
    };
    // O_APPEND is left out: the kernel sends absolute offsets for appends, and
    // pwrite on an O_APPEND fd would ignore them.
    let passthrough = flags
        & (OFlags::CREATE
            | OFlags::EXCL
            | OFlags::TRUNC
            | OFlags::NOFOLLOW
            | OFlags::SYNC
            | OFlags::DSYNC);
    opts.custom_flags(passthrough.bits() as i32);
    if let Some(mode) = mode {
        opts.mode(mode);
    }
    opts.open(path).map_err(|e| errno(&e))
}

impl Filesystem for SlowFs {
    fn init(&mut self, _req: &Request, config: &mut KernelConfig) -> io::Result<()> {
        // Releases and readahead are background requests; with latency they pile up,
        // and the default cap of 16 would make closes wait on each other.
        let _ = config.set_max_background(64);
        // Without this the kernel holds a per-directory lock around every lookup,
        // and git's parallel lstat()s of one directory would queue up behind it.
        if config
            .add_capabilities(InitFlags::FUSE_PARALLEL_DIROPS)
            .is_err()
        {
            eprintln!(
                "slowfs: kernel lacks FUSE_PARALLEL_DIROPS; lookups in a directory serialise"
            );
        }
        Ok(())
    }

    fn lookup(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEntry) {
        self.latency.charge(Op::Lookup);
        self.reply_entry(self.child(parent, name), reply);
    }

    fn forget(&self, _req: &Request, ino: INodeNo, nlookup: u64) {
        lock(&self.inodes).forget(ino, nlookup);
    }

    fn getattr(&self, _req: &Request, ino: INodeNo, fh: Option<FileHandle>, reply: ReplyAttr) {
        self.latency.charge(Op::Getattr);
        match self.stat(ino, fh) {
            Ok(a) => reply.attr(&TTL, &a),
            Err(e) => reply.error(e),
        }
    }

    fn setattr(
        &self,
        _req: &Request,
        ino: INodeNo,
        mode: Option<u32>,
        uid: Option<u32>,
        gid: Option<u32>,
        size: Option<u64>,
        atime: Option<TimeOrNow>,
        mtime: Option<TimeOrNow>,
        _ctime: Option<SystemTime>,
        fh: Option<FileHandle>,
        _crtime: Option<SystemTime>,
        _chgtime: Option<SystemTime>,
        _bkuptime: Option<SystemTime>,
        _flags: Option<fuser::BsdFileFlags>,
        reply: ReplyAttr,
    ) {
        self.latency.charge(Op::Setattr);
        let changes = SetAttr {
            mode,
            uid,
            gid,
            size,
            atime,
            mtime,
        };
        match self.setattr_inner(ino, fh, changes) {
            Ok(a) => reply.attr(&TTL, &a),
            Err(e) => reply.error(e),
        }
    }

    fn readlink(&self, _req: &Request, ino: INodeNo, reply: ReplyData) {
        self.latency.charge(Op::Readlink);
        match self
            .rel(ino)
            .and_then(|rel| fs::read_link(self.real(&rel)).map_err(|e| errno(&e)))
        {
            Ok(target) => reply.data(target.as_os_str().as_bytes()),
            Err(e) => reply.error(e),
        }
    }

    fn mknod(
        &self,
        _req: &Request,
        parent: INodeNo,
        name: &OsStr,
        mode: u32,
        umask: u32,
        rdev: u32,
        reply: ReplyEntry,
    ) {
        self.latency.charge(Op::Mknod);
        let rel = self.child(parent, name).and_then(|rel| {
            rustix::fs::mknodat(
                CWD,
                self.real(&rel),
                rustix::fs::FileType::from_raw_mode(mode),
                Mode::from_raw_mode(mode & !umask),
                rustix::fs::Dev::from(rdev),
            )
            .map_err(reply_errno)?;
            Ok(rel)
        });
        self.reply_entry(rel, reply);
    }

    fn mkdir(
        &self,
        _req: &Request,
        parent: INodeNo,
        name: &OsStr,
        mode: u32,
        umask: u32,
        reply: ReplyEntry,
    ) {
        self.latency.charge(Op::Mkdir);
        let rel = self.child(parent, name).and_then(|rel| {
            fs::DirBuilder::new()
                .mode(mode & !umask & 0o7777)
                .create(self.real(&rel))
                .map_err(|e| errno(&e))?;
            Ok(rel)
        });
        self.reply_entry(rel, reply);
    }

    fn unlink(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEmpty) {
        self.latency.charge(Op::Unlink);
        let res = self.child(parent, name).and_then(|rel| {
            fs::remove_file(self.real(&rel)).map_err(|e| errno(&e))?;
            lock(&self.inodes).unlinked(&rel);
            Ok(())
        });
        match res {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(e),
        }
    }

    fn rmdir(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEmpty) {
        self.latency.charge(Op::Rmdir);
        let res = self.child(parent, name).and_then(|rel| {
            fs::remove_dir(self.real(&rel)).map_err(|e| errno(&e))?;
            lock(&self.inodes).unlinked(&rel);
            Ok(())
        });
        match res {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(e),
        }
    }

    fn symlink(
        &self,
        _req: &Request,
        parent: INodeNo,
        link_name: &OsStr,
        target: &Path,
        reply: ReplyEntry,
    ) {
        self.latency.charge(Op::Symlink);
        let rel = self.child(parent, link_name).and_then(|rel| {
            std::os::unix::fs::symlink(target, self.real(&rel)).map_err(|e| errno(&e))?;
            Ok(rel)
        });
        self.reply_entry(rel, reply);
    }

    fn rename(
        &self,
        _req: &Request,
        parent: INodeNo,
        name: &OsStr,
        newparent: INodeNo,
        newname: &OsStr,
        flags: RenameFlags,
        reply: ReplyEmpty,
    ) {
        self.latency.charge(Op::Rename);
        match self.rename_inner(parent, name, newparent, newname, flags) {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(e),
        }
    }

    fn link(
        &self,
        _req: &Request,
        ino: INodeNo,
        newparent: INodeNo,
        newname: &OsStr,
        reply: ReplyEntry,
    ) {
        self.latency.charge(Op::Link);
        let rel = self.rel(ino).and_then(|src| {
            let dst = self.child(newparent, newname)?;
            fs::hard_link(self.real(&src), self.real(&dst)).map_err(|e| errno(&e))?;
            Ok(dst)
        });
        self.reply_entry(rel, reply);
    }

    fn open(&self, _req: &Request, ino: INodeNo, flags: OpenFlags, reply: ReplyOpen) {
        self.latency.charge(Op::Open);
        // No FOPEN_KEEP_CACHE: the kernel drops cached pages on every open, so reads
        // come back to us as they go back over 9p.
        match self.open_inner(ino, flags) {
            Ok(fh) => reply.opened(fh, FopenFlags::empty()),
            Err(e) => reply.error(e),
        }
    }

    fn read(
        &self,
        _req: &Request,
        ino: INodeNo,
        fh: FileHandle,
        offset: u64,
        size: u32,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        reply: ReplyData,
    ) {
        self.latency.charge(Op::Read);
        // The path is checked at read time, so a file renamed into the failing
        // subtree after it was opened fails too.
        let path = lock(&self.inodes).path(ino);
        let failing = path.is_some_and(|rel| self.faults.read_fails(&rel));
        if failing {
            reply.error(Errno::EIO);
            return;
        }
        let res = self.file(fh).and_then(|f| {
            let mut buf = vec![0; size as usize];
            let mut filled = 0;
            // pread may return short counts before EOF; the kernel takes a short
            // reply as EOF, so keep going until the buffer is full or EOF.
            while filled < buf.len() {
                match f.read_at(&mut buf[filled..], offset + filled as u64) {
                    Ok(0) => break,
                    Ok(n) => filled += n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(errno(&e)),
                }
            }
            buf.truncate(filled);
            Ok(buf)
        });
        match res {
            Ok(buf) => reply.data(&buf),
            Err(e) => reply.error(e),
        }
    }

    fn write(
        &self,
        _req: &Request,
        _ino: INodeNo,
        fh: FileHandle,
        offset: u64,
        data: &[u8],
        _write_flags: WriteFlags,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        reply: ReplyWrite,
    ) {
        self.latency.charge(Op::Write);
        match self.write_inner(fh, offset, data) {
            Ok(n) => reply.written(n),
            Err(e) => reply.error(e),
        }
    }

    fn flush(
        &self,
        _req: &Request,
        _ino: INodeNo,
        fh: FileHandle,
        _lock_owner: LockOwner,
        reply: ReplyEmpty,
    ) {
        self.latency.charge(Op::Flush);
        match self.file(fh) {
            Ok(_) => reply.ok(),
            Err(e) => reply.error(e),
        }
    }

    fn release(
        &self,
        _req: &Request,
        _ino: INodeNo,
        fh: FileHandle,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        _flush: bool,
        reply: ReplyEmpty,
    ) {
        self.latency.charge(Op::Release);
        lock(&self.files).remove(&fh.0);
        reply.ok();
    }

    fn fsync(
        &self,
        _req: &Request,
        _ino: INodeNo,
        fh: FileHandle,
        datasync: bool,
        reply: ReplyEmpty,
    ) {
        self.latency.charge(Op::Fsync);
        let res = self.file(fh).and_then(|f| {
            if datasync {
                f.sync_data()
            } else {
                f.sync_all()
            }
            .map_err(|e| errno(&e))
        });
        match res {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(e),
        }
    }

    fn opendir(&self, _req: &Request, ino: INodeNo, _flags: OpenFlags, reply: ReplyOpen) {
        self.latency.charge(Op::Opendir);
        // The listing is taken once per open handle, so offsets stay stable while
        // the caller deletes entries as it goes (rm -r does exactly that).
        match self.read_dir(ino) {
            Ok(entries) => {
                let fh = self.next_fh.fetch_add(1, Ordering::Relaxed);
                lock(&self.dirs).insert(fh, Arc::new(entries));
                reply.opened(FileHandle(fh), FopenFlags::empty());
            }
            Err(e) => reply.error(e),
        }
    }

    fn readdir(
        &self,
        _req: &Request,
        _ino: INodeNo,
        fh: FileHandle,
        offset: u64,
        mut reply: ReplyDirectory,
    ) {
        self.latency.charge(Op::Readdir);
        let Some(entries) = lock(&self.dirs).get(&fh.0).cloned() else {
            reply.error(Errno::EBADF);
            return;
        };
        let start = usize::try_from(offset).unwrap_or(usize::MAX);
        for (i, e) in entries.iter().enumerate().skip(start) {
            // The offset handed back is where the next call resumes.
            if reply.add(e.ino, (i + 1) as u64, e.kind, &e.name) {
                break;
            }
        }
        reply.ok();
    }

    fn releasedir(
        &self,
        _req: &Request,
        _ino: INodeNo,
        fh: FileHandle,
        _flags: OpenFlags,
        reply: ReplyEmpty,
    ) {
        self.latency.charge(Op::Releasedir);
        lock(&self.dirs).remove(&fh.0);
        reply.ok();
    }

    fn fsyncdir(
        &self,
        _req: &Request,
        ino: INodeNo,
        _fh: FileHandle,
        _datasync: bool,
        reply: ReplyEmpty,
    ) {
        self.latency.charge(Op::Fsyncdir);
        let res = self.rel(ino).and_then(|rel| {
            File::open(self.real(&rel))
                .and_then(|d| d.sync_all())
                .map_err(|e| errno(&e))
        });
        match res {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(e),
        }
    }

    fn statfs(&self, _req: &Request, _ino: INodeNo, reply: ReplyStatfs) {
        self.latency.charge(Op::Statfs);
        let res = rustix::fs::statvfs(&self.backing).map_err(reply_errno);
        match res {
            Ok(st) => reply.statfs(
                st.f_blocks,
                st.f_bfree,
                st.f_bavail,
                st.f_files,
                st.f_ffree,
                st.f_bsize as u32,
                st.f_namemax as u32,
                st.f_frsize as u32,
            ),
            Err(e) => reply.error(e),
        }
    }

    fn access(&self, _req: &Request, ino: INodeNo, mask: AccessFlags, reply: ReplyEmpty) {
        self.latency.charge(Op::Access);
        let res = self.rel(ino).and_then(|rel| {
            let mask = rustix::fs::Access::from_bits_retain(mask.bits() as u32);
            rustix::fs::accessat(CWD, self.real(&rel), mask, AtFlags::empty()).map_err(reply_errno)
        });
        match res {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(e),
        }
    }

    fn create(
        &self,
        _req: &Request,
        parent: INodeNo,
        name: &OsStr,
        mode: u32,
        umask: u32,
        flags: i32,
        reply: ReplyCreate,
    ) {
        self.latency.charge(Op::Create);
        let res = self.child(parent, name).and_then(|rel| {
            let f = open_with_flags(
                &self.real(&rel),
                flags | OFlags::CREATE.bits() as i32,
                Some(mode & !umask & 0o7777),
            )?;
            let m = f.metadata().map_err(|e| errno(&e))?;
            let ino = lock(&self.inodes).intern(&rel, true);
            Ok((attr(ino, &m), self.add_file(f)))
        });
        match res {
            Ok((a, fh)) => reply.created(&TTL, &a, Generation(0), fh, FopenFlags::empty()),
            Err(e) => reply.error(e),
        }
    }
}
