//! What `migrate` tells the person along the way, as data: each situation with the paths and
//! counts it names. The words are the report layer's (`report::human::notice`).

use super::engine::staging::Elsewhere;
use crate::measure::changes::Changes;
use std::path::{Path, PathBuf};

/// One thing to tell the person, outside any machine-readable report.
pub enum Notice<'a> {
    /// The person declined, or a dry run stopped before copying.
    NothingCopied,
    /// A verified copy an earlier run sealed is waiting in `staging`; `dry_run` only says so.
    SealedCopyWaiting {
        source: &'a Path,
        staging: &'a Path,
        dry_run: bool,
    },
    /// A sealed copy no longer matches its CRC32 at `changed`; it is copied again unless `dry_run`.
    SealedCopyChanged {
        staging: &'a Path,
        changed: &'a str,
        dry_run: bool,
    },
    /// A verified sync is waiting in `staging`; it is applied now.
    SealedSyncWaiting { source: &'a Path, staging: &'a Path },
    /// Nothing at `source` changed since the migration that the copy lacks.
    NothingToSync { source: &'a Path },
    /// Files a sync could not rename into place (their names taken at the destination).
    NotPutInPlace { left: &'a [PathBuf] },
    /// What the index refresh at the destination could not do or left out (stopped past its
    /// time limit, the repository's own filter not run), one sentence each.
    IndexRefresh {
        advice: &'a [super::repairs::fixups::FixupAdvice],
    },
    /// `--abort` removed a linked worktree's staging folder.
    WorktreeStagingRemoved {
        staging: &'a Path,
        worktree: &'a Path,
    },
    /// `--abort` removed the staging folder (`removed`), or found none to remove; then the
    /// interrupted migrations of `source` kept elsewhere.
    Aborted {
        removed: bool,
        staging: &'a Path,
        source: &'a Path,
        elsewhere: &'a [Elsewhere],
    },
    /// `--abort` removed an interrupted sync's staging folder.
    SyncStagingRemoved {
        staging: &'a Path,
        destination: &'a Path,
    },
    /// `--abort` finished removing a copy a kill interrupted.
    CopyRemovalFinished {
        destination: &'a Path,
        source: &'a Path,
    },
    /// `--abort` removed the copy; `day` is the migration's (empty when unknown); `kept` the
    /// source's other copy the record still keeps (its newest), if any.
    CopyRemoved {
        destination: &'a Path,
        source: &'a Path,
        day: &'a str,
        kept: Option<&'a Path>,
    },
    /// `--abort` took the copy's `safe.directory` entries out of Windows' global git config.
    SafeDirectoryRemoved {
        config: &'a Path,
        entries: &'a [String],
    },
    /// What changed at the copy since the migration, so `--abort` keeps it; with the ways on,
    /// `by_hand` the commands that delete the copy anyway and make wsl-place forget it.
    CopyChanged {
        changed: &'a Changes,
        destination: &'a Path,
        source: &'a Path,
        by_hand: &'a [String],
    },
    /// `--abort` asked to delete the copy and the answer was no.
    CopyKept { destination: &'a Path },
    /// `--abort` found the copy removed by hand and forgot the migration.
    CopyGoneForgotten {
        destination: &'a Path,
        source: &'a Path,
    },
    /// What the source no longer holds of the copy, so `--abort` keeps it.
    SourceLacks {
        lacking: &'a [String],
        destination: &'a Path,
        /// The command that carries the old place's edits and commits to the copy.
        sync: &'a str,
    },
    /// A dry run of another copy of a source copied before: the question a real run asks.
    AnotherCopy { question: &'a str },
}
