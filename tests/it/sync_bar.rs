//! The bar of issue 50: one person's week after a migration, on a local disk and on slowfs
//! (drvfs-9p): commits and branches at both places, a branch deleted and garbage-collected at
//! the old place, a change staged at the copy, an edit not committed at the old place; then
//! `--sync`, `check` at the old place, and `--remove-source`. After the sync every commit either
//! place could reach is reachable at the copy, the copy's staging area is as the person left it,
//! and `git fsck` is clean there; the old place's JSON keeps its meaning (`moved.files_changed`
//! counts what a sync would still carry, `moved.source_removed` says the old place is gone).

use crate::support;
use crate::support::Run;

use serde_json::Value;
use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use support::gitrepo::{commit_all, git, init_and_commit_all, write};
use support::slowfs::SlowFs;

struct Week {
    home: PathBuf,
    old: PathBuf,
    copy: PathBuf,
}

impl Week {
    /// `app` in `work` (three files, a `feature` branch with a commit of its own), migrated.
    fn start(work: &Path, home: &Path) -> Week {
        let week = Week {
            home: home.to_path_buf(),
            old: work.join("app"),
            copy: home.join("app"),
        };
        for (name, text) in [("a.txt", "a\n"), ("lib/b.js", "b\n"), ("docs/c.md", "c\n")] {
            write(&week.old.join(name), text.as_bytes());
        }
        init_and_commit_all(&week.old, "first");
        git(&week.old, &["checkout", "-q", "-b", "feature"]);
        write(&week.old.join("f.txt"), b"on feature\n");
        commit_all(&week.old, "feature");
        git(&week.old, &["checkout", "-q", "main"]);
        week.json(&["--yes"]);
        week
    }

    fn json(&self, args: &[&str]) -> Value {
        let mut cmd = support::Sandbox::at(&self.home).migrate(&self.old, &self.copy);
        cmd.args(args).args(["--format", "json"]);
        cmd.run().ok_json()
    }

    fn check(&self) -> Value {
        support::Sandbox::at(&self.home).check_json(&self.old, &[])
    }

    /// The week: work at both places, as the issue tells it.
    fn work(&self) {
        git(&self.copy, &["branch", "feature2", "feature"]);
        write(&self.copy.join("a.txt"), b"a, edited at the copy\n");
        commit_all(&self.copy, "at the copy");
        write(&self.copy.join("lib/b.js"), b"b, staged at the copy\n");
        git(&self.copy, &["add", "lib/b.js"]);
        write(
            &self.old.join("docs/c.md"),
            b"c, committed at the old place\n",
        );
        commit_all(&self.old, "at the old place");
        for args in [
            &["branch", "-q", "-D", "feature"][..],
            &["reflog", "expire", "--expire=now", "--all"],
            &["gc", "-q", "--prune=now"],
            &["checkout", "-q", "-b", "topic"],
        ] {
            git(&self.old, args);
        }
        write(&self.old.join("t.txt"), b"on topic\n");
        commit_all(&self.old, "topic");
        git(&self.old, &["checkout", "-q", "main"]);
        git(&self.old, &["tag", "v1"]);
        write(
            &self.old.join("notes.txt"),
            b"not committed at the old place\n",
        );
    }
}

/// Every commit any ref of `repo` reaches.
fn commits(repo: &Path) -> BTreeSet<String> {
    git(repo, &["rev-list", "--all"])
        .lines()
        .map(str::to_string)
        .collect()
}

/// The staging area as git shows it: every entry's mode, object and path, and the staged diff.
fn staged(repo: &Path) -> (String, String) {
    (
        git(repo, &["ls-files", "--stage"]),
        git(repo, &["diff", "--cached"]),
    )
}

fn the_week(work: &Path, home: &Path) {
    let week = Week::start(work, home);
    week.work();
    let mut before = commits(&week.old);
    before.extend(commits(&week.copy));
    let staged_before = staged(&week.copy);
    let changed = week.check();
    // A commit is one change (issue 55): docs/c.md, as committed on main (HEAD), is the commit's.
    assert_eq!(
        (
            changed["moved"]["commits_not_in_copy"].as_u64(),
            changed["moved"]["files_changed"].as_u64(),
        ),
        (Some(1), Some(1)),
        "its commits and notes.txt only, never git's own files: {}",
        changed["moved"]
    );

    let sync = week.json(&["--sync", "--yes"])["sync"].clone();
    let at_copy = commits(&week.copy);
    let missing: Vec<&String> = before.difference(&at_copy).collect();
    assert!(
        missing.is_empty(),
        "commits lost at the copy: {missing:?}; {sync}"
    );
    assert_eq!(staged(&week.copy), staged_before, "{sync}");
    git(&week.copy, &["fsck", "--no-progress", "--no-dangling"]);
    assert_eq!(
        fs::read(week.copy.join("notes.txt")).unwrap(),
        b"not committed at the old place\n"
    );
    let actions: BTreeSet<(String, String)> = sync["history"]["refs"]
        .as_array()
        .unwrap_or_else(|| panic!("no history in {sync}"))
        .iter()
        .map(|r| (r["name"].to_string(), r["action"].to_string()))
        .collect();
    for (name, action) in [("main", "keep_both"), ("topic", "create")] {
        assert!(
            actions.contains(&(format!("{name:?}"), format!("{action:?}"))),
            "{name} should be {action}: {actions:?}"
        );
    }
    let after = week.check();
    // main moved at both places: the old place's commit is kept at the copy, so it is in it.
    assert_eq!(
        after["moved"]["commits_not_in_copy"].as_u64(),
        Some(0),
        "{}",
        after["moved"]
    );
    assert_eq!(
        after["moved"]["files_changed"].as_u64(),
        Some(0),
        "{}",
        after["moved"]
    );
    assert_eq!(
        after["moved"]["source_removed"], false,
        "{}",
        after["moved"]
    );

    let removed = week.json(&["--remove-source", "--yes"]);
    assert!(removed["removal"].is_object(), "{removed}");
    let gone = week.check();
    assert_eq!(gone["moved"]["source_removed"], true, "{}", gone["moved"]);
    assert_eq!(
        gone["moved"]["files_changed"].as_u64(),
        Some(0),
        "{}",
        gone["moved"]
    );
    git(&week.copy, &["fsck", "--no-progress", "--no-dangling"]);
    assert!(before.is_subset(&commits(&week.copy)));
}

#[test]
fn a_week_at_both_places_loses_no_commit_on_a_local_disk() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    fs::create_dir_all(root.join("home")).unwrap();
    the_week(&root.join("work"), &root.join("home"));
}

#[test]
#[ignore = "needs FUSE (/dev/fuse and fusermount3)"]
fn a_week_at_both_places_loses_no_commit_on_slowfs() {
    let tmp = tempfile::tempdir().unwrap();
    let backing = tmp.path().join("backing");
    fs::create_dir_all(&backing).unwrap();
    let Some(fs) = SlowFs::mount(
        &backing,
        &tmp.path().join("mnt"),
        &["--profile", "drvfs-9p", "--scale", "0.02"],
    ) else {
        return;
    };
    let home = tmp.path().canonicalize().unwrap().join("home");
    fs::create_dir_all(&home).unwrap();
    the_week(&fs.mountpoint().join("work"), &home);
    drop(fs);
}
