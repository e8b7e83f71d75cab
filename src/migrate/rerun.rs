//! The same migration run again after it finished: "already migrated" from the manifest, what
//! changed at the old place since, and `--remove-source` with its plan.

use super::finish::{self, Copied};
use super::fixups::FixupReport;
use super::options::{Options, Ui};
use super::staging::{self, Staging};
use super::{finalise, identity, questions, removal_plan, sync};
use crate::base::error::{ExitCode, Failure, Result};
use crate::base::units;
use crate::host::HostEnv;
use crate::measure::{changes, moved};
use std::path::{Path, PathBuf};

/// Another run of the same move finished while this one planned (its lock was gone by the
/// time this one took it): the fresh staging folder is not needed.
pub(super) fn finished_while_planning(
    env: &HostEnv,
    staging: &Staging,
    destination: &Path,
) -> Result<Option<PathBuf>> {
    if std::fs::symlink_metadata(destination).is_err() {
        return Ok(None);
    }
    let finished = finalise::finished_manifest(env, staging.source(), destination);
    if finished.is_some() && !staging.tree().exists() {
        staging.remove()?;
        return Ok(finished);
    }
    Err(Failure::input(format!(
        "the destination {} appeared while the plan was made; choose a new folder with --to, or move it away first.",
        destination.display()
    )))
}

/// The same command run again after it finished: say so from the manifest, with what is left
/// to do (`--remove-source`, the next steps), and remove the source when asked and confirmed.
pub(super) fn already_migrated(
    env: &HostEnv,
    ui: &dyn Ui,
    args: &Options,
    staging: &Staging,
    destination: &Path,
    manifest: &Path,
    elsewhere: &[staging::Elsewhere],
) -> Result<ExitCode> {
    let source = staging.source();
    if moved::lookup(env, source).is_none() {
        // Finished by an earlier version, which kept no record: the old place learns it now.
        moved::remember(env, &moved::Moved::new(source, destination, manifest));
    }
    let done = Copied::nothing_yet(elsewhere);
    // Synced first: the report's totals are the manifest's after it.
    let synced = match args.sync {
        true => Some(sync::run(env, ui, args, &record_of(env, source)?)?),
        false => None,
    };
    let mut report = finish::report(
        env,
        source,
        destination,
        manifest,
        done,
        FixupReport::default(),
    )?;
    report.already_migrated = true;
    if synced.as_ref().is_some_and(|s| s.done) {
        count_the_copy(&mut report, destination);
    }
    report.sync = synced;
    if !args.sync
        && let Some(changed) = moved::lookup(env, source).and_then(|m| changes::since(&m))
        && changed.count() > 0
    {
        // Edits made at the old place since: the two copies differ, and the person must know.
        report.fixups.advice.push(format!(
            "{} changed at {} since the migration ({} added, {} changed, {} removed); they are not in the copy: `{}` copies them, and --remove-source keeps them",
            units::counted(changed.count(), "file", "files"),
            source.display(),
            changed.added.len(),
            changed.changed.len(),
            changed.removed.len(),
            staging::command(source, destination, " --sync")
        ));
    }
    if args.remove_source && !args.dry_run {
        identity::check_copy(
            &record_of(env, source)?,
            "nothing in the source was deleted.",
        )?;
        // The plan comes before the question: what goes, what stays and why, how long.
        let removal = removal_plan::plan(source, manifest)?;
        let day = moved::lookup(env, source).map(|m| m.finished_day());
        ui.note(&removal.text(source, destination, day.as_deref()))?;
        if questions::ask_remove_source(ui, args, source, destination, staging.path())? {
            report.removal = Some(finish::remove_source(
                ui,
                source,
                destination,
                manifest,
                &removal,
            )?);
            finish::removed(env, source);
        } else {
            report
                .fixups
                .advice
                .push("--remove-source was not confirmed; the source is left in place".into());
        }
    }
    ui.result(&report)?;
    Ok(ExitCode::Ok)
}

/// What the copy holds after a sync, counted there: the manifest lists the source's files,
/// not what the destination keeps beside them (conflicts saved, files made there since).
fn count_the_copy(report: &mut super::outcome::MigrationReport, destination: &Path) {
    let Ok(entries) = crate::measure::snapshot::take(destination) else {
        return;
    };
    let (mut files, mut dirs, mut symlinks, mut bytes) = (0, 0, 0, 0);
    for entry in &entries {
        match entry {
            crate::measure::manifest::ManifestEntry::File(r) => {
                files += 1;
                bytes += r.size;
            }
            crate::measure::manifest::ManifestEntry::Dir(_) => dirs += 1,
            crate::measure::manifest::ManifestEntry::Symlink { .. } => symlinks += 1,
        }
    }
    (report.files, report.dirs, report.symlinks, report.bytes) = (files, dirs, symlinks, bytes);
}

/// `--sync` before any migration of `source` to `destination` finished, or after its copy
/// left the place the migration made it.
pub(super) fn nothing_to_sync(
    env: &HostEnv,
    args: &Options,
    source: &Path,
    destination: &Path,
) -> Result<()> {
    if !args.sync {
        return Ok(());
    }
    if let Some(record) = moved::recorded(env, source).filter(|r| r.destination == destination) {
        return Err(Failure::input(format!(
            "the copy the migration of {} made on {} is no longer at {} (moved or removed), so there is nothing to sync to; move the copy back to {} and run this again.",
            source.display(),
            record.finished_day(),
            destination.display(),
            destination.display()
        )));
    }
    Err(Failure::input(format!(
        "there is no finished migration of {} to {} to sync; run `{}` without --sync to migrate it first.",
        source.display(),
        destination.display(),
        staging::command(source, destination, "")
    )))
}

/// The old place's record of the migration, which a sync dates.
fn record_of(env: &HostEnv, source: &Path) -> Result<moved::Moved> {
    moved::lookup(env, source).ok_or_else(|| {
        Failure::internal(format!(
            "the record of the migration of {} cannot be read or written under the state folder; nothing was copied.",
            source.display()
        ))
    })
}
