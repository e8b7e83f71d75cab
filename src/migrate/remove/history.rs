//! A repository's `.git` at the old place is removed or kept whole, never file by file: its
//! files change with every `git status` or commit there, and the copy's `.git` goes its own way
//! (a sync brings history through git), so comparing them file by file keeps a skeleton that git
//! no longer reads as a repository. It goes when git shows its history is in the copy: every ref
//! and HEAD at the old place, and every change staged there, names an object the copy holds with
//! all it reaches (`git rev-list --objects` in the copy, as git's own connectivity check runs),
//! and no linked worktree outside the source still uses it. Every git run goes through the
//! defused builder; nothing at the old place is written (optional locks off).

use crate::base::pathtext::{display, shell_quote};
use crate::host::git;
use crate::migrate::kernel::repairs::alternates;
use std::io::{Seek, Write};
use std::path::Path;
use std::process::{Command, Stdio};

/// One object the old place names, and what names it ("its branch master").
struct Named {
    oid: String,
    by: String,
}

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
    if crate::base::dirfd::lstat(&old.join(".git").join("index.lock")).is_ok() {
        return Some(
            "its index.lock is there: a git runs there, or one that crashed left it; remove the lock once none runs, then --remove-source again".to_string(),
        );
    }
    let named = match named_at_old(old) {
        Ok(named) => named,
        Err(why) => {
            return Some(format!(
                "git could not tell what its history holds ({why}), so it is not proven in the copy"
            ));
        }
    };
    match missing_at_copy(copy, &named) {
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
        let text = std::fs::read_to_string(record.path().join("gitdir")).ok()?;
        let dot_git = Path::new(text.trim_end_matches(['\n', '\r']));
        let dot_git = match dot_git.is_absolute() {
            true => dot_git.to_path_buf(),
            false => record.path().join(dot_git),
        };
        let worktree = dot_git.parent()?.to_path_buf();
        (!worktree.starts_with(source) && dot_git.exists()).then_some(worktree)
    })
}

fn run(cmd: Command, repo: &Path, what: &str) -> Result<Vec<u8>, String> {
    let out = git::run(cmd, git::work_limit(None)).map_err(|stop| stop.sentence(what, repo))?;
    match out.status.success() {
        true => Ok(out.stdout),
        false => Err(format!(
            "{what} failed in {}: {}",
            display(repo),
            git::first_line(&out.stderr)
        )),
    }
}

/// Every object the old place's refs, HEAD and index name beyond its last commit.
fn named_at_old(old: &Path) -> Result<Vec<Named>, String> {
    let defused = git::defuse(old)?;
    let at_old = |args: &[&str]| {
        let mut cmd = git::untouched(old, &defused);
        cmd.args(args);
        cmd
    };
    let refs = run(
        at_old(&["for-each-ref", "--format=%(objectname) %(refname)"]),
        old,
        "git for-each-ref",
    )?;
    let mut named: Vec<Named> = String::from_utf8_lossy(&refs)
        .lines()
        .filter_map(|line| line.split_once(' '))
        .map(|(oid, refname)| Named {
            oid: oid.to_string(),
            by: ref_words(refname),
        })
        .collect();
    let head = run(
        at_old(&["rev-parse", "--verify", "-q", "HEAD"]),
        old,
        "git rev-parse",
    );
    let staged = match head {
        Ok(oid) => {
            let oid = String::from_utf8_lossy(&oid).trim().to_string();
            named.push(Named {
                oid,
                by: "HEAD".into(),
            });
            run(
                at_old(&[
                    "diff-index",
                    "--cached",
                    "--no-renames",
                    "--abbrev=40",
                    "HEAD",
                ]),
                old,
                "git diff-index",
            )?
        }
        // No commit yet: everything in the index is staged.
        Err(_) => run(at_old(&["ls-files", "--stage"]), old, "git ls-files")?,
    };
    named.extend(staged_blobs(&String::from_utf8_lossy(&staged)));
    Ok(named)
}

/// "its branch master", "its tag v1", "refs/stash (the stash, which a sync does not bring)".
fn ref_words(refname: &str) -> String {
    if let Some(branch) = refname.strip_prefix("refs/heads/") {
        format!("its branch {branch}")
    } else if let Some(tag) = refname.strip_prefix("refs/tags/") {
        format!("its tag {tag}")
    } else if refname == "refs/stash" {
        "its stash (which a sync does not bring)".to_string()
    } else {
        refname.to_string()
    }
}

/// The blobs of changes staged at the old place, from `git diff-index --cached` (`:mode mode
/// old new status\tpath`) or `git ls-files --stage` (`mode oid stage\tpath`); a submodule's
/// commit (mode 160000) is its own repository's.
fn staged_blobs(listing: &str) -> Vec<Named> {
    listing
        .lines()
        .filter_map(|line| {
            let (fields, path) = line.split_once('\t')?;
            let fields: Vec<&str> = fields.trim_start_matches(':').split(' ').collect();
            let (mode, oid) = match fields.len() {
                5 => (fields[1], fields[3]),
                3 => (fields[0], fields[1]),
                _ => return None,
            };
            let deleted = oid.bytes().all(|b| b == b'0');
            (mode != "160000" && !deleted).then(|| Named {
                oid: oid.to_string(),
                by: format!("the change staged at the old place to {path}"),
            })
        })
        .collect()
}

/// What of `named` the copy lacks (or lacks part of the history of): None when it has it all.
fn missing_at_copy(copy: &Path, named: &[Named]) -> Result<Option<String>, String> {
    if named.is_empty() {
        return Ok(None);
    }
    let defused = git::defuse(copy)?;
    let mut list =
        tempfile::tempfile().map_err(|e| format!("cannot make a temporary file: {e}"))?;
    for n in named {
        writeln!(list, "{}", n.oid).map_err(|e| format!("cannot write a temporary file: {e}"))?;
    }
    list.rewind()
        .map_err(|e| format!("cannot read a temporary file: {e}"))?;
    let mut cmd = git::untouched(copy, &defused);
    cmd.args([
        "rev-list",
        "--objects",
        "--quiet",
        "--stdin",
        "--not",
        "--all",
    ])
    .stdin(Stdio::from(list));
    let out =
        git::run(cmd, git::work_limit(None)).map_err(|stop| stop.sentence("git rev-list", copy))?;
    if out.status.success() {
        return Ok(None);
    }
    let said = String::from_utf8_lossy(&out.stderr);
    let by = named
        .iter()
        .find(|n| said.contains(&n.oid))
        .map(|n| n.by.clone())
        .unwrap_or_else(|| format!("a ref at the old place ({})", git::first_line(&out.stderr)));
    Ok(Some(by))
}

/// The command that removes what is left of the source folder, once it is no repository.
pub fn remove_command(source: &Path) -> String {
    format!("rm -r -- {}", shell_quote(source))
}
