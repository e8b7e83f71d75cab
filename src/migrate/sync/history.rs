//! The old place's history reaches the copy through git, never as files (issue 50): `.git/` is
//! a database whose files only make sense together, and the copy's has moved on its own since
//! the migration (commits, branches, a gc). Copying its files one by one replaced the copy's
//! staging area, saved refs as files git then took for branches, and deleted objects the
//! copy's refs still needed.
//!
//! So: the old place's branches and tags are fetched into a namespace of their own
//! (`git::OLD_PLACE_REFS`; a fetch only adds objects), and each branch is then moved only where
//! git itself would move it without asking: a fast-forward, the checked-out one only when the
//! copy's tracked files hold no edits. A branch that moved at both places stays as the copy has
//! it, and the result names the merge. Nothing is deleted: a branch removed at the old place
//! stays, a tag is never moved, and a tip an earlier sync kept that the old place has since
//! moved its branch away from (a reset, an amend) is kept under `EARLIER_REFS` when nothing else
//! at the copy reaches it: the fetch moves the namespace's refs as the old place's move.
//!
//! The plan is made before anything is fetched, with the old place's objects read in place
//! (`git::with_objects_of`), so a dry run changes nothing; the real run decides each branch
//! again from what it fetched, since the old place may have moved in between.

use crate::base::pathtext::shell_quote;
use crate::host::git::{self, Defused};
use crate::measure::changes::Changes;
use crate::migrate::kernel::outcome::{HistorySync, RefAction, RefKind, RefSync};
use crate::store::moved;
use std::collections::{HashMap, HashSet};
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Arc;

/// Where the old place's earlier tips are kept, each as `<its ref below OLD_PLACE_REFS>/<oid>`.
const EARLIER_REFS: &str = "refs/wsl-place/old-place-earlier/";

/// The two repositories of a sync, each with its own programs defused.
pub(super) struct Places {
    old: PathBuf,
    copy: PathBuf,
    old_defused: Arc<Defused>,
    copy_defused: Arc<Defused>,
}

/// A branch or tag: its full name and the object it names.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Tip {
    refname: String,
    oid: String,
}

impl Places {
    /// Both places when each is a repository whose `.git` is a folder (a linked worktree's
    /// branches belong to its main repository, which a sync of the worktree does not reach);
    /// None otherwise; Err when git cannot be run in one of them.
    pub fn of(record: &moved::Moved) -> Option<Result<Places, String>> {
        let (old, copy) = (&record.source, &record.destination);
        let is_repository =
            |root: &Path| crate::base::dirfd::lstat(&root.join(".git")).is_ok_and(|m| m.is_dir());
        if !is_repository(old) || !is_repository(copy) {
            return None;
        }
        Some((|| {
            use crate::migrate::kernel::repairs::git_paths::git_dir_outside;
            if let Some((_, elsewhere)) = git_dir_outside(copy, copy) {
                return Err(format!(
                    "the copy's git folder leads to {}, outside it, and git would write the old place's history there",
                    crate::base::pathtext::display(&elsewhere)
                ));
            }
            crate::host::git::files::every_ref_plain(old)?;
            crate::host::git::files::every_ref_plain(copy)?;
            Ok(Places {
                old: old.clone(),
                copy: copy.clone(),
                old_defused: git::defuse(old)?,
                copy_defused: git::defuse(copy)?,
            })
        })())
    }

    fn at_old(&self, args: &[&str]) -> Command {
        let mut cmd = git::untouched(&self.old, &self.old_defused);
        cmd.args(args);
        cmd
    }

    fn at_copy(&self, args: &[&str]) -> Command {
        let mut cmd = git::in_repo(&self.copy, &self.copy_defused);
        cmd.args(args);
        cmd
    }

    /// Runs `cmd` at `repo` within `limit`: its output when it succeeded, else one sentence.
    fn output(
        cmd: Command,
        repo: &Path,
        what: &str,
        limit: std::time::Duration,
    ) -> Result<Vec<u8>, String> {
        let out: Output = git::run(cmd, limit).map_err(|stop| stop.sentence(what, repo))?;
        if !out.status.success() {
            return Err(format!(
                "{what} failed in {}: {}",
                repo.display(),
                git::first_line(&out.stderr)
            ));
        }
        Ok(out.stdout)
    }

    /// The branches and tags under `prefixes` of the repository `cmd` runs in.
    fn tips(cmd: Command, repo: &Path) -> Result<Vec<Tip>, String> {
        let out = Self::output(cmd, repo, "git for-each-ref", git::QUICK_LIMIT)?;
        Ok(String::from_utf8_lossy(&out)
            .lines()
            .filter_map(|line| line.split_once(' '))
            .map(|(oid, refname)| Tip {
                refname: refname.to_string(),
                oid: oid.to_string(),
            })
            .collect())
    }

    fn old_tips(&self) -> Result<Vec<Tip>, String> {
        let format = "--format=%(objectname) %(refname)";
        Self::tips(
            self.at_old(&["for-each-ref", format, "refs/heads/", "refs/tags/"]),
            &self.old,
        )
    }

    fn copy_tips(&self) -> Result<HashMap<String, String>, String> {
        let format = "--format=%(objectname) %(refname)";
        let tips = Self::tips(
            self.at_copy(&["for-each-ref", format, "refs/heads/", "refs/tags/"]),
            &self.copy,
        )?;
        Ok(tips.into_iter().map(|t| (t.refname, t.oid)).collect())
    }

    /// The refs below `OLD_PLACE_REFS` in the copy, each with the object it names.
    fn kept_tips(&self) -> Result<HashMap<String, String>, String> {
        let format = "--format=%(objectname) %(refname)";
        let tips = Self::tips(
            self.at_copy(&["for-each-ref", format, git::OLD_PLACE_REFS]),
            &self.copy,
        )?;
        Ok(tips.into_iter().map(|t| (t.refname, t.oid)).collect())
    }

    /// The old place's tips as the fetch left them in the copy, for the names listed there.
    fn fetched_tips(&self, listed: &[Tip]) -> Result<Vec<Tip>, String> {
        let by_name = self.kept_tips()?;
        Ok(listed
            .iter()
            .filter_map(|t| {
                let kept = kept_as(&t.refname)?;
                by_name.get(&kept).map(|oid| Tip {
                    refname: t.refname.clone(),
                    oid: oid.to_string(),
                })
            })
            .collect())
    }

    /// Commits only on the copy's side and only on the old place's, of `here...there`; None
    /// when they cannot be compared (an object missing).
    fn counts(&self, here: &str, there: &str, objects: bool) -> Option<(u64, u64)> {
        let range = format!("{here}...{there}");
        let mut cmd = self.at_copy(&["rev-list", "--left-right", "--count", &range, "--"]);
        if objects && !git::with_objects_of(&mut cmd, &self.old.join(".git/objects")) {
            return None;
        }
        let out = Self::output(cmd, &self.copy, "git rev-list", git::work_limit(None)).ok()?;
        let text = String::from_utf8_lossy(&out);
        let (left, right) = text.trim().split_once(char::is_whitespace)?;
        Some((left.trim().parse().ok()?, right.trim().parse().ok()?))
    }

    /// The branch checked out in the copy's main work tree, and those of its linked worktrees
    /// (each with its folder).
    fn checked_out(&self) -> (Option<String>, HashMap<String, PathBuf>) {
        let cmd = self.at_copy(&["worktree", "list", "--porcelain", "-z"]);
        let Ok(out) = Self::output(cmd, &self.copy, "git worktree list", git::QUICK_LIMIT) else {
            return (None, HashMap::new());
        };
        let (mut main, mut linked, mut at, mut first) = (None, HashMap::new(), None, true);
        for field in out.split(|b| *b == 0) {
            if field.is_empty() {
                first = false;
            } else if let Some(path) = field.strip_prefix(b"worktree ") {
                at = Some(PathBuf::from(OsStr::from_bytes(path)));
            } else if let Some(branch) = field.strip_prefix(b"branch ") {
                let branch = String::from_utf8_lossy(branch).into_owned();
                match first {
                    true => main = Some(branch),
                    false => {
                        linked.insert(branch, at.clone().unwrap_or_default());
                    }
                }
            }
        }
        (main, linked)
    }

    /// The copy's tracked files that hold edits, staged or not (untracked files do not count:
    /// a fast-forward or merge that would overwrite one is refused by git itself). Renames are
    /// counted as their two files, as git's status without rename detection lists them.
    fn copy_edits(&self) -> Result<u64, String> {
        let mut cmd = git::untouched(&self.copy, &self.copy_defused);
        cmd.args([
            "status",
            "--porcelain",
            "-z",
            "--no-renames",
            "--untracked-files=no",
        ]);
        let out = Self::output(cmd, &self.copy, "git status", git::work_limit(None))?;
        Ok(out.split(|b| *b == 0).filter(|e| !e.is_empty()).count() as u64)
    }
}

/// A ref name as a shell word: git allows `;`, `$` and quotes in one.
fn quoted(name: &str) -> String {
    shell_quote(Path::new(name))
}

/// Where the old place's `refname` is kept in the copy.
fn kept_as(refname: &str) -> Option<String> {
    let short = refname.strip_prefix("refs/")?;
    Some(format!("{}{short}", git::OLD_PLACE_REFS))
}

/// What the sync would do with the old place's branches and tags, compared without fetching.
pub(super) fn plan(places: &Places) -> HistorySync {
    let decided = places.old_tips().and_then(|old| decide(places, &old, true));
    match decided {
        Ok(refs) => HistorySync {
            refs,
            ..HistorySync::default()
        },
        Err(why) => HistorySync {
            failed: Some(format!("{why}; the old place's history was not synced")),
            ..HistorySync::default()
        },
    }
}

/// Each old place's tip that differs from the copy's, with what to do about it. `objects`: the
/// old place's objects are read in place (nothing fetched yet).
fn decide(places: &Places, old: &[Tip], objects: bool) -> Result<Vec<RefSync>, String> {
    let here = places.copy_tips()?;
    let (main, linked) = places.checked_out();
    let mut refs = Vec::new();
    for tip in old {
        let (kind, name) = match (
            tip.refname.strip_prefix("refs/heads/"),
            tip.refname.strip_prefix("refs/tags/"),
        ) {
            (Some(name), _) => (RefKind::Branch, name),
            (_, Some(name)) => (RefKind::Tag, name),
            _ => continue,
        };
        let Some(kept) = kept_as(&tip.refname) else {
            continue;
        };
        let mut entry = RefSync::created(name, kind, kept);
        let Some(mine) = here.get(&tip.refname) else {
            refs.push(entry);
            continue;
        };
        if *mine == tip.oid {
            continue;
        }
        if kind == RefKind::Tag {
            entry.action = RefAction::TagDiffers;
            refs.push(entry);
            continue;
        }
        let Some((ahead, behind)) = places.counts(mine, &tip.oid, objects) else {
            entry.action = RefAction::Refused;
            entry.why = Some("the two places' commits could not be compared".into());
            refs.push(entry);
            continue;
        };
        if behind == 0 {
            continue;
        }
        (entry.here_commits, entry.old_place_commits) = (ahead, behind);
        let current = main.as_deref() == Some(tip.refname.as_str());
        decide_branch(places, &mut entry, current, linked.get(&tip.refname))?;
        refs.push(entry);
    }
    Ok(refs)
}

/// What to do with a branch the old place moved on, which the copy has too: fast-forwarded
/// when nothing stands in the way, both kept (with the merge to run) when the copy's moved on
/// too, refused (with the merge to run later) when it is checked out with edits or in another
/// worktree. `current`: checked out in the copy itself; `linked`: the worktree that has it.
fn decide_branch(
    places: &Places,
    entry: &mut RefSync,
    current: bool,
    linked: Option<&PathBuf>,
) -> Result<(), String> {
    let ahead = entry.here_commits;
    let copy = shell_quote(&places.copy);
    let switch = match current {
        true => String::new(),
        false => format!("git -C {copy} switch {} && ", quoted(&entry.name)),
    };
    let kept = quoted(&entry.old_place_ref);
    if ahead > 0 {
        entry.action = RefAction::KeepBoth;
        entry.merge = Some(format!("{switch}git -C {copy} merge {kept}"));
    } else if let Some(at) = linked {
        entry.action = RefAction::Refused;
        entry.why = Some(format!("checked out in the worktree {}", at.display()));
        entry.merge = Some(format!("git -C {} merge --ff-only {kept}", shell_quote(at)));
    } else if current && places.copy_edits()? > 0 {
        entry.action = RefAction::Refused;
        entry.why = Some(
            "checked out here with edits not committed; commit or stash them, then merge".into(),
        );
        entry.merge = Some(format!("git -C {copy} merge --ff-only {kept}"));
    } else {
        entry.action = RefAction::FastForward;
    }
    Ok(())
}

/// Fetches the old place's branches and tags into the copy, then moves each branch as it was
/// decided again from what was fetched. A failure is reported in `history.failed`, after which
/// nothing more is done to the copy's refs.
pub(super) fn apply(places: &Places, history: &mut HistorySync) {
    if let Err(why) = fetch_and_move(places, history) {
        history.failed = Some(format!("{why}; the old place's history was not synced"));
    }
}

fn fetch_and_move(places: &Places, history: &mut HistorySync) -> Result<(), String> {
    let listed = places.old_tips()?;
    let (refspecs, new_tags) = refspecs(places, &listed)?;
    let kept_before = places.kept_tips()?;
    let fetch = git::fetch(&places.copy, &places.copy_defused, &places.old, &refspecs);
    Places::output(fetch, &places.copy, "git fetch", git::work_limit(None))?;
    history.fetched = true;
    history.kept_earlier = places.keep_earlier(&kept_before)?;
    // A new tag came as the copy's own: only the branches and the differing tags are kept.
    let kept: Vec<Tip> = listed
        .iter()
        .filter(|t| !new_tags.iter().any(|n| n.refname == t.refname))
        .cloned()
        .collect();
    let fetched = places.fetched_tips(&kept)?;
    let mut refs = decide(places, &fetched, false)?;
    move_refs(places, &fetched, &mut refs)?;
    // A tag the copy lacked, fetched as its own.
    refs.extend(new_tags.iter().map(|tag| {
        let name = tag
            .refname
            .strip_prefix("refs/tags/")
            .unwrap_or(&tag.refname);
        RefSync::created(name, RefKind::Tag, tag.refname.clone())
    }));
    history.refs = refs;
    Ok(())
}

/// What the fetch asks for: every branch, kept under `OLD_PLACE_REFS`; of the tags only those
/// the copy lacks, made the copy's own (`refs/tags/NAME`), and those naming another commit
/// than the copy's, kept under `OLD_PLACE_REFS` beside it. A tag both places hold alike is not
/// fetched again, so `git for-each-ref` and `git log --decorate` at the copy show no second
/// copy of every tag (issue 66: one sync had added about 300). The tags the copy lacks come
/// back with the refspecs.
fn refspecs(places: &Places, listed: &[Tip]) -> Result<(Vec<String>, Vec<Tip>), String> {
    let here = places.copy_tips()?;
    let mut refspecs = vec![format!("+refs/heads/*:{}heads/*", git::OLD_PLACE_REFS)];
    let mut new_tags = Vec::new();
    for tip in listed
        .iter()
        .filter(|t| t.refname.starts_with("refs/tags/"))
    {
        match here.get(&tip.refname) {
            Some(oid) if *oid == tip.oid => {}
            Some(_) => {
                if let Some(kept) = kept_as(&tip.refname) {
                    refspecs.push(format!("+{}:{kept}", tip.refname));
                }
            }
            None => {
                refspecs.push(format!("{0}:{0}", tip.refname));
                new_tags.push(tip.clone());
            }
        }
    }
    // A detached HEAD's commits are on no branch: kept too, since the files they hold are
    // left to history (`committed`).
    if places.old_head_detached() {
        refspecs.push(format!("+HEAD:{}HEAD", git::OLD_PLACE_REFS));
    }
    Ok((refspecs, new_tags))
}

/// Each branch moved as `refs` decided from what was fetched.
fn move_refs(places: &Places, fetched: &[Tip], refs: &mut [RefSync]) -> Result<(), String> {
    let oid_of: HashMap<&str, &str> = fetched
        .iter()
        .map(|t| (t.refname.as_str(), t.oid.as_str()))
        .collect();
    let (main, _) = places.checked_out();
    for entry in refs.iter_mut() {
        let refname = match entry.kind {
            RefKind::Branch => format!("refs/heads/{}", entry.name),
            RefKind::Tag => format!("refs/tags/{}", entry.name),
        };
        let Some(new) = oid_of.get(refname.as_str()) else {
            continue;
        };
        let moved = match entry.action {
            RefAction::Create => places.update_ref(&refname, new, None),
            RefAction::FastForward if main.as_deref() == Some(refname.as_str()) => {
                places.fast_forward(&entry.old_place_ref)
            }
            RefAction::FastForward => {
                let old = places.copy_tips()?.get(&refname).cloned();
                places.update_ref(&refname, new, old.as_deref())
            }
            _ => Ok(()),
        };
        if let Err(why) = moved {
            entry.action = RefAction::Refused;
            entry.why = Some(why);
            entry.merge = Some(format!(
                "git -C {} merge --ff-only {}",
                shell_quote(&places.copy),
                quoted(&entry.old_place_ref)
            ));
        }
    }
    Ok(())
}

/// Each merge `history` advises, told whether the copy has tracked files staged or modified
/// that would stop it: the advice then says to commit or stash them first.
pub fn note_copy_changes(places: &Places, history: &mut HistorySync) {
    if history.refs.iter().all(|r| r.merge.is_none()) {
        return;
    }
    // Unknown (git failed) is said as none: the advice is then the bare merge, as before.
    let changes = places.copy_edits().unwrap_or(0);
    for r in history.refs.iter_mut().filter(|r| r.merge.is_some()) {
        r.copy_changes = changes;
    }
}

impl Places {
    /// The earlier tips (`before`: the refs below `OLD_PLACE_REFS` before the fetch) that the
    /// fetch moved a ref away from and that no ref of the copy reaches any more, each kept under
    /// `EARLIER_REFS`: a commit a result named for merging is never left to the copy's gc.
    fn keep_earlier(&self, before: &HashMap<String, String>) -> Result<Vec<String>, String> {
        let now = self.kept_tips()?;
        let mut kept = Vec::new();
        for (refname, oid) in before {
            if now.get(refname) == Some(oid) {
                continue;
            }
            let cmd = self.at_copy(&["rev-list", "-n", "1", oid, "--not", "--all"]);
            let out = Self::output(cmd, &self.copy, "git rev-list", git::work_limit(None))?;
            if out.is_empty() {
                continue;
            }
            let short = refname.strip_prefix(git::OLD_PLACE_REFS).unwrap_or(refname);
            let earlier = format!("{EARLIER_REFS}{short}/{oid}");
            self.update_ref(&earlier, oid, None)?;
            kept.push(earlier);
        }
        kept.sort();
        Ok(kept)
    }

    /// `refname` set to `new` only while it still is `old` (absent when None): a branch the
    /// person moved meanwhile is not moved.
    fn update_ref(&self, refname: &str, new: &str, old: Option<&str>) -> Result<(), String> {
        let zero = "0".repeat(new.len());
        let old = old.unwrap_or(&zero);
        let cmd = self.at_copy(&[
            "update-ref",
            "-m",
            "wsl-place sync: from the old place",
            refname,
            new,
            old,
        ]);
        Self::output(cmd, &self.copy, "git update-ref", git::QUICK_LIMIT).map(|_| ())
    }

    /// The checked-out branch fast-forwarded to `to`, work tree and index with it, as `git
    /// merge --ff-only` does: git refuses it when a file it would write holds an edit or is
    /// untracked in its way.
    fn fast_forward(&self, to: &str) -> Result<(), String> {
        if self.copy_edits()? > 0 {
            return Err(
                "checked out here with edits not committed; commit or stash them, then merge"
                    .into(),
            );
        }
        let cmd = self.at_copy(&["merge", "--ff-only", "--no-autostash", "-q", to]);
        Self::output(
            cmd,
            &self.copy,
            "git merge --ff-only",
            git::work_limit(None),
        )
        .map(|_| ())
    }
}

/// Paths changed at the old place since (`here`) that its commits hold as they are: they come
/// with its history, so they never sync as files. A path counts when git tracks it at the old
/// place with no edit (changed or added), or when the old place no longer tracks it, has no
/// edit of it and the copy tracks it (a removal that was committed). Err: git could not tell,
/// and every change then syncs as a file.
pub(super) fn committed(places: &Places, here: &Changes) -> Result<HashSet<PathBuf>, String> {
    let candidates: Vec<&PathBuf> = here
        .changed
        .iter()
        .chain(&here.added)
        .chain(&here.removed)
        .collect();
    if candidates.is_empty() {
        return Ok(HashSet::new());
    }
    let tracked_old = places.tracked(&places.old, true)?;
    let tracked_copy = places.tracked(&places.copy, false)?;
    let mut status = git::untouched(&places.old, &places.old_defused);
    status.args([
        "--literal-pathspecs",
        "status",
        "--porcelain",
        "-z",
        "--no-renames",
        "--untracked-files=no",
        "--",
    ]);
    // A long list is not given as arguments: the whole tree's status says as much.
    if candidates.len() <= 2_000 {
        status.args(candidates.iter().map(|p| p.as_os_str()));
    }
    let out = Places::output(status, &places.old, "git status", git::work_limit(None))?;
    let edited: HashSet<PathBuf> = out
        .split(|b| *b == 0)
        .filter(|entry| entry.len() > 3)
        .map(|entry| PathBuf::from(OsStr::from_bytes(&entry[3..])))
        .collect();
    let mut found = HashSet::new();
    for rel in here.changed.iter().chain(&here.added) {
        if tracked_old.contains(rel) && !edited.contains(rel) {
            found.insert(rel.clone());
        }
    }
    for rel in &here.removed {
        if !tracked_old.contains(rel) && !edited.contains(rel) && tracked_copy.contains(rel) {
            found.insert(rel.clone());
        }
    }
    Ok(found)
}

impl Places {
    /// The old place's HEAD names a commit and no branch.
    fn old_head_detached(&self) -> bool {
        let branch = self.at_old(&["symbolic-ref", "-q", "HEAD"]);
        let commit = self.at_old(&["rev-parse", "-q", "--verify", "HEAD^{commit}"]);
        Self::output(branch, &self.old, "git symbolic-ref", git::QUICK_LIMIT).is_err()
            && Self::output(commit, &self.old, "git rev-parse", git::QUICK_LIMIT).is_ok()
    }

    /// Every path git tracks in `repo`'s index.
    fn tracked(&self, repo: &Path, old: bool) -> Result<HashSet<PathBuf>, String> {
        let mut cmd = match old {
            true => git::untouched(repo, &self.old_defused),
            false => git::untouched(repo, &self.copy_defused),
        };
        cmd.args(["ls-files", "-z"]);
        let out = Self::output(cmd, repo, "git ls-files", git::work_limit(None))?;
        Ok(out
            .split(|b| *b == 0)
            .filter(|p| !p.is_empty())
            .map(|p| PathBuf::from(OsStr::from_bytes(p)))
            .collect())
    }
}
