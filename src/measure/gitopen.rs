//! One opening of each repository per run. gix reads the repository's configuration files and
//! lists its object store when it opens it: a dozen or more calls, each a round trip on a slow
//! mount, and `check` needs the repository twice, for git's settings and for its exclude rules.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

/// A repository's opening, made once by whichever thread asks first.
type Opening = Arc<OnceLock<Option<gix::ThreadSafeRepository>>>;

/// Repositories kept open: the most recent ones, enough for those `survey` prices at once, so
/// that a survey of hundreds does not keep every object store (its open files and maps) to the
/// end of the run.
const KEPT: usize = 16;

/// The repository whose worktree is `root`, opened once and shared between threads while it is
/// among the `KEPT` most recent; None when it cannot be opened (that answer is kept too). Only
/// callers for the same repository wait for each other's opening.
pub fn open(root: &Path) -> Option<gix::Repository> {
    static OPENINGS: Mutex<VecDeque<(PathBuf, Opening)>> = Mutex::new(VecDeque::new());
    let opening = {
        let mut kept = OPENINGS.lock().unwrap_or_else(PoisonError::into_inner);
        match kept.iter().find(|(path, _)| path == root) {
            Some((_, opening)) => Arc::clone(opening),
            None => {
                if kept.len() == KEPT {
                    kept.pop_front();
                }
                let opening = Opening::default();
                kept.push_back((root.to_path_buf(), Arc::clone(&opening)));
                opening
            }
        }
    };
    opening
        .get_or_init(|| {
            // gix opens git's own files by path, and would wait forever on a FIFO there.
            if let Err(sentence) = crate::host::git::files::plain_git_files(root) {
                crate::base::repo_file::warn_once(&sentence);
                return None;
            }
            // An `include` the repository's config names can be a FIFO anywhere; the files it
            // names are read by git's own runs (each stopped at its limit), not here.
            let mut permissions = gix::open::Permissions::default();
            permissions.config.includes = false;
            let options = gix::open::Options::default().permissions(permissions);
            gix::open_opts(root, options)
                .ok()
                .map(gix::Repository::into_sync)
        })
        .as_ref()
        .map(gix::ThreadSafeRepository::to_thread_local)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git_init(dir: &Path) {
        let ok = crate::base::process::command("git")
            .args(["init", "-q"])
            .arg(dir)
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "git init {}", dir.display());
    }

    #[test]
    fn the_first_answer_for_a_folder_stands_for_the_run() {
        let plain = tempfile::tempdir().expect("temp dir");
        assert!(open(plain.path()).is_none());
        git_init(plain.path());
        assert!(open(plain.path()).is_none());
        let repo = tempfile::tempdir().expect("temp dir");
        git_init(repo.path());
        let first = open(repo.path()).expect("opened");
        std::fs::write(repo.path().join(".git/config"), "not a config [").expect("config");
        // Opened again from the kept handle, not from the file now broken.
        let again = open(repo.path()).expect("kept");
        assert_eq!(first.git_dir(), again.git_dir());
        // Once `KEPT` others were opened after it, it is opened afresh: the broken config.
        let others: Vec<_> = (0..KEPT)
            .map(|_| tempfile::tempdir().expect("temp dir"))
            .collect();
        for other in &others {
            assert!(open(other.path()).is_none());
        }
        assert!(open(repo.path()).is_none());
    }
}
