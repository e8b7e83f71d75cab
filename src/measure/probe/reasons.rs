//! Why a probe measured nothing, and why `check` has no Linux-disk side to compare with (or has
//! this same disk): typed, with the folder and mount they concern; `report/text/probe_reasons.rs`
//! words them.

use crate::base::reason::Keyed;
use crate::host::mounts::MountKind;
use serde::Serialize;
use std::path::PathBuf;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum NoBaseline {
    /// `$HOME` is not set.
    HomeUnset,
    /// `$HOME` names no folder the probe can use.
    HomeUnusable {
        #[serde(with = "crate::base::pathtext::json")]
        home: PathBuf,
        problem: FolderProblem,
    },
    /// No mount in the table contains the folder: the table looks incomplete.
    NoMount {
        #[serde(with = "crate::base::pathtext::json")]
        folder: PathBuf,
    },
    /// `$HOME` is on `/proc`, `/sys` or the like: no disk under it.
    KernelFileSystem {
        #[serde(with = "crate::base::pathtext::json")]
        folder: PathBuf,
        fstype: String,
    },
    /// The baseline is on the repository's own mount: nothing faster to move to.
    SameMount {
        #[serde(with = "crate::base::pathtext::json")]
        folder: PathBuf,
        #[serde(with = "crate::base::pathtext::json")]
        mount_point: PathBuf,
        fstype: String,
    },
    /// The baseline is on tmpfs: memory would flatter the move.
    Memory {
        #[serde(with = "crate::base::pathtext::json")]
        folder: PathBuf,
    },
    /// The baseline is on a mount that is no local disk.
    NotLocalDisk {
        #[serde(with = "crate::base::pathtext::json")]
        folder: PathBuf,
        mount_kind: MountKind,
        fstype: String,
    },
    /// Ctrl-C came before the baseline was probed.
    Interrupted,
    /// No baseline was probed and nothing said why.
    NotProbed,
}

impl Keyed for NoBaseline {
    const KEY: &'static str = "baseline_note";
    const KIND_KEY: &'static str = "baseline_note_kind";
}

/// Why a folder cannot hold the baseline's probe.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FolderProblem {
    Missing,
    /// It could not be resolved; `error` is the system's own words.
    Unresolvable {
        error: String,
    },
    NotAFolder,
    /// It could not be listed; `error` is the system's own words.
    Unreadable {
        error: String,
    },
}

/// Why a probe measured nothing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ProbeSkipped {
    /// No scratch folder could be made in `dir`; `error` is the system's own words.
    NoScratch {
        #[serde(with = "crate::base::pathtext::json")]
        dir: PathBuf,
        error: String,
    },
    /// Ctrl-C.
    Interrupted,
    /// An I/O error stopped it; whether its scratch folder is gone already.
    IoError {
        #[serde(with = "crate::base::pathtext::json")]
        dir: PathBuf,
        error: String,
        scratch_removed: bool,
    },
}

impl Keyed for ProbeSkipped {
    const KEY: &'static str = "skipped";
    const KIND_KEY: &'static str = "skipped_kind";
}
