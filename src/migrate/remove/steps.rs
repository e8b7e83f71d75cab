//! `--remove-source` as its steps: the plan shown, the question (asked with the move's plan, or
//! now when the migration finished earlier), the removal with its bar, and the old place's
//! record.

use super::plan;
use crate::base::error::Failure;
use crate::base::error::Result;
use crate::host::HostEnv;
use crate::migrate::kernel::ask::answer;
use crate::migrate::kernel::engine::plan::{Question, QuestionId};
use crate::migrate::kernel::engine::staging;
use crate::migrate::kernel::options::Ui;
use crate::migrate::kernel::outcome::RemovalPlan;
use crate::migrate::kernel::outcome::{MigrationReport, Removal, RemovalShown};
use crate::migrate::kernel::repairs::fixups::FixupAdvice;
use crate::migrate::kernel::run::Run;
use crate::store::moved::{self, Operation};
use std::path::Path;

const NOT_CONFIRMED: FixupAdvice = FixupAdvice::RemovalNotConfirmed;

/// After this run's move: the answer given with the plan (None: not asked, no --remove-source).
pub(in crate::migrate) fn after_move(
    run: &Run,
    report: &mut MigrationReport,
    answer: Option<bool>,
) -> Result<()> {
    let (env, ui) = (run.env, run.ui);
    match answer {
        Some(true) => {
            let manifest = report.manifest.clone();
            let plan = plan::plan(&report.source, &report.destination, &manifest)?;
            ui.removal_plan(&RemovalShown {
                plan: &plan,
                source: &report.source,
                destination: &report.destination,
                verified: None,
                dry_run: false,
            })?;
            report.removal = Some(remove_source(env, ui, report, &plan)?);
            removed(env, &report.source);
        }
        Some(false) => report.fixups.advice.push(NOT_CONFIRMED),
        None => {}
    }
    Ok(())
}

/// `--remove-source` given again after the migration finished: the plan comes before the
/// question (what goes, what stays and why, how long), then the one question left.
pub(in crate::migrate) fn after_finish(run: &Run, report: &mut MigrationReport) -> Result<()> {
    let (env, ui, args) = (run.env, run.ui, run.args);
    if !args.remove_source {
        return Ok(());
    }
    let (source, destination) = (report.source.clone(), report.destination.clone());
    // The copy this removal proves against is the one at `destination`, the newest or not.
    if let Some(record) = moved::recorded(env, &source).and_then(|r| r.for_copy(&destination)) {
        crate::migrate::kernel::engine::identity::check_copy(
            &record,
            "nothing in the source was deleted.",
        )?;
    }
    let plan = plan::plan(&source, &destination, &report.manifest)?;
    let day = moved::lookup(env, &source).map(|m| m.finished_day());
    ui.removal_plan(&RemovalShown {
        plan: &plan,
        source: &source,
        destination: &destination,
        verified: day.as_deref(),
        dry_run: args.consent.dry_run(),
    })?;
    // A dry run shows what the removal would delete and keep, and stops there.
    if args.consent.dry_run() {
        return Ok(());
    }
    // The copy was verified long ago: the question follows the plan shown above it.
    let question = Question {
        id: QuestionId::RemoveSource,
        text: format!(
            "Delete from {} what the plan above deletes?",
            source.display()
        ),
        default: false,
        with_yes: true,
    };
    if answer(run, &question)? {
        report.removal = Some(remove_source(env, ui, report, &plan)?);
        removed(env, &source);
    } else {
        report.fixups.advice.push(NOT_CONFIRMED);
    }
    Ok(())
}

/// The old place's record says the source was removed (what was proven copied).
fn removed(env: &HostEnv, source: &Path) {
    if let Some(mut record) = moved::lookup(env, source) {
        // After an earlier removal, a copied file here now is one it kept, or one made again
        // since (never an edit of the copy's): only the first stay "kept".
        let earlier = record
            .source_removed
            .then(|| record.kept_at_removal.clone());
        record.source_removed = true;
        record.source_removed_unix = Some(crate::base::clock::now_unix());
        record.kept_at_removal = kept_copied_files(&record)
            .into_iter()
            .filter(|kept| {
                earlier
                    .as_ref()
                    .is_none_or(|earlier| earlier.contains(kept))
            })
            .collect();
        // What the removal left is what the old place says from now on (the nudge reads it).
        // Counted as after the removal: its own deletions are no change made here.
        record.unfinished = None;
        record.since = crate::measure::changes::since(&record).map(|c| moved::Counted {
            added: c.added.len() as u64,
            changed: c.changed.len() as u64,
            removed: c.removed.len() as u64,
            bytes: c.bytes,
            unix: crate::base::clock::now_unix(),
            commits: None,
        });
        moved::end(env, record, Operation::RemoveSource);
    }
}

/// The manifest's files still at the source after a removal (escaped paths), by one walk of
/// what is left there: a sync later updates the copy from these, and from no file made since.
fn kept_copied_files(record: &moved::Moved) -> Vec<String> {
    let Some((_, entries)) = crate::store::manifest::read(&record.manifest) else {
        return Vec::new();
    };
    let copied = crate::store::manifest::file_paths(&entries);
    crate::measure::changes::walk(&record.source)
        .unwrap_or_default()
        .into_iter()
        .filter(|seen| copied.contains(seen.rel.as_path()))
        .map(|seen| crate::base::pathtext::escape_path(&seen.rel))
        .collect()
}

/// `--remove-source`, confirmed: what the manifest proves was copied leaves the source, with a
/// bar over the plan's entries and the model's time left (every entry is a round trip on the
/// slow mount).
fn remove_source(
    env: &HostEnv,
    ui: &dyn Ui,
    report: &MigrationReport,
    plan: &RemovalPlan,
) -> Result<Removal> {
    let (source, destination) = (report.source.as_path(), report.destination.as_path());
    let resume = staging::command(source, destination, " --remove-source");
    // On the disk before the first unlink: after a kill, every reader of the record knows that
    // what is missing here was the removal's, and says how to finish it.
    moved::begin(env, source, destination, Operation::RemoveSource).map_err(|e| {
        Failure::internal(format!(
            "the removal from {} cannot be recorded in wsl-place's state folder ({e}), so nothing was deleted; make the state folder writable, then run `{resume}` again.",
            source.display()
        ))
    })?;
    crate::base::interrupt::set_hint(move || {
        format!(
            "the copy holds everything removed so far, and the rest is still at the old place; finish the removal with `{resume}`"
        )
    });
    // The folder the shell that ran this is in: removed with the source, it leaves the shell
    // in a folder that no longer exists.
    let shell_in = std::env::current_dir()
        .ok()
        .filter(|cwd| cwd.starts_with(source));
    let bar = plan.bar(ui.progress());
    let removed = super::remove_source(source, destination, (&report.manifest, &plan.git), &bar);
    bar.finish_and_clear();
    let mut removal = removed?;
    if let Some(cwd) = shell_in {
        removal.shell_folder_removed = !cwd.is_dir();
        let same_place = cwd
            .strip_prefix(source)
            .map(|inside| match inside.as_os_str().is_empty() {
                true => destination.to_path_buf(),
                false => destination.join(inside),
            })
            .ok()
            .filter(|there| there.is_dir())
            .unwrap_or_else(|| destination.to_path_buf());
        removal.cd = Some(format!(
            "cd {}",
            crate::base::pathtext::shell_quote(&same_place)
        ));
    }
    Ok(removal)
}
