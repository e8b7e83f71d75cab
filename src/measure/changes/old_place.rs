//! The old place of a finished migration, as every surface there says it (`check`, the hook,
//! the shell nudge, `survey`): where it went, when, what changed here since, an operation
//! there that did not finish, and the one command that follows.

use super::since;
use crate::base::reason::{Keyed, Said};
use crate::store::moved::{Moved, Operation};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// What the old place says about itself: where it went, when, what changed here since and the
/// one command that follows. Every surface at the old place (`check`, the hook, the shell nudge,
/// `survey`) says what this holds, so they never disagree.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OldPlace {
    #[serde(with = "crate::base::pathtext::json")]
    pub destination: PathBuf,
    pub finished_unix: u64,
    /// `YYYY-MM-DD` (UTC).
    pub finished_day: String,
    pub synced_unix: Option<u64>,
    pub source_removed: bool,
    /// When `--remove-source` ran, when the record kept it (seconds since 1970).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_removed_unix: Option<u64>,
    /// The copy is no longer where the migration made it (moved or removed since).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub copy_missing: bool,
    /// Files and symlinks added, changed and removed here since; None when they were never
    /// counted (a record of an earlier version, or a manifest that could not be read).
    pub added: Option<u64>,
    pub changed: Option<u64>,
    pub removed: Option<u64>,
    /// Their sum: the count every surface at the old place shows. A file as a commit here left
    /// it is not counted: that commit is.
    pub files_changed: Option<u64>,
    /// Commits reachable from HEAD here that the copy does not have (None when git could not
    /// tell, or after `--remove-source`).
    pub commits_not_in_copy: Option<u64>,
    /// Bytes a sync would copy.
    pub bytes: Option<u64>,
    /// When they were counted (seconds since 1970): now for `check`, the hook and `survey`,
    /// which walk the source; the last of those (or the migration, or a sync) for the nudge.
    pub counted_unix: Option<u64>,
    /// The command that copies what changed here since to the destination (`migrate --sync`).
    pub sync: String,
    /// The command that finishes the move: `--remove-source` removes what is proven copied and
    /// keeps (and lists) what changed here since. Never suggested by a passive line.
    pub finish: String,
    /// The one command that follows: the sync while files changed here (or were not counted),
    /// `cd` to the copy when none did; None when the copy is gone.
    pub next: Option<String>,
    /// Where the old place stands, which every surface there words alike (`report/text`):
    /// `moved to ~/src/app on 2026-12-03; 3 files changed here since, not in the copy`.
    #[serde(flatten)]
    pub message: Said<Standing>,
    /// Copies made before `destination`, by migrations to other folders (oldest first); what
    /// changed here is counted against `destination`, the newest.
    #[serde(
        skip_serializing_if = "Vec::is_empty",
        serialize_with = "crate::base::pathtext::json::list"
    )]
    pub other_copies: Vec<PathBuf>,
    /// An operation that began here and did not finish (Ctrl-C, a kill, a power cut): `next`
    /// is then the command that finishes it, and the counts leave out what it changed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unfinished: Option<Operation>,
}

/// How the old place learns what changed there since.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Count {
    /// Walk the source now (and keep the count in the record for the nudge).
    Walk,
    /// The record's last count: no walk (the nudge, within its budget).
    Recorded,
}

/// Where `source` (a repository's top, canonical) went and what changed here since (not
/// counted when the copy is no longer there); None when it was never migrated.
pub fn old_place(env: &crate::host::HostEnv, source: &Path, count: Count) -> Option<OldPlace> {
    let moved = crate::store::moved::recorded(env, source)?;
    Some(told(env, &moved, count))
}

/// [`old_place`] for a record already read.
pub fn told(env: &crate::host::HostEnv, moved: &Moved, count: Count) -> OldPlace {
    let copy_missing = !moved.destination.is_dir();
    let counted = match count {
        _ if copy_missing => None,
        // A count kept with a removal by an earlier version counted what it removed.
        Count::Recorded if moved.source_removed && moved.source_removed_unix.is_none() => None,
        Count::Recorded => moved.since,
        Count::Walk => since(moved).map(|c| {
            let counted = super::commits::counted(moved, c);
            crate::store::moved::remember_count(env, moved, counted);
            counted
        }),
    };
    let command = |flag: &str| migrate_command(moved, flag);
    let files_changed = counted.map(|c| c.added + c.changed + c.removed);
    let commits_not_in_copy = counted.and_then(|c| c.commits);
    let pending = files_changed.map(|n| n + commits_not_in_copy.unwrap_or(0));
    let unfinished = moved.unfinished.as_ref().map(|u| u.operation);
    let next = match unfinished {
        // An abort moves the copy away before it removes it: its copy is missing midway.
        Some(operation) if !copy_missing || operation == Operation::Abort => {
            Some(command(operation.flag()))
        }
        _ => next_step(moved, copy_missing, pending),
    };
    OldPlace {
        destination: moved.destination.clone(),
        finished_unix: moved.finished_unix,
        finished_day: moved.finished_day(),
        synced_unix: moved.synced_unix,
        source_removed: moved.source_removed,
        source_removed_unix: moved.source_removed_unix,
        copy_missing,
        added: counted.map(|c| c.added),
        changed: counted.map(|c| c.changed),
        removed: counted.map(|c| c.removed),
        files_changed,
        commits_not_in_copy,
        bytes: counted.map(|c| c.bytes),
        counted_unix: counted.map(|c| c.unix),
        sync: command("--sync"),
        finish: command("--remove-source"),
        next,
        message: Said(standing(
            moved,
            copy_missing,
            counted.map(|c| (files_changed.unwrap_or(0), c.commits.unwrap_or(0))),
            unfinished,
            &short(&moved.destination, env.home().as_deref()),
        )),
        other_copies: moved
            .other_copies
            .iter()
            .map(|o| o.destination.clone())
            .collect(),
        unfinished,
    }
}

/// The migration of the recorded repository again, with `flag` (`--sync`, `--remove-source`).
fn migrate_command(moved: &Moved, flag: &str) -> String {
    format!(
        "wsl-place migrate {} --to {} {flag}",
        crate::base::pathtext::shell_quote(&moved.source),
        crate::base::pathtext::shell_quote(&moved.destination)
    )
}

/// What to run next at the old place: nothing when the copy is gone, going to the copy when
/// nothing changed here (no file, no commit) or the source was removed, else the sync.
fn next_step(moved: &Moved, copy_missing: bool, pending: Option<u64>) -> Option<String> {
    match pending {
        _ if copy_missing => None,
        Some(0) => Some(format!(
            "cd {}",
            crate::base::pathtext::shell_quote(&moved.destination)
        )),
        _ if moved.source_removed => Some(format!(
            "cd {}",
            crate::base::pathtext::shell_quote(&moved.destination)
        )),
        _ => Some(migrate_command(moved, "--sync")),
    }
}

/// `path` with the home folder written `~`, as a person would type it.
fn short(path: &Path, home: Option<&Path>) -> String {
    match home.and_then(|h| path.strip_prefix(h).ok()) {
        Some(rest) if !rest.as_os_str().is_empty() => {
            format!("~/{}", crate::base::pathtext::display(rest))
        }
        _ => crate::base::pathtext::display(path),
    }
}

/// Where the old place stands from the record, whether the copy is there, what changed here
/// since (files, commits; None when not counted) and an operation that did not finish.
fn standing(
    moved: &Moved,
    copy_missing: bool,
    counted: Option<(u64, u64)>,
    unfinished: Option<Operation>,
    to: &str,
) -> Standing {
    let to = to.to_string();
    let day = moved.finished_day();
    match unfinished {
        // Midway through an abort the copy is already gone: finishing the abort is still the way.
        Some(operation) if !copy_missing || operation == Operation::Abort => {
            return Standing::Unfinished { to, day, operation };
        }
        _ => {}
    }
    if moved.source_removed && !copy_missing {
        return Standing::SourceRemoved {
            to,
            removed_day: moved.source_removed_unix.map(crate::store::moved::day),
            files_here: counted.map(|(files, _)| files),
        };
    }
    let since = match counted {
        _ if copy_missing => Since::CopyMissing,
        Some((files, commits)) if commits > 0 => Since::Commits { commits, files },
        Some((0, _)) => Since::Nothing,
        Some((files, _)) => Since::Files { files },
        None => Since::Uncounted,
    };
    Standing::Moved { to, day, since }
}

/// Where the old place stands: the kind of its sentence and what the sentence says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Standing {
    /// An operation begun here did not finish; finishing it is the way on.
    Unfinished {
        /// The copy's folder as a person would type it (`~/src/app`).
        to: String,
        day: String,
        operation: Operation,
    },
    /// `--remove-source` removed what the copy holds; `files_here` are here and not in it.
    SourceRemoved {
        to: String,
        removed_day: Option<String>,
        files_here: Option<u64>,
    },
    /// Moved on `day`; what changed here since.
    Moved {
        to: String,
        day: String,
        since: Since,
    },
}

/// What changed at the old place since the move, as far as the copy is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Since {
    /// The copy is no longer where the migration made it: nothing can be counted against it.
    CopyMissing,
    /// Never counted (a record of an earlier version, or a manifest that could not be read).
    Uncounted,
    Nothing,
    Files {
        files: u64,
    },
    /// Commits here that the copy lacks (people count a commit as one change), and files.
    Commits {
        commits: u64,
        files: u64,
    },
}

impl Keyed for Standing {
    const KEY: &'static str = "message";
    const KIND_KEY: &'static str = "message_kind";
}
