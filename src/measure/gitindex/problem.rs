//! Why a repository's `.git` or its index could not be understood: typed, with the paths;
//! `report/text/git_problems.rs` words them.

use crate::base::reason::Keyed;
use crate::base::repo_file::Refusal;
use serde::Serialize;
use std::path::PathBuf;

/// A `.git` or git index that exists but could not be read or understood.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum GitProblem {
    /// The folder looked from has no absolute form (its current folder is gone).
    Unresolvable {
        #[serde(with = "crate::base::pathtext::json")]
        path: PathBuf,
        error: String,
    },
    /// The fenced reader refused one of git's files (a FIFO, a link, too large).
    Refused(Refusal),
    DotGitUnreadable {
        #[serde(with = "crate::base::pathtext::json")]
        dot_git: PathBuf,
    },
    /// `.git` is a file that does not start with `gitdir: <path>`.
    NotAGitdirFile {
        #[serde(with = "crate::base::pathtext::json")]
        dot_git: PathBuf,
    },
    /// `gitdir:` names a Windows path whose folder is not there under the drive's mount.
    WindowsTargetMissing {
        #[serde(with = "crate::base::pathtext::json")]
        dot_git: PathBuf,
        windows: String,
        #[serde(with = "crate::base::pathtext::json")]
        here: PathBuf,
    },
    /// `gitdir:` names a folder that is not there.
    TargetMissing {
        #[serde(with = "crate::base::pathtext::json")]
        dot_git: PathBuf,
        #[serde(with = "crate::base::pathtext::json")]
        target: PathBuf,
    },
    IndexHeader {
        #[serde(with = "crate::base::pathtext::json")]
        index: PathBuf,
        fault: HeaderFault,
    },
    /// The repository names its objects with SHA-256, which the index reader does not take.
    Sha256 {
        #[serde(with = "crate::base::pathtext::json")]
        common_dir: PathBuf,
    },
    /// gix could not decode the index: its own words.
    IndexUndecodable {
        #[serde(with = "crate::base::pathtext::json")]
        index: PathBuf,
        error: String,
    },
}

/// What is wrong with the index's 12-byte header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HeaderFault {
    Short,
    NotDirc,
    Version(u32),
}

/// A [`GitProblem`] met finding the repository: JSON `git.error`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct GitDirProblem(pub GitProblem);

impl Keyed for GitDirProblem {
    const KEY: &'static str = "error";
    const KIND_KEY: &'static str = "error_kind";
}

/// A [`GitProblem`] met reading the index: JSON `git.index_error`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct IndexProblem(pub GitProblem);

impl Keyed for IndexProblem {
    const KEY: &'static str = "index_error";
    const KIND_KEY: &'static str = "index_error_kind";
}
