//! What `migrate` is asked to do, and how it talks to the person running it.

use super::outcome::MigrationReport;
use super::plan::Plan;
use crate::base::error::Result;
use std::path::PathBuf;

/// What `migrate` should do, decided once from the command line.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The repository to move.
    pub path: PathBuf,
    /// Destination directory (None: the policy's root, `~/src`, plus the repository's name).
    pub to: Option<PathBuf>,
    /// Accept the plan without asking.
    pub yes: bool,
    /// Show the plan and stop.
    pub dry_run: bool,
    /// Abandon an interrupted migration: remove its staging directory.
    pub abort: bool,
    /// After a verified copy, delete what the manifest proves was copied (asks again).
    pub remove_source: bool,
    /// Finalise even if some source files could not be read.
    pub skip_unreadable: bool,
    /// Leave node_modules behind instead of copying it.
    pub skip_node_modules: bool,
    /// After a finished migration: copy what changed at the source since to the destination.
    pub sync: bool,
}

/// How a migration talks to the person running it: the command layer decides the format,
/// the colours and whether anyone can answer a question.
pub trait Ui {
    /// Someone is at a terminal to answer questions.
    fn interactive(&self) -> bool;
    /// Asks a yes/no question.
    fn confirm(&self, prompt: &str, default: bool) -> Result<bool>;
    /// A sentence for the person (not part of any machine-readable output). Failing to show
    /// it (a full disk behind `>file`) is an error, never a silent success.
    fn note(&self, text: &str) -> Result<()>;
    /// Shows the plan before anything is copied; `dry_run` when it is all that will happen.
    fn plan(&self, plan: &Plan, dry_run: bool) -> Result<()>;
    /// Shows what a finished migration did.
    fn result(&self, report: &MigrationReport) -> Result<()>;
    /// Draw a progress bar while copying.
    fn progress(&self) -> bool;
}
