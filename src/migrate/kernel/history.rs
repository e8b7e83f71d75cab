//! Whether one repository's history is all in another, asked of git: every ref and HEAD of the
//! first, and every change staged there, names an object the second holds with all it reaches
//! (`git rev-list --objects` there, as git's own connectivity check runs). `--remove-source`
//! asks it of the old place against the copy before `.git` goes; `--abort` of the copy against
//! the old place before the copy goes. Every git run goes through the defused builder, with
//! optional locks off: nothing in either repository is written.

use crate::base::pathtext::display;
use crate::host::git;
use std::io::{Seek, Write};
use std::path::Path;
use std::process::{Command, Stdio};

/// One object the old place names, and what names it ("its branch master").
pub struct Named {
    oid: String,
    by: String,
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

/// Every object the repository at `old` names by its refs, HEAD and index; `place` is how the
/// words name it ("the old place", "the copy").
pub fn named_at(old: &Path, place: &str) -> Result<Vec<Named>, String> {
    crate::host::git::files::every_ref_plain(old)?;
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
    named.extend(staged_blobs(&String::from_utf8_lossy(&staged), place));
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
fn staged_blobs(listing: &str, place: &str) -> Vec<Named> {
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
                by: format!("the change staged at {place} to {path}"),
            })
        })
        .collect()
}

/// Why the history git finds in the repository `repo` is not all in its own object store: its
/// `.git` or `commondir` leads out of it, or `objects/info/alternates` borrows another store's
/// objects. git answers for what it can reach, so a claim that history is "in the copy" is made
/// only where this is None.
pub fn not_its_own(repo: &Path) -> Option<String> {
    use super::repairs::{fixups::GitLeads, git_paths::git_dir_outside};
    if let Some((GitLeads::DotGit | GitLeads::CommonDir, elsewhere)) = git_dir_outside(repo, repo) {
        return Some(format!(
            "git at {} reads its history from {}, outside it",
            display(repo),
            display(&elsewhere)
        ));
    }
    let alternates = repo.join(".git/objects/info/alternates");
    let limit = crate::base::repo_file::POINTER_LIMIT;
    match crate::base::repo_file::read_at(&alternates, limit) {
        Ok(text) if text.iter().any(|b| !b.is_ascii_whitespace()) => Some(format!(
            "git at {} borrows objects from another store ({})",
            display(repo),
            String::from_utf8_lossy(&text)
                .lines()
                .next()
                .unwrap_or("")
                .trim()
        )),
        Ok(_) | Err(crate::base::repo_file::Unread::Missing) => None,
        Err(crate::base::repo_file::Unread::Refused(why)) => Some(why.sentence()),
    }
}

/// What of `named` the copy lacks (or lacks part of the history of): None when it has it all.
pub fn missing_at(copy: &Path, named: &[Named]) -> Result<Option<String>, String> {
    if named.is_empty() {
        return Ok(None);
    }
    crate::host::git::files::every_ref_plain(copy)?;
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
        .unwrap_or_else(|| format!("a ref ({})", git::first_line(&out.stderr)));
    Ok(Some(by))
}
