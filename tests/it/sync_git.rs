//! `migrate --sync` carries history through git, not as files (issue 50): the copy's `.git/` is
//! never written file by file; the old place's branches and tags are fetched under
//! `refs/wsl-place/old-place/`, a branch that moved only there is fast-forwarded, one that moved
//! at both places is kept as it is with the command that merges the other; only the old place's
//! uncommitted edits sync as files. Each test is one of the repros, on local folders.

use crate::support;
use crate::support::{Outcome, Run};

use std::fs;
use std::path::{Path, PathBuf};
use support::gitrepo::{commit_all, git, init_and_commit_all, write};
use support::text;

/// A repository at `tmp/app` (`a.txt`, `b.txt`, `c.txt` on `main`, after `prepare`) migrated to
/// `tmp/linux/app`, with its own home.
struct Moved {
    tmp: tempfile::TempDir,
}

impl Moved {
    fn new(prepare: impl FnOnce(&Path)) -> Moved {
        let moved = Moved {
            tmp: tempfile::tempdir().unwrap(),
        };
        let src = moved.src();
        for name in ["a.txt", "b.txt", "c.txt"] {
            write(&src.join(name), format!("{name}\n").as_bytes());
        }
        init_and_commit_all(&src, "first");
        prepare(&src);
        let out = moved.migrate(&["--yes"]);
        out.ok();
        moved
    }

    fn src(&self) -> PathBuf {
        self.tmp.path().join("app")
    }

    fn dst(&self) -> PathBuf {
        self.tmp.path().join("linux/app")
    }

    fn migrate(&self, args: &[&str]) -> Outcome {
        support::Sandbox::at(self.tmp.path())
            .migrate(&self.src(), &self.dst())
            .args(args)
            .env("NO_COLOR", "1")
            .env("COLUMNS", "400")
            .run()
    }

    /// `--sync --yes --format json`, which must succeed: its `sync`.
    fn sync_json(&self) -> serde_json::Value {
        let report = self
            .migrate(&["--sync", "--yes", "--format", "json"])
            .ok_json();
        report["sync"].clone()
    }

    fn at_copy(&self, args: &[&str]) -> String {
        git(&self.dst(), args).trim().to_string()
    }
}

/// The entry of `sync.history.refs` for `name`, or a failure naming what the sync said.
fn history_of<'a>(sync: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    sync["history"]["refs"]
        .as_array()
        .and_then(|refs| refs.iter().find(|r| r["name"] == name))
        .unwrap_or_else(|| panic!("no history entry for {name}: {sync}"))
}

/// Every path below `dir` whose name holds `.from-source-`.
fn saved_versions(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(at) = stack.pop() {
        for entry in fs::read_dir(&at).unwrap() {
            let entry = entry.unwrap();
            let path = entry.path();
            if entry.file_type().unwrap().is_dir() {
                stack.push(path);
            } else if entry
                .file_name()
                .to_string_lossy()
                .contains(".from-source-")
            {
                found.push(path);
            }
        }
    }
    found
}

/// (a) A commit at the copy and one at the old place: the copy's branch and index stay as the
/// person left them, the old place's commit waits under a named ref with the command that merges
/// it, and nothing is saved as a file below `.git`.
#[test]
fn commits_at_both_places_keep_the_copys_branch_and_name_the_merge() {
    let moved = Moved::new(|_| {});
    write(&moved.dst().join("a.txt"), b"edited at the copy\n");
    commit_all(&moved.dst(), "at the copy");
    let mine = moved.at_copy(&["rev-parse", "HEAD"]);
    write(&moved.src().join("b.txt"), b"edited at the old place\n");
    fs::remove_file(moved.src().join("c.txt")).unwrap();
    commit_all(&moved.src(), "at the old place");
    let theirs = git(&moved.src(), &["rev-parse", "HEAD"]).trim().to_string();

    let out = moved.migrate(&["--sync", "--yes"]);
    out.ok();
    assert_eq!(
        moved.at_copy(&["rev-parse", "HEAD"]),
        mine,
        "{}",
        text(&out)
    );
    assert_eq!(moved.at_copy(&["status", "--short"]), "", "{}", text(&out));
    assert_eq!(moved.at_copy(&["diff", "--cached"]), "", "{}", text(&out));
    assert_eq!(
        saved_versions(&moved.dst().join(".git")),
        Vec::<PathBuf>::new()
    );
    assert_eq!(saved_versions(&moved.dst()), Vec::<PathBuf>::new());
    // The old place's commit is not in the work tree as edits: c.txt, removed by it, stays.
    assert_eq!(fs::read(moved.dst().join("b.txt")).unwrap(), b"b.txt\n");
    assert!(moved.dst().join("c.txt").is_file());
    assert_eq!(
        moved.at_copy(&["rev-parse", "refs/wsl-place/old-place/heads/main"]),
        theirs
    );
    let merge = format!(
        "git -C {} merge refs/wsl-place/old-place/heads/main",
        moved.dst().display()
    );
    assert!(text(&out).contains(&merge), "{}", text(&out));
    // The old place is as it was.
    assert_eq!(git(&moved.src(), &["rev-parse", "HEAD"]).trim(), theirs);
    assert_eq!(git(&moved.src(), &["status", "--short"]), "");
}

/// (b) Objects the old place's gc removed are never removed at the copy, whose refs need them.
#[test]
fn a_gc_at_the_old_place_removes_no_object_from_the_copy() {
    let moved = Moved::new(|src| {
        git(src, &["checkout", "-q", "-b", "feature"]);
        write(&src.join("f.txt"), b"on feature\n");
        commit_all(src, "feature");
        git(src, &["checkout", "-q", "main"]);
    });
    git(&moved.dst(), &["branch", "feature2", "feature"]);
    for args in [
        &["branch", "-q", "-D", "feature"][..],
        &["reflog", "expire", "--expire=now", "--all"],
        &["gc", "-q", "--prune=now"],
    ] {
        git(&moved.src(), args);
    }
    let out = moved.migrate(&["--sync", "--yes"]);
    out.ok();
    git(&moved.dst(), &["fsck", "--no-progress"]);
    assert!(
        moved
            .at_copy(&["log", "--format=%s", "feature2"])
            .starts_with("feature")
    );
    // Deleted at the old place, the branch stays at the copy.
    moved.at_copy(&["rev-parse", "--verify", "refs/heads/feature"]);
}

/// (c) A commit only at the old place on the checked-out branch: fast-forwarded at a clean copy,
/// its files not reported as edits; refused, and said, where the copy has an edit of its own.
#[test]
fn a_commit_only_at_the_old_place_fast_forwards_a_clean_copy_and_never_an_edited_one() {
    let moved = Moved::new(|_| {});
    write(&moved.src().join("a.txt"), b"new at the old place\n");
    commit_all(&moved.src(), "at the old place");
    let theirs = git(&moved.src(), &["rev-parse", "HEAD"]).trim().to_string();
    let sync = moved.sync_json();
    let main = history_of(&sync, "main");
    assert_eq!(main["action"], "fast_forward", "{sync}");
    assert_eq!(main["old_place_commits"], 1, "{sync}");
    assert_eq!(sync["conflicts"], serde_json::json!([]), "{sync}");
    assert_eq!(
        (&sync["changed"], &sync["added"]),
        (&0.into(), &0.into()),
        "{sync}"
    );
    assert_eq!(moved.at_copy(&["rev-parse", "HEAD"]), theirs);
    assert_eq!(
        fs::read(moved.dst().join("a.txt")).unwrap(),
        b"new at the old place\n"
    );
    assert_eq!(moved.at_copy(&["status", "--short"]), "");

    // Again, with an edit of the same file at the copy.
    write(&moved.src().join("a.txt"), b"newer at the old place\n");
    commit_all(&moved.src(), "again at the old place");
    write(&moved.dst().join("a.txt"), b"mine\n");
    let out = moved.migrate(&["--sync", "--yes", "--format", "json"]);
    let sync = out.ok_json()["sync"].clone();
    let main = history_of(&sync, "main");
    assert_eq!(main["action"], "refused", "{sync}");
    assert!(
        main["why"].as_str().is_some_and(|w| !w.is_empty()),
        "{sync}"
    );
    assert_eq!(moved.at_copy(&["rev-parse", "HEAD"]), theirs);
    assert_eq!(fs::read(moved.dst().join("a.txt")).unwrap(), b"mine\n");
    assert_eq!(saved_versions(&moved.dst()), Vec::<PathBuf>::new());
    let human = moved.migrate(&["--sync", "--dry-run"]);
    assert!(
        text(&human).contains("refs/wsl-place/old-place/heads/main"),
        "{}",
        text(&human)
    );
}

/// (d) A branch and a tag new at the old place arrive; a branch deleted there stays; a tag moved
/// there is not moved here, and said.
#[test]
fn new_branches_and_tags_arrive_and_deleted_ones_stay() {
    let moved = Moved::new(|src| {
        for branch in ["old", "ahead", "both"] {
            git(src, &["branch", branch]);
        }
        git(src, &["tag", "t0"]);
        git(src, &["tag", "same"]);
    });
    let first = moved.at_copy(&["rev-parse", "HEAD"]);
    // Branches not checked out: one moved only at the old place, one at both places.
    git(&moved.src(), &["commit", "-q", "--allow-empty", "-m", "x"]);
    let later = git(&moved.src(), &["rev-parse", "HEAD"]).trim().to_string();
    git(&moved.src(), &["branch", "-f", "ahead", "HEAD"]);
    git(&moved.src(), &["branch", "-f", "both", "HEAD"]);
    git(&moved.src(), &["reset", "-q", "--hard", "HEAD~"]);
    git(&moved.dst(), &["switch", "-q", "both"]);
    git(
        &moved.dst(),
        &["commit", "-q", "--allow-empty", "-m", "here"],
    );
    let here = moved.at_copy(&["rev-parse", "HEAD"]);
    git(&moved.dst(), &["switch", "-q", "main"]);
    write(&moved.src().join("side.txt"), b"side\n");
    git(&moved.src(), &["checkout", "-q", "-b", "topic"]);
    commit_all(&moved.src(), "on topic");
    let topic = git(&moved.src(), &["rev-parse", "HEAD"]).trim().to_string();
    git(&moved.src(), &["checkout", "-q", "main"]);
    git(&moved.src(), &["tag", "v1", "topic"]);
    git(&moved.src(), &["tag", "-f", "t0", "topic"]);
    git(&moved.src(), &["branch", "-q", "-D", "old"]);
    let dry = moved.migrate(&["--sync", "--dry-run", "--format", "json"]);
    let planned = dry.ok_json()["sync"].clone();
    assert_eq!(
        history_of(&planned, "topic")["action"],
        "create",
        "{planned}"
    );
    assert!(
        git(&moved.dst(), &["for-each-ref", "refs/wsl-place"]).is_empty(),
        "a dry run fetched"
    );

    let sync = moved.sync_json();
    assert_eq!(history_of(&sync, "topic")["action"], "create", "{sync}");
    assert_eq!(history_of(&sync, "v1")["action"], "create", "{sync}");
    assert_eq!(history_of(&sync, "t0")["action"], "tag_differs", "{sync}");
    assert_eq!(moved.at_copy(&["rev-parse", "refs/heads/topic"]), topic);
    assert_eq!(
        moved.at_copy(&["rev-parse", "refs/tags/v1^{commit}"]),
        topic
    );
    assert_eq!(
        moved.at_copy(&["rev-parse", "refs/tags/t0^{commit}"]),
        first
    );
    assert_eq!(moved.at_copy(&["rev-parse", "refs/heads/old"]), first);
    // Issue 66: only the tag that names another commit is kept beside the copy's; a new one is
    // the copy's own, and one both places hold alike is not fetched again.
    assert_eq!(
        moved.at_copy(&[
            "for-each-ref",
            "--format=%(refname)",
            "refs/wsl-place/old-place/tags/"
        ]),
        "refs/wsl-place/old-place/tags/t0"
    );
    assert_eq!(
        history_of(&sync, "ahead")["action"],
        "fast_forward",
        "{sync}"
    );
    assert_eq!(moved.at_copy(&["rev-parse", "refs/heads/ahead"]), later);
    let both = history_of(&sync, "both");
    assert_eq!(both["action"], "keep_both", "{sync}");
    assert_eq!(moved.at_copy(&["rev-parse", "refs/heads/both"]), here);
    let merge = both["merge"].as_str().unwrap();
    assert!(merge.contains("switch both && "), "{merge}");
    assert_eq!(moved.at_copy(&["rev-parse", "HEAD"]), first);
    assert_eq!(moved.at_copy(&["status", "--short"]), "");
}

/// (e) The old place's uncommitted edits still sync as files, and only they are counted.
#[test]
fn uncommitted_edits_at_the_old_place_sync_as_files() {
    let moved = Moved::new(|_| {});
    write(&moved.src().join("b.txt"), b"committed at the old place\n");
    commit_all(&moved.src(), "at the old place");
    write(&moved.src().join("a.txt"), b"not committed\n");
    write(&moved.src().join("new.txt"), b"untracked\n");
    fs::remove_file(moved.src().join("c.txt")).unwrap();
    let sync = moved.sync_json();
    assert_eq!(
        (&sync["changed"], &sync["added"], &sync["removed"]),
        (&1.into(), &1.into(), &1.into()),
        "{sync}"
    );
    assert_eq!(
        history_of(&sync, "main")["action"],
        "fast_forward",
        "{sync}"
    );
    assert_eq!(
        fs::read(moved.dst().join("a.txt")).unwrap(),
        b"not committed\n"
    );
    assert_eq!(
        fs::read(moved.dst().join("b.txt")).unwrap(),
        b"committed at the old place\n"
    );
    assert_eq!(
        fs::read(moved.dst().join("new.txt")).unwrap(),
        b"untracked\n"
    );
    assert!(!moved.dst().join("c.txt").exists());
    assert_eq!(
        git(&moved.dst(), &["status", "--short"]),
        " M a.txt\n D c.txt\n?? new.txt\n"
    );
    assert_eq!(
        moved.at_copy(&["rev-parse", "HEAD"]),
        git(&moved.src(), &["rev-parse", "HEAD"]).trim()
    );
}

/// What `check` at the old place counts is what `--sync` would carry: never git's own files,
/// and no commit once a sync has fetched it (before this, `check` said "11 files changed here"
/// right after a sync that said it had nothing left to copy).
#[test]
fn the_old_place_counts_what_a_sync_carries_and_nothing_once_synced() {
    let moved = Moved::new(|_| {});
    write(&moved.dst().join("c.txt"), b"at the copy\n");
    commit_all(&moved.dst(), "at the copy");
    write(&moved.src().join("a.txt"), b"at the old place\n");
    write(&moved.src().join("new/n.txt"), b"new at the old place\n");
    commit_all(&moved.src(), "at the old place");
    write(&moved.src().join("b.txt"), b"not committed\n");
    let sandbox = support::Sandbox::at(moved.tmp.path());
    let counted = |when: &str| {
        let check = sandbox.check_json(&moved.src(), &[]);
        let old = &check["moved"];
        (
            (
                old["commits_not_in_copy"].as_u64(),
                old["files_changed"].as_u64(),
            ),
            format!("{when}: {}", old["message"]),
        )
    };
    // The commit is one change (issue 55), not the two files it touched: b.txt is the file.
    let (before, said) = counted("before the sync");
    assert_eq!(before, (Some(1), Some(1)), "one commit and b.txt; {said}");
    assert!(
        said.contains("1 commit and 1 file not in the copy"),
        "{said}"
    );
    let sync = moved.sync_json();
    assert_eq!(sync["history"]["committed_files"], 2, "{sync}");
    let (after, said) = counted("after the sync");
    assert_eq!(after, (Some(0), Some(0)), "{said}");
    let again = moved.sync_json();
    assert_eq!(
        (&again["added"], &again["changed"], &again["removed"]),
        (&0.into(), &0.into(), &0.into()),
        "{again}"
    );
    // The commit is at the copy, kept beside its own: nothing was lost by counting it synced.
    let theirs = git(&moved.src(), &["rev-parse", "HEAD"]).trim().to_string();
    assert_eq!(
        moved.at_copy(&["rev-parse", "refs/wsl-place/old-place/heads/main"]),
        theirs
    );
}

/// (f) The old place's tip a sync kept for merging (moved at both places) stays reachable at the
/// copy when the old place then moves that branch back: the next sync's fetch moves the kept ref,
/// and the commit it named, which nothing else at the copy reaches, is kept under a ref of its
/// own that the result names (found by tests/it/sequences.rs).
#[test]
fn a_kept_old_place_tip_stays_when_the_old_place_moves_its_branch_back() {
    let moved = Moved::new(|src| {
        git(src, &["branch", "topic"]);
    });
    for (at, message) in [(moved.dst(), "here"), (moved.src(), "there")] {
        git(&at, &["switch", "-q", "topic"]);
        git(&at, &["commit", "-q", "--allow-empty", "-m", message]);
        git(&at, &["switch", "-q", "main"]);
    }
    let theirs = git(&moved.src(), &["rev-parse", "topic"])
        .trim()
        .to_string();
    let sync = moved.sync_json();
    assert_eq!(history_of(&sync, "topic")["action"], "keep_both", "{sync}");

    // At the old place: topic moved back (the person's own choice there), and main moved on.
    git(&moved.src(), &["branch", "-f", "topic", "main"]);
    write(&moved.src().join("a.txt"), b"later at the old place\n");
    commit_all(&moved.src(), "later");
    let sync = moved.sync_json();
    let all = moved.at_copy(&["rev-list", "--all"]);
    assert!(all.lines().any(|c| c == theirs), "{theirs} lost: {sync}");
    let kept = format!("refs/wsl-place/old-place-earlier/heads/topic/{theirs}");
    assert_eq!(moved.at_copy(&["rev-parse", &kept]), theirs, "{sync}");
    assert_eq!(
        sync["history"]["kept_earlier"],
        serde_json::json!([kept]),
        "{sync}"
    );
    git(&moved.dst(), &["fsck", "--no-progress", "--no-dangling"]);
}

/// Issue 66: the merge the sync names must work as given. With a file staged at the copy git
/// refuses it ("Your local changes ... would be overwritten by merge"), so the same line says to
/// commit or stash first; once that is done, the command named merges.
#[test]
fn the_merge_advice_says_to_commit_or_stash_the_copys_staged_files_first() {
    let moved = Moved::new(|_| {});
    write(&moved.dst().join("a.txt"), b"edited at the copy\n");
    commit_all(&moved.dst(), "at the copy");
    write(&moved.src().join("b.txt"), b"edited at the old place\n");
    commit_all(&moved.src(), "at the old place");
    write(&moved.dst().join("b.txt"), b"staged at the copy\n");
    git(&moved.dst(), &["add", "b.txt"]);

    let out = moved.migrate(&["--sync", "--yes"]);
    out.ok();
    let said = text(&out);
    let line = said
        .lines()
        .find(|l| l.contains("merge with:"))
        .unwrap_or_else(|| panic!("no merge advice in\n{said}"));
    assert!(
        line.contains("commit or stash the copy's 1 changed file first"),
        "{line}"
    );
    let sync = moved.sync_json();
    assert_eq!(history_of(&sync, "main")["copy_changes"], 1, "{sync}");
    // As git would have answered the bare advice: refused while the file is staged.
    let refused = std::process::Command::new("git")
        .args(["merge", "--no-edit", "refs/wsl-place/old-place/heads/main"])
        .current_dir(moved.dst())
        .output()
        .unwrap();
    assert!(!refused.status.success());
    git(&moved.dst(), &["stash"]);
    git(
        &moved.dst(),
        &["merge", "--no-edit", "refs/wsl-place/old-place/heads/main"],
    );
    assert_eq!(
        fs::read(moved.dst().join("b.txt")).unwrap(),
        b"edited at the old place\n"
    );
}
