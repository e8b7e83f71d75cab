//! The last steps, once the copy is verified and sealed: commit (rename into place), fix up,
//! finalise (remove staging), report, and `--remove-source` when confirmed.

use super::fixups::{self, FixupReport};
use super::options::Ui;
use super::outcome::MigrationReport;
use super::plan::{self, Problem};
use super::questions::Answers;
use super::removal::{self, Removal};
use super::removal_plan::{self, RemovalPlan};
use super::staging::{self, Staging};
use super::{finalise, journal, next_steps, worktrees};
use crate::base::error::{ExitCode, Failure, Result};
use crate::base::progress::Drawn;
use crate::host::HostEnv;
use crate::host::location;
use crate::measure::{moved, snapshot};
use std::path::Path;
use std::time::Instant;

/// What this run copied, for the report.
pub(super) struct Copied {
    pub(super) files: u64,
    /// When the plan was accepted: the report's `copy_ms` counts from here.
    pub(super) started: Instant,
    /// Unreadable source entries (with --skip-unreadable) and special files.
    pub(super) not_copied: Vec<Problem>,
    /// The plan's node_modules, for the next steps (as the sealing run recorded them when only
    /// finishing; none for an already finished migration).
    pub(super) node_modules: Vec<plan::NodeModules>,
    /// Linked worktrees outside the source: the moved ones are staged and sealed.
    pub(super) worktrees: Vec<worktrees::LinkedWorktree>,
    /// Interrupted migrations of the same source to other destinations.
    pub(super) elsewhere: Vec<staging::Elsewhere>,
}

impl Copied {
    /// A run that copies no file itself (a finished or sealed migration), timed from now.
    pub(super) fn nothing_yet(elsewhere: &[staging::Elsewhere]) -> Self {
        Self {
            files: 0,
            started: Instant::now(),
            not_copied: Vec::new(),
            node_modules: Vec::new(),
            worktrees: Vec::new(),
            elsewhere: elsewhere.to_vec(),
        }
    }
}

/// Steps 6 to 9: commit (rename into place), fix up, finalise (remove staging), report.
pub(super) fn finish(
    env: &HostEnv,
    ui: &dyn Ui,
    answers: &Answers,
    destination: &Path,
    staging: &Staging,
    copied: Copied,
) -> Result<ExitCode> {
    let source = staging.source();
    let manifest = finalise::commit(
        staging,
        destination,
        &finalise::manifest_for(env, destination),
    )?;
    moved::remember(env, &moved::Moved::new(source, destination, &manifest));
    let mut fixups = fix_up(ui, source, destination, &answers.git_settings)?;
    // Those left behind first: the repair run for a moved one touches every recorded worktree.
    for worktree in copied.worktrees.iter().filter(|w| !w.moved) {
        worktrees::detach(destination, worktree, &mut fixups);
        fixups.advice.push(worktrees::left_behind(source, worktree));
    }
    for worktree in copied.worktrees.iter().filter(|w| w.moved) {
        finish_worktree(env, destination, worktree, &mut fixups)?;
    }
    keep_snapshot(env, source, destination);
    staging.remove()?;
    let mut report = report(env, source, destination, &manifest, copied, fixups)?;
    match answers.remove_source {
        Some(true) => {
            let plan = removal_plan::plan(&report.source, &manifest)?;
            ui.note(&plan.text(&report.source, destination, None))?;
            report.removal = Some(remove_source(
                ui,
                &report.source,
                destination,
                &manifest,
                &plan,
            )?);
            removed(env, &report.source);
        }
        Some(false) => report
            .fixups
            .advice
            .push("--remove-source was not confirmed; the source is left in place".into()),
        None => {}
    }
    ui.result(&report)?;
    Ok(ExitCode::Ok)
}

/// The destination as this migration leaves it, after its fix-ups: what `--abort` and a sync
/// compare it with later to tell what changed there (`measure::snapshot`). Taken again when an
/// interrupted finish is run again. Best effort: without it they compare with the manifest.
fn keep_snapshot(env: &HostEnv, source: &Path, destination: &Path) {
    // A walk cut short would record files as missing there, so it writes no snapshot.
    if let Some(file) = moved::snapshot_path(env, destination)
        && let Ok(entries) = snapshot::take(destination)
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
    fixups::refresh_index(moved, fixups)?;
    staging.remove()
}

/// Step 7, fix up: symlinks pointing into the old place, git settings DrvFs forced (as answered
/// with the plan), the index.
fn fix_up(
    ui: &dyn Ui,
    source: &Path,
    destination: &Path,
    settings: &[fixups::ConfigIssue],
) -> Result<FixupReport> {
    let mut fixups = FixupReport::default();
    let spinner = Drawn::spinner(ui.progress(), "repairing links into the old place");
    let repos = fixups::repair_links(source, destination, &mut fixups);
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
    let refreshed = repos
        .iter()
        .try_for_each(|repo| fixups::refresh_index(repo, &mut fixups));
    spinner.finish_and_clear();
    refreshed?;
    Ok(fixups)
}

/// Step 9, report: the totals from the manifest, and the Windows paths of the destination.
pub(super) fn report(
    env: &HostEnv,
    source: &Path,
    destination: &Path,
    manifest: &Path,
    copied: Copied,
    fixups: FixupReport,
) -> Result<MigrationReport> {
    let text = std::fs::read_to_string(manifest)
        .map_err(|e| Failure::io("read the manifest", manifest, &e))?;
    let (_, entries) = journal::parse_manifest(&text).ok_or_else(|| {
        Failure::internal(format!(
            "{} is not a complete manifest.",
            manifest.display()
        ))
    })?;
    let mut report = MigrationReport {
        source: source.to_path_buf(),
        destination: destination.to_path_buf(),
        manifest: manifest.to_path_buf(),
        windows_path: None,
        windows_legacy_path: None,
        files: 0,
        dirs: 0,
        symlinks: 0,
        bytes: 0,
        copied_files: copied.files,
        copy_ms: copied.started.elapsed().as_millis() as u64,
        not_copied: copied.not_copied,
        fixups,
        removal: None,
        sync: None,
        already_migrated: false,
        next_steps: Vec::new(),
    };
    for other in &copied.elsewhere {
        report.fixups.advice.push(other.sentence(source));
    }
    for entry in &entries {
        match entry {
            journal::ManifestEntry::File(r) => {
                report.files += 1;
                report.bytes += r.size;
            }
            journal::ManifestEntry::Dir(_) => report.dirs += 1,
            journal::ManifestEntry::Symlink { .. } => report.symlinks += 1,
        }
    }
    if let Ok(located) = location::locate(env, destination) {
        report.windows_path = located.paths.windows;
        report.windows_legacy_path = located.paths.windows_legacy;
    }
    let on_wsl = report.windows_path.is_some();
    report.next_steps = next_steps::steps(destination, &copied.node_modules, on_wsl);
    report
        .fixups
        .advice
        .extend(next_steps::windows_build_warnings(
            source,
            &copied.node_modules,
        ));
    Ok(report)
}

/// The old place's record says the source was removed (what was proven copied).
pub(super) fn removed(env: &HostEnv, source: &Path) {
    if let Some(mut record) = moved::lookup(env, source) {
        record.source_removed = true;
        moved::remember(env, &record);
    }
}

/// `--remove-source`, confirmed: what the manifest proves was copied leaves the source, with a
/// bar over the plan's entries and the model's time left (every entry is a round trip on the
/// slow mount).
pub(super) fn remove_source(
    ui: &dyn Ui,
    source: &Path,
    destination: &Path,
    manifest: &Path,
    plan: &RemovalPlan,
) -> Result<Removal> {
    let bar = plan.bar(ui.progress());
    let removed = removal::remove_source(source, destination, manifest, &bar);
    bar.finish_and_clear();
    removed
}
