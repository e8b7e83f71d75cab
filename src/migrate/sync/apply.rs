//! Applying a sealed sync at the destination: each staged file renamed into place, folders made
//! and removed, never through a link or a file where a folder was; then the destination's
//! snapshot, the manifest and the record brought up to date.

use crate::base::counts::TreeCounts;
use crate::base::dirfd;
use crate::base::error::{Failure, Result};
use crate::base::progress::Drawn;
use crate::host::HostEnv;
use crate::measure::changes;
use crate::migrate::kernel::engine::staging::Staging;
use crate::migrate::kernel::notice::Notice;
use crate::migrate::kernel::options::Ui;
use crate::migrate::kernel::outcome;
use crate::migrate::kernel::{
    engine::finalise, engine::identity, engine::post_walk, repairs::fixups, repairs::git_paths,
};
use crate::store::sync_ops::Op;
use crate::store::{manifest, moved, snapshot};
use std::collections::HashSet;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

/// The list of operations, in the sealed staging folder.
pub(super) const OPS: &str = "ops";
pub(super) fn read_ops(staging: &Staging) -> Result<Vec<Op>> {
    let file = staging.path().join(OPS);
    let text = std::fs::read_to_string(&file)
        .map_err(|e| Failure::io("read the sync's operations", &file, &e))?;
    text.lines()
        .map(|line| {
            Op::parse(line).ok_or_else(|| {
                Failure::internal(format!(
                    "{} is damaged (`{line}`); move {} away and sync again.",
                    file.display(),
                    staging.path().display()
                ))
            })
        })
        .collect()
}

/// Applies a sealed sync: each step is safe to repeat, so a kill anywhere is finished by
/// running it again. Then git's index is refreshed, the destination's snapshot and the manifest
/// replaced, the record dated, and the staging folder removed.
pub(super) fn apply(
    env: &HostEnv,
    ui: &dyn Ui,
    staging: &Staging,
    record: &moved::Moved,
) -> Result<Option<TreeCounts>> {
    identity::check_copy(
        record,
        &format!(
            "the verified sync in {} was not applied.",
            staging.path().display()
        ),
    )?;
    let ops = read_ops(staging)?;
    let destination = record.destination.as_path();
    // Removals first, then folders made, then files put: a name a file or folder leaves at the
    // destination is free for what the source has there now.
    let phase = |op: &Op| match op {
        Op::Remove(_) => 0,
        Op::Rmdir(_) => 1,
        Op::Dir(_) => 2,
        Op::Put(_) | Op::Save { .. } => 3,
        Op::Times { .. } | Op::Keep(_) => 4,
    };
    let mut ordered: Vec<&Op> = ops.iter().collect();
    ordered.sort_by_key(|op| phase(op));
    let mut left = Vec::new();
    for op in ordered {
        apply_one(staging, destination, op, &mut left)?;
    }
    set_folder_times(destination, &ops);
    if !left.is_empty() {
        ui.notice(&Notice::NotPutInPlace { left: &left })?;
    }
    refresh_index(ui, destination)?;
    let holds = remember(env, staging, record, &ops)?;
    staging.remove()?;
    Ok(holds)
}

/// The folders' modes and times as the source has them, set last: putting files in a folder
/// changes its times. Best effort, and never through a link.
fn set_folder_times(destination: &Path, ops: &[Op]) {
    for op in ops {
        if let Op::Times {
            rel,
            mode,
            atime,
            mtime,
        } = op
        {
            let dir = destination.join(rel);
            if post_walk::blocked(destination, rel, &|_| false).is_none()
                && dirfd::lstat(&dir).is_ok_and(|m| m.is_dir())
            {
                let _ = dirfd::chmod(&dir, *mode);
                let _ = dirfd::set_times(&dir, *atime, *mtime);
            }
        }
    }
}

/// git's index refreshed at the destination, which the files put there made stale; what git
/// advised is said.
fn refresh_index(ui: &dyn Ui, destination: &Path) -> Result<()> {
    let mut fixed = fixups::FixupReport::default();
    // A `.git` (or its index, config or commondir) that leads out of the copy is another
    // repository's: nothing of git's is written through it, and the notice says so.
    if let Some((leads, git_dir)) = git_paths::git_dir_outside(destination, destination) {
        fixed.advice.push(fixups::FixupAdvice::GitDirOutside {
            repo: destination.to_path_buf(),
            leads,
            git_dir,
        });
        return ui.notice(&Notice::IndexRefresh {
            advice: &fixed.advice,
        });
    }
    if dirfd::lstat(&destination.join(".git")).is_ok_and(|m| m.is_dir()) {
        let spinner = Drawn::spinner(ui.progress(), "git update-index --refresh");
        let refreshed = fixups::refresh_index(destination, None, &mut fixed);
        spinner.finish_and_clear();
        refreshed?;
        if !fixed.advice.is_empty() {
            ui.notice(&Notice::IndexRefresh {
                advice: &fixed.advice,
            })?;
        }
    }
    Ok(())
}

/// One operation of a sealed sync at the destination, never through a link or a file that is
/// where a folder was (`post_walk`); a file that cannot take its place is left, listed in `left`.
fn apply_one(
    staging: &Staging,
    destination: &Path,
    op: &Op,
    left: &mut Vec<PathBuf>,
) -> Result<()> {
    let failed =
        |what: &str, path: &Path, e: &std::io::Error| staging.kept(&Failure::io(what, path, e));
    let rel = match op {
        Op::Dir(rel) | Op::Put(rel) | Op::Remove(rel) | Op::Rmdir(rel) => rel,
        Op::Save { saved, .. } => saved,
        Op::Times { .. } | Op::Keep(_) => return Ok(()),
    };
    if post_walk::blocked(destination, rel, &|_| false).is_some() {
        if matches!(op, Op::Put(_) | Op::Save { .. }) {
            left.push(rel.clone());
        }
        return Ok(());
    }
    let at = destination.join(rel);
    match op {
        Op::Dir(_) => match dirfd::mkdir(&at, 0o700) {
            Err(e) if e.kind() != ErrorKind::AlreadyExists => {
                return Err(failed("create the folder", &at, &e));
            }
            _ => {}
        },
        Op::Put(staged) | Op::Save { rel: staged, .. } => {
            let staged = staging.tree().join(staged);
            if dirfd::lstat(&staged).is_err() {
                return Ok(());
            }
            // Its folder may be gone at the destination (a conflict saved there).
            if let Some(parent) = at.parent().filter(|p| dirfd::lstat(p).is_err()) {
                std::fs::create_dir_all(parent)
                    .map_err(|e| failed("create the folder", parent, &e))?;
            }
            match std::fs::rename(&staged, &at) {
                Ok(()) => {}
                // A folder is there now, or a file where a folder was: never stuck on it.
                Err(e) if is_in_the_way(&e) => left.push(rel.clone()),
                Err(e) => return Err(failed("put the verified copy at", &at, &e)),
            }
        }
        Op::Remove(_) => match dirfd::unlink(&at) {
            Err(e) if e.kind() != ErrorKind::NotFound && !is_in_the_way(&e) => {
                return Err(failed("remove", &at, &e));
            }
            _ => {}
        },
        // Kept when something else is in it (made at the destination since).
        Op::Rmdir(_) => {
            let _ = dirfd::rmdir(&at);
        }
        Op::Times { .. } | Op::Keep(_) => {}
    }
    Ok(())
}

/// Something of the other kind is at that name (a folder for a file, a file for a folder).
fn is_in_the_way(e: &std::io::Error) -> bool {
    use rustix::io::Errno;
    matches!(
        e.raw_os_error().map(Errno::from_raw_os_error),
        Some(Errno::ISDIR | Errno::NOTDIR | Errno::NOTEMPTY | Errno::EXIST)
    )
}

/// The destination's new snapshot (what the sync wrote as it is now; what changed there
/// before, as it was), then the new manifest, then the record's date.
/// What the copy holds now, from the same walk (None when it could not be walked and no
/// snapshot needed it).
fn remember(
    env: &HostEnv,
    staging: &Staging,
    record: &moved::Moved,
    ops: &[Op],
) -> Result<Option<TreeCounts>> {
    let destination = &record.destination;
    let now = changes::snapshot(destination);
    let holds = now.as_ref().ok().map(|entries| outcome::holds(entries));
    if let Some(file) = moved::snapshot_path(env, destination) {
        let old_manifest = manifest::read(&record.manifest)
            .map(|(_, e)| e)
            .unwrap_or_default();
        let before = snapshot::baseline(Some(&file), &old_manifest);
        let keep: HashSet<&Path> = ops
            .iter()
            .filter_map(|op| match op {
                Op::Keep(rel) => Some(rel.as_path()),
                _ => None,
            })
            .collect();
        let mut entries: Vec<_> = now
            .map_err(|u| staging.kept(&u.failure(destination, "its snapshot was not updated.")))?
            .into_iter()
            .filter(|e| !keep.contains(e.rel()))
            .collect();
        entries.extend(before.into_iter().filter(|e| keep.contains(e.rel())));
        entries.sort_by(|a, b| a.rel().cmp(b.rel()));
        snapshot::write(&file, &record.source, destination, &entries)
            .map_err(|e| staging.kept(&Failure::io("write the snapshot", &file, &e)))?;
    }
    let staged = staging.manifest();
    if staged.exists() {
        finalise::move_manifest(&staged, &record.manifest)?;
    }
    // The copy now holds what the source held when the sync planned: nothing changed since.
    moved::remember(env, &super::synced_now(record));
    Ok(holds)
}
