//! Reading a source file, shared by the copy and the estimate's pilot so the pilot pays the
//! same round trips the copy will.

use crate::base::dirfd::{self, Meta};
use std::fs::File;
use std::io::{ErrorKind, Read};
use std::path::Path;

/// The source's side of a file before it is read: its state, and the file opened. The
/// copy (`copy.rs`) and the estimate's pilot (`estimate.rs`) times exactly this and `source_state`, so it pays the
/// round trips the copy pays, however they are made.
pub fn open_source(src: &Path) -> std::io::Result<(Meta, File)> {
    let before = source_state(src)?;
    if !before.is_file() {
        return Err(std::io::Error::other(
            "stopped being a regular file during the migration",
        ));
    }
    Ok((before, dirfd::open_read(src)?))
}

/// The source file's state, never following a symlink: compared before and after reading.
pub fn source_state(src: &Path) -> std::io::Result<Meta> {
    dirfd::lstat(src)
}

/// Reads a file whose size the caller just saw, without the size probe `read_to_end` makes
/// (two system calls per file, which add up over tens of thousands of small files). A file that
/// grew is still read to its end; the caller's stat comparison then retries it.
pub fn read_known(input: &mut File, size: u64, data: &mut Vec<u8>) -> std::io::Result<()> {
    data.resize(size as usize + 1, 0);
    let mut filled = 0;
    loop {
        match input.read(&mut data[filled..]) {
            Ok(0) => break,
            Ok(n) => {
                filled += n;
                if filled == data.len() {
                    data.truncate(filled);
                    return input.read_to_end(data).map(|_| ());
                }
            }
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    data.truncate(filled);
    Ok(())
}
