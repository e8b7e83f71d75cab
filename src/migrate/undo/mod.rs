//! `--abort`: an interrupted migration's staging folders removed, or an interrupted sync's, or
//! (after a finished migration, nothing pending) the copy itself when nothing changed there
//! (`undo`); the source is never touched.

mod finished;

use crate::base::error::{ExitCode, Failure, Result};
use crate::host::HostEnv;
use crate::migrate::kernel::options::Ui;
use crate::migrate::kernel::staging::{self, Staging};
use crate::migrate::kernel::{finalise, worktrees};
use std::path::Path;

/// `--abort`: remove an interrupted migration's staging folder; the source is never touched.
pub(super) fn abort(
    env: &HostEnv,
    ui: &dyn Ui,
    source: &Path,
    destination: &Path,
    staging: &Staging,
    elsewhere: &[staging::Elsewhere],
) -> Result<ExitCode> {
    // The worktrees an interrupted run was moving along have their own staging folders.
    for worktree in worktrees::find(source, destination) {
        if let Some(kept) = worktree.staging()
            && kept.check_owner().is_ok()
            && kept.abort()?
        {
            ui.note(&format!(
                "Removed the staging directory {} of the linked worktree {}.\n",
                kept.path().display(),
                worktree.path.display()
            ))?;
        }
    }
    let mut note = if staging.abort()? {
        format!(
            "Removed the staging directory {}; the source {} was not touched.\n",
            staging.path().display(),
            source.display()
        )
    } else if let Some(done) = after_finish(env, ui, source, destination)? {
        return Ok(done);
    } else {
        format!(
            "No interrupted migration of {} to abort (no {}).\n",
            source.display(),
            staging.path().display()
        )
    };
    for other in elsewhere {
        let sentence = other.sentence(source);
        let mut chars = sentence.chars();
        if let Some(first) = chars.next() {
            note.push_str(&format!("{}{}\n", first.to_uppercase(), chars.as_str()));
        }
    }
    ui.note(&note)?;
    Ok(ExitCode::Ok)
}

/// After a finished migration: an interrupted sync's staging folder removed (the copy kept),
/// a removal of the copy a kill interrupted finished, or the copy removed when nothing changed
/// there. None when there is no finished migration either.
fn after_finish(
    env: &HostEnv,
    ui: &dyn Ui,
    source: &Path,
    destination: &Path,
) -> Result<Option<ExitCode>> {
    let sync = Staging::for_sync(source, destination);
    if std::fs::symlink_metadata(sync.path()).is_ok() {
        let _lock = sync.lock_existing()?;
        if sync.is_sealed() {
            return Err(Failure::input(format!(
                "a sync of {} to {} was verified and is being applied from {}; finish it with `{}` first (--abort then removes the copy if nothing changed there).",
                source.display(),
                destination.display(),
                sync.path().display(),
                staging::command(source, destination, " --sync")
            )));
        }
        sync.abort()?;
        ui.note(&format!(
            "Removed the interrupted sync's staging folder {}; the copy at {} and the source were not touched.\n",
            sync.path().display(),
            destination.display()
        ))?;
        return Ok(Some(ExitCode::Ok));
    }
    if std::fs::symlink_metadata(finished::trash(destination)).is_ok()
        && std::fs::symlink_metadata(destination).is_err()
    {
        finished::finish(env, source, destination)?;
        ui.note(&format!(
            "Finished removing the copy at {}; the source {} was not touched.\n",
            destination.display(),
            source.display()
        ))?;
        return Ok(Some(ExitCode::Ok));
    }
    match finalise::finished_manifest(env, source, destination) {
        Some(manifest) => finished::undo(env, ui, source, destination, &manifest).map(Some),
        None => Ok(None),
    }
}
