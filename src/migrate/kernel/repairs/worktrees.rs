//! Linked worktrees outside the moved folder (`git worktree add ../app-feature`): offered to
//! move along, each beside the new copy, copied and verified like the repository, then both
//! ends re-linked; or left attached to the old copy, with a warning that removing it breaks them.

use super::super::engine::plan::{self, Plan, Question};
use super::super::engine::staging::Staging;
use super::fixups::{Fixed, FixupAdvice, FixupReport};
use crate::base::units;
use crate::host::git;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// A linked worktree of the repository that lies outside it.
#[derive(Debug, Clone, Serialize)]
pub struct LinkedWorktree {
    /// Where it is now.
    #[serde(with = "crate::base::pathtext::json")]
    pub path: PathBuf,
    /// Its folder under `.git/worktrees/`.
    pub name: String,
    /// Beside the repository's destination, under its own name; None when it cannot go there.
    #[serde(serialize_with = "optional_path")]
    pub destination: Option<PathBuf>,
    /// Why it cannot move along, when it cannot.
    pub why_not: Option<String>,
    pub files: u64,
    pub bytes: u64,
    /// The answer: copied along and re-linked.
    pub moved: bool,
    /// Its own plan, for the copy.
    #[serde(skip)]
    pub plan: Option<Box<Plan>>,
    /// The repository's source and destination: its command resumes this copy too.
    #[serde(skip)]
    pub repository: (PathBuf, PathBuf),
}

fn optional_path<S: serde::Serializer>(path: &Option<PathBuf>, s: S) -> Result<S::Ok, S::Error> {
    match path {
        Some(path) => crate::base::pathtext::json::serialize(path, s),
        None => s.serialize_none(),
    }
}

impl LinkedWorktree {
    /// The staging folder its copy goes through (beside its destination).
    pub fn staging(&self) -> Option<Staging> {
        let (source, destination) = &self.repository;
        Some(Staging::new(&self.path, self.destination.as_ref()?).resumed_by(source, destination))
    }
}

/// Refuses to move a linked worktree on its own: its index, HEAD and branch live in its
/// repository's record (`.git/worktrees/<name>`), which a copy would share with the original
/// (one index for two trees) or, given a record of its own, check out the same branch twice.
/// Its repository moves it along; `git worktree move` cannot cross file systems.
pub fn refuse_linked(source: &Path) -> crate::base::error::Result<()> {
    let Some(repository) = repository_of_linked(source) else {
        return Ok(());
    };
    Err(crate::base::error::Failure::input(format!(
        "{} is a linked worktree of {}, whose record holds its index and branch, so it cannot move on its own; migrate the repository (`wsl-place migrate {}`), which offers to move its linked worktrees along with it (`git worktree move` cannot cross file systems).",
        source.display(),
        repository.display(),
        crate::base::pathtext::shell_quote(&repository)
    )))
}

/// The repository whose linked worktree `dir` is (its `.git` file names a folder that has a
/// `commondir`, as only linked worktrees' records have); None for anything else, submodules
/// included.
fn repository_of_linked(dir: &Path) -> Option<PathBuf> {
    let dot_git = dir.join(".git");
    if !std::fs::symlink_metadata(&dot_git).ok()?.is_file() {
        return None;
    }
    let text = pointer_text(&dot_git)?;
    let target = text
        .strip_prefix("gitdir:")?
        .trim_start_matches(' ')
        .trim_end_matches(['\n', '\r']);
    let record = dir.join(target);
    let common = pointer_text(&record.join("commondir"))?;
    let common = std::fs::canonicalize(record.join(common.trim_end_matches(['\n', '\r']))).ok()?;
    // A non-bare repository's common folder is its `.git`: the repository is the folder above.
    match common.file_name() {
        Some(name) if name == ".git" => common.parent().map(Path::to_path_buf),
        _ => Some(common),
    }
}

/// The linked worktrees of `source` (its own `.git/worktrees/*/gitdir`) that lie outside it and
/// still exist, each with where it would go beside `destination`; nothing walked yet.
pub fn find(source: &Path, destination: &Path) -> Vec<LinkedWorktree> {
    let Ok(admins) = std::fs::read_dir(source.join(".git/worktrees")) else {
        return Vec::new();
    };
    let mut names: Vec<_> = admins.flatten().map(|e| e.path()).collect();
    names.sort();
    let mut found: Vec<LinkedWorktree> = Vec::new();
    for admin in names {
        let Some(path) = worktree_of(&admin) else {
            continue;
        };
        if path.starts_with(source) {
            // Inside the moved folder: it moves with it, and the fix-ups re-point it.
            continue;
        }
        let name = admin
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let taken: Vec<&Path> = found
            .iter()
            .filter_map(|w| w.destination.as_deref())
            .collect();
        let (target, why_not) = place(&path, destination, &taken);
        found.push(LinkedWorktree {
            path,
            name,
            destination: target,
            why_not,
            files: 0,
            bytes: 0,
            moved: false,
            plan: None,
            repository: (source.to_path_buf(), destination.to_path_buf()),
        });
    }
    found
}

/// Walks each worktree that can move along, for its plan (with the repository's, before any
/// question).
pub fn plan_each(worktrees: &mut [LinkedWorktree], progress: bool) {
    for worktree in worktrees {
        let (Some(staging), Some(destination)) = (worktree.staging(), worktree.destination.clone())
        else {
            continue;
        };
        let mut planned = plan::build(&worktree.path, &destination, staging.path(), progress);
        // As the repository's own: a virtualenv Windows Python made is not copied.
        super::venvs::found_in(&mut planned);
        worktree.files = planned.copy.totals.files;
        worktree.bytes = planned.copy.totals.bytes;
        worktree.plan = Some(Box::new(planned));
    }
}

/// The worktree folder an admin folder's `gitdir` names (it holds `<worktree>/.git`, absolute,
/// or relative to the admin folder since git 2.48), if it still exists and is that worktree:
/// its `.git` file points back at this admin folder. A stale record (the worktree deleted and
/// its folder made again, or a `gitdir` naming `/etc/.git`) names a folder that is not ours.
fn worktree_of(admin: &Path) -> Option<PathBuf> {
    let text = pointer_text(&admin.join("gitdir"))?;
    let dot_git = admin.join(text.trim_end_matches(['\n', '\r']));
    let worktree = std::fs::canonicalize(dot_git.parent()?).ok()?;
    let link = std::fs::symlink_metadata(worktree.join(".git"))
        .ok()
        .filter(|m| m.is_file())
        .and_then(|_| pointer_text(&worktree.join(".git")))?;
    let target = link
        .strip_prefix("gitdir:")?
        .trim_start_matches(' ')
        .trim_end_matches(['\n', '\r']);
    let points_at = std::fs::canonicalize(worktree.join(target)).ok()?;
    (Some(points_at) == std::fs::canonicalize(admin).ok()).then_some(worktree)
}

/// Beside `destination`, under the worktree's own folder name, unless that is taken; a staging
/// folder an interrupted run left there means it was already on its way.
fn place(path: &Path, destination: &Path, taken: &[&Path]) -> (Option<PathBuf>, Option<String>) {
    let (Some(name), Some(parent)) = (path.file_name(), destination.parent()) else {
        return (None, Some("it has no folder name to reuse".into()));
    };
    let target = parent.join(name);
    let longest = super::super::engine::destination::longest_name(&target);
    if name.len() > longest {
        return (
            None,
            Some(format!(
                "its folder name is {} bytes, and its staging folder beside the copy needs it to be at most {longest}",
                name.len()
            )),
        );
    }
    let resuming = Staging::new(path, &target).path().exists();
    if resuming {
        return (Some(target), None);
    }
    if target == destination || taken.contains(&target.as_path()) {
        return (
            None,
            Some(format!("{} is where something else goes", target.display())),
        );
    }
    if std::fs::symlink_metadata(&target).is_ok() {
        return (None, Some(format!("{} already exists", target.display())));
    }
    (Some(target), None)
}

/// The one question about them, when any can move along.
pub fn questions(worktrees: &[LinkedWorktree]) -> Vec<Question> {
    let movable: Vec<&LinkedWorktree> = worktrees.iter().filter(|w| w.plan.is_some()).collect();
    if movable.is_empty() {
        return Vec::new();
    }
    let (files, bytes) = movable
        .iter()
        .fold((0, 0), |a, w| (a.0 + w.files, a.1 + w.bytes));
    let names: Vec<String> = movable
        .iter()
        .map(|w| w.path.display().to_string())
        .collect();
    vec![Question {
        id: plan::QuestionId::Worktrees,
        text: format!(
            "Move the linked {} {} ({}, {}) along, each beside the copy, and re-link {}?",
            if movable.len() == 1 {
                "worktree"
            } else {
                "worktrees"
            },
            names.join(", "),
            units::counted(files, "file", "files"),
            units::bytes(bytes),
            if movable.len() == 1 { "it" } else { "them" },
        ),
        default: true,
        with_yes: true,
    }]
}

/// Applies the answer: every worktree that can move along does, or none.
pub fn decide(worktrees: &mut [LinkedWorktree], yes: bool) {
    for worktree in worktrees {
        worktree.moved = yes && worktree.plan.is_some();
    }
}

/// After both copies are in place: the new worktree's `.git` names the new repository, and
/// `git worktree repair` run there points the repository's record back at the new worktree.
/// Neither touches the old copies, which keep working with each other.
pub fn relink(destination: &Path, worktree: &LinkedWorktree, report: &mut FixupReport) {
    let Some(moved) = &worktree.destination else {
        return;
    };
    let admin = destination.join(".git/worktrees").join(&worktree.name);
    let link = format!("gitdir: {}\n", admin.display());
    let dot_git = moved.join(".git");
    if let Err(e) = std::fs::write(&dot_git, link) {
        report.advice.push(FixupAdvice::WorktreeNotPointed {
            dot_git,
            admin,
            destination: destination.to_path_buf(),
            moved: moved.clone(),
            error: e.to_string(),
        });
        return;
    }
    let repaired = git::defuse(destination).and_then(|defused| {
        let mut cmd = git::in_repo(destination, &defused);
        cmd.args(["worktree", "repair"]).arg(moved);
        git::run(cmd, git::QUICK_LIMIT)
            .map_err(|stop| stop.sentence("git worktree repair", destination))
    });
    match repaired {
        Ok(out) if out.status.success() => report.done.push(Fixed::WorktreeMoved {
            worktree: worktree.path.clone(),
            to: moved.clone(),
        }),
        Ok(out) => report.advice.push(FixupAdvice::WorktreeRepairFailed {
            moved: moved.clone(),
            destination: destination.to_path_buf(),
            said: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        }),
        Err(why) => report.advice.push(FixupAdvice::WorktreeRepairStopped {
            why,
            destination: destination.to_path_buf(),
            moved: moved.clone(),
        }),
    }
}

/// A worktree left where it is belongs to the old copy alone: the new copy's record of it goes,
/// or the first `git worktree repair` there (which repairs every worktree it records) would
/// re-point the old worktree at the new copy and away from the old one.
pub fn detach(destination: &Path, worktree: &LinkedWorktree, report: &mut FixupReport) {
    let record = destination.join(".git/worktrees").join(&worktree.name);
    match std::fs::remove_dir_all(&record) {
        Ok(()) => report.done.push(Fixed::WorktreeDetached {
            worktree: worktree.path.clone(),
            record,
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => report.advice.push(FixupAdvice::WorktreeRecordLeft {
            record,
            destination: destination.to_path_buf(),
            worktree: worktree.path.clone(),
            error: e.to_string(),
        }),
    }
}

/// The warning for a worktree left where it is.
pub fn left_behind(source: &Path, worktree: &LinkedWorktree) -> FixupAdvice {
    FixupAdvice::WorktreeLeftBehind {
        worktree: worktree.path.clone(),
        source: source.to_path_buf(),
        why_not: worktree.why_not.clone(),
    }
}
/// One of git's one-line pointer files (`.git`, `gitdir`, `commondir`), read as a repository's
/// own file (no FIFO, no link at its end).
fn pointer_text(path: &Path) -> Option<String> {
    let bytes =
        crate::base::repo_file::read_at(path, crate::base::repo_file::POINTER_LIMIT).ok()?;
    String::from_utf8(bytes).ok()
}
