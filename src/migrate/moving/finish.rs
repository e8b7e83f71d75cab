//! The last steps, once the copy is verified and sealed: commit (rename into place), fix up,
//! finalise (remove staging), report; `--remove-source` follows (`remove/`) when confirmed.

use super::questions::Answers;
use crate::base::error::Result;
use crate::base::progress::Drawn;
use crate::host::HostEnv;
use crate::host::location;
use crate::measure::changes;
use crate::migrate::kernel::options::Ui;
use crate::migrate::kernel::outcome::{Copied, MigrationReport};
use crate::migrate::kernel::repairs::fixups::{self, FixupReport};
use crate::migrate::kernel::run::Run;
use crate::migrate::kernel::{
    engine::finalise, repairs::alternates, repairs::git_paths, repairs::old_paths, repairs::venvs,
    repairs::windows_side, repairs::worktrees,
};
use crate::store::{moved, snapshot};
use std::path::Path;

/// Steps 6 to 9: commit (rename into place), fix up, finalise (remove staging), report.
pub(super) fn finish(run: &Run, answers: &Answers, copied: Copied) -> Result<MigrationReport> {
    let (env, ui, staging) = (run.env, run.ui, &run.staging);
    let (source, destination) = (run.source(), run.destination.as_path());
    let manifest = finalise::commit(
        staging,
        destination,
        &finalise::manifest_for(env, destination),
    )?;
    // The copies made before (a second destination, asked for) stay in the record.
    let mut record =
        moved::Moved::new(source, destination, &manifest).after(moved::recorded(env, source));
    // The old place's commits since are counted from this one (the copy's, the source's now).
    record.copy_head = crate::measure::changes::commits::head(destination);
    moved::remember(env, &record);
    moved::start_ended(env, source);
    let (mut fixups, refresh_ms) = fix_up(
        ui,
        (source, destination),
        &env.automount_root(),
        &answers.git_settings,
        copied.predicted_refresh_ms,
    )?;
    fix_venvs(run, answers, &mut fixups);
    finish_worktrees(env, (source, destination), &copied, &mut fixups)?;
    keep_snapshot(env, source, destination);
    staging.remove()?;
    let first_status = copied
        .predicted_refresh_ms
        .zip(refresh_ms)
        .map(|(predicted, measured)| first_status(env, destination, predicted, measured));
    let mut report = MigrationReport::from_manifest(
        env,
        source,
        destination,
        &manifest,
        copied,
        (fixups, first_status),
    )?;
    // Windows' git config is touched only once the copy is in place.
    if let Some(plan) = &answers.windows {
        report.windows = Some(windows_side_done(env, plan, answers, &mut record));
    }
    report.still_points_to_old_place = still_pointing(env, ui, source, &report);
    report.other_copies = record
        .other_copies
        .iter()
        .map(|o| o.destination.clone())
        .collect();
    Ok(report)
}

/// The copy's virtualenvs pointed at their new place, as answered with the plan.
fn fix_venvs(run: &Run, answers: &Answers, fixups: &mut FixupReport) {
    let (source, destination) = (run.source(), run.destination.as_path());
    let spinner = Drawn::spinner(
        run.ui.progress(),
        "pointing the virtualenvs at the new location",
    );
    venvs::fix(
        source,
        destination,
        answers.virtualenvs,
        &run.env.automount_root(),
        fixups,
    );
    spinner.finish_and_clear();
}

/// The linked worktrees: those left behind detached from the copy, those moved along finished.
fn finish_worktrees(
    env: &HostEnv,
    (source, destination): (&Path, &Path),
    copied: &Copied,
    fixups: &mut FixupReport,
) -> Result<()> {
    // Those left behind first: the repair run for a moved one touches every recorded worktree.
    for worktree in copied.worktrees.iter().filter(|w| !w.moved) {
        worktrees::detach(destination, worktree, fixups);
        fixups.advice.push(worktrees::left_behind(source, worktree));
    }
    for worktree in copied.worktrees.iter().filter(|w| w.moved) {
        finish_worktree(env, destination, worktree, fixups)?;
    }
    Ok(())
}

/// Windows' side carried out as planned; the safe.directory entry it added is kept in the
/// record, so that `--abort` can take it out again.
fn windows_side_done(
    env: &HostEnv,
    plan: &windows_side::WindowsPlan,
    answers: &Answers,
    record: &mut moved::Moved,
) -> windows_side::WindowsOutcome {
    let outcome = windows_side::carry_out(plan, answers.add_safe_directory);
    if let Some(added) = outcome
        .safe_directory
        .as_ref()
        .and_then(|s| s.record.clone())
    {
        record.windows_git = Some(added);
        moved::remember(env, record);
    }
    outcome
}

/// The lines of the copy's settings files that still name the old place, in its Linux form and,
/// on a Windows drive, its Windows forms.
fn still_pointing(
    env: &HostEnv,
    ui: &dyn Ui,
    source: &Path,
    report: &MigrationReport,
) -> Vec<old_paths::StillPointing> {
    let source_windows = location::locate(env, source)
        .ok()
        .and_then(|l| l.paths.windows);
    let forms = old_paths::forms(
        source,
        &report.destination,
        source_windows.as_deref(),
        report.windows_path.as_deref(),
    );
    let spinner = Drawn::spinner(ui.progress(), "looking for the old path in settings files");
    let found = old_paths::scan(&report.destination, &forms);
    spinner.finish_and_clear();
    found
}

/// The first `git status` at the copy against the plan's prediction, kept in the machine's
/// record for the destination's mount (`assess::accuracy`).
fn first_status(
    env: &HostEnv,
    destination: &Path,
    predicted_ms: f64,
    measured_ms: f64,
) -> crate::assess::accuracy::FirstStatus {
    match crate::host::location::MountTable::read(env) {
        Ok(table) => crate::assess::accuracy::remember_first_status(
            env,
            &table,
            destination,
            predicted_ms,
            measured_ms,
        ),
        Err(e) => crate::assess::accuracy::FirstStatus::of(
            predicted_ms,
            measured_ms,
            Some(format!("the mount table could not be read ({})", e.message)),
        ),
    }
}

/// The destination as this migration leaves it, after its fix-ups: what `--abort` and a sync
/// compare it with later to tell what changed there (`measure::snapshot`). Taken again when an
/// interrupted finish is run again. Best effort: without it they compare with the manifest.
fn keep_snapshot(env: &HostEnv, source: &Path, destination: &Path) {
    // A walk cut short would record files as missing there, so it writes no snapshot.
    if let Some(file) = moved::snapshot_path(env, destination)
        && let Ok(entries) = changes::snapshot(destination)
    {
        let _ = snapshot::write(&file, source, destination, &entries);
    }
}

/// A worktree that moved along: into place, re-linked both ways, its index refreshed.
fn finish_worktree(
    env: &HostEnv,
    destination: &Path,
    worktree: &worktrees::LinkedWorktree,
    fixups: &mut FixupReport,
) -> Result<()> {
    let (Some(staging), Some(moved)) = (worktree.staging(), &worktree.destination) else {
        return Ok(());
    };
    finalise::commit(&staging, moved, &finalise::manifest_for(env, moved))?;
    worktrees::relink(destination, worktree, fixups);
    fixups::refresh_index(moved, None, fixups)?;
    staging.remove()
}

/// Step 7, fix up: symlinks and git paths pointing into the old place, git settings DrvFs
/// forced (as answered with the plan), the index; with how long the destination's own index
/// refresh took (the first `git status` there: every file re-read and hashed), when it ran.
fn fix_up(
    ui: &dyn Ui,
    (source, destination): (&Path, &Path),
    automount_root: &Path,
    settings: &[fixups::ConfigIssue],
    predicted_refresh_ms: Option<f64>,
) -> Result<(FixupReport, Option<f64>)> {
    let mut fixups = FixupReport::default();
    let spinner = Drawn::spinner(ui.progress(), "repairing links into the old place");
    let mut repos = fixups::repair_links(source, destination, &mut fixups);
    // Before any other git run there: until then the copy's git may work on the old place.
    repos.retain(|repo| {
        git_paths::repoint(source, destination, repo, automount_root, &mut fixups)
            == git_paths::WorkTree::AtCopy
    });
    // Before the old place can go: a copy that borrows objects from it has half a history.
    for repo in &repos {
        alternates::make_own(source, repo, &mut fixups);
    }
    spinner.finish_and_clear();
    if destination.join(".git").is_dir() {
        for issue in settings {
            let issue = fixups::ConfigIssue {
                repo: destination.to_path_buf(),
                ..issue.clone()
            };
            if issue.reset && issue.reset_to.is_some() {
                fixups::apply(&issue, &mut fixups);
            } else {
                fixups::decline(&issue, &mut fixups);
            }
        }
    }
    let spinner = Drawn::spinner(ui.progress(), "git update-index --refresh");
    let mut refresh_ms = None;
    let repos = own_git_folders(destination, repos, &mut fixups);
    let refreshed = repos.iter().try_for_each(|repo| {
        // The configuration read first, outside the timing: the first status is git's refresh.
        let _ = crate::host::git::defuse(repo);
        let (started, advised) = (std::time::Instant::now(), fixups.advice.len());
        let predicted = predicted_refresh_ms.filter(|_| repo == destination);
        let done = fixups::refresh_index(repo, predicted, &mut fixups);
        if repo == destination && fixups.advice.len() == advised {
            refresh_ms = Some(started.elapsed().as_secs_f64() * 1000.0);
        }
        done
    });
    spinner.finish_and_clear();
    refreshed?;
    Ok((fixups, refresh_ms))
}

/// The repositories of the copy whose git folder is their own: a `.git` file or link that leads
/// out of the copy is another repository's, and nothing of git's is written through it (said).
fn own_git_folders(
    destination: &Path,
    repos: Vec<std::path::PathBuf>,
    fixups: &mut FixupReport,
) -> Vec<std::path::PathBuf> {
    let mut kept = Vec::new();
    for repo in repos {
        match git_paths::git_dir_outside(destination, &repo) {
            Some((leads, git_dir)) => fixups.advice.push(fixups::FixupAdvice::GitDirOutside {
                repo,
                leads,
                git_dir,
            }),
            None => kept.push(repo),
        }
    }
    kept
}
