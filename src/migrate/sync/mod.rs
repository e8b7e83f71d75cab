//! `migrate --sync`: late edits at the old place copied to a finished migration's destination,
//! by the first copy's rules: staged beside the destination (`.<name>.wsl-place-sync`), every
//! file read back and checked by CRC32 before its journal line is written, resumed from the
//! journal after a kill, sealed with the list of what to do, and only then applied (each staged
//! file renamed into place). Nothing at the source is written; nothing at the destination that
//! changed there since is overwritten (`plan.rs`).

mod apply;
mod exclude;
mod guard;
mod history;
mod plan;
mod recorded;

use crate::base::error::{Failure, Result};
use crate::base::pathtext::RelPath;
use crate::base::progress::Drawn;
use crate::host::HostEnv;
use crate::migrate::kernel::ask;
use crate::migrate::kernel::engine::plan::Kind;
use crate::migrate::kernel::engine::staging::{self, Staging};
use crate::migrate::kernel::notice::Notice;
use crate::migrate::kernel::options::{Consent, Mode, Options, Ui};
use crate::migrate::kernel::outcome::{Conflict, HistorySync, SyncReport};
use crate::migrate::kernel::run::Run;
use crate::migrate::kernel::{
    engine::copy, engine::estimate, engine::finalise, engine::identity, engine::journal,
    engine::stage,
};
use crate::store::sync_ops::Op;
use crate::store::{manifest, moved};
use apply::{OPS, apply, read_ops};
use plan::{SyncPlan, new_manifest, worktree_file};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Plans, asks, copies, verifies, seals and applies a sync of `record`'s source to its copy;
/// or finishes a sync an interrupted run sealed.
pub(super) fn run(run: &Run, record: &moved::Moved) -> Result<SyncReport> {
    let (env, ui, args) = (run.env, run.ui, run.args);
    refuse_during_removal(record)?;
    identity::check_copy(record, "nothing was copied.")?;
    let staging = Staging::for_sync(&record.source, &record.destination);
    set_interrupt_hint(record, &staging);
    let held = staging.lock_unless(args.consent.dry_run())?;
    staging.check_owner()?;
    if staging.is_sealed() && !args.consent.dry_run() {
        return apply_sealed(run, record, &staging);
    }
    let day = moved::day(crate::base::clock::now_unix()).replace('-', "");
    let spinner = Drawn::spinner(ui.progress(), "finding what changed since the migration");
    let (planned, places) = plan_with_history(env, record, &staging, &day);
    spinner.finish_and_clear();
    let mut plan = planned?;
    if !plan.report.has_work() && plan.is_empty() {
        return nothing_to_sync(run, record, &staging, held.is_some(), plan.report);
    }
    plan.copy.recovered = journal::read_journal(&staging.journal())?;
    if !plan.is_empty() {
        predict(env, ui, &mut plan);
    }
    ui.sync_plan(record, &plan.report)?;
    if args.consent.dry_run() || !confirmed(ui, args, record)? {
        return Ok(plan.report);
    }
    begin(env, record)?;
    let started = Instant::now();
    // History first: a fast-forward puts the old place's commits in the copy's work tree, and
    // the files left to sync are the old place's uncommitted edits on top of them.
    sync_history(ui, places.as_ref(), &mut plan.report);
    note_copy_changes(places.as_ref(), &mut plan.report);
    let history_came = record_history(record, &plan);
    let moved_on;
    let record = match history_came {
        true => {
            moved_on = with_copy_head(record);
            if let Some(head) = &moved_on.copy_head {
                moved::copy_head_moved_on(env, &record.source, head);
            }
            &moved_on
        }
        false => record,
    };
    if plan.is_empty() {
        held.is_some().then(|| staging.remove()).transpose()?;
        if history_came {
            moved::remember(env, &synced_now(record));
        }
        (plan.report.sync_ms, plan.report.done) = (started.elapsed().as_millis() as u64, true);
        return Ok(plan.report);
    }
    let _lock = staging.create(held)?;
    let mut report = copy_and_apply(run, record, &staging, plan, started)?;
    // The files just applied may be what a merge the result advises would stop on.
    note_copy_changes(places.as_ref(), &mut report);
    Ok(report)
}

/// The merges `report` advises, told of the copy's staged or modified files now.
fn note_copy_changes(places: Option<&history::Places>, report: &mut SyncReport) {
    if let (Some(places), Some(h)) = (places, report.history.as_mut()) {
        history::note_copy_changes(places, h);
    }
}

/// A removal that began and did not finish took files from the old place: a sync now would
/// read its deletions as the person's and take the same files from the copy.
fn refuse_during_removal(record: &moved::Moved) -> Result<()> {
    if !record.removal_unfinished() {
        return Ok(());
    }
    Err(Failure::would_lose_data(format!(
        "a --remove-source of {} began and did not finish, so what is missing there is its work, not edits to sync; finish it first with `{}` (it keeps and lists what changed there since), then sync; nothing was copied.",
        record.source.display(),
        staging::command(&record.source, &record.destination, " --remove-source")
    )))
}

/// Records, before the sync's first change, that it began: an interrupted sync is then told
/// at the old place, with the command that finishes it.
fn begin(env: &HostEnv, record: &moved::Moved) -> Result<()> {
    moved::begin(
        env,
        &record.source,
        &record.destination,
        moved::Operation::Sync,
    )
    .map_err(|e| {
        Failure::internal(format!(
            "the sync of {} cannot be recorded in wsl-place's state folder ({e}), so nothing was copied; make the state folder writable, then run it again.",
            record.source.display()
        ))
    })
}

/// The sync finished: the record says so (read again, as the sync wrote it).
pub(super) fn ended(env: &HostEnv, source: &Path) {
    if let Some(record) = moved::recorded(env, source) {
        moved::end(env, record, moved::Operation::Sync);
    }
}

/// Ctrl-C that the work does not answer in time: what is true then, sealed or not.
fn set_interrupt_hint(record: &moved::Moved, staging: &Staging) {
    let (source, destination, kept, sealed) = (
        record.source.clone(),
        record.destination.clone(),
        staging.path().to_path_buf(),
        staging.marker(),
    );
    crate::base::interrupt::set_hint(move || {
        let sync = staging::command(&source, &destination, " --sync");
        match (sealed.is_file(), kept.exists()) {
            (true, _) => format!(
                "the verified sync is kept in {} and only applying it is left: finish it with `{sync}`.",
                kept.display()
            ),
            (false, true) => format!(
                "the sync so far is kept in {}: resume it with `{sync}`, or give it up with `{}`.",
                kept.display(),
                staging::command(&source, &destination, " --abort")
            ),
            // The same words as the walk's own stop, whichever of the two speaks first.
            (false, false) => format!("nothing was synced; to sync later: `{sync}`"),
        }
    });
}

/// A sync an interrupted run verified and sealed: only applying it is left.
fn apply_sealed(run: &Run, record: &moved::Moved, staging: &Staging) -> Result<SyncReport> {
    run.ui.notice(&Notice::SealedSyncWaiting {
        source: &record.source,
        staging: staging.path(),
    })?;
    let started = Instant::now();
    let mut report = sealed_report(staging);
    let holds = apply(run.env, run.ui, staging, record)?;
    report.copy_holds = holds;
    report.excluded_in = kept_out(record, &report);
    report.sync_ms = started.elapsed().as_millis() as u64;
    report.done = true;
    Ok(report)
}

/// Nothing to copy, remove or fetch: said, and the staging folder this run holds removed.
fn nothing_to_sync(
    run: &Run,
    record: &moved::Moved,
    staging: &Staging,
    held: bool,
    mut report: SyncReport,
) -> Result<SyncReport> {
    let dry_run = run.args.consent.dry_run();
    run.ui.notice(&Notice::NothingToSync {
        source: &record.source,
    })?;
    if !dry_run && held {
        staging.remove()?;
    }
    if !dry_run {
        kept_out(record, &report);
    }
    report.done = !dry_run;
    Ok(report)
}

/// A confirmed sync with files to carry: they are copied and verified into staging,
/// sealed with the operations, then applied at the destination.
fn copy_and_apply(
    run: &Run,
    record: &moved::Moved,
    staging: &Staging,
    plan: SyncPlan,
    started: Instant,
) -> Result<SyncReport> {
    let copied = stage(run, staging, &plan)?;
    seal(staging, record, &plan, &copied)?;
    let holds = apply(run.env, run.ui, staging, record)?;
    let mut report = plan.report;
    report.copy_holds = holds;
    report.excluded_in = kept_out(record, &report);
    report.copied_files = copied.copied_files;
    report.not_copied = copied
        .problems
        .iter()
        .map(|p| format!("{}: {}", p.path, p.error))
        .collect();
    report.sync_ms = started.elapsed().as_millis() as u64;
    report.done = true;
    Ok(report)
}

/// The old place's history fetched and the branches moved, as `report` planned. Nothing is
/// fetched when no branch or tag differs: the copy has every commit already.
fn sync_history(ui: &dyn Ui, places: Option<&history::Places>, report: &mut SyncReport) {
    let history = report.history.as_mut().filter(|h| !h.refs.is_empty());
    if let (Some(places), Some(history)) = (places, history) {
        let spinner = Drawn::spinner(ui.progress(), "fetching the old place's history");
        history::apply(places, history);
        spinner.finish_and_clear();
    }
}

/// Whether the old place's history reached the copy; then its committed files are in the
/// manifest (as the plan saw them), so the old place no longer counts them as changed.
fn record_history(record: &moved::Moved, plan: &SyncPlan) -> bool {
    let Some(history) = plan.report.history.as_ref() else {
        return false;
    };
    let came = history.failed.is_none() && (history.fetched || history.refs.is_empty());
    // Best effort: a manifest that cannot be rewritten leaves these counted as changed here,
    // which the next sync finds committed again; nothing is lost.
    came && recorded::record_committed(record, &plan.committed, &plan.committed_seen).is_ok()
}

/// `record` once the old place's history reached the copy: its commits since are counted from
/// the old place's HEAD now, which the copy has (fast-forwarded, or kept under its refs).
fn with_copy_head(record: &moved::Moved) -> moved::Moved {
    let mut moved_on = record.clone();
    if let Some(head) = crate::measure::changes::commits::head(&record.source) {
        moved_on.copy_head = Some(head);
    }
    moved_on
}

/// `record` synced now, with nothing changed at the source since.
fn synced_now(record: &moved::Moved) -> moved::Moved {
    let mut dated = record.clone();
    dated.synced_unix = Some(crate::base::clock::now_unix());
    dated.since = Some(moved::Counted::nothing_now());
    dated
}

/// The file plan and what the sync does with the old place's history, and the two
/// repositories when git is to be run in them.
fn plan_with_history(
    env: &HostEnv,
    record: &moved::Moved,
    staging: &Staging,
    day: &str,
) -> (Result<SyncPlan>, Option<history::Places>) {
    let (places, places_failed) = match history::Places::of(record) {
        Some(Ok(places)) => (Some(places), None),
        Some(Err(why)) => (None, Some(why)),
        None => (None, None),
    };
    let planned = plan::build(env, record, staging.path(), day, places.as_ref());
    let planned = planned.map(|plan| add_history(plan, places.as_ref(), places_failed));
    (planned, places)
}

fn add_history(
    mut plan: SyncPlan,
    places: Option<&history::Places>,
    places_failed: Option<String>,
) -> SyncPlan {
    let mut history = places.map(history::plan);
    if let Some(why) = places_failed {
        history = Some(HistorySync {
            failed: Some(format!("{why}; the old place's history was not synced")),
            ..HistorySync::default()
        });
    }
    if let (Some(places), Some(h)) = (places, history.as_mut()) {
        history::note_copy_changes(places, h);
    }
    if let Some(h) = history.as_mut() {
        h.committed_files = plan.committed.len() as u64;
        if h.failed.is_none() {
            h.failed = plan.committed_failed.take();
        }
    }
    plan.report.history = history;
    plan
}

/// The model's time for the copy, from the source measured on the files to copy and the
/// destination's scratch probe, as the first copy's plan has it.
fn predict(env: &HostEnv, ui: &dyn Ui, plan: &mut SyncPlan) {
    stage::measure(env, ui.progress(), &mut plan.copy);
    let estimate = estimate::of(&plan.copy, &plan.copy.resume());
    plan.report.prediction_basis = estimate.basis;
    let (Some(measured), Some(copy)) = (&plan.copy.measured, &estimate.prediction) else {
        return;
    };
    // The copy's part as the first copy's plan prices it; then the renames into place and the
    // refresh of the destination's whole index in place of the copy's own.
    let replaced = plan
        .ops
        .iter()
        .filter(|op| matches!(op, Op::Put(_) | Op::Save { .. } | Op::Remove(_)))
        .count() as u64;
    let copied = plan
        .copy
        .entries
        .iter()
        .filter(|e| e.kind == Kind::File && worktree_file(&e.rel));
    let refreshed = copied.fold((0, 0), |(n, b), e| (n + 1, b + e.size));
    let apply = crate::model::migration::sync_apply_ms(
        replaced,
        plan.tracked,
        refreshed,
        &measured.destination,
    );
    plan.report.predicted_ms = Some((copy.copy_ms + copy.seal_ms + apply).ceil() as u64);
}

/// `--yes`, or the person's answer; a run without a terminal must say `--yes`.
fn confirmed(ui: &dyn Ui, args: &Options, record: &moved::Moved) -> Result<bool> {
    if args.consent == Consent::Yes {
        return Ok(true);
    }
    ask::refuse_without_terminal(ui, args.consent, "migrate --sync")?;
    let go = ui.confirm(
        &format!(
            "Copy these edits to {} (verified, as the first copy was)?",
            record.destination.display()
        ),
        true,
    )?;
    if !go {
        ui.notice(&Notice::NothingCopied)?;
    }
    Ok(go)
}

/// Copy and verify into the sync's staging folder, journaled; what an interrupted sync
/// verified is kept when it still matches.
fn stage(run: &Run, staging: &Staging, plan: &SyncPlan) -> Result<copy::Outcome> {
    let (env, progress) = (run.env, run.ui.progress());
    let outcome = stage::copy(env, progress, &plan.copy, staging)?;
    if let Some(first) = outcome.problems.first()
        && !run.args.skip_unreadable
    {
        return Err(staging.kept(&Failure::internal(format!(
            "{} source files could not be copied ({}: {}), so nothing was changed at the destination; fix them, or pass --skip-unreadable to sync the rest",
            crate::base::units::count(outcome.problems.len() as u64),
            first.path,
            first.error
        ))));
    }
    let problems: HashSet<PathBuf> = outcome.problems.iter().map(|p| p.path.0.clone()).collect();
    stage::check(progress, &plan.copy, staging, &outcome, &problems)?;
    Ok(outcome)
}

/// The operations and the manifest after the sync, written durably beside the verified copy,
/// then the mark that only applying is left.
fn seal(
    staging: &Staging,
    record: &moved::Moved,
    plan: &SyncPlan,
    copied: &copy::Outcome,
) -> Result<()> {
    let copied_paths: HashSet<&Path> = copied.records.iter().map(|r| r.rel.as_path()).collect();
    let links: HashSet<&Path> = plan
        .copy
        .entries
        .iter()
        .filter(|e| e.kind == Kind::Symlink)
        .map(|e| e.rel.as_path())
        .collect();
    // A file left out with --skip-unreadable is neither put nor saved.
    let ops: String = plan
        .ops
        .iter()
        .filter(|op| match op {
            Op::Put(rel) | Op::Save { rel, .. } => {
                copied_paths.contains(rel.as_path()) || links.contains(rel.as_path())
            }
            _ => true,
        })
        .map(Op::line)
        .collect();
    let Some((_, old)) = manifest::read(&record.manifest) else {
        return Err(staging.kept(&Failure::internal(format!(
            "the manifest {} can no longer be read",
            record.manifest.display()
        ))));
    };
    let entries = new_manifest(
        &old,
        &plan.ops,
        &plan.copy,
        &copied.records,
        &staging.tree(),
        &plan.gone,
    );
    let text = manifest::manifest_text(&record.source, &record.destination, &entries);
    journal::sync_filesystem(&staging.tree())?;
    finalise::write_durable(&staging.path().join(OPS), ops.as_bytes())?;
    finalise::write_durable(&staging.manifest(), text.as_bytes())?;
    finalise::write_durable(&staging.marker(), b"verified\n")?;
    finalise::sync_dir(staging.path());
    Ok(())
}

/// The saved versions of `report`'s conflicts kept out of `git add .` in the copy (and the
/// entries of saved versions gone since dropped): the exclude file, when it lists any.
fn kept_out(record: &moved::Moved, report: &SyncReport) -> Option<RelPath> {
    let saved: Vec<RelPath> = report
        .conflicts
        .iter()
        .filter_map(|c| c.saved_as.clone())
        .collect();
    exclude::keep_out(&record.destination, &saved).map(RelPath::from)
}

/// What a sealed sync holds, for the report of a run that only applies it.
fn sealed_report(staging: &Staging) -> SyncReport {
    let mut report = SyncReport::default();
    for op in read_ops(staging).unwrap_or_default() {
        match op {
            Op::Put(_) => report.changed += 1,
            Op::Remove(_) => report.removed += 1,
            Op::Save { rel, saved } => report.conflicts.push(Conflict::saved(
                &rel,
                "changed at both places",
                &saved,
                true,
            )),
            _ => {}
        }
    }
    report
}

/// `--sync` before any migration of `source` to `destination` finished, or after its copy
/// left the place the migration made it.
pub(super) fn refuse_unfinished(
    env: &HostEnv,
    args: &Options,
    source: &Path,
    destination: &Path,
) -> Result<()> {
    if args.mode != Mode::Sync {
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
pub(super) fn record_of(env: &HostEnv, source: &Path) -> Result<moved::Moved> {
    moved::lookup(env, source).ok_or_else(|| {
        Failure::internal(format!(
            "the record of the migration of {} cannot be read or written under the state folder; nothing was copied.",
            source.display()
        ))
    })
}
