//! Why a `.git`, its index or the scanned folder could not be read, in words.

use crate::base::reason::Worded;
use crate::measure::gitindex::{GitDirProblem, GitProblem, HeaderFault, IndexProblem};
use crate::measure::scan::RootUnlisted;

impl Worded for GitProblem {
    fn sentence(&self) -> String {
        match self {
            GitProblem::Unresolvable { path, error } => {
                format!("cannot resolve {}: {error}", path.display())
            }
            GitProblem::Refused(refusal) => refusal.sentence(),
            GitProblem::DotGitUnreadable { dot_git } => {
                format!("cannot read {}", dot_git.display())
            }
            GitProblem::NotAGitdirFile { dot_git } => format!(
                "{} is a file but does not start with `gitdir: <path>`",
                dot_git.display()
            ),
            GitProblem::WindowsTargetMissing {
                dot_git,
                windows,
                here,
            } => format!(
                "{} points to the Windows path {windows}, which is {} here and not a directory: mount that drive (or set [automount] root in /etc/wsl.conf), or run `git worktree repair` in the main repository if it moved",
                dot_git.display(),
                here.display()
            ),
            GitProblem::TargetMissing { dot_git, target } => format!(
                "{} points to {}, which is not a directory (a moved or deleted repository?)",
                dot_git.display(),
                target.display()
            ),
            GitProblem::IndexHeader { index, fault } => {
                let what = match fault {
                    HeaderFault::Short => "is shorter than its 12-byte header".to_string(),
                    HeaderFault::NotDirc => "does not start with DIRC".to_string(),
                    HeaderFault::Version(v) => format!("has version {v}; only 2, 3 and 4 exist"),
                };
                format!("the git index {} {what}", index.display())
            }
            GitProblem::Sha256 { common_dir } => format!(
                "{} uses SHA-256 object names, which wsl-place cannot read yet",
                common_dir.display()
            ),
            GitProblem::IndexUndecodable { index, error } => {
                format!("cannot decode the git index {}: {error}", index.display())
            }
        }
    }
}

impl Worded for GitDirProblem {
    fn sentence(&self) -> String {
        self.0.sentence()
    }
}

impl Worded for IndexProblem {
    fn sentence(&self) -> String {
        self.0.sentence()
    }
}

impl Worded for RootUnlisted {
    fn sentence(&self) -> String {
        format!("cannot list {}: {}", self.root.display(), self.error)
    }
}
