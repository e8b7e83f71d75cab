//! `--abort` after a finished migration, while the source is still there: the copy is removed
//! when nothing changed at the destination since the migration (or its last sync), compared
//! with the destination's snapshot; otherwise refused, with what changed. The source is never
//! touched, and the old place forgets it moved.
//!
//! The copy is first renamed to `.<name>.wsl-place-undo` beside it, then removed: a kill midway
//! leaves that folder, which the next `--abort` finishes removing, never half a repository under
//! the destination's name.

use crate::base::error::{ExitCode, Failure, Result};
use crate::base::units;
use crate::host::HostEnv;
use crate::measure::changes;
use crate::migrate::kernel::history;
use crate::migrate::kernel::notice::Notice;
use crate::migrate::kernel::options::{Consent, Ui};
use crate::migrate::kernel::run::Run;
use crate::migrate::kernel::{
    engine::identity, engine::source_holds, engine::staging, repairs::safe_directory,
};
use crate::store::{manifest, moved, snapshot};
use std::path::{Path, PathBuf};

/// The folder a copy being removed is renamed to.
pub(super) fn trash(destination: &Path) -> PathBuf {
    staging::beside(destination, ".wsl-place-undo")
}

/// Removes the finished copy at `destination` of `source`, unless it changed there since or the
/// person does not confirm it (`--yes` does; without a terminal and without it, refused first).
pub(super) fn undo(run: &Run, manifest_file: &Path) -> Result<ExitCode> {
    let (env, ui) = (run.env, run.ui);
    let (source, destination) = (run.source(), run.destination.as_path());
    // Said before any work: reading the source again can take long on a slow mount.
    if run.args.consent == Consent::Ask && !ui.interactive() {
        // Deleting the copy unasked could lose what only it holds: a refusal, as a second copy
        // unasked is, not a usage error.
        return Err(Failure::would_lose_data(format!(
            "--abort after a finished migration deletes the copy at {}, and this is not a terminal to ask; rerun with --yes to delete it.",
            destination.display()
        )));
    }
    // The record as it reads for this copy: the newest, or one made before it elsewhere.
    let record = moved::recorded(env, source).and_then(|r| r.for_copy(destination));
    source_still_there(source, destination, record.as_ref())?;
    let entries = manifest::read(manifest_file).map(|(_, e)| e).ok_or_else(|| {
        Failure::internal(format!(
            "the manifest {} cannot be read, so what changed at {} cannot be told; nothing was removed.",
            manifest_file.display(),
            destination.display()
        ))
    })?;
    copy_unchanged(env, ui, (source, destination), &entries)?;
    source_holds_the_copy(ui, source, destination, &entries)?;
    old_place_holds_the_history(source, destination)?;
    if run.args.consent != Consent::Yes && !confirmed(ui, (source, destination), &entries)? {
        ui.notice(&Notice::CopyKept { destination })?;
        return Ok(ExitCode::Ok);
    }
    // The last point at which Ctrl-C keeps the copy: past it, the removal is finished.
    crate::base::interrupt::check("the copy was kept; nothing was removed.")?;
    moved::begin(env, source, destination, moved::Operation::Abort).map_err(|e| {
        Failure::internal(format!(
            "removing the copy at {} cannot be recorded in wsl-place's state folder ({e}); nothing was removed.",
            destination.display()
        ))
    })?;
    let trash = trash(destination);
    std::fs::rename(destination, &trash)
        .map_err(|e| Failure::io("move the copy away to remove it:", destination, &e))?;
    finish(env, ui, source, destination)?;
    let day = record.map(|r| r.finished_day()).unwrap_or_default();
    let kept = moved::recorded(env, source).map(|r| r.destination);
    ui.notice(&Notice::CopyRemoved {
        destination,
        source,
        day: &day,
        kept: kept.as_deref(),
    })?;
    Ok(ExitCode::Ok)
}

/// The source the copy would go back to is still there and is still the folder the migration
/// copied: otherwise the copy is the only one, and stays.
fn source_still_there(
    source: &Path,
    destination: &Path,
    record: Option<&moved::Moved>,
) -> Result<()> {
    if record.is_some_and(|r| r.removal_unfinished()) {
        return Err(Failure::would_lose_data(format!(
            "a --remove-source of {} began and did not finish, so {} holds what it removed; finish the removal with `{}` and keep the copy; nothing was removed.",
            source.display(),
            destination.display(),
            staging::command(source, destination, " --remove-source")
        )));
    }
    if record.is_some_and(|r| r.source_removed) || !source.is_dir() {
        return Err(Failure::would_lose_data(format!(
            "the source {} was removed after the migration, so {} is the only copy; nothing was removed.",
            source.display(),
            destination.display()
        )));
    }
    if let Some(record) = record {
        identity::check_copy(record, "nothing was removed.")?;
        if !identity::same_source(record) {
            return Err(Failure::would_lose_data(format!(
                "{} is not the folder the migration copied on {} (it was moved or made again since), so {} is the only sure copy; nothing was removed.",
                source.display(),
                record.finished_day(),
                destination.display()
            )));
        }
    }
    Ok(())
}

/// Nothing changed at the copy since the migration (or its last sync), against its snapshot:
/// otherwise it is kept, with what changed and the ways on.
fn copy_unchanged(
    env: &HostEnv,
    ui: &dyn Ui,
    (source, destination): (&Path, &Path),
    entries: &[manifest::ManifestEntry],
) -> Result<()> {
    let kept = moved::snapshot_path(env, destination);
    let mut changed =
        changes::at_destination(destination, &snapshot::baseline(kept.as_deref(), entries))
            .map_err(|u| u.failure(destination, "nothing was removed."))?;
    // Rewritten by `git status` there, which changes nothing of the repository's.
    changed.changed.retain(|rel| !changes::is_git_index(rel));
    if changed.count() > 0 {
        let by_hand = [
            format!(
                "rm -rf -- {}",
                crate::base::pathtext::shell_quote(destination)
            ),
            staging::command(source, destination, " --abort"),
        ];
        ui.notice(&Notice::CopyChanged {
            changed: &changed,
            destination,
            source,
            by_hand: &by_hand,
        })?;
        return Err(Failure::would_lose_data(format!(
            "{} changed since the migration ({}: {} added, {} changed, {} removed, listed above), so it is not removed; the ways on are listed above.",
            destination.display(),
            units::counted(changed.count(), "file", "files"),
            units::count(changed.added.len() as u64),
            units::count(changed.changed.len() as u64),
            units::count(changed.removed.len() as u64)
        )));
    }
    Ok(())
}

/// The person's yes to deleting the copy, asked with how many files it holds.
fn confirmed(
    ui: &dyn Ui,
    (source, destination): (&Path, &Path),
    entries: &[manifest::ManifestEntry],
) -> Result<bool> {
    let question = format!(
        "Delete the copy at {} ({}) and go back to {}?",
        destination.display(),
        units::counted(
            entries
                .iter()
                .filter(|e| matches!(e, manifest::ManifestEntry::File(_)))
                .count() as u64,
            "file",
            "files"
        ),
        source.display()
    );
    ui.confirm(&question, false)
}

/// The `safe.directory` entries the migration added to Windows' global git config, taken out
/// again: the copy they named is gone.
fn take_out_safe_directory(ui: &dyn Ui, added: &moved::WindowsGitRecord) -> Result<()> {
    match safe_directory::remove(added) {
        Ok(true) => ui.notice(&Notice::SafeDirectoryRemoved {
            config: &added.file,
            entries: &added.entries,
        }),
        Ok(false) => Ok(()),
        Err(e) => Err(Failure::io(
            &format!(
                "take the copy's safe.directory entries ({}) out of",
                added.entries.join(", ")
            ),
            &added.file,
            &e,
        )),
    }
}

/// Every file of the copy read again at the source, by the manifest's CRC32, without crossing
/// a link: the copy goes only when the source still has all of it.
fn source_holds_the_copy(
    ui: &dyn Ui,
    source: &Path,
    destination: &Path,
    entries: &[manifest::ManifestEntry],
) -> Result<()> {
    let spinner = crate::base::progress::Drawn::spinner(
        ui.progress(),
        "reading the source again against the copy's manifest",
    );
    let lacking = source_holds::lacking(source, entries);
    spinner.finish_and_clear();
    let Some(first) = lacking.first() else {
        return Ok(());
    };
    ui.notice(&Notice::SourceLacks {
        lacking: &lacking,
        destination,
        sync: &staging::command(source, destination, " --sync"),
    })?;
    Err(Failure::would_lose_data(format!(
        "the source {} no longer holds everything the copy has ({} differ or are missing, first {first}), so {} is kept; nothing was removed. To carry the edits and commits made there to the copy: `{}`.",
        source.display(),
        units::counted(lacking.len() as u64, "entry", "entries"),
        destination.display(),
        staging::command(source, destination, " --sync")
    )))
}

/// Every branch, tag and staged change of the copy names a commit the old place holds: a
/// commit made at the copy lives in its `.git` alone, whatever the file snapshot says (a sync
/// takes the copy's `.git` into it as it stands), so git is asked.
fn old_place_holds_the_history(source: &Path, destination: &Path) -> Result<()> {
    if !destination.join(".git").is_dir() || !source.join(".git").is_dir() {
        return Ok(());
    }
    let missing = history::named_at(destination, "the copy")
        .and_then(|named| history::missing_at(source, &named));
    // A Ctrl-C that stopped git is the person's, not git's answer.
    crate::base::interrupt::check("the copy was kept; nothing was removed.")?;
    let why = match missing {
        Ok(None) => return Ok(()),
        Ok(Some(by)) => format!("{by} names a commit the old place does not have"),
        Err(why) => format!("git could not tell whether the old place has its history ({why})"),
    };
    Err(Failure::would_lose_data(format!(
        "the copy at {} is kept: {why}; nothing was removed. Work there, or bring those commits to the old place first (`git -C {} fetch {} '+refs/heads/*:refs/remotes/copy/*'`).",
        destination.display(),
        crate::base::pathtext::shell_quote(source),
        crate::base::pathtext::shell_quote(destination)
    )))
}

/// Removes the renamed copy, its manifest and snapshot, the `safe.directory` entries the
/// migration added to Windows' git config, and the old place's record (last: it says what to
/// take out); safe to run again after a kill.
pub(super) fn finish(env: &HostEnv, ui: &dyn Ui, source: &Path, destination: &Path) -> Result<()> {
    let trash = trash(destination);
    staging::make_writable(&trash);
    match crate::base::dirfd::remove_all(&trash) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            return Err(Failure::io("remove the copy", &trash, &e));
        }
        _ => {}
    }
    let files = [
        moved::manifest_path(env, destination),
        Some(moved::legacy_manifest_path(destination)),
        moved::snapshot_path(env, destination),
    ];
    for file in files.into_iter().flatten() {
        match std::fs::remove_file(&file) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(Failure::io("remove", &file, &e));
            }
            _ => {}
        }
    }
    let record = moved::recorded(env, source);
    if let Some(added) = record
        .as_ref()
        .and_then(|r| r.for_copy(destination))
        .and_then(|r| r.windows_git)
    {
        take_out_safe_directory(ui, &added)?;
    }
    // The source's other copies stay recorded: forgetting them would lose track of a copy.
    match record.and_then(|r| r.without_copy(destination)) {
        Some(rest) => {
            moved::end(env, rest, moved::Operation::Abort);
            Ok(())
        }
        None => moved::forget(env, source)
            .map_err(|e| Failure::io("forget the migration of", source, &e)),
    }
}
