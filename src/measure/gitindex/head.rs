//! Whether `HEAD` names a commit. A repository with none yet (`git init`, files perhaps staged)
//! costs `git status` about half the calls of one with history: no ref to resolve through
//! packed-refs, no commit or tree to read (`model::GIT_STATUS_FIXED_CALLS_UNBORN`).

use super::Repo;
use crate::base::repo_file;
use crate::host::git::files::{Head, head};
use std::path::Path;

/// The most of `packed-refs` read: past this it is a repository with history, which is all the
/// answer needs.
const PACKED_REFS_LIMIT: u64 = 64 << 20;

/// Some(false) when `HEAD` names a branch that has no commit yet; Some(true) when it names a
/// commit (detached) or a branch that exists; None when it cannot be told (no readable `HEAD`,
/// refs kept in a reftable).
pub fn born(repo: &Repo) -> Option<bool> {
    if repo.common_dir.join("reftable").is_dir() {
        return None;
    }
    match head(&repo.git_dir)? {
        Head::Detached => Some(true),
        Head::Branch(branch) => {
            Some(loose_ref_exists(&repo.common_dir, &branch) || packed(&repo.common_dir, &branch))
        }
    }
}

fn loose_ref_exists(common_dir: &Path, branch: &str) -> bool {
    repo_file::read_at(&common_dir.join(branch), repo_file::POINTER_LIMIT)
        .is_ok_and(|id| !id.is_empty())
}

fn packed(common_dir: &Path, branch: &str) -> bool {
    let Ok(text) = repo_file::read_at(&common_dir.join("packed-refs"), PACKED_REFS_LIMIT) else {
        return false;
    };
    String::from_utf8_lossy(&text)
        .lines()
        .any(|line| line.split_once(' ').is_some_and(|(_, name)| name == branch))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo(dir: &Path) -> Repo {
        Repo {
            kind: super::super::RepoKind::Repository,
            worktree: dir.to_path_buf(),
            git_dir: dir.join(".git"),
            common_dir: dir.join(".git"),
            prefix: Default::default(),
        }
    }

    #[test]
    fn a_branch_without_a_commit_is_unborn_and_one_in_packed_refs_is_born() {
        let dir = tempfile::tempdir().unwrap();
        let git = dir.path().join(".git");
        std::fs::create_dir_all(git.join("refs/heads")).unwrap();
        std::fs::write(git.join("HEAD"), "ref: refs/heads/main\n").unwrap();
        assert_eq!(born(&repo(dir.path())), Some(false));
        std::fs::write(
            git.join("packed-refs"),
            "# pack-refs with: peeled fully-peeled sorted\n0123 refs/heads/main\n",
        )
        .unwrap();
        assert_eq!(born(&repo(dir.path())), Some(true));
        std::fs::remove_file(git.join("packed-refs")).unwrap();
        std::fs::write(git.join("refs/heads/main"), "0123\n").unwrap();
        assert_eq!(born(&repo(dir.path())), Some(true));
        std::fs::write(git.join("HEAD"), "0123456789abcdef\n").unwrap();
        assert_eq!(born(&repo(dir.path())), Some(true));
        // A ref that would lead out of the git folder is not followed.
        std::fs::write(git.join("HEAD"), "ref: ../../outside\n").unwrap();
        assert_eq!(born(&repo(dir.path())), None);
    }
}
