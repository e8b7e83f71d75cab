//! Why a package manager's sample was not installed or not timed, and why a timing stands for
//! its own project only: typed, with their data; `report/text/sample_reasons.rs` words them.

use super::managers::Manager;
use crate::base::reason::Keyed;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Why a sample install failed (its figures are then the reference fit's). Kept a day in the
/// project's note, so it also deserializes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SampleFailed {
    /// The manager failed, and these are the first lines of what it said, its own words.
    Said {
        program: String,
        words: String,
    },
    /// It failed without a word: how it exited.
    Exited {
        program: String,
        status: String,
    },
    DidNotStart {
        program: String,
        error: String,
    },
    StoppedAtLimit {
        program: String,
        limit_secs: u64,
    },
    Interrupted {
        program: String,
    },
    /// The manager's cache holds none of the packages the sample could take: the manager was
    /// not started, since it would fail offline.
    CacheLacksAll {
        manager: Manager,
        packages: u64,
        #[serde(with = "crate::base::pathtext::json")]
        cache: PathBuf,
    },
    /// The project names no plain registry package to sample.
    NothingToSample,
    /// There is no way to install a sample with this manager.
    NoSampleInstall {
        manager: Manager,
    },
    NoScratchFolder,
    ScratchNotMade {
        #[serde(with = "crate::base::pathtext::json")]
        dir: PathBuf,
        error: String,
    },
    /// A file of the scratch project could not be written or removed.
    ScratchFile {
        step: FileStep,
        file: String,
        error: String,
    },
    ScratchNotSetUp,
    /// uv or pip could not install the sample from what it holds (it said nothing kept).
    NotInstalledOffline,
    PlacedNothing,
    /// A package of the sample ships the installer's own package: never run.
    ShipsInstaller {
        name: String,
    },
    /// A package of the sample ships a script named after the interpreter or its installer.
    ShipsScript {
        name: String,
    },
}

/// What was being done to a scratch file that failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FileStep {
    Write,
    Remove,
}

impl Keyed for SampleFailed {
    const KEY: &'static str = "sample_failed";
    const KIND_KEY: &'static str = "sample_failed_kind";
}

/// Why a measured timing prices its own project only, not every project on this machine.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum NotShared {
    /// Fewer packages or files than a timing that stands for others needs.
    TooSmall {
        packages: u64,
        files: u64,
        min_packages: u64,
        min_files: u64,
    },
    /// The sample left out git, path, URL or alias entries.
    LeftOut { entries: u64 },
}

impl Keyed for NotShared {
    const KEY: &'static str = "sample_not_shared";
    const KIND_KEY: &'static str = "sample_not_shared_kind";
}
