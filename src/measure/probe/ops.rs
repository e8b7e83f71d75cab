//! The small-file operations the probe times, as one record generic over what is kept for each
//! (samples, statistics, the model's per-call costs), so that adding an operation is one field.

use serde::{Deserialize, Serialize};

/// One value per timed operation. The JSON field names are the operation names.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PerOp<T> {
    /// create + write 4 KiB + close.
    pub create: T,
    /// open + read 4 KiB + close.
    pub read: T,
    /// `lstat` of a scratch file one level below an open directory.
    pub lstat: T,
    /// Listing cost per directory entry.
    pub readdir_entry: T,
    /// Opening and listing an empty directory: the per-directory cost of a walk.
    pub opendir: T,
    pub unlink: T,
    pub mkdir: T,
    pub rename: T,
    /// Writing one 1 MiB file (create, 16 writes of 64 KiB, close): the bandwidth figure.
    pub write_mib: T,
    /// Mapping a 1 MiB file and touching every page, as git reads a large file to hash it.
    pub read_mib: T,
}

impl<T> PerOp<T> {
    /// The same operations with `f` applied to each value; None if `f` gives None for any.
    pub fn try_map<U>(&self, mut f: impl FnMut(&T) -> Option<U>) -> Option<PerOp<U>> {
        Some(PerOp {
            create: f(&self.create)?,
            read: f(&self.read)?,
            lstat: f(&self.lstat)?,
            readdir_entry: f(&self.readdir_entry)?,
            opendir: f(&self.opendir)?,
            unlink: f(&self.unlink)?,
            mkdir: f(&self.mkdir)?,
            rename: f(&self.rename)?,
            write_mib: f(&self.write_mib)?,
            read_mib: f(&self.read_mib)?,
        })
    }

    /// The same operations with `f` applied to each value.
    pub fn map<U>(&self, mut f: impl FnMut(&T) -> U) -> PerOp<U> {
        PerOp {
            create: f(&self.create),
            read: f(&self.read),
            lstat: f(&self.lstat),
            readdir_entry: f(&self.readdir_entry),
            opendir: f(&self.opendir),
            unlink: f(&self.unlink),
            mkdir: f(&self.mkdir),
            rename: f(&self.rename),
            write_mib: f(&self.write_mib),
            read_mib: f(&self.read_mib),
        }
    }
}

impl<T: Clone> PerOp<T> {
    /// The same value for every operation.
    pub fn all(value: T) -> Self {
        PerOp::default().map(|_: &()| value.clone())
    }
}

/// One timed operation, naming a field of [`PerOp`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Create,
    Read,
    Lstat,
    ReaddirEntry,
    Opendir,
    Unlink,
    Mkdir,
    Rename,
    WriteMib,
    ReadMib,
}

impl Op {
    pub const ALL: [Op; 10] = [
        Op::Create,
        Op::Read,
        Op::Lstat,
        Op::ReaddirEntry,
        Op::Opendir,
        Op::Unlink,
        Op::Mkdir,
        Op::Rename,
        Op::WriteMib,
        Op::ReadMib,
    ];

    /// The JSON field name.
    pub fn name(self) -> &'static str {
        match self {
            Op::Create => "create",
            Op::Read => "read",
            Op::Lstat => "lstat",
            Op::ReaddirEntry => "readdir_entry",
            Op::Opendir => "opendir",
            Op::Unlink => "unlink",
            Op::Mkdir => "mkdir",
            Op::Rename => "rename",
            Op::WriteMib => "write_mib",
            Op::ReadMib => "read_mib",
        }
    }

    pub fn from_name(name: &str) -> Option<Op> {
        Op::ALL.into_iter().find(|op| op.name() == name)
    }
}

impl<T> PerOp<T> {
    pub fn get_mut(&mut self, op: Op) -> &mut T {
        match op {
            Op::Create => &mut self.create,
            Op::Read => &mut self.read,
            Op::Lstat => &mut self.lstat,
            Op::ReaddirEntry => &mut self.readdir_entry,
            Op::Opendir => &mut self.opendir,
            Op::Unlink => &mut self.unlink,
            Op::Mkdir => &mut self.mkdir,
            Op::Rename => &mut self.rename,
            Op::WriteMib => &mut self.write_mib,
            Op::ReadMib => &mut self.read_mib,
        }
    }
}
