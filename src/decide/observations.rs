//! What the decision layer looks at: measurements and settings gathered by `check`, as plain
//! values, so the policy and the advice are both pure functions of them.

use crate::host::mounts::MountKind;
use crate::measure::gitsettings::GitSettings;
use crate::model::Compared;
use std::path::PathBuf;

/// What is around the repository: the WSL generation, git's release, the tools that use it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Context {
    pub wsl_version: Option<u8>,
    pub distro: Option<String>,
    pub git_version: Option<crate::host::git::version::GitVersion>,
    pub usage: crate::measure::usage::Usage,
    /// Outside any repository: how many repositories the folder holds (for `survey`).
    pub repositories_below: Option<usize>,
    /// The search for them stopped at its budget: there may be more.
    pub repositories_below_partial: bool,
    /// The virtualenvs and Cargo `target/` folders the scan found in the repository: path
    /// (relative to it), kind and files.
    pub build_trees: Vec<(PathBuf, crate::measure::scan::DependencyKind, u64)>,
    /// A first migration of this repository to this folder began and did not finish: moving
    /// means resuming it there.
    pub unfinished_move_to: Option<PathBuf>,
}

/// Everything the policy looks at, as plain values.
#[derive(Debug, Clone, PartialEq)]
pub struct Observations {
    pub path: PathBuf,
    pub home: Option<PathBuf>,
    pub mount_kind: MountKind,
    pub wsl: bool,
    /// The predictions, present only when they have a baseline figure to compare with.
    pub git_status_ms: Option<Compared>,
    pub install_ms: Option<Compared>,
    /// Tracked entries, when this is a git repository.
    pub tracked: Option<u64>,
    pub dirs: u64,
    pub git: Option<GitSettings>,
    /// Why the baseline could not be used, when it could not.
    pub baseline_problem: Option<crate::measure::probe::NoBaseline>,
    pub context: Context,
}
