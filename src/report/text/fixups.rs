//! What the fix-ups after a move did and left to do, in the words every format uses; JSON
//! writes the same text beside the typed fix-ups (`FixupReport`'s `Serialize` is here, so the
//! wording has one home).

use crate::base::pathtext::{display, shell_quote};
use crate::base::reason::Worded;
use crate::base::units::{count, counted};
use crate::migrate::{Fixed, FixupAdvice, FixupReport, GitLeads};
use std::fmt;
use std::path::Path;

/// What the first `git status` after a failed refresh does.
const REHASH: &str = "the first `git status` there will re-hash every file";

/// Each fix-up as its sentence under the key it always had, and typed, for scripts, under
/// `<key>_kind`.
impl serde::Serialize for FixupReport {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        fn words<T: fmt::Display>(items: &[T]) -> Vec<String> {
            items.iter().map(ToString::to_string).collect()
        }
        let mut map = serializer.serialize_map(Some(4))?;
        map.serialize_entry("done", &words(&self.done))?;
        map.serialize_entry("done_kind", &self.done)?;
        map.serialize_entry("advice", &words(&self.advice))?;
        map.serialize_entry("advice_kind", &self.advice)?;
        map.end()
    }
}

impl fmt::Display for Fixed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fixed::LinkPointed { file } => {
                write!(f, "pointed {} at the new location", file.display())
            }
            Fixed::ModesFromIndex { repo, files } => write!(
                f,
                "set the executable bit of {files} tracked files in {} from the git index",
                repo.display()
            ),
            Fixed::ConfigSet { issue, value } => write!(
                f,
                "set {} = {value} in {} (was {})",
                issue.key,
                issue.repo.display(),
                issue.value
            ),
            Fixed::ObjectsMadeOwn { repo, borrowed, ms } => {
                f.write_str(&objects_made_own(repo, borrowed, *ms))
            }
            Fixed::IndexRefreshed { repo } => {
                write!(f, "refreshed the git index in {}", repo.display())
            }
            Fixed::GitPathPointed {
                key,
                config,
                old,
                new,
            } => write!(
                f,
                "pointed {key} in {} at the copy: {} (was {old}, inside the old place)",
                display(config),
                display(new)
            ),
            Fixed::WorktreeMoved { worktree, to } => write!(
                f,
                "moved the linked worktree {} to {} (verified by CRC32) and re-linked both ends (`git worktree repair`)",
                worktree.display(),
                to.display()
            ),
            Fixed::WorktreeDetached { worktree, record } => write!(
                f,
                "removed the new copy's record of the linked worktree {} ({}), which stays with the old copy",
                worktree.display(),
                record.display()
            ),
            Fixed::VirtualenvPointed {
                venv,
                files,
                ms,
                tracked,
            } => virtualenv_pointed(f, venv, *files, *ms, *tracked),
        }
    }
}

/// A virtualenv rewritten to name the copy, and the files git tracks there left alone.
fn virtualenv_pointed(
    f: &mut fmt::Formatter<'_>,
    venv: &str,
    files: u64,
    ms: u128,
    tracked: u64,
) -> fmt::Result {
    let kept = if tracked > 0 {
        format!(
            "; {} git tracks left as they are",
            counted(tracked, "file", "files")
        )
    } else {
        String::new()
    };
    write!(
        f,
        "pointed the virtualenv {venv} at the new location: the old path rewritten in {} ({ms} ms){kept}",
        counted(files, "file", "files"),
    )
}

/// The copy's repository `repo` packed the objects it borrowed from the old place's stores.
fn objects_made_own(repo: &Path, borrowed: &[std::path::PathBuf], ms: u128) -> String {
    let stores: Vec<String> = borrowed.iter().map(|p| display(p)).collect();
    format!(
        "made {} own the git objects it borrowed from the old place ({}) with `git repack -a -d` in {ms} ms, and dropped the pointer: its history no longer needs the old place",
        display(repo),
        stores.join(", ")
    )
}

impl fmt::Display for FixupAdvice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use FixupAdvice as A;
        let said = match self {
            A::LinkNotRewritten { .. }
            | A::LinkOutside { .. }
            | A::ConfigToReview(_)
            | A::ConfigNotSet { .. }
            | A::ConfigDeclined(_)
            | A::RefreshFailed { .. }
            | A::RefreshStopped { .. }
            | A::FilterNotRun { .. }
            | A::GitPathNotSet { .. }
            | A::StillBorrows { .. }
            | A::GitDirOutside { .. }
            | A::GitPathOutside { .. } => git_advice(self),
            A::WorktreeNotPointed { .. }
            | A::WorktreeRepairFailed { .. }
            | A::WorktreeRepairStopped { .. }
            | A::WorktreeRecordLeft { .. }
            | A::WorktreeLeftBehind { .. } => worktree_advice(self),
            A::RootVirtualenv { .. }
            | A::VirtualenvNotRewritten { .. }
            | A::VirtualenvUntold { .. }
            | A::VirtualenvFilesFailed { .. }
            | A::VirtualenvLeftBehind { .. } => virtualenv_advice(self),
            A::InterruptedElsewhere { .. }
            | A::WindowsBuilds { .. }
            | A::RemovalNotConfirmed
            | A::SourceChanged { .. } => run_advice(self),
        };
        f.write_str(&said)
    }
}

/// The advice about the run as a whole: other runs, Windows builds, the source.
fn run_advice(advice: &FixupAdvice) -> String {
    match advice {
        FixupAdvice::InterruptedElsewhere { said } => said.clone(),
        FixupAdvice::WindowsBuilds {
            tree,
            skipped: true,
            examples,
            install,
        } => format!(
            "the node_modules left behind in {tree} holds native Windows builds ({examples}); they do not run on Linux, so do not copy it over: reinstall with `{install}`"
        ),
        FixupAdvice::WindowsBuilds {
            tree,
            examples,
            install,
            ..
        } => format!(
            "the copied {tree} holds native Windows builds ({examples}); they do not run on Linux: reinstall with `{install}`"
        ),
        FixupAdvice::RemovalNotConfirmed => {
            "--remove-source was not confirmed; the source is left in place".to_string()
        }
        FixupAdvice::SourceChanged {
            source,
            changed,
            added,
            modified,
            removed,
            sync,
        } => format!(
            "{} changed at {} since the migration ({} added, {} changed, {} removed); they are not in the copy: `{sync}` copies them, and --remove-source keeps them",
            counted(*changed, "file", "files"),
            source.display(),
            count(*added),
            count(*modified),
            count(*removed),
        ),
        other => unreachable!("not about the run: {other:?}"),
    }
}

/// The advice of the fix-ups in git's own files: links, settings, the index.
fn git_advice(advice: &FixupAdvice) -> String {
    match advice {
        FixupAdvice::LinkNotRewritten { file, error } => format!(
            "could not rewrite {}: {error}; run `git worktree repair`",
            file.display()
        ),
        FixupAdvice::LinkOutside { file, target } => format!(
            "{} points outside the moved tree, at {target}; it still works while that exists, `git worktree repair` fixes it after moving that too",
            file.display()
        ),
        FixupAdvice::ConfigToReview(issue) => format!(
            "{} is {} in {}: {}",
            issue.key,
            issue.value,
            issue.repo.display(),
            issue.why
        ),
        FixupAdvice::ConfigNotSet { issue, value } => format!(
            "could not set {} in {}; run `git config {} {value}` there",
            issue.key,
            issue.repo.display(),
            issue.key
        ),
        FixupAdvice::ConfigDeclined(issue) => format!(
            "left {} = {} in {}: {}",
            issue.key,
            issue.value,
            issue.repo.display(),
            issue.why
        ),
        FixupAdvice::RefreshFailed { repo, why } => format!(
            "`git update-index --refresh` failed in {}: {why}; {REHASH}",
            repo.display()
        ),
        FixupAdvice::RefreshStopped { why } => format!("{why}; {REHASH}"),
        FixupAdvice::FilterNotRun { driver, repo } => format!(
            "{}; the first `git status` you run there runs it",
            crate::host::git::filter_not_run(driver, Some(repo))
        ),
        FixupAdvice::GitPathNotSet {
            key,
            config,
            old,
            new,
        } => format!(
            "{key} in {} still names the old place ({old}), and could not be changed; run `git config --file {} {key} {}`",
            display(config),
            shell_quote(config),
            shell_quote(new)
        ),
        FixupAdvice::GitPathOutside { key, value, repo } => git_path_outside(key, value, repo),
        FixupAdvice::GitDirOutside { .. } | FixupAdvice::StillBorrows { .. } => {
            git_folder_advice(advice)
        }
        other => unreachable!("not about git's files: {other:?}"),
    }
}

/// What the fix-ups left of a repository's git folder at the copy: one outside it, or objects
/// still borrowed from the old place.
fn git_folder_advice(advice: &FixupAdvice) -> String {
    match advice {
        FixupAdvice::GitDirOutside {
            repo,
            leads,
            git_dir,
        } => {
            let (what, then) = match leads {
                GitLeads::DotGit => (
                    ".git",
                    "the first `git status` there does it, if that folder is yours",
                ),
                GitLeads::CommonDir => (
                    ".git/commondir",
                    "its history is there, not in the copy: keep that repository, or clone the copy from it",
                ),
                GitLeads::Index => (
                    ".git/index (a link)",
                    "replace the link with the file if that index is yours",
                ),
                GitLeads::Config => (
                    ".git/config (a link)",
                    "replace the link with the file if that config is yours",
                ),
            };
            format!(
                "{}'s {what} leads to {}, outside the copy: its index was not refreshed, since that would write into another repository; {then}",
                display(repo),
                display(git_dir)
            )
        }
        FixupAdvice::StillBorrows { repo, why } => format!(
            "{} still borrows git objects from the old place (objects/info/alternates), and they could not be copied into it ({why}); --remove-source keeps the old place's .git until `git -C {} repack -a -d` succeeds and the line naming the old place is taken out of .git/objects/info/alternates",
            display(repo),
            shell_quote(repo)
        ),
        other => unreachable!("not about a git folder: {other:?}"),
    }
}

/// `key` naming `value`, a place outside both the old place and the copy, in the repository
/// `repo` at the copy.
fn git_path_outside(key: &str, value: &str, repo: &Path) -> String {
    let at = shell_quote(repo);
    if key == "core.worktree" {
        format!(
            "core.worktree of {} names {value}, outside the copy: git there works on the files at {value}, not the copy's, so its index was not refreshed; if the copy is its work tree, run `git -C {at} config --unset core.worktree`",
            display(repo)
        )
    } else {
        format!(
            "core.hooksPath of {} names {value}, outside the copy: the copy's git runs the hooks there, and they stop if that folder goes; to keep them with the copy, copy them into it and run `git -C {at} config core.hooksPath <that folder>`",
            display(repo)
        )
    }
}

/// The advice about linked worktrees, moved along or left with the old copy.
fn worktree_advice(advice: &FixupAdvice) -> String {
    match advice {
        FixupAdvice::WorktreeNotPointed {
            dot_git,
            admin,
            destination,
            moved,
            error,
        } => format!(
            "could not point {} at {}: {error}; write `gitdir: {}` into it, then run `git -C {} worktree repair {}`",
            dot_git.display(),
            admin.display(),
            admin.display(),
            destination.display(),
            moved.display()
        ),
        FixupAdvice::WorktreeRepairFailed {
            moved,
            destination,
            said,
        } => format!(
            "`git worktree repair {}` failed in {}: {said}; run it there again",
            moved.display(),
            destination.display(),
        ),
        FixupAdvice::WorktreeRepairStopped {
            why,
            destination,
            moved,
        } => format!(
            "{why}; run `git -C {} worktree repair {}`",
            destination.display(),
            moved.display()
        ),
        FixupAdvice::WorktreeRecordLeft {
            record,
            destination,
            worktree,
            error,
        } => format!(
            "could not remove {}: {error}; remove it before running `git worktree repair` in {}, which would otherwise take {} from the old copy",
            record.display(),
            destination.display(),
            worktree.display()
        ),
        FixupAdvice::WorktreeLeftBehind {
            worktree,
            source,
            why_not,
        } => left_behind(worktree, source, why_not.as_deref()),
        other => unreachable!("not about a worktree: {other:?}"),
    }
}

/// A linked worktree not moved (`why_not`), still attached to the old copy `source`.
fn left_behind(worktree: &Path, source: &Path, why_not: Option<&str>) -> String {
    let why = why_not.map_or_else(String::new, |w| format!(" ({w})"));
    format!(
        "the linked worktree {} was not moved{why} and stays attached to the old copy {}: removing {} breaks it",
        worktree.display(),
        source.display(),
        source.display()
    )
}

/// The advice about virtualenvs, at the root or below it.
fn virtualenv_advice(advice: &FixupAdvice) -> String {
    match advice {
        FixupAdvice::RootVirtualenv { recreate } => crate::migrate::root_left_alone(recreate),
        FixupAdvice::VirtualenvNotRewritten { venv, command } => format!(
            "the virtualenv {venv} still names the old place (its scripts run the old place's Python); rewrite it with `{command}`"
        ),
        FixupAdvice::VirtualenvUntold { venv, why, command } => format!(
            "left the virtualenv {venv} naming the old place: which of its files git tracks cannot be told ({}); once none is, rewrite it with `{command}`",
            why.sentence()
        ),
        FixupAdvice::VirtualenvFilesFailed {
            venv,
            files,
            first,
            command,
        } => format!(
            "could not rewrite {} in the virtualenv {venv} ({first}); the copy stands, finish with `{command}`",
            counted(*files, "file", "files"),
        ),
        FixupAdvice::VirtualenvLeftBehind {
            venv,
            folder,
            recreate,
        } => format!(
            "left the virtualenv {venv} behind: Windows Python made it and it cannot run on Linux; make it again in {folder} with `{recreate}`"
        ),
        other => unreachable!("not about a virtualenv: {other:?}"),
    }
}
