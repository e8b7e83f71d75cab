//! `--remove-source` and the old place's story after it (issue 50): `.git` goes or stays whole,
//! as the plan said and for the reason it gave, checked through git; never a `.git` skeleton. The
//! old place then says "removed by wsl-place on DATE; the copy is PATH" everywhere (check, the
//! hook's line, a sync there), counting none of what the tool removed. On a local disk and on
//! slowfs.

use crate::support;
use crate::support::{Outcome, Run};

use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};
use support::gitrepo::{commit_all, git, init_and_commit_all, write};
use support::slowfs::SlowFs;
use support::text;

/// A repository `app` under `root` (20 files and `lib/a.js` on `main`) migrated to `new`
/// beside the scratch folder's home.
struct Scene {
    tmp: tempfile::TempDir,
    app: PathBuf,
}

impl Scene {
    fn on(root: PathBuf, tmp: tempfile::TempDir) -> Scene {
        let app = root.join("app");
        for i in 0..20 {
            write(&app.join(format!("f{i}.txt")), format!("{i}\n").as_bytes());
        }
        write(&app.join("lib/a.js"), b"x\n");
        init_and_commit_all(&app, "init");
        fs::create_dir_all(tmp.path().join("home")).unwrap();
        let scene = Scene { tmp, app };
        let out = scene.run(&["--yes"]);
        out.ok();
        scene
    }

    fn local() -> Scene {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap().join("work");
        Scene::on(root, tmp)
    }

    fn copy(&self) -> PathBuf {
        self.tmp.path().canonicalize().unwrap().join("new")
    }

    fn sandbox(&self) -> support::Sandbox {
        support::Sandbox::at(self.tmp.path().join("home"))
    }

    fn run(&self, args: &[&str]) -> Outcome {
        self.sandbox()
            .migrate(&self.app, &self.copy())
            .args(args)
            .env("NO_COLOR", "1")
            .env("COLUMNS", "400")
            .run()
    }

    fn json(&self, args: &[&str]) -> Value {
        let mut all = vec!["--format", "json"];
        all.extend_from_slice(args);
        self.run(&all).ok_json()
    }
}

/// The plan's kept entries (after `keeps`) and the result's (after `kept N entries`), by path.
fn kept_paths(shown: &str) -> (Vec<String>, Vec<String>) {
    let plan = shown
        .split("  keeps    ")
        .nth(1)
        .map(|rest| rest.split("\nRemoved").next().unwrap_or(""))
        .unwrap_or("");
    let path = |line: &str| {
        line.trim()
            .trim_start_matches("- ")
            .split(" (")
            .next()
            .map(str::to_string)
    };
    let planned: Vec<String> = plan.lines().skip(1).filter_map(path).collect();
    let result = shown.split(" entries\n").nth(1).unwrap_or("");
    let kept: Vec<String> = result
        .lines()
        .take_while(|l| l.trim_start().starts_with("- "))
        .filter_map(path)
        .collect();
    (planned, kept)
}

/// The sequence: a commit at each place, `--sync`, a `git status` at the old place,
/// then `--remove-source --yes`.
fn commit_at_each_place_sync_then_remove(scene: &Scene) {
    let (app, copy) = (&scene.app, scene.copy());
    fs::write(copy.join("f1.txt"), "copy\n").unwrap();
    commit_all(&copy, "at the copy");
    fs::write(app.join("f2.txt"), "old place\n").unwrap();
    commit_all(app, "at the old place");
    let synced = scene.run(&["--sync", "--yes"]);
    synced.ok();
    git(app, &["status"]);

    let out = scene.run(&["--remove-source", "--yes"]);
    let shown = text(&out);
    out.ok();
    // No skeleton: git's folder went whole, its history checked in the copy.
    assert!(!app.join(".git").exists(), "a .git is left:\n{shown}");
    assert!(
        shown.contains("history  .git: every branch, tag and staged change there is in the copy"),
        "{shown}"
    );
    let (planned, kept) = kept_paths(&shown);
    assert_eq!(planned, ["f1.txt", "f2.txt"], "{shown}");
    assert_eq!(
        kept, planned,
        "the result keeps what the plan said:\n{shown}"
    );
    assert!(!app.join("f5.txt").exists(), "{shown}");
    // What is left is a plain folder, named with the command that removes it.
    let rm = format!("rm -r -- {}", app.display());
    assert!(
        shown.contains("no git repository now") && shown.contains(&rm),
        "{shown}"
    );
    // The copy holds both commits.
    let log = git(&copy, &["log", "--all", "--format=%s"]);
    assert!(
        log.contains("at the old place") && log.contains("at the copy"),
        "{log}"
    );

    // The old place's story: removed by the tool on a day, the copy, and only what is left.
    let sandbox = scene.sandbox();
    let check = sandbox.check_json(app, &[]);
    let moved = &check["moved"];
    assert_eq!(moved["source_removed"], true, "{moved}");
    assert_eq!(
        moved["removed"], 0,
        "the tool's own removal counted: {moved}"
    );
    // f2.txt stays here (the copy holds it in its history, under the old place's kept tip, until
    // the person merges), but the sync brought its commit: nothing is left for a sync to carry.
    assert_eq!(
        moved["files_changed"], 0,
        "f2.txt came through git: {moved}"
    );
    let message = moved["message"].as_str().unwrap();
    assert!(
        message.starts_with("removed by wsl-place on 20")
            && message.contains(&format!("; the copy is {}", copy.display())),
        "{message}"
    );
    let hook = sandbox.cmd().args(["check", "--advisory"]).arg(app).run();
    let line = text(&hook);
    assert!(
        line.contains("removed by wsl-place") && !line.contains(" removed)"),
        "{line}"
    );
    // A sync there would copy what the old place counts, no more.
    let dry = scene.json(&["--sync", "--dry-run"]);
    assert_eq!(
        dry["sync"]["added"].as_u64().unwrap() + dry["sync"]["changed"].as_u64().unwrap(),
        0,
        "{}",
        dry["sync"]
    );
}

#[test]
fn after_remove_source_no_git_skeleton_and_the_old_place_says_removed() {
    commit_at_each_place_sync_then_remove(&Scene::local());
}

#[test]
#[ignore = "needs FUSE (/dev/fuse and fusermount3)"]
fn after_remove_source_no_git_skeleton_on_slowfs() {
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
    let scene = Scene::on(fs.mountpoint().join("work"), tmp);
    commit_at_each_place_sync_then_remove(&scene);
    drop(scene);
    drop(fs);
}

/// `.git` kept whole for `why`, git still reading it at the old place.
fn assert_git_kept_whole(report: &Value, app: &Path, why: &str) {
    let kept: Vec<&str> = report["removal"]["kept"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        kept.iter()
            .any(|k| k.starts_with(".git (kept whole: ") && k.contains(why)),
        "{kept:?}"
    );
    assert!(
        kept.iter().all(|k| !k.starts_with(".git/")),
        "listed file by file: {kept:?}"
    );
    assert!(
        report["removal"]["plain_folder"].is_null(),
        "{}",
        report["removal"]
    );
    git(app, &["rev-parse", "--git-dir"]);
}

#[test]
fn a_branch_only_at_the_old_place_keeps_git_whole_until_a_sync_brings_it() {
    let scene = Scene::local();
    let app = &scene.app;
    git(app, &["switch", "-q", "-c", "side"]);
    write(&app.join("side.txt"), b"side\n");
    commit_all(app, "only at the old place");
    git(app, &["switch", "-q", "main"]);

    let report = scene.json(&["--remove-source", "--yes"]);
    assert_git_kept_whole(
        &report,
        app,
        "its branch side names a commit the copy does not have",
    );
    assert_eq!(
        git(app, &["log", "-1", "--format=%s", "side"]).trim(),
        "only at the old place"
    );

    // The sync brings the branch; the next removal takes .git, whole.
    let synced = scene.run(&["--sync", "--yes"]);
    synced.ok();
    let report = scene.json(&["--remove-source", "--yes"]);
    assert!(!app.exists(), "{}", report["removal"]);
    assert_eq!(
        report["removal"]["git"][0]["path"], ".git",
        "{}",
        report["removal"]
    );
}

#[test]
fn a_stash_or_a_staged_change_made_at_the_old_place_keeps_git_whole() {
    let scene = Scene::local();
    let app = &scene.app;
    fs::write(app.join("f3.txt"), "stashed\n").unwrap();
    git(app, &["stash", "-q"]);
    let report = scene.json(&["--remove-source", "--yes"]);
    assert_git_kept_whole(&report, app, "its stash");
    assert!(git(app, &["stash", "list"]).contains("stash@{0}"));

    let scene = Scene::local();
    let app = &scene.app;
    write(&app.join("staged.txt"), b"staged only\n");
    git(app, &["add", "staged.txt"]);
    fs::remove_file(app.join("staged.txt")).unwrap();
    let report = scene.json(&["--remove-source", "--yes"]);
    assert_git_kept_whole(
        &report,
        app,
        "the change staged at the old place to staged.txt",
    );
    assert_eq!(git(app, &["show", ":staged.txt"]), "staged only\n");
}

#[test]
fn a_stale_index_lock_is_not_copied_and_keeps_git_whole_at_removal() {
    let tmp = tempfile::tempdir().unwrap();
    let app = tmp.path().canonicalize().unwrap().join("work/app");
    write(&app.join("a.txt"), b"a\n");
    init_and_commit_all(&app, "init");
    // What a git that crashed at the old place leaves.
    fs::write(app.join(".git/index.lock"), b"").unwrap();
    fs::create_dir_all(tmp.path().join("home")).unwrap();
    let scene = Scene { tmp, app };
    let report = scene.json(&["--yes"]);
    let copy = scene.copy();
    assert!(
        !copy.join(".git/index.lock").exists(),
        "the lock was copied"
    );
    let done = report["fixups"]["done"].to_string();
    assert!(
        done.contains("refreshed the git index"),
        "{}",
        report["fixups"]
    );
    write(&copy.join("b.txt"), b"b\n");
    commit_all(&copy, "works at the copy");
    // No change made here: the lock is git's, not the person's.
    let check = scene.sandbox().check_json(&scene.app, &[]);
    assert_eq!(check["moved"]["files_changed"], 0, "{}", check["moved"]);
    let report = scene.json(&["--remove-source", "--yes"]);
    assert_git_kept_whole(&report, &scene.app, "its index.lock is there");
}

#[test]
fn a_record_written_before_removal_dates_still_reads_without_the_tools_removals() {
    let scene = Scene::local();
    let out = scene.run(&["--remove-source", "--yes"]);
    out.ok();
    // Make it as an earlier version left it: a .git skeleton, no day, and a count that took the
    // tool's own removals for changes.
    write(&scene.app.join(".git/logs/HEAD"), b"left\n");
    let records = scene.tmp.path().join("home/.local/state/wsl-place/moved");
    let file = fs::read_dir(&records)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let mut record: Value = serde_json::from_slice(&fs::read(&file).unwrap()).unwrap();
    record
        .as_object_mut()
        .unwrap()
        .remove("source_removed_unix");
    record["since"] =
        serde_json::json!({"added": 1, "changed": 0, "removed": 61, "bytes": 5, "unix": 1});
    fs::write(&file, serde_json::to_vec(&record).unwrap()).unwrap();

    let sandbox = scene.sandbox();
    let moved = &sandbox.check_json(&scene.app, &[])["moved"];
    assert_eq!(moved["source_removed"], true, "{moved}");
    assert_eq!(moved["files_changed"], 0, "{moved}");
    let message = moved["message"].as_str().unwrap();
    assert_eq!(
        message,
        format!(
            "removed by wsl-place; the copy is {}",
            scene.copy().display()
        ),
    );
    // The survey of the parent takes the skeleton for no repository.
    let out = sandbox
        .cmd()
        .args(["survey", "--no-probe", "--format", "json"])
        .arg(scene.app.parent().unwrap())
        .run();
    let survey = out.ok_json();
    assert_eq!(survey["summary"]["repositories"], 0, "{survey}");
    assert_eq!(survey["not_judged"][0]["path"], scene.app.to_str().unwrap());
}
