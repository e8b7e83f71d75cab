//! A repository's `.git` at the old place is removed or kept whole, never file by file: its
//! files change with every `git status` or commit there, and the copy's `.git` goes its own way
//! (a sync brings history through git), so comparing them file by file keeps a skeleton that git
//! no longer reads as a repository. It goes when git shows its history is in the copy: every ref
//! and HEAD at the old place, and every change staged there, names an object the copy holds with
//! all it reaches (`git rev-list --objects` in the copy, as git's own connectivity check runs),
//! and no linked worktree outside the source still uses it. Every git run goes through the
//! defused builder; nothing at the old place is written (optional locks off).

use crate::base::pathtext::{display, shell_quote};
use crate::migrate::kernel::history;
use crate::migrate::kernel::repairs::alternates;
use std::path::Path;

/// Why the `.git` of the repository at `old` (inside `source`) must stay whole, or None when
/// its history is all in the copy's repository at `copy`. `sync` is the command that brings
/// the old place's branches and tags over.
pub fn kept_why(source: &Path, old: &Path, copy: &Path, sync: &str) -> Option<String> {
    if let Some(worktree) = outside_worktree(source, &old.join(".git")) {
        return Some(format!(
            "the linked worktree {} still uses it",
            display(&worktree)
        ));
    }
    if alternates::borrows_from(&copy.join(".git"), source) {
        return Some(
            "the copy still borrows git objects from it (objects/info/alternates), so the copy's history is not all in the copy".to_string(),
        );
    }
    if let Some(why) = history::not_its_own(copy) {
        return Some(format!(
            "{why}, so the copy's history is not all in the copy"
        ));
    }
    if crate::base::dirfd::lstat(&old.join(".git").join("index.lock")).is_ok() {
        return Some(
            "its index.lock is there: a git runs there, or one that crashed left it; remove the lock once none runs, then --remove-source again".to_string(),
        );
    }
    let named = match history::named_at(old, "the old place") {
        Ok(named) => named,
        Err(why) => {
            return Some(format!(
                "git could not tell what its history holds ({why}), so it is not proven in the copy"
            ));
        }
    };
    match history::missing_at(copy, &named) {
        Ok(None) => None,
        Ok(Some(by)) => Some(format!(
            "{by} names a commit the copy does not have; `{sync}` brings branches and tags over, then --remove-source again"
        )),
        Err(why) => Some(format!(
            "git could not check the copy's history ({why}), so it is not proven there"
        )),
    }
}

/// A linked worktree outside `source` whose record is in `git_dir`: removing `.git` would leave
/// it pointing nowhere.
fn outside_worktree(source: &Path, git_dir: &Path) -> Option<std::path::PathBuf> {
    let records = std::fs::read_dir(git_dir.join("worktrees")).ok()?;
    records.filter_map(|r| r.ok()).find_map(|record| {
        let limit = crate::base::repo_file::POINTER_LIMIT;
        let text = crate::base::repo_file::read_at(&record.path().join("gitdir"), limit).ok()?;
        let text = String::from_utf8_lossy(&text);
        let dot_git = Path::new(text.trim_end_matches(['\n', '\r']));
        let dot_git = match dot_git.is_absolute() {
            true => dot_git.to_path_buf(),
            false => record.path().join(dot_git),
        };
        let worktree = dot_git.parent()?.to_path_buf();
        (!worktree.starts_with(source) && dot_git.exists()).then_some(worktree)
    })
}

/// The command that removes what is left of the source folder, once it is no repository.
pub fn remove_command(source: &Path) -> String {
    format!("rm -r -- {}", shell_quote(source))
}
