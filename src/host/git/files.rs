//! git's own files in a repository, checked before any git or gix runs there. A repository is
//! untrusted input: git and gix open their files by path and would wait forever on a FIFO a
//! repository planted (an archive or a copy can hold one), and git writes its index and config
//! through a link (its lock file goes beside the link's target). So the files they read are
//! regular files, and the ones they write are not links out of the git folder, or the
//! repository is refused in one sentence.

use crate::base::pathtext::display;
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// The files git reads in a repository's git folder, each a regular file where it is there: git
/// opens them by path and would wait forever on a FIFO a repository planted (an archive or a
/// copy can hold one), so a repository with one is refused before any git runs there.
const GIT_OWN_FILES: [&str; 12] = [
    "HEAD",
    "config",
    "config.worktree",
    "index",
    "packed-refs",
    "commondir",
    "shallow",
    "info/exclude",
    "info/attributes",
    "info/sparse-checkout",
    "info/grafts",
    "objects/info/alternates",
];

/// Err, in one sentence, when a file git reads in `repo`'s git folder (or the common folder a
/// linked worktree's names), or the ref its `HEAD` names, is not a regular file.
pub fn plain_git_files(repo: &Path) -> Result<(), String> {
    git_folders(repo)?
        .iter()
        .try_for_each(|dir| plain_in(dir, repo))
}

/// `repo`'s git folder and, when its `commondir` names one, the common folder: where git reads
/// its files and refs. Empty when there is no git folder to check.
fn git_folders(repo: &Path) -> Result<Vec<PathBuf>, String> {
    let Some(git_dir) = git_dir_of(repo)? else {
        return Ok(Vec::new());
    };
    let common = common_dir(&git_dir);
    Ok(std::iter::once(git_dir).chain(common).collect())
}

/// The folder the git folder `git_dir`'s `commondir` names (as written, from `git_dir`); None
/// when it has none.
pub fn common_dir(git_dir: &Path) -> Option<PathBuf> {
    let limit = crate::base::repo_file::POINTER_LIMIT;
    let text = crate::base::repo_file::read_at(&git_dir.join("commondir"), limit).ok()?;
    Some(git_dir.join(String::from_utf8_lossy(&text).trim()))
}

/// The git folder `repo`'s `.git` leads to (a folder, a link to one, or a `gitdir:` file); None
/// when there is none to check.
fn git_dir_of(repo: &Path) -> Result<Option<PathBuf>, String> {
    let dot_git = repo.join(".git");
    match crate::base::repo_file::not_a_file(&dot_git) {
        Some("a folder") => return Ok(Some(dot_git)),
        Some(kind) => {
            return Err(format!(
                "{} is {kind}, not a file or folder; git is not run there",
                display(&dot_git)
            ));
        }
        None => {}
    }
    Ok(gitdir_pointer(&dot_git).map(|target| repo.join(target)))
}

/// Every loose ref of `repo` (and of the common folder a linked worktree's names) is a regular
/// file: what a command that reads all refs (`for-each-ref`, `fetch`, `rev-list --all`) needs
/// before it runs, since git would wait forever on a FIFO among them. [`plain_git_files`]
/// checks only `HEAD`'s ref, which is all `status` reads; this walk is for the operations that
/// read history, not for every check. Its callers then defuse git there, which checks the rest.
pub fn every_ref_plain(repo: &Path) -> Result<(), String> {
    for dir in git_folders(repo)? {
        for entry in walkdir::WalkDir::new(dir.join("refs")).follow_links(false) {
            let Ok(entry) = entry else { continue };
            if entry.file_type().is_dir() {
                continue;
            }
            let kind = match entry.path_is_symlink() {
                true => Some("a link"),
                false => crate::base::repo_file::not_a_file(entry.path()),
            };
            if let Some(kind) = kind {
                return Err(format!(
                    "{} is {kind}, not a file; git is not run in {}",
                    display(entry.path()),
                    display(repo)
                ));
            }
        }
    }
    Ok(())
}

/// Whether `path` is inside `place` as the disk resolves both (a link on the way followed),
/// or, where `path` is not there, as written.
pub fn resolves_inside(path: &Path, place: &Path) -> bool {
    let place = place.canonicalize().unwrap_or_else(|_| place.to_path_buf());
    match path.canonicalize() {
        Ok(real) => real.starts_with(&place),
        Err(_) => crate::base::pathtext::lexically_inside(path, &place),
    }
}

/// The folder a `.git` file names (`gitdir: <path>`, as written), read as a repository's own
/// file; None when `dot_git` is no such file.
pub fn gitdir_pointer(dot_git: &Path) -> Option<PathBuf> {
    let text =
        crate::base::repo_file::read_at(dot_git, crate::base::repo_file::POINTER_LIMIT).ok()?;
    let text = String::from_utf8_lossy(&text);
    let target = text.lines().next()?.strip_prefix("gitdir:")?.trim();
    Some(PathBuf::from(target))
}

/// The files git reads in the git folder `dir` are regular files, and so is the ref `HEAD`
/// names.
fn plain_in(dir: &Path, repo: &Path) -> Result<(), String> {
    // git writes these through a link (its lock file goes beside the link's target).
    for name in ["index", "config"] {
        let file = dir.join(name);
        if let Ok(target) = std::fs::read_link(&file) {
            let target = dir.join(target);
            if !resolves_inside(&target, dir) {
                return Err(format!(
                    "{} is a link to {}, outside the repository's git folder; git is not run in {}, since it would write there",
                    display(&file),
                    display(&target),
                    display(repo)
                ));
            }
        }
    }
    for name in GIT_OWN_FILES {
        let file = dir.join(name);
        if let Some(kind) = crate::base::repo_file::not_a_file(&file) {
            return Err(format!(
                "{} is {kind}, not a file; git is not run in {}",
                display(&file),
                display(repo)
            ));
        }
    }
    // After the loop: `config` is then known to be a file (or absent), read without a warning.
    plain_includes(dir, repo)?;
    plain_refs(dir, repo)
}

/// Each file the git folder `dir`'s config includes (`include.path`, `includeIf.*.path`) is a
/// regular file where it is there: git reads it at every start, and a FIFO named there would
/// hold every git run to its time limit. Relative paths are the config's folder's, `~/` HOME's,
/// as git takes them.
fn plain_includes(dir: &Path, repo: &Path) -> Result<(), String> {
    let limit = crate::base::repo_file::MANIFEST_LIMIT;
    let Ok(text) = crate::base::repo_file::read_at(&dir.join("config"), limit) else {
        return Ok(());
    };
    let Ok(config) = gix::config::File::from_str(&String::from_utf8_lossy(&text)) else {
        return Ok(());
    };
    let home = crate::host::HostEnv::from_process().home();
    let included = ["include", "includeIf"]
        .into_iter()
        .filter_map(|name| config.sections_by_name(name))
        .flatten()
        .flat_map(|section| section.values("path"));
    for path in included {
        let path = String::from_utf8_lossy(&path).into_owned();
        let Some(file) = crate::base::pathtext::expand_home(&path, home.as_deref()) else {
            continue;
        };
        let file = dir.join(file);
        if let Some(kind) = crate::base::repo_file::not_a_file(&file) {
            return Err(format!(
                "{} includes {}, which is {kind}, not a file; git is not run in {}",
                display(&dir.join("config")),
                display(&file),
                display(repo)
            ));
        }
    }
    Ok(())
}

/// What `HEAD` in the git folder `dir` names, read through the fenced reader.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Head {
    /// A branch: its ref's name (`refs/heads/main`), one that stays inside a git folder.
    Branch(String),
    /// A commit itself (a detached `HEAD`).
    Detached,
}

/// [`Head`] of the git folder `dir`; None when `HEAD` cannot be read or names a ref that would
/// lead out of the folder.
pub fn head(dir: &Path) -> Option<Head> {
    let text =
        crate::base::repo_file::read_at(&dir.join("HEAD"), crate::base::repo_file::POINTER_LIMIT)
            .ok()?;
    let text = String::from_utf8_lossy(&text);
    let Some(name) = text.trim().strip_prefix("ref:").map(str::trim) else {
        return (!text.trim().is_empty()).then_some(Head::Detached);
    };
    crate::base::pathtext::lexically_inside(&dir.join(name), dir)
        .then(|| Head::Branch(name.to_string()))
}

/// The loose ref `HEAD` names in `dir` is a regular file where it is there: git and gix read it
/// first. (The other refs are not walked: on a slow mount a walk of `refs/` costs every
/// `survey` a folder opened per namespace.)
fn plain_refs(dir: &Path, repo: &Path) -> Result<(), String> {
    let Some(Head::Branch(name)) = head(dir) else {
        return Ok(());
    };
    let file = dir.join(name);
    match crate::base::repo_file::not_a_file(&file) {
        Some(kind) => Err(format!(
            "{} is {kind}, not a file; git is not run in {}",
            display(&file),
            display(repo)
        )),
        None => Ok(()),
    }
}
