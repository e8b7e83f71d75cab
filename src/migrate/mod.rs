//! `wsl-place migrate`: one kernel (`kernel/`: the copy engine, the walk and its plan, staging,
//! journal, copy and verify, seal and finalise, beside the repairs after the move) and the
//! operations on it, one folder each: `moving/` (the first migration), `sync/` (`--sync`),
//! `remove/` (`--remove-source`) and `undo/` (`--abort`). This file only decides which of them a
//! run is and hands over; no operation imports another.
//!
//! Nothing is ever written to the source, and nothing in it is deleted unless `--remove-source`
//! is given, after the manifest proves each entry was copied. The copy goes to a staging folder
//! beside the destination and is renamed into place only after every file was read back and
//! compared; an interrupted run is resumed by running it again.

mod kernel;
mod moving;
mod remove;
mod sync;
mod undo;

pub use kernel::document::PlanDocument;
pub use kernel::engine::plan::{Question, QuestionId};
pub use kernel::engine::staging::Elsewhere;
pub use kernel::notice::Notice;
pub use kernel::options::{Consent, Mode, Options, Ui};
pub use kernel::outcome::{
    Conflict, HistorySync, InCopy, Kept, KeptWhy, MigrationReport, RefAction, RefKind, RefSync,
    RemovalShown, SyncReport,
};
pub use kernel::repairs::fixups::{Fixed, FixupAdvice, FixupReport, GitLeads};
pub use kernel::repairs::old_paths::StillPointing;
pub use kernel::repairs::venvs::root_left_alone;
pub use kernel::repairs::windows_side::{LineEndings, WindowsOutcome, WindowsPlan};

use crate::base::error::{ExitCode, Failure, Result};
use crate::host::HostEnv;
use crate::measure::changes;
use crate::store::moved;
use kernel::outcome::Copied;
use kernel::run::Run;
use kernel::{engine::finalise, engine::staging, repairs::worktrees};
use moving::MoveOutcome;
use std::path::Path;

/// Moves the repository `args.path` to `args.to`, or under `default_root` (from the policy);
/// or, by `args.mode`, syncs or aborts. Which operation a run is gets decided once
/// ([`Operation::of`]) and handed over in the one `match` below.
pub fn run(
    env: &HostEnv,
    args: &Options,
    ui: &dyn Ui,
    default_root: Option<&Path>,
) -> Result<ExitCode> {
    let run = match Run::start(env, args, ui, default_root) {
        Ok(run) => run,
        Err(failure) => return in_copy_or(env, (args, default_root), ui, failure),
    };
    // Held to the end of the run; a dry run only reads, and must not hold off a real one.
    let held = run.staging.lock_unless(args.consent.dry_run())?;
    match Operation::of(&run)? {
        Operation::Abort => undo::abort(&run),
        Operation::Finished {
            manifest,
            staging_left,
        } => {
            if staging_left {
                run.staging.remove()?;
            }
            already_migrated(&run, &manifest)
        }
        Operation::Move => match moving::run(&run, held)? {
            MoveOutcome::Stopped => Ok(ExitCode::Ok),
            MoveOutcome::FinishedElsewhere(manifest) => already_migrated(&run, &manifest),
            MoveOutcome::Done(mut report, remove_source) => {
                remove::after_move(&run, &mut report, remove_source)?;
                ui.result(&report)?;
                Ok(ExitCode::Ok)
            }
        },
    }
}

/// What a run that started does.
enum Operation {
    /// `--abort`: the staging folder or the unchanged copy goes (`undo/`).
    Abort,
    /// A migration that finished: say so, then `--sync` or `--remove-source` when asked.
    /// `staging_left`: a run killed while it removed its staging folder (the copy in place,
    /// the seal gone first, the folder's owner record last) left that removal to end here.
    Finished {
        manifest: std::path::PathBuf,
        staging_left: bool,
    },
    /// The first migration, or the one an interrupted run left (`moving/`).
    Move,
}

impl Operation {
    /// Chosen from the mode asked and what the staging folder and the destination hold;
    /// refuses a linked worktree, a staging folder of another owner and an unfinished
    /// operation of another kind.
    fn of(run: &Run) -> Result<Self> {
        if run.args.mode == Mode::Abort {
            return Ok(Operation::Abort);
        }
        worktrees::refuse_linked(run.source())?;
        run.staging.check_owner()?;
        if !run.staging.is_sealed()
            && let Some(manifest) =
                finalise::finished_manifest(run.env, run.source(), &run.destination)
        {
            let staging_left = !run.args.consent.dry_run() && !run.staging.tree().exists();
            return Ok(Operation::Finished {
                manifest,
                staging_left,
            });
        }
        sync::refuse_unfinished(run.env, run.args, run.source(), &run.destination)?;
        Ok(Operation::Move)
    }
}

/// The same command run again after it finished: say so from the manifest, with what is left
/// to do (`--remove-source`, the next steps), sync when asked, and remove the source when asked
/// and confirmed.
fn already_migrated(run: &Run, manifest: &Path) -> Result<ExitCode> {
    let (env, source, destination) = (run.env, run.source(), run.destination.as_path());
    record_if_missing(env, source, destination, manifest);
    let done = Copied::nothing_yet(&run.elsewhere);
    let syncing = run.args.mode == Mode::Sync;
    let record = moved::lookup(env, source);
    if syncing && let Some(newest) = record.as_ref().filter(|r| r.destination != destination) {
        return Err(older_copy_not_synced(newest, destination));
    }
    // Synced first: the report's totals are the manifest's after it.
    let synced = match syncing {
        true => {
            let synced = sync::run(run, &sync::record_of(env, source)?)?;
            if synced.done {
                sync::ended(env, source);
            }
            Some(synced)
        }
        false => None,
    };
    let mut report = MigrationReport::from_manifest(
        env,
        source,
        destination,
        manifest,
        done,
        (FixupReport::default(), None),
    )?;
    report.already_migrated = true;
    report.dry_run = run.args.consent.dry_run();
    // The manifest lists the source's files, not what the copy keeps beside them (conflicts
    // saved, files made there since): after a sync the totals are what it counted there.
    if let Some(holds) = synced.as_ref().and_then(|s| s.copy_holds) {
        report.totals = holds;
    }
    report.sync = synced;
    report.other_copies = others_than(record.as_ref(), destination);
    let changed_here = (!syncing)
        .then(|| {
            record
                .filter(|m| m.destination == destination)
                .and_then(|m| changes::since(&m))
        })
        .flatten();
    remove::after_finish(run, &mut report)?;
    count_copy_after_removal(&mut report, destination);
    // After a removal its own list says what stayed and why.
    if let Some(changed) = changed_here.filter(|c| c.count() > 0 && report.removal.is_none()) {
        // Edits made at the old place since: the two copies differ, and the person must know.
        let advice = changed_since_advice(&changed, source, destination);
        report.fixups.advice.push(advice);
    }
    run.ui.result(&report)?;
    Ok(ExitCode::Ok)
}

/// The copy is the repository once the source is removed: what it holds is counted there, as
/// the sync counts it, so that the removal, the sync and `check`'s "everything" give one figure.
fn count_copy_after_removal(report: &mut MigrationReport, destination: &Path) {
    if report.removal.is_some()
        && !report.dry_run
        && let Ok(entries) = changes::snapshot(destination)
    {
        report.totals = kernel::outcome::holds(&entries);
    }
}

/// A run that cannot start, in the copy an earlier migration made (the destination it would
/// choose is the copy itself): it is the copy, not a mistake. A destination the person chose
/// elsewhere (`--to`, their policy) starts a run like any other folder. `--sync` there syncs
/// from the old place: it writes only the copy, never over an edit, and asks first. `--abort`
/// and `--remove-source` delete a whole place, so they are answered with the command that
/// names the old place, never run from inside the copy.
fn in_copy_or(
    env: &HostEnv,
    (args, default_root): (&Options, Option<&Path>),
    ui: &dyn Ui,
    failure: Failure,
) -> Result<ExitCode> {
    if args.to.is_none()
        && failure.code == ExitCode::Input
        && let Ok(here) = crate::host::location::canonical_dir(&args.path)
        && let Some(record) = moved::copy_of(env, &here)
    {
        let old_place_there = !record.source_removed && record.source.is_dir();
        if args.mode == Mode::Sync && old_place_there {
            let at_old_place = Options {
                path: record.source.clone(),
                to: Some(here),
                ..args.clone()
            };
            return run(env, &at_old_place, ui, default_root);
        }
        return run_in_copy(env, ui, &record, args.mode == Mode::Abort);
    }
    Err(failure)
}

/// `migrate` run in the copy an earlier migration made: it is on the Linux disk already; say
/// whose copy it is and what is left to do at the old place, from the manifest; `abort` when
/// `--abort` was asked, which is then answered with the command that runs it.
fn run_in_copy(env: &HostEnv, ui: &dyn Ui, record: &moved::Moved, abort: bool) -> Result<ExitCode> {
    let (source, copy) = (record.source.as_path(), record.destination.as_path());
    let mut report = MigrationReport::from_manifest(
        env,
        source,
        copy,
        &record.manifest,
        Copied::nothing_yet(&[]),
        (FixupReport::default(), None),
    )?;
    report.already_migrated = true;
    // The person is in the copy: its `cd` and editor steps were for arriving there.
    report.next_steps.clear();
    let removed = record.source_removed || !source.is_dir();
    report.run_in_copy = Some(InCopy {
        source_removed: removed,
        remove_source: (!removed).then(|| staging::command(source, copy, " --remove-source")),
        abort: (abort && !removed).then(|| staging::command(source, copy, " --abort")),
    });
    let changed = (!removed).then(|| changes::since(record)).flatten();
    if let Some(changed) = changed.filter(|c| c.count() > 0) {
        let advice = changed_since_advice(&changed, source, copy);
        report.fixups.advice.push(advice);
    }
    ui.result(&report)?;
    Ok(ExitCode::Ok)
}

/// Finished by an earlier version, which kept no record, or the recorded copy is gone: the old
/// place learns of this one now, and the copies recorded before stay recorded.
fn record_if_missing(env: &HostEnv, source: &Path, destination: &Path, manifest: &Path) {
    if moved::lookup(env, source).is_none() {
        let earlier = moved::recorded(env, source);
        moved::remember(
            env,
            &moved::Moved::new(source, destination, manifest).after(earlier),
        );
    }
}

/// The advice when the source changed since the migration and the copy does not have it.
fn changed_since_advice(
    changed: &changes::Changes,
    source: &Path,
    destination: &Path,
) -> FixupAdvice {
    FixupAdvice::SourceChanged {
        source: source.to_path_buf(),
        changed: changed.count(),
        added: changed.added.len() as u64,
        modified: changed.changed.len() as u64,
        removed: changed.removed.len() as u64,
        sync: staging::command(source, destination, " --sync"),
    }
}

/// The copies of the source other than the one at `destination`, oldest first.
fn others_than(record: Option<&moved::Moved>, destination: &Path) -> Vec<std::path::PathBuf> {
    record.map_or_else(Vec::new, |r| {
        r.other_copies
            .iter()
            .map(|o| o.destination.clone())
            .chain(std::iter::once(r.destination.clone()))
            .filter(|d| d != destination)
            .collect()
    })
}

/// `--sync --to` an older copy: a sync updates the newest copy, which the record follows.
fn older_copy_not_synced(newest: &moved::Moved, older: &Path) -> crate::base::error::Failure {
    crate::base::error::Failure::input(format!(
        "{} is an older copy of {}; --sync updates only the newest, {} (made on {}): run `{}`.",
        older.display(),
        newest.source.display(),
        newest.destination.display(),
        newest.finished_day(),
        staging::command(&newest.source, &newest.destination, " --sync")
    ))
}
