//! Which folder is the copy, and which the source, after the move. Every operation after it
//! (`--sync`, `--abort` of a finished migration, `--remove-source`) asks here before it writes
//! or removes anything: the destination is the copy only while it is the folder the migration
//! made (by device and inode, never through a link), not whatever now has its name.

use crate::base::error::{Failure, Result};
use crate::store::moved::{Folder, Moved};

/// Fails unless the destination is still the folder the migration made; `untouched` says what
/// was left as it was ("nothing was copied.").
pub(in crate::migrate) fn check_copy(record: &Moved, untouched: &str) -> Result<()> {
    if copy_intact(record) {
        return Ok(());
    }
    // Written to or removed from, what has the copy's name may be the only copy of something.
    Err(Failure::would_lose_data(format!(
        "{} is not the copy the migration of {} made on {} (it is a link, or it was moved or replaced since), so {} If you moved the copy, move it back to {} and run this again.",
        record.destination.display(),
        record.source.display(),
        record.finished_day(),
        untouched,
        record.destination.display()
    )))
}

/// The destination is still the folder the migration made.
pub(in crate::migrate) fn copy_intact(record: &Moved) -> bool {
    still_the_folder(&record.destination, record.copy_folder)
}

/// The source is the folder the migration copied (not one made in its place since); a record
/// that kept no identity trusts the path.
pub(in crate::migrate) fn same_source(record: &Moved) -> bool {
    still_the_folder(&record.source, record.source_folder)
}

/// `path` is the folder recorded as `then`; a record from a version that kept no identity
/// trusts the path.
fn still_the_folder(path: &std::path::Path, then: Option<Folder>) -> bool {
    match (Folder::at(path), then) {
        (None, _) => false,
        (Some(now), Some(then)) => now == then,
        (Some(_), None) => true,
    }
}
