//! `--abort`: an interrupted migration's staging folders removed, or an interrupted sync's, or
//! (after a finished migration, nothing pending) the copy itself when nothing changed there
//! (`undo`); the source is never touched.

mod finished;

use crate::base::error::{ExitCode, Failure, Result};
use crate::host::HostEnv;
use crate::migrate::kernel::engine::staging::{self, Staging};
use crate::migrate::kernel::notice::Notice;
use crate::migrate::kernel::run::Run;
use crate::migrate::kernel::{engine::finalise, repairs::worktrees};
use std::path::Path;

/// `--abort`: remove an interrupted migration's staging folder; the source is never touched.
pub(super) fn abort(run: &Run) -> Result<ExitCode> {
    let (ui, staging) = (run.ui, &run.staging);
    let (source, destination) = (run.source(), run.destination.as_path());
    // The worktrees an interrupted run was moving along have their own staging folders.
    for worktree in worktrees::find(source, destination) {
        if let Some(kept) = worktree.staging()
            && kept.check_owner().is_ok()
            && kept.abort()?
        {
            ui.notice(&Notice::WorktreeStagingRemoved {
                staging: kept.path(),
                worktree: &worktree.path,
            })?;
        }
    }
    let removed = staging.abort()?;
    if removed {
        crate::store::moved::start_ended(run.env, source);
    }
    if !removed && let Some(done) = after_finish(run)? {
        return Ok(done);
    }
    ui.notice(&Notice::Aborted {
        removed,
        staging: staging.path(),
        source,
        elsewhere: &run.elsewhere,
    })?;
    Ok(ExitCode::Ok)
}

/// After a finished migration: an interrupted sync's staging folder removed (the copy kept),
/// a removal of the copy a kill interrupted finished, or the copy removed when nothing changed
/// there. None when there is no finished migration either.
fn after_finish(run: &Run) -> Result<Option<ExitCode>> {
    let (env, ui) = (run.env, run.ui);
    let (source, destination) = (run.source(), run.destination.as_path());
    let sync = Staging::for_sync(source, destination);
    if std::fs::symlink_metadata(sync.path()).is_ok() {
        let _lock = sync.lock_existing()?;
        if sync.is_sealed() {
            // Removing a verified sync half applied would lose the edits it carries.
            return Err(Failure::would_lose_data(format!(
                "a sync of {} to {} was verified and is being applied from {}; finish it with `{}` first (--abort then removes the copy if nothing changed there).",
                source.display(),
                destination.display(),
                sync.path().display(),
                staging::command(source, destination, " --sync")
            )));
        }
        sync.abort()?;
        ui.notice(&Notice::SyncStagingRemoved {
            staging: sync.path(),
            destination,
        })?;
        return Ok(Some(ExitCode::Ok));
    }
    if std::fs::symlink_metadata(finished::trash(destination)).is_ok()
        && std::fs::symlink_metadata(destination).is_err()
    {
        finished::finish(env, ui, source, destination)?;
        ui.notice(&Notice::CopyRemovalFinished {
            destination,
            source,
        })?;
        return Ok(Some(ExitCode::Ok));
    }
    if std::fs::symlink_metadata(destination).is_err()
        && forgets_a_removed_copy(env, source, destination)
    {
        // The person removed the copy by hand (the way on a refusal names): what is left of the
        // migration is wsl-place's own record, manifest and safe.directory entries.
        finished::finish(env, ui, source, destination)?;
        ui.notice(&Notice::CopyGoneForgotten {
            destination,
            source,
        })?;
        return Ok(Some(ExitCode::Ok));
    }
    match finalise::finished_manifest(env, source, destination) {
        Some(manifest) => finished::undo(run, &manifest).map(Some),
        None => Ok(None),
    }
}

/// A finished migration of `source` to `destination` is recorded, its copy is gone and the
/// source is still there: forgetting it loses nothing.
fn forgets_a_removed_copy(env: &HostEnv, source: &Path, destination: &Path) -> bool {
    crate::store::moved::recorded(env, source).is_some_and(|record| {
        record.for_copy(destination).is_some() && !record.source_removed && source.is_dir()
    })
}
