//! What the tool needs to know of a package manager, one trait that each manager's file
//! implements: where its lock is, how a sample of the project's packages installs offline, the
//! versions that sample is tested with, and the model's pricing inputs for it.

use super::lock::{Leaf, Lock};

/// The language a manager installs for: what its pins look like, how large a sample is and
/// where its packages land.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ecosystem {
    Node,
    Python,
    Rust,
}

/// How a manager's own work and its file calls share the wall clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Waits {
    /// npm, pnpm, yarn, bun, uv: worker threads make the file calls while the manager goes on,
    /// so it waits for `INSTALL_FS_SHARE` of them and part of the shorter side overlaps.
    Overlapped,
    /// pip: one thread extracts, compiles and writes in turn, so it waits for every call and
    /// nothing overlaps.
    Serial,
}

/// A manager's own work at the model's reference pace, for a machine or project where it could
/// not be timed (`model::manager_fits`, where the fits are explained).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReferenceFit {
    pub startup_ms: f64,
    /// Per package-sized unit of work (`FILES_PER_PACKAGE_WORK` files).
    pub per_unit_ms: f64,
}

/// One package manager. Adding one is a file implementing this and its line in `managers::of`.
pub trait PackageManager: Sync {
    /// What a person installs to have this manager on Linux.
    fn runtime(&self) -> &'static str;

    fn ecosystem(&self) -> Ecosystem;

    /// The lock files at a project's top that name this manager, tried before any other sign;
    /// the first is the one a sample's lock is written as, beside its package.json.
    fn lock_files(&self) -> &'static [&'static str] {
        &[]
    }

    /// The major versions whose sample install `.ci/run` tests (pinned there, one per major): a
    /// sample is taken only with these, since flags, lock formats and store layouts change
    /// between majors. None: sampled whatever the version, or never sampled.
    fn tested_majors(&self) -> Option<(u32, u32)> {
        None
    }

    /// The files a sample's lock is read from, in order (pnpm: what it placed, then its lock).
    fn sample_lock_sources(&self) -> &'static [&'static str] {
        &[]
    }

    /// `text`, read from `source`, reduced to its leaf packages; None for a format not read
    /// here.
    fn read_lock(&self, _text: &str, _source: &str) -> Option<Lock> {
        None
    }

    /// The lock installing the `chosen` leaves of `lock`; None when there should be none.
    fn write_lock(&self, _lock: &Lock, _chosen: &[(&String, &Leaf)]) -> Option<String> {
        None
    }

    /// The arguments that install a sample's lock offline, from the cache alone, without
    /// scripts and without changing the lock.
    fn lock_install_args(&self) -> Option<&'static [&'static str]> {
        None
    }

    /// The arguments that install a sample's package.json offline without scripts and without
    /// writing a lock, where there is no lock to install from.
    fn manifest_install_args(&self) -> Option<&'static [&'static str]> {
        None
    }

    /// Whether `check` times its installs on a sample of the project's packages (poetry and
    /// cargo are never timed).
    fn sampled(&self) -> bool {
        true
    }

    fn reference_fit(&self) -> Option<ReferenceFit> {
        None
    }

    fn waits(&self) -> Waits {
        Waits::Overlapped
    }

    /// Whether it hard-links each file from its cache where the cache shares the disk, and
    /// copies it elsewhere.
    fn links_from_cache(&self) -> bool {
        false
    }
}
