//! The git half of the sequences model (issue 50): people commit and branch at both places,
//! clean up the old one (`branch -D`, an expired reflog, `gc --prune=now`) and stage changes at
//! the copy. A sync carries history through git, so what it must keep is said in git's terms:
//! every commit reachable at either place before a sync is reachable at the copy after it, the
//! copy's staging area is as the person left it, and `git fsck` finds nothing wrong at the copy.
//! None of these steps changes a file of the work tree, so the file model stays as it was.

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use std::collections::BTreeSet;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};

/// The branches besides the checked-out one (`main`, never switched away from).
pub const BRANCHES: [&str; 3] = ["b0", "b1", "b2"];

#[derive(Debug, Clone)]
pub enum GitStep {
    /// Everything at that place staged and committed on the checked-out branch.
    Commit { at_copy: bool },
    /// `git branch -f NAME FROM` (the checked-out branch when `from` names none).
    Branch {
        at_copy: bool,
        name: usize,
        from: usize,
    },
    /// A commit of a file of its own on a branch not checked out (made with plumbing, so the
    /// work tree is untouched); the branch is made at HEAD first when missing.
    SideCommit { at_copy: bool, name: usize },
    /// `git branch -D NAME` at the old place.
    DeleteBranch { name: usize },
    /// `git reflog expire --expire=now --all && git gc --prune=now` at the old place: what no
    /// ref reaches there is gone from its object store.
    Gc,
    /// `git add -A -- PATH` at the copy (an edit, a new file or a removal staged).
    Stage { path: usize },
}

pub fn git_step(paths: usize) -> impl Strategy<Value = GitStep> {
    let at = any::<bool>();
    let name = 0..BRANCHES.len();
    prop_oneof![
        3 => at.prop_map(|at_copy| GitStep::Commit { at_copy }),
        2 => (at, name.clone(), 0..=BRANCHES.len())
            .prop_map(|(at_copy, name, from)| GitStep::Branch { at_copy, name, from }),
        2 => (at, name.clone()).prop_map(|(at_copy, name)| GitStep::SideCommit { at_copy, name }),
        1 => name.prop_map(|name| GitStep::DeleteBranch { name }),
        1 => Just(GitStep::Gc),
        2 => (0..paths).prop_map(|path| GitStep::Stage { path }),
    ]
}

/// `git -C dir args...` with the test's pinned config; its stdout when it succeeded.
pub fn try_git(dir: &Path, args: &[&str], input: Option<&[u8]>) -> Option<String> {
    let mut cmd = Command::new("git");
    cmd.arg("-C")
        .arg(dir)
        .args(["-c", "user.name=T", "-c", "user.email=t@example.invalid"])
        .args(["-c", "core.fsmonitor=false", "-c", "gc.auto=0"])
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        // Never the repository of a folder above: a place without its own `.git` has none.
        .env("GIT_CEILING_DIRECTORIES", dir.parent().unwrap_or(dir))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().ok()?;
    if let Some(bytes) = input {
        child.stdin.take()?.write_all(bytes).ok()?;
    }
    drop(child.stdin.take());
    let out = child.wait_with_output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// `root` is a repository of its own whose HEAD names a commit.
pub fn is_repo(root: &Path) -> bool {
    root.join(".git").is_dir()
        && try_git(
            root,
            &["rev-parse", "-q", "--verify", "HEAD^{commit}"],
            None,
        )
        .is_some()
}

fn branch_ref(name: usize) -> String {
    format!("refs/heads/{}", BRANCHES[name])
}

/// The commit a branch names, or HEAD's when it is missing.
fn tip_or_head(root: &Path, name: usize) -> Option<String> {
    let of = |rev: &str| {
        let spec = format!("{rev}^{{commit}}");
        try_git(root, &["rev-parse", "-q", "--verify", &spec], None).map(|s| s.trim().to_string())
    };
    of(&branch_ref(name)).or_else(|| of("HEAD"))
}

/// A commit on `name` holding `side-NAME.txt` with `content` (unique, so its blob and tree are
/// reachable from this branch only), made without touching the work tree or the index.
fn side_commit(root: &Path, name: usize, content: &str) -> Option<()> {
    let parent = tip_or_head(root, name)?;
    let blob = try_git(
        root,
        &["hash-object", "-w", "--stdin"],
        Some(content.as_bytes()),
    )?;
    let file = format!("side-{}.txt", BRANCHES[name]);
    let listing = try_git(root, &["ls-tree", &parent], None)?;
    let mut entries: Vec<String> = listing
        .lines()
        .filter(|line| !line.ends_with(&format!("\t{file}")))
        .map(str::to_string)
        .collect();
    entries.push(format!("100644 blob {}\t{file}", blob.trim()));
    let tree = try_git(root, &["mktree"], Some(entries.join("\n").as_bytes()))?;
    let commit = try_git(
        root,
        &["commit-tree", tree.trim(), "-p", &parent, "-m", content],
        None,
    )?;
    try_git(
        root,
        &["update-ref", &branch_ref(name), commit.trim()],
        None,
    )
    .map(|_| ())
}

/// Does `step` at `src` or `copy` (None when the copy's place is not the person's copy); a step
/// that git refuses (nothing there, a path beyond a link) is a step the person could not take.
pub fn apply(step: &GitStep, src: &Path, copy: Option<&Path>, paths: &[&str], n: u64) {
    let root = |at_copy: bool| match at_copy {
        true => copy.filter(|c| is_repo(c)),
        false => Some(src).filter(|s| is_repo(s)),
    };
    match step {
        GitStep::Commit { at_copy } => {
            if let Some(root) = root(*at_copy) {
                let message = format!("commit {n}");
                try_git(root, &["add", "-A"], None);
                try_git(
                    root,
                    &["commit", "-q", "--allow-empty", "-m", &message],
                    None,
                );
            }
        }
        GitStep::Branch {
            at_copy,
            name,
            from,
        } => {
            if let Some(root) = root(*at_copy) {
                let start = match *from < BRANCHES.len() {
                    true => tip_or_head(root, *from),
                    false => Some("HEAD".to_string()),
                };
                if let Some(start) = start {
                    try_git(root, &["branch", "-f", BRANCHES[*name], &start], None);
                }
            }
        }
        GitStep::SideCommit { at_copy, name } => {
            if let Some(root) = root(*at_copy) {
                let at = if *at_copy { "copy" } else { "old place" };
                side_commit(root, *name, &format!("side commit {n} at the {at}\n"));
            }
        }
        GitStep::DeleteBranch { name } => {
            if let Some(root) = root(false) {
                try_git(root, &["branch", "-q", "-D", BRANCHES[*name]], None);
            }
        }
        GitStep::Gc => {
            if let Some(root) = root(false) {
                try_git(root, &["reflog", "expire", "--expire=now", "--all"], None);
                try_git(root, &["gc", "-q", "--prune=now"], None);
            }
        }
        GitStep::Stage { path } => {
            if let Some(root) = root(true) {
                try_git(root, &["add", "-A", "--", paths[*path]], None);
            }
        }
    }
}

/// Every commit reachable from a ref (or HEAD) of `root`; empty when it is no repository.
fn commits(root: &Path) -> BTreeSet<String> {
    if !is_repo(root) {
        return BTreeSet::new();
    }
    try_git(root, &["rev-list", "--all", "HEAD"], None)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

/// The copy's staging area: HEAD's commit and branch, what is staged, and the index's entries.
#[derive(Debug, PartialEq, Eq)]
struct Staged {
    head: String,
    branch: String,
    cached: String,
    entries: String,
}

fn staged(copy: &Path) -> Option<Staged> {
    let git = |args: &[&str]| try_git(copy, args, None);
    is_repo(copy).then_some(())?;
    Some(Staged {
        head: git(&["rev-parse", "HEAD"])?,
        branch: git(&["symbolic-ref", "-q", "HEAD"]).unwrap_or_default(),
        cached: git(&["diff", "--cached", "--binary", "--no-renames"])?,
        entries: git(&["ls-files", "-s"])?,
    })
}

/// What a sync is checked against: taken just before it runs.
pub struct BeforeSync {
    commits: BTreeSet<String>,
    staged: Option<Staged>,
}

/// `copy`: the copy's place when it holds the person's copy.
pub fn before_sync(src: &Path, copy: Option<&Path>) -> BeforeSync {
    let mut all = commits(src);
    if let Some(copy) = copy {
        all.extend(commits(copy));
    }
    BeforeSync {
        commits: all,
        staged: copy.and_then(staged),
    }
}

/// The versions a sync's fast-forward of the copy's checked-out branch replaced or removed: the
/// old place's commits changed those paths, so the person did (as `git merge --ff-only` would
/// have it); each is still in the copy's history. Empty when HEAD did not move.
pub fn fast_forwarded_away(before: &BeforeSync, copy: &Path) -> Vec<Vec<u8>> {
    let (Some(was), Some(now)) = (&before.staged, staged(copy)) else {
        return Vec::new();
    };
    if was.head == now.head {
        return Vec::new();
    }
    let diff = [
        "diff-tree",
        "-r",
        "--no-renames",
        was.head.trim(),
        now.head.trim(),
    ];
    let listing = try_git(copy, &diff, None).unwrap_or_default();
    listing
        .lines()
        .filter_map(|line| line.split_whitespace().nth(2))
        .filter(|oid| oid.bytes().any(|b| b != b'0'))
        .filter_map(|oid| {
            let out = Command::new("git")
                .arg("-C")
                .arg(copy)
                .args(["cat-file", "blob", oid])
                .output()
                .ok()?;
            out.status.success().then_some(out.stdout)
        })
        .collect()
}

/// After a sync that exited `code`: its commits all at the copy (when it succeeded), and the
/// copy's staging area as it was, but for a fast-forward of a copy that staged nothing.
pub fn after_sync(
    before: &BeforeSync,
    copy: &Path,
    code: Option<i32>,
    said: &str,
) -> Result<(), TestCaseError> {
    if code == Some(0) {
        let now = commits(copy);
        let lost: Vec<&String> = before.commits.difference(&now).collect();
        prop_assert!(
            lost.is_empty(),
            "commits unreachable at the copy after a sync: {lost:?}\n{said}"
        );
    }
    let Some(was) = &before.staged else {
        return Ok(());
    };
    let now = staged(copy);
    prop_assert!(
        now.is_some(),
        "the copy is no repository after a sync\n{said}"
    );
    let now = now.unwrap();
    if now.head == was.head {
        prop_assert_eq!(was, &now, "the sync changed the copy's index\n{}", said);
        return Ok(());
    }
    prop_assert!(
        was.cached.is_empty() && now.cached.is_empty() && was.branch == now.branch,
        "the sync moved the copy's HEAD over staged changes: {was:?} -> {now:?}\n{said}"
    );
    let ancestor = [
        "merge-base",
        "--is-ancestor",
        was.head.trim(),
        now.head.trim(),
    ];
    prop_assert!(
        try_git(copy, &ancestor, None).is_some(),
        "the sync moved the copy's HEAD, not forward: {was:?} -> {now:?}\n{said}"
    );
    Ok(())
}

/// `git fsck` at the copy finds nothing missing or broken (after `steps`).
pub fn fsck(copy: &Path, steps: &[impl std::fmt::Debug]) -> Result<(), TestCaseError> {
    if !copy.join(".git").is_dir() {
        return Ok(());
    }
    let out = Command::new("git")
        .arg("-C")
        .arg(copy)
        .args(["fsck", "--no-dangling", "--no-progress"])
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CEILING_DIRECTORIES", copy.parent().unwrap_or(copy))
        .output()
        .map_err(|e| TestCaseError::fail(format!("git fsck: {e}")))?;
    prop_assert!(
        out.status.success(),
        "git fsck at the copy after {steps:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(())
}

/// Before the first migration: branch `b0` with a commit of its own (loose objects only it
/// reaches), as the issue's repro starts.
pub fn seed(src: &Path) {
    side_commit(src, 0, "side commit before the migration\n");
}

/// A tracked note naming the old place, which no migration may rewrite (a virtualenv's root
/// holds the repository's own files too).
pub fn note_naming_the_place(src: &Path) {
    let note = format!("the project lives at {}\n", src.display());
    std::fs::write(src.join("NOTES.md"), note).unwrap();
    try_git(src, &["add", "NOTES.md"], None);
    try_git(src, &["commit", "-q", "-m", "notes"], None);
}

/// A virtualenv at the repository's root, made by Python itself (`--without-pip`: no network).
pub fn root_venv(src: &Path) {
    let made = Command::new("python3")
        .args(["-m", "venv", "--without-pip", "."])
        .current_dir(src)
        .output()
        .is_ok_and(|out| out.status.success());
    assert!(
        made,
        "python3 -m venv --without-pip . failed in {}",
        src.display()
    );
}

/// What the syncs of a run did with history, by the words of their results: (words, count).
static TALLY: [(&str, AtomicU64); 7] = [
    ("syncs that succeeded", AtomicU64::new(0)),
    ("fast-forwarded", AtomicU64::new(0)),
    ("not fast-forwarded", AtomicU64::new(0)),
    ("created here", AtomicU64::new(0)),
    ("kept both", AtomicU64::new(0)),
    ("names another commit", AtomicU64::new(0)),
    ("earlier tip", AtomicU64::new(0)),
];

/// Counts a successful sync's result (`stdout`), so a run can show that its cases reached
/// each way a branch is synced and not only syncs with nothing to do.
pub fn tally(stdout: &str) {
    TALLY[0].1.fetch_add(1, Ordering::Relaxed);
    for line in stdout.lines() {
        for (words, count) in &TALLY[1..] {
            let hit = match *words {
                "fast-forwarded" => line.contains(words) && !line.contains("not fast-forwarded"),
                _ => line.contains(words),
            };
            if hit {
                count.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
}

/// The tally so far, one line.
pub fn tallied() -> String {
    let counts: Vec<String> = TALLY
        .iter()
        .map(|(words, count)| format!("{words}: {}", count.load(Ordering::Relaxed)))
        .collect();
    counts.join(", ")
}
