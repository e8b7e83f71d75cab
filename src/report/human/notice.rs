//! The sentences `migrate` says along the way (`Notice`), each ending in a newline.

use crate::base::pathtext::escape_path;
use crate::base::units;
use crate::measure::changes::Changes;
use crate::migrate::{Elsewhere, Notice};
use std::path::Path;

/// How many paths a listing shows before the rest is a count.
const LISTED: usize = 10;

/// The text of one notice.
pub fn text(notice: &Notice) -> String {
    match notice {
        Notice::NothingCopied => "Nothing was copied.\n".to_string(),
        Notice::SealedCopyWaiting {
            source,
            staging,
            dry_run,
        } => sealed_copy_waiting(source, staging, *dry_run),
        Notice::SealedCopyChanged {
            staging,
            changed,
            dry_run,
        } => sealed_copy_changed(staging, changed, *dry_run),
        Notice::SealedSyncWaiting { source, staging } => sealed_sync_waiting(source, staging),
        Notice::NothingToSync { source } => nothing_to_sync(source),
        Notice::NotPutInPlace { left } => not_put_in_place(left),
        Notice::IndexRefresh { advice } => advice.iter().map(|line| format!("{line}.\n")).collect(),
        Notice::WorktreeStagingRemoved { staging, worktree } => {
            worktree_staging_removed(staging, worktree)
        }
        Notice::Aborted {
            removed,
            staging,
            source,
            elsewhere,
        } => aborted(*removed, staging, source, elsewhere),
        Notice::SyncStagingRemoved {
            staging,
            destination,
        } => sync_staging_removed(staging, destination),
        Notice::CopyRemovalFinished {
            destination,
            source,
        } => copy_removal_finished(destination, source),
        Notice::SafeDirectoryRemoved { config, entries } => safe_directory_removed(config, entries),
        Notice::CopyRemoved {
            destination,
            source,
            day,
            kept,
        } => copy_removed(destination, source, day, *kept),
        Notice::CopyChanged {
            changed,
            destination,
            source,
            by_hand,
        } => copy_changed(changed, destination, source, by_hand),
        Notice::CopyKept { destination } => copy_kept(destination),
        Notice::CopyGoneForgotten {
            destination,
            source,
        } => copy_gone_forgotten(destination, source),
        Notice::SourceLacks {
            lacking,
            destination,
            sync,
        } => source_lacks(lacking, destination, sync),
        Notice::AnotherCopy { question } => another_copy(question),
    }
}

/// The verified copy in `staging` changed since (`changed` no longer matches): copied again,
/// now or with `dry_run` by a run without it.
fn sealed_copy_changed(staging: &Path, changed: &str, dry_run: bool) -> String {
    format!(
        "The verified copy in {} changed since it was verified ({changed} no longer matches its CRC32); {}\n",
        staging.display(),
        if dry_run {
            "a run without --dry-run copies what changed again."
        } else {
            "copying what changed again."
        }
    )
}

/// Files of a sync that something else took the name of at the destination: left at the source.
fn not_put_in_place(left: &[std::path::PathBuf]) -> String {
    format!(
        "{} could not be put in place (something else took that name at the destination while the sync ran), so they stay at the source, where --remove-source keeps them: {}\n",
        units::counted(left.len() as u64, "file", "files"),
        left.iter()
            .map(|p| escape_path(p))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// A verified sync waiting in `staging`: applied now.
fn sealed_sync_waiting(source: &Path, staging: &Path) -> String {
    format!(
        "A verified sync of {} is waiting in {}; applying it.\n",
        source.display(),
        staging.display()
    )
}

/// `--sync` found nothing at the old place the copy lacks.
fn nothing_to_sync(source: &Path) -> String {
    format!(
        "Nothing changed at {} since the migration that is not in the copy; nothing to sync.\n",
        source.display()
    )
}

/// `--abort` removed the staging folder of a linked worktree that was moving along.
fn worktree_staging_removed(staging: &Path, worktree: &Path) -> String {
    format!(
        "Removed the staging directory {} of the linked worktree {}.\n",
        staging.display(),
        worktree.display()
    )
}

/// `--abort` took out of Windows' git config the safe.directory entries the migration added.
fn safe_directory_removed(config: &Path, entries: &[String]) -> String {
    format!(
        "Took the copy's safe.directory entries out of {} ({}), as the migration added them.\n",
        config.display(),
        entries.join(", ")
    )
}

/// The person declined `--abort`'s removal of the copy.
fn copy_kept(destination: &Path) -> String {
    format!(
        "Nothing was removed: the copy at {} is kept.\n",
        destination.display()
    )
}

/// `--abort` of an interrupted sync: its staging folder gone, nothing else touched.
fn sync_staging_removed(staging: &Path, destination: &Path) -> String {
    format!(
        "Removed the interrupted sync's staging folder {}; the copy at {} and the source were not touched.\n",
        staging.display(),
        destination.display()
    )
}

/// `--abort` finished removing a copy an earlier run began to remove.
fn copy_removal_finished(destination: &Path, source: &Path) -> String {
    format!(
        "Finished removing the copy at {}; the source {} was not touched.\n",
        destination.display(),
        source.display()
    )
}

/// `--abort` found the copy removed by hand, and forgot the migration.
fn copy_gone_forgotten(destination: &Path, source: &Path) -> String {
    format!(
        "The copy at {} is gone; wsl-place forgot the migration, and {} is the repository again.\n",
        destination.display(),
        source.display()
    )
}

/// A verified copy waiting in `staging`: finished now, or with `dry_run` by a run without it.
fn sealed_copy_waiting(source: &Path, staging: &Path, dry_run: bool) -> String {
    let then = match dry_run {
        true => "run without --dry-run to finish moving it into place",
        false => "finishing it",
    };
    format!(
        "A verified copy of {} is waiting in {}; {then}.\n",
        source.display(),
        staging.display()
    )
}

/// A dry run of another copy of a source copied before: the question a real run asks.
fn another_copy(question: &str) -> String {
    format!(
        "{question} Without --dry-run this is asked first (--yes answers yes, and the record keeps both copies).\n"
    )
}

/// `--abort` removed the copy made on `day` (empty when unknown).
fn copy_removed(destination: &Path, source: &Path, day: &str, kept: Option<&Path>) -> String {
    let on = match day.is_empty() {
        true => String::new(),
        false => format!(" on {day}"),
    };
    let what_now = match kept {
        Some(copy) => format!("; its other copy at {} is still recorded", copy.display()),
        None => " and is the repository again".to_string(),
    };
    format!(
        "Removed the copy at {} (nothing had changed there since the migration{on}); the source {} was not touched{what_now}.\n",
        destination.display(),
        source.display()
    )
}

/// What changed at the copy, so `--abort` keeps it, and the two ways on: keep working there, or
/// delete it by hand (`by_hand`, the exact commands) and let wsl-place forget the migration.
fn copy_changed(
    changed: &Changes,
    destination: &Path,
    source: &Path,
    by_hand: &[String],
) -> String {
    let mut text = changes_listed(changed);
    text.push_str(&format!(
        "The copy at {} has work the old place {} lacks, so --abort keeps it. To go on, either:\n",
        destination.display(),
        source.display()
    ));
    text.push_str("  - keep working in the copy: nothing to do; or\n");
    text.push_str("  - go back to the old place without those edits (copy any you want to keep there first): delete the copy yourself, then let wsl-place forget the migration:\n");
    for command in by_hand {
        text.push_str(&format!("      {command}\n"));
    }
    text
}

/// The first paths added, changed and removed, one a line, then how many more.
fn changes_listed(changed: &Changes) -> String {
    let mut out = String::new();
    let all = changed
        .added
        .iter()
        .map(|p| ("added", p))
        .chain(changed.changed.iter().map(|p| ("changed", p)))
        .chain(changed.removed.iter().map(|p| ("removed", p)));
    for (what, path) in all.clone().take(LISTED) {
        out.push_str(&format!("  {what:<8} {}\n", escape_path(path)));
    }
    let total = all.count();
    if total > LISTED {
        out.push_str(&format!(
            "  and {} more\n",
            units::count((total - LISTED) as u64)
        ));
    }
    out
}

/// `--abort`'s staging folder removed (or none there), then each interrupted migration of
/// `source` kept elsewhere, a sentence a line.
fn aborted(removed: bool, staging: &Path, source: &Path, elsewhere: &[Elsewhere]) -> String {
    let mut text = if removed {
        format!(
            "Removed the staging directory {}; the source {} was not touched.\n",
            staging.display(),
            source.display()
        )
    } else {
        format!(
            "No interrupted migration of {} to abort (no {}).\n",
            source.display(),
            staging.display()
        )
    };
    for other in elsewhere {
        let sentence = other.sentence(source);
        let mut chars = sentence.chars();
        if let Some(first) = chars.next() {
            text.push_str(&format!("{}{}\n", first.to_uppercase(), chars.as_str()));
        }
    }
    text
}

/// The first entries the source lacks, one a line, then how many more.
/// `--abort` refused: the way on first (the sync that carries the old place's edits and
/// commits over), then what differs.
fn source_lacks(lacking: &[String], destination: &Path, sync: &str) -> String {
    format!(
        "The copy at {} is kept: the old place changed since the migration. To carry those edits and commits to the copy, run `{sync}`; the entries that differ:\n{}",
        destination.display(),
        lacking_listed(lacking)
    )
}

fn lacking_listed(lacking: &[String]) -> String {
    let mut listed: String = lacking
        .iter()
        .take(LISTED)
        .map(|line| format!("  {line}\n"))
        .collect();
    if lacking.len() > LISTED {
        listed.push_str(&format!(
            "  and {} more\n",
            units::count((lacking.len() - LISTED) as u64)
        ));
    }
    listed
}
