//! The old place's commits that the copy does not have, counted by git: people count a commit
//! as one change, not as the files it touched. The count starts at the copy's HEAD as the
//! migration or the last sync left it (kept in the record; the old place has that commit,
//! since the copy was made from it), or, for a record of an earlier version, at the copy's
//! HEAD now, its objects read in place.

use super::Changes;
use crate::host::git;
use crate::store::moved::{Counted, Moved};
use std::collections::HashSet;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// What the commits made at the old place since the copy come to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SinceCopy {
    /// Commits reachable from the old place's HEAD that the copy's recorded HEAD does not reach.
    pub commits: u64,
    /// Paths (relative to the repository's top) those commits changed whose working-tree file
    /// is as committed: their change is the commit's, not a file of its own.
    pub committed: HashSet<PathBuf>,
}

/// The commit `repo`'s HEAD names; None outside a repository or before its first commit.
pub fn head(repo: &Path) -> Option<String> {
    let mut cmd = git::reading(Some(repo));
    cmd.args(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"]);
    let out = git::run(cmd, git::QUICK_LIMIT).ok()?;
    let oid = String::from_utf8_lossy(&out.stdout).trim().to_string();
    (out.status.success() && !oid.is_empty()).then_some(oid)
}

/// The commits at `source` since the copy at `copy` was made or last synced (`recorded`, the
/// copy's HEAD then; None in a record that kept none); None when git cannot tell.
pub fn since_copy(source: &Path, copy: &Path, recorded: Option<&str>) -> Option<SinceCopy> {
    let (base, objects) = match recorded {
        Some(oid) => (oid.to_string(), None),
        None => (head(copy)?, Some(copy.join(".git/objects"))),
    };
    let defused = git::defuse(source).ok()?;
    let at_source = |args: &[&str]| {
        let mut cmd = git::untouched(source, &defused);
        cmd.args(args);
        match &objects {
            Some(dir) if dir.is_dir() => git::with_objects_of(&mut cmd, dir).then_some(cmd),
            Some(_) => None,
            None => Some(cmd),
        }
    };
    let range = format!("{base}..HEAD");
    let count = lines(at_source(&["rev-list", "--count", &range, "--"])?)?;
    let commits = String::from_utf8_lossy(&count).trim().parse().ok()?;
    if commits == 0 {
        return Some(SinceCopy::default());
    }
    // What the commits changed, and what differs from HEAD now (staged or not).
    let names = |from: &[&str]| {
        let diff = ["diff", "--name-only", "-z", "--no-renames", "--no-ext-diff"];
        Some(paths(&lines(at_source(
            &[&diff[..], from, &["--"]].concat(),
        )?)?))
    };
    let (touched, dirty) = (names(&[&base, "HEAD"])?, names(&["HEAD"])?);
    let committed = touched.difference(&dirty).cloned().collect();
    Some(SinceCopy { commits, committed })
}

/// The standard output of a git run that succeeded.
fn lines(cmd: Command) -> Option<Vec<u8>> {
    let out = git::run(cmd, git::work_limit(None)).ok()?;
    out.status.success().then_some(out.stdout)
}

/// NUL-separated paths, as `-z` gives them.
fn paths(out: &[u8]) -> HashSet<PathBuf> {
    out.split(|b| *b == 0)
        .filter(|p| !p.is_empty())
        .map(|p| PathBuf::from(OsStr::from_bytes(p)))
        .collect()
}

/// The count the old place keeps: its commits the copy lacks, and the files that differ from
/// the copy other than by those commits (a file as committed is the commit's change). No
/// commit is counted after `--remove-source`, whose story is the files left here.
pub fn counted(moved: &Moved, mut changes: Changes) -> Counted {
    let history = match moved.source_removed {
        true => None,
        false => since_copy(
            &moved.source,
            &moved.destination,
            moved.copy_head.as_deref(),
        ),
    };
    if let Some(committed) = history.as_ref().map(|h| &h.committed) {
        let size = |rel: &PathBuf| {
            crate::base::dirfd::lstat(&moved.source.join(rel)).map_or(0, |m| m.len())
        };
        let gone: u64 = changes
            .added
            .iter()
            .chain(&changes.changed)
            .filter(|rel| committed.contains(*rel))
            .map(size)
            .sum();
        changes.bytes = changes.bytes.saturating_sub(gone);
        for list in [
            &mut changes.added,
            &mut changes.changed,
            &mut changes.removed,
        ] {
            list.retain(|rel| !committed.contains(rel));
        }
    }
    Counted {
        added: changes.added.len() as u64,
        changed: changes.changed.len() as u64,
        removed: changes.removed.len() as u64,
        bytes: changes.bytes,
        unix: crate::base::clock::now_unix(),
        commits: history.map(|h| h.commits),
    }
}
