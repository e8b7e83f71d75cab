//! The plan as a document: what the plan shows a person and what `--format json` prints, the
//! estimate and the resume figures computed once from the plan.

use super::engine::estimate;
use super::engine::plan::{NodeModules, Plan, Problem, Question, Skipped};
use super::engine::staging::Elsewhere;
use super::repairs::Repairs;
use super::repairs::fixups::ConfigIssue;
use super::repairs::worktrees::LinkedWorktree;
use crate::base::counts::TreeCounts;
use crate::base::pathtext::RelPath;
use serde::Serialize;
use std::path::PathBuf;

/// The plan as it is shown and as `--format json` prints it: the walk's figures, the estimate
/// and the resume figures computed from it once, the questions.
#[derive(Debug, Clone, Serialize)]
pub struct PlanDocument {
    #[serde(with = "crate::base::pathtext::json")]
    pub source: PathBuf,
    #[serde(with = "crate::base::pathtext::json")]
    pub destination: PathBuf,
    #[serde(with = "crate::base::pathtext::json")]
    pub staging: PathBuf,
    #[serde(flatten)]
    pub totals: TreeCounts,
    /// Space the copy still needs at the destination (files rounded up to 4 KiB blocks).
    pub needed_bytes: u64,
    /// Of `needed_bytes`, the files' own bytes (a hard-linked file once); the rest is each file
    /// rounded up to whole 4 KiB blocks and one block for each of `needed_other_entries`.
    pub needed_file_bytes: u64,
    /// Folders and symlinks still to make, each counted as one 4 KiB block in `needed_bytes`.
    pub needed_other_entries: u64,
    /// Space available to an unprivileged user at the destination; None if it cannot be told.
    pub free_bytes: Option<u64>,
    /// Inodes available to an unprivileged user at the destination; None if it cannot be told
    /// or the file system has no fixed number (btrfs reports 0 total).
    pub free_inodes: Option<u64>,
    /// Predicted duration of what follows the plan: copy with each file read back, the staged
    /// tree's count and flush, `git update-index --refresh`. From the model
    /// (`model::migration`) with the source measured on its own files and the destination
    /// probed; None when they could not be measured (`prediction_basis` says why).
    pub predicted_copy_ms: Option<u64>,
    pub prediction_basis: String,
    /// The same prediction by phase, with the copy's thread count.
    pub prediction: Option<crate::model::migration::CopyEstimate>,
    /// Copy threads, from the source's parallel `lstat` figures.
    pub copy_threads: Option<usize>,
    /// How long the plan's walk of the source took.
    pub walk_ms: u64,
    /// `predicted_copy_ms` holds the walk too: a dry run that a `--yes` would follow in one
    /// pass (no staging folder yet), whose `copy_ms` counts from the start of its walk.
    pub walk_predicted: bool,
    /// Files an interrupted earlier run already copied and verified.
    pub resumed_files: u64,
    pub resumed_bytes: u64,
    pub node_modules: Vec<NodeModules>,
    /// Virtualenvs in the tree (folders holding `pyvenv.cfg`): each names the folder it was made
    /// in, so the old path is rewritten inside it after the copy; one made by Windows Python is
    /// left behind with the command that makes it again.
    pub virtualenvs: Vec<super::repairs::venvs::Virtualenv>,
    /// When the repository's root is itself a virtualenv (it holds `pyvenv.cfg`): the command
    /// that makes it again at the copy. Nothing in it is rewritten.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub root_virtualenv: Option<String>,
    /// Build output its tool writes again after a move (a Jest cache inside the tree), each
    /// with the copy time leaving it behind saves.
    pub build_output: Vec<super::repairs::build_output::BuildOutput>,
    /// FIFOs, sockets and devices: reported, never opened.
    pub skipped: Vec<Skipped>,
    /// Entries the walk could not read.
    pub unreadable: Vec<Problem>,
    /// Names in one directory that differ only by case (they collide on Windows and macOS).
    pub case_collisions: Vec<Vec<RelPath>>,
    /// Names Windows cannot hold (reserved names, `<>:"\|?*`, trailing dot or space).
    pub windows_invalid: Vec<RelPath>,
    /// Settings in `.git/config` that are wrong on ext4, each with whether it will be reset.
    pub git_settings: Vec<ConfigIssue>,
    /// Linked worktrees outside the folder: moved along or left attached to the old copy.
    pub worktrees: Vec<LinkedWorktree>,
    /// Every question migrate asks about this plan, in order, with what Enter and --yes answer.
    pub questions: Vec<Question>,
    /// Entries whose path at the destination is PATH_MAX (4096 bytes) or longer: copied and
    /// verified through open directories, but git and most tools cannot open them by path.
    pub past_path_max: u64,
    /// Interrupted migrations of this source to other destinations, with their `--abort`.
    pub interrupted_elsewhere: Vec<Elsewhere>,
    /// On WSL: what each Windows tool found does with the copy, and the safe.directory offer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub windows: Option<super::repairs::windows_side::WindowsPlan>,
    /// `--dry-run`: the plan is all this run does; nothing was copied or changed.
    pub dry_run: bool,
}

/// The plan and the repairs found beside it as they are shown: the estimate and the resume
/// figures computed once, here.
pub fn of(plan: &Plan, repairs: &Repairs) -> PlanDocument {
    let resume = plan.copy.resume();
    let estimate = estimate::of(&plan.copy, &resume);
    PlanDocument {
        source: plan.copy.source.clone(),
        destination: plan.copy.destination.clone(),
        staging: plan.copy.staging.clone(),
        totals: plan.copy.totals,
        needed_bytes: resume.needed_bytes,
        needed_file_bytes: resume.needed_file_bytes,
        needed_other_entries: resume.needed_other_entries,
        free_bytes: plan.free_bytes,
        free_inodes: plan.free_inodes,
        predicted_copy_ms: estimate.predicted_copy_ms,
        prediction_basis: estimate.basis,
        prediction: estimate.prediction,
        copy_threads: estimate.threads,
        walk_ms: plan.walk_ms,
        walk_predicted: false,
        resumed_files: resume.files,
        resumed_bytes: resume.bytes,
        node_modules: plan.node_modules.clone(),
        virtualenvs: repairs.virtualenvs.clone(),
        root_virtualenv: repairs.root_virtualenv.clone(),
        build_output: repairs.build_output.clone(),
        skipped: plan.skipped.clone(),
        unreadable: plan.unreadable.clone(),
        case_collisions: plan.case_collisions.clone(),
        windows_invalid: plan.windows_invalid.clone(),
        git_settings: repairs.git_settings.clone(),
        worktrees: repairs.worktrees.clone(),
        questions: plan.questions.clone(),
        past_path_max: plan.past_path_max,
        interrupted_elsewhere: plan.interrupted_elsewhere.clone(),
        windows: repairs.windows.clone(),
        dry_run: false,
    }
}
