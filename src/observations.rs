//! What the decision layer looks at: measurements and settings gathered by `check`, as plain
//! values, so the policy and the advice are both pure functions of them.

use crate::gitsettings::GitSettings;
use crate::mounts::MountKind;
use serde::Serialize;
use std::path::PathBuf;

/// A predicted duration here and on the baseline, with how far each figure may be off.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Pair {
    pub current: f64,
    pub baseline: f64,
    /// Half-width of the range of `current`, as a fraction of it (0: exact).
    pub error: f64,
    /// Half-width of the range of the speedup, as a fraction of it.
    pub speedup_error: f64,
}

impl Pair {
    pub fn speedup(&self) -> f64 {
        if self.baseline > 0.0 {
            self.current / self.baseline
        } else {
            f64::INFINITY
        }
    }
}

/// What is around the repository: the WSL generation, git's release, the tools that use it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Context {
    pub wsl_version: Option<u8>,
    pub distro: Option<String>,
    pub git_version: Option<crate::host::GitVersion>,
    pub usage: crate::usage::Usage,
    /// Outside any repository: how many repositories the folder holds (for `survey`).
    pub repositories_below: Option<usize>,
}

/// Everything the policy looks at, as plain values.
#[derive(Debug, Clone, PartialEq)]
pub struct Observations {
    pub path: PathBuf,
    pub home: Option<PathBuf>,
    pub mount_kind: MountKind,
    pub wsl: bool,
    pub git_status_ms: Option<Pair>,
    pub install_ms: Option<Pair>,
    /// Tracked entries, when this is a git repository.
    pub tracked: Option<u64>,
    pub dirs: u64,
    pub git: Option<GitSettings>,
    /// Why the baseline could not be used, when it could not.
    pub baseline_problem: Option<String>,
    pub context: Context,
}
