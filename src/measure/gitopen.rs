//! One opening of each repository per run. gix reads the repository's configuration files and
//! lists its object store when it opens it: a dozen or more calls, each a round trip on a slow
//! mount, and `check` needs the repository twice, for git's settings and for its exclude rules.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

/// The repository whose worktree is `root`, opened once per run and shared between threads;
/// None when it cannot be opened (that answer is kept too).
pub fn open(root: &Path) -> Option<gix::Repository> {
    static OPENED: Mutex<BTreeMap<PathBuf, Option<gix::ThreadSafeRepository>>> =
        Mutex::new(BTreeMap::new());
    let mut opened = OPENED.lock().unwrap_or_else(PoisonError::into_inner);
    opened
        .entry(root.to_path_buf())
        .or_insert_with(|| gix::open(root).ok().map(gix::Repository::into_sync))
        .as_ref()
        .map(gix::ThreadSafeRepository::to_thread_local)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git_init(dir: &Path) {
        let ok = std::process::Command::new("git")
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
    }
}
