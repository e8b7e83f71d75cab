//! `--abort`: an interrupted migration's staging folders removed; the source is never touched.

use super::options::Ui;
use super::staging::{self, Staging};
use super::worktrees;
use crate::base::error::{ExitCode, Result};
use std::path::Path;

/// `--abort`: remove an interrupted migration's staging folder; the source is never touched.
pub(super) fn abort(
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
