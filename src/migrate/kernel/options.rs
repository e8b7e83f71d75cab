//! What `migrate` is asked to do, and how it talks to the person running it.

use super::document::PlanDocument;
use super::notice::Notice;
use super::outcome::{MigrationReport, RemovalShown, SyncReport};
use crate::base::error::Result;
use crate::store::moved::Moved;
use std::path::PathBuf;

/// What `migrate` should do, decided once from the command line.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The repository to move.
    pub path: PathBuf,
    /// Destination directory (None: the policy's root, `~/src`, plus the repository's name).
    pub to: Option<PathBuf>,
    /// Which operation the run is.
    pub mode: Mode,
    /// Who answers the questions, or that nothing is changed.
    pub consent: Consent,
    /// After a verified copy, delete what the manifest proves was copied (asks again).
    pub remove_source: bool,
    /// Finalise even if some source files could not be read.
    pub skip_unreadable: bool,
    /// Leave node_modules behind instead of copying it.
    pub skip_node_modules: bool,
}

/// Which operation a run of `migrate` is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Mode {
    /// Move the repository (or report on a move that finished, and finish one a kill left).
    #[default]
    Move,
    /// `--sync`: after a finished migration, copy what changed at the source since.
    Sync,
    /// `--abort`: remove an interrupted run's staging folder, or an unchanged copy.
    Abort,
}

/// Who answers the questions, or that nothing is changed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Consent {
    /// The person at the terminal answers.
    #[default]
    Ask,
    /// `--yes`: each question answered as Enter does, copying and removing confirmed.
    Yes,
    /// `--dry-run`: show the plan and stop.
    DryRun,
}

impl Consent {
    pub fn dry_run(self) -> bool {
        self == Consent::DryRun
    }
}

/// How a migration talks to the person running it: the command layer decides the format,
/// the colours and whether anyone can answer a question.
pub trait Ui {
    /// Someone is at a terminal to answer questions.
    fn interactive(&self) -> bool;
    /// Asks a yes/no question.
    fn confirm(&self, prompt: &str, default: bool) -> Result<bool>;
    /// Tells the person something (not part of any machine-readable output). Failing to show
    /// it (a full disk behind `>file`) is an error, never a silent success.
    fn notice(&self, notice: &Notice) -> Result<()>;
    /// Shows the plan before anything is copied; `dry_run` when it is all that will happen.
    fn plan(&self, plan: &PlanDocument, dry_run: bool) -> Result<()>;
    /// Shows what a sync will do (`report`, not done yet), before asking.
    fn sync_plan(&self, moved: &Moved, report: &SyncReport) -> Result<()>;
    /// Shows what `--remove-source` will delete and keep, before asking.
    fn removal_plan(&self, plan: &RemovalShown) -> Result<()>;
    /// Shows what a finished migration did.
    fn result(&self, report: &MigrationReport) -> Result<()>;
    /// Draw a progress bar while copying.
    fn progress(&self) -> bool;
}
