//! The repairs after the move: what a copy needs mended once it is in place, each found beside
//! the engine's plan ([`Repairs`]), shown and asked with it, and applied after the copy is
//! verified: the fix-ups of links, git paths and settings (`fixups`, `git_paths`), the
//! virtualenvs (`venvs`), the linked worktrees moving along (`worktrees`), the Windows side and
//! its safe.directory entries (`windows_side`, `safe_directory`, `gitconfig_text`), build output
//! left behind (`build_output`), what still names the old place (`old_paths`) and what is left
//! to do (`next_steps`). The engine knows none of them.

pub mod alternates;
pub mod build_output;
pub mod fixups;
pub mod git_paths;
pub mod gitconfig_text;
pub mod next_steps;
pub mod old_paths;
pub mod safe_directory;
pub mod venvs;
pub mod windows_side;
pub mod worktrees;

use super::engine::plan::Plan;
use build_output::BuildOutput;
use fixups::ConfigIssue;
use std::path::PathBuf;
use venvs::Virtualenv;
use windows_side::WindowsPlan;
use worktrees::LinkedWorktree;

/// What a move mends after the copy, found beside its plan: a value the move owns, shown with
/// the plan, changed by the answers, and carried out once the copy is in place.
#[derive(Debug, Clone, Default)]
pub struct Repairs {
    /// Virtualenvs below the root: tied to their path (`venvs.rs`).
    pub virtualenvs: Vec<Virtualenv>,
    /// When the root itself holds a `pyvenv.cfg`: the command that makes it again at the copy.
    /// It is left as it is, never rewritten.
    pub root_virtualenv: Option<String>,
    /// Build output its tool writes again after a move (`build_output.rs`).
    pub build_output: Vec<BuildOutput>,
    /// Settings in `.git/config` that are wrong on ext4, each with whether it will be reset.
    pub git_settings: Vec<ConfigIssue>,
    /// Linked worktrees outside the folder: moved along or left attached to the old copy.
    pub worktrees: Vec<LinkedWorktree>,
    /// On WSL: the Windows tools' lines and the safe.directory offer.
    pub windows: Option<WindowsPlan>,
}

impl Repairs {
    /// What the walk's entries hold for the repairs: build output, the root's own virtualenv and
    /// those below it (one Windows Python made is left out of the copy at once). The rest is
    /// found after the copy is priced.
    pub fn in_tree(plan: &mut Plan) -> Self {
        let build_output = build_output::found_in(plan);
        let root_virtualenv = venvs::root_of(plan);
        let virtualenvs = venvs::found_in(plan);
        Self {
            virtualenvs,
            root_virtualenv,
            build_output,
            ..Self::default()
        }
    }

    /// Leaves the build output behind: its tool writes it again at the destination.
    pub fn leave_build_output(&mut self, plan: &mut Plan) {
        let left: Vec<PathBuf> = self
            .build_output
            .iter()
            .map(|o| o.path.as_path().to_path_buf())
            .collect();
        plan.leave_behind(&left);
        for output in &mut self.build_output {
            output.skipped = true;
        }
    }
}
