//! The cost model: pure functions from what the scan counted and what the probe measured to
//! what a person will wait for. No I/O here, so every figure can be checked on fixed inputs.
//!
//! Assumptions (also in docs/probe.md):
//! - `git status` is start-up, set-up (config, refs, object store: about one more start-up of
//!   CPU), a fixed number of metadata calls in `.git`, taking and dropping `.git/index.lock`
//!   (a create and an unlink), reading the index,
//!   one `lstat` per index entry (spread over git's preload threads: one per 500 entries,
//!   2 to 20, serial below 1,000 entries), one directory listing per worktree directory (plus
//!   a `.gitignore` lookup there; the untracked cache is off by default) and per-entry CPU.
//! - Dependency trees are ignored by `.gitignore`, so `git status` does not walk them.
//! - The first `git status` after a copy `lstat`s, re-reads and hashes every tracked file,
//!   serially, because inode and ctime no longer match the index.
//! - An install or checkout is its file-system floor: create+write per file, mkdir per
//!   directory, bandwidth for the bytes beyond 4 KiB per file; network and scripts are not in it.
//!
//! One file per concern: `costs` (a mount's costs per call), `figures` (the repository and its
//! dependency trees), `git_status` (git status and checkout), `install` (a dependency
//! reinstall; `pnpm`, pnpm's), `manager_fits` (the package managers' own work where it was not timed),
//! `uncertainty` (ranges and speedups), `prediction` (all of them on both mounts) and
//! `migration` (how long `migrate` takes). Callers use the re-exports below.

pub mod accuracy;
mod costs;
mod figures;
mod git_status;
mod install;
mod manager_fits;
pub mod migration;
mod pip;
mod pnpm;
mod prediction;
mod uncertainty;

pub use costs::MountCosts;
pub use figures::{
    CacheLinks, FILES_PER_PACKAGE, InstallFigures, InstallSource, LockCount, PNPM_DIRS_PER_PACKAGE,
    PNPM_FILES_PER_PACKAGE, PY_TREE_DEPTH, RepoFigures, lock_packages, python_install, rust_target,
};
pub use git_status::{
    GIT_STARTUP_MS, READ_HASH_BYTES_PER_US, git_status_fsmonitor_ms, git_status_pilot_ms,
};
pub use manager_fits::estimated;
pub use pip::{
    PIP_DISTRIBUTIONS_PER_NAMED, PIP_EDITABLE_BUILD_STARTUPS, PIP_FILES_PER_DISTRIBUTION,
    PipEstimate, pip_estimate,
};
pub use prediction::{Prediction, predict};
pub use uncertainty::{Compared, FIRST_STATUS_FIT_ERROR, Figure, Range};

#[cfg(test)]
mod fixtures;
