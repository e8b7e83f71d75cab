//! A package manager's timing on this machine as the model reads it and the cache keeps it: the
//! figures of its sample and how they were come by.

use super::managers::{Manager, UntestedVersion};
use super::sample_reasons::{NotShared, SampleFailed};
use crate::base::reason::{Keyed, Noted};
pub use crate::host::programs::WindowsProgram;
use serde::{Deserialize, Serialize};

/// What a package manager's own work was measured at on this machine: the manager installing
/// nothing, and installing a sample of the project's packages offline into a scratch folder on
/// the baseline disk.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ManagerTiming {
    pub manager: Manager,
    pub version: String,
    /// The manager's run with nothing to install: start-up, configuration, the empty tree.
    pub startup_ms: f64,
    /// The run that installed the sample.
    pub sample_ms: f64,
    pub sample_packages: u64,
    pub sample_files: u64,
    pub sample_dirs: u64,
    pub sample_bytes: u64,
    pub source: TimingSource,
    /// The CPU's pace when the figures were taken (`cpu::sha1_us_per_mib`), so that a
    /// timing cached on a busy afternoon is scaled to a quiet morning; None in older caches.
    #[serde(default)]
    pub cpu_sha1_us_per_mib: Option<f64>,
    /// Why the sample could not be installed (its figures are then `estimated`); none when it
    /// was, or was not tried. In JSON its sentence and `sample_failed_kind`. Set per run, never
    /// cached.
    #[serde(flatten, skip_deserializing, skip_serializing_if = "Noted::is_none")]
    pub sample_failed: Noted<SampleFailed>,
    /// Why no sample was tried (a manager version outside the tested range, Windows' program):
    /// its figures are then `estimated`; in JSON its sentence and `sample_skipped_kind`. Set per
    /// run, never cached.
    #[serde(flatten, skip_deserializing, skip_serializing_if = "Noted::is_none")]
    pub sample_skipped: Noted<Skipped>,
    /// What `sample_skipped` says, for a script to branch on. Set per run, never cached.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample_skipped_cause: Option<SkipCause>,
    /// The program on `PATH` was Windows' (`host::programs`): where it is, as both sides name
    /// it. Set per run, never cached.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub windows_program: Option<WindowsProgram>,
    /// Entries the project names that were not plain registry pins (paths, URLs, git,
    /// editables, options), left out of the sample.
    #[serde(default, skip_serializing_if = "crate::base::counts::is_zero_count")]
    pub sample_left_out: u64,
    /// The sample was a lock of the project's own entries, installed frozen (`npm ci`,
    /// `--frozen-lockfile`): it times what a reinstall from a lock does, with no resolving.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sample_from_lock: bool,
    /// Start-ups the project's own lifecycle scripts add to its reinstall (`prepare` and the
    /// like, which the install runs at the project's root; `packages::lifecycle_startups`), in
    /// units of `startup_ms`. Set per project, never cached.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub lifecycle_startups: f64,
    /// Start-ups, in units of `startup_ms`, that pip's build of the project installed editable
    /// from its own folder adds (`model::pip`: its backend installed into an isolated
    /// environment, its hooks): an estimate, never timed (it would run the project's build).
    /// Set per project, never cached.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub build_startups: f64,
    /// The file the sample's packages were read from (`node_modules/.package-lock.json`,
    /// `package-lock.json`, `node_modules/.pnpm/lock.yaml`, ...); None when from the installed
    /// packages' folders, a virtualenv, or not sampled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample_source: Option<String>,
    /// Packages the sample could have taken that npm's cache lacks (read from its index
    /// before npm started), left out of it.
    #[serde(default, skip_serializing_if = "crate::base::counts::is_zero_count")]
    pub sample_uncached: u64,
    /// The manager's cache holds none of the packages the sample could take (read before the
    /// manager would start, so none was started): an install downloads them first. Set per
    /// run, never cached.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sample_cache_lacks_all: bool,
    /// Why this timing stands for its own project only (`timing_cache::not_shared`: a sample
    /// too small, or one that left out git or path dependencies); None when it is kept for the
    /// machine.
    /// In JSON its sentence and `sample_not_shared_kind`; worked out again when read back.
    #[serde(flatten, skip_deserializing, skip_serializing_if = "Noted::is_none")]
    pub sample_not_shared: Noted<NotShared>,
    /// pnpm's store is on another file system than the project (`samplers::pnpm_copies`): pnpm
    /// copies every file there instead of linking it from the store. Set per project, never
    /// cached.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub copies_from_store: bool,
    /// The store pnpm reads for this project (`samplers::pnpm_store`: by pnpm's rule, from the
    /// person's `store-dir` and the project's file system), without its format folder. pnpm
    /// only; set per project, never cached.
    #[serde(default, skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub pnpm_store: Option<std::path::PathBuf>,
    /// The person's `store-dir` as pnpm answered when its sample ran, kept with the timing: a
    /// check that reads a cached timing starts no pnpm to learn it. None for the other
    /// managers, for an estimated timing and in older caches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pnpm_store_setting: Option<super::samplers::pnpm_store::StoreSetting>,
}

fn is_zero(n: &f64) -> bool {
    *n == 0.0
}

/// How a manager's figures were come by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TimingSource {
    /// By this run.
    Measured,
    /// By an earlier run on this machine, same manager version, scaled by the CPU's pace then
    /// and now.
    Cached,
    /// No sample could be installed: the manager's reference fit scaled by the CPU's pace.
    Estimated,
}

/// Why no sample was tried though one could have been.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Skipped {
    /// The manager first on `PATH` is Windows': it is never started, not even for its version.
    WindowsProgram {
        manager: Manager,
        program: WindowsProgram,
    },
    /// A version outside the range wsl-place is tested with (`managers::untested_version`).
    UntestedVersion(UntestedVersion),
}

impl Keyed for Skipped {
    const KEY: &'static str = "sample_skipped";
    const KIND_KEY: &'static str = "sample_skipped_kind";
}

/// [`Skipped`]'s cause alone, as the JSON names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SkipCause {
    WindowsProgram,
    UntestedVersion,
}

impl Skipped {
    pub fn cause(&self) -> SkipCause {
        match self {
            Skipped::WindowsProgram { .. } => SkipCause::WindowsProgram,
            Skipped::UntestedVersion(_) => SkipCause::UntestedVersion,
        }
    }

    pub fn windows_program(&self) -> Option<&WindowsProgram> {
        match self {
            Skipped::WindowsProgram { program, .. } => Some(program),
            Skipped::UntestedVersion(_) => None,
        }
    }
}
