//! `core.worktree` and `core.hooksPath` are paths git takes as written. An absolute one into the
//! old place, copied along, keeps the copy's git working there: `git status` at the copy shows
//! the old place's files (edits at the copy are invisible), the index refresh after the copy
//! reads the old place, its hooks are the old place's, and once the source is removed git fails
//! and the hooks silently stop. Each such value in the copy's own `.git/config` is pointed at
//! the same place inside the copy; one naming a place outside both is the person's setup, left
//! as it is and named in the result. The old place's configuration is never written.

use super::fixups::{Fixed, FixupAdvice, FixupReport, GitLeads, rebase};
use crate::host::git;
use std::path::{Path, PathBuf};

/// The settings git reads as a path that can name the old place.
const KEYS: [&str; 2] = ["core.worktree", "core.hooksPath"];

/// Where the work tree of a repository at the copy is, once its settings are pointed there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WorkTree {
    /// The folder holding `.git` (or inside the copy): the refresh runs there.
    AtCopy,
    /// `core.worktree` names a place outside the copy, or could not be pointed at it: nothing
    /// of git's runs there on the tool's behalf.
    Elsewhere,
}

/// Points `core.worktree` and `core.hooksPath` of `repo`'s own configuration (at the copy
/// `destination`) from the old place `source` to the copy, or names them in `report`.
pub fn repoint(
    source: &Path,
    destination: &Path,
    repo: &Path,
    automount_root: &Path,
    report: &mut FixupReport,
) -> WorkTree {
    let Some(config) = own_config(destination, repo, automount_root) else {
        return WorkTree::AtCopy;
    };
    let mut work_tree = WorkTree::AtCopy;
    for key in KEYS {
        let Some(value) = get(&config, key) else {
            continue;
        };
        let path = PathBuf::from(&value);
        if !path.is_absolute() || path.starts_with(destination) {
            continue;
        }
        let pointed = match rebase(&path, source, destination) {
            Some(new) => set(&config, key, &value, &new, report),
            None => {
                report.advice.push(FixupAdvice::GitPathOutside {
                    key,
                    value,
                    repo: repo.to_path_buf(),
                });
                false
            }
        };
        if key == "core.worktree" && !pointed {
            work_tree = WorkTree::Elsewhere;
        }
    }
    work_tree
}

/// The configuration file `repo` reads as its own (local scope: a linked worktree's is the
/// shared repository's), when it lies inside the copy: nothing outside it is written.
fn own_config(destination: &Path, repo: &Path, automount_root: &Path) -> Option<PathBuf> {
    let found = crate::measure::gitindex::discover(repo, automount_root).ok()??;
    let common = std::fs::canonicalize(&found.common_dir).ok()?;
    let inside = std::fs::canonicalize(destination).is_ok_and(|d| common.starts_with(d));
    let config = common.join("config");
    (inside && config.is_file()).then_some(config)
}

/// `git config --file <config>`, reading the file alone (no include, no other scope). No
/// repository is looked for (`GIT_DIR` names none): git stops at a `core.worktree` naming a
/// place that does not exist, in every command run in that repository, `config` included.
fn config_command(config: &Path) -> std::process::Command {
    let mut cmd = git::reading(config.parent());
    cmd.env("GIT_DIR", "/dev/null");
    cmd.arg("config").arg("--file").arg(config);
    cmd
}

/// The last value of `key` in `config` (the one git uses), if set.
fn get(config: &Path, key: &str) -> Option<String> {
    let mut cmd = config_command(config);
    cmd.args(["--get", key]);
    let out = git::run(cmd, git::QUICK_LIMIT).ok()?;
    out.status.success().then(|| {
        String::from_utf8_lossy(&out.stdout)
            .trim_end_matches(['\n', '\r'])
            .to_string()
    })
}

/// Sets `key` to `new` in `config` (every value of it, as git reads only the last): whether it
/// was set.
fn set(config: &Path, key: &'static str, old: &str, new: &Path, report: &mut FixupReport) -> bool {
    let mut cmd = config_command(config);
    cmd.args(["--replace-all", key]).arg(new);
    let done = git::run(cmd, git::QUICK_LIMIT).is_ok_and(|out| out.status.success());
    if done {
        report.done.push(Fixed::GitPathPointed {
            key,
            config: config.to_path_buf(),
            old: old.to_string(),
            new: new.to_path_buf(),
        });
    } else {
        report.advice.push(FixupAdvice::GitPathNotSet {
            key,
            config: config.to_path_buf(),
            old: old.to_string(),
            new: new.to_path_buf(),
        });
    }
    done
}

/// What of the repository `repo` at the copy `destination` leads git outside the copy, and
/// where: git writes through a linked `index` or `config` (its lock files follow links) and keeps
/// history where `commondir` says. None when its git folder and all git writes are its own.
pub fn git_dir_outside(destination: &Path, repo: &Path) -> Option<(GitLeads, PathBuf)> {
    let dot_git = repo.join(".git");
    let meta = std::fs::symlink_metadata(&dot_git).ok()?;
    let git_dir = if meta.file_type().is_symlink() {
        repo.join(std::fs::read_link(&dot_git).ok()?)
    } else if meta.is_file() {
        repo.join(crate::host::git::files::gitdir_pointer(&dot_git)?)
    } else {
        dot_git
    };
    if !crate::host::git::files::resolves_inside(&git_dir, destination) {
        return Some((GitLeads::DotGit, git_dir));
    }
    if let Some(common) = crate::host::git::files::common_dir(&git_dir)
        && !crate::host::git::files::resolves_inside(&common, destination)
    {
        return Some((GitLeads::CommonDir, common));
    }
    [(GitLeads::Index, "index"), (GitLeads::Config, "config")]
        .into_iter()
        .find_map(|(leads, name)| {
            let target = git_dir.join(std::fs::read_link(git_dir.join(name)).ok()?);
            (!crate::host::git::files::resolves_inside(&target, &git_dir))
                .then_some((leads, target))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(dir: &Path, args: &[&str]) {
        let status = crate::base::process::command("git")
            .arg("-C")
            .arg(dir)
            .args(args)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .status()
            .unwrap();
        assert!(status.success(), "git {args:?}");
    }

    #[test]
    fn values_into_the_old_place_follow_the_copy_and_others_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let (source, copy) = (root.join("old"), root.join("new"));
        std::fs::create_dir_all(&copy).unwrap();
        std::fs::create_dir_all(&source).unwrap();
        sh(&copy, &["init", "-q"]);
        let worktree = source.to_str().unwrap();
        sh(&copy, &["config", "core.worktree", worktree]);
        sh(&copy, &["config", "core.hooksPath", "/srv/hooks"]);
        let mut report = FixupReport::default();
        let at = repoint(&source, &copy, &copy, Path::new("/mnt/"), &mut report);
        assert_eq!(at, WorkTree::AtCopy);
        let config = copy.join(".git/config");
        assert_eq!(
            get(&config, "core.worktree"),
            Some(copy.display().to_string())
        );
        assert_eq!(get(&config, "core.hooksPath"), Some("/srv/hooks".into()));
        assert_eq!(report.done.len(), 1, "{report:?}");
        assert!(
            format!("{:?}", report.advice[0]).contains("/srv/hooks"),
            "{report:?}"
        );

        // A work tree outside both: left, and the refresh is not run there.
        sh(&copy, &["config", "core.worktree", "/srv/site"]);
        let mut report = FixupReport::default();
        let at = repoint(&source, &copy, &copy, Path::new("/mnt/"), &mut report);
        assert_eq!(at, WorkTree::Elsewhere);
        assert_eq!(get(&config, "core.worktree"), Some("/srv/site".into()));
    }
}
