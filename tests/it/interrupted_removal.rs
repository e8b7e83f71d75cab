//! Issue 63's judged case: on the slowfs emulator's drvfs-9p profile, a repository with many
//! untracked files beside its tracked ones, `--remove-source` stopped by Ctrl-C or SIGKILL at
//! its first deletions, midway, and as its last work-tree files go; then whatever `check` at the
//! old place says to do, done, up to three rounds. No file is lost, and an interrupted run
//! exits 130 with the command that goes on as its last line. Also: a copy that borrowed its
//! objects from the old place (`objects/info/alternates`) keeps its history after the removal,
//! and `--abort` refused for a commit made at the old place names `--sync` in its first line.

use crate::nothing_lost::files;
use crate::support::gitrepo::{git, init_and_commit_all, write};
use crate::support::{Outcome, Run, Signal, SlowFs, text};
use std::collections::BTreeMap;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const TRACKED: usize = 40;
const UNTRACKED: usize = 600;

struct Scene {
    tmp: tempfile::TempDir,
    slow: Option<SlowFs>,
}

impl Scene {
    /// The old place on slowfs (drvfs-9p at half its latencies), or on the local disk when
    /// `slow` is false; None after a skip.
    fn new(slow: bool) -> Option<Scene> {
        let tmp = tempfile::tempdir().unwrap();
        let backing = tmp.path().join("backing");
        std::fs::create_dir_all(&backing).unwrap();
        for dir in ["home/.local/state", "home/.cache", "home/.config", "dst"] {
            std::fs::create_dir_all(tmp.path().join(dir)).unwrap();
        }
        let slow = match slow {
            true => Some(SlowFs::mount(
                &backing,
                &tmp.path().join("mnt"),
                &["--profile", "drvfs-9p", "--scale", "0.5"],
            )?),
            false => None,
        };
        let scene = Scene { tmp, slow };
        let src = scene.src();
        for i in 0..TRACKED {
            write(
                &src.join(format!("lib/m{}/t{i}.js", i % 4)),
                format!("module.exports = {i};\n").as_bytes(),
            );
        }
        init_and_commit_all(&src, "init");
        for i in 0..UNTRACKED {
            let content = format!("untracked {i}\n{}", "d".repeat(i * 13 % 2000));
            write(
                &src.join(format!("data/d{}/f{i}.bin", i % 20)),
                content.as_bytes(),
            );
        }
        Some(scene)
    }

    fn src(&self) -> PathBuf {
        match &self.slow {
            Some(fs) => fs.mountpoint().join("app"),
            None => self.tmp.path().join("backing/app"),
        }
    }

    fn dst(&self) -> PathBuf {
        self.tmp.path().join("dst/app")
    }

    /// `wsl-place ARGS` with this scene's own home, state, cache and config folders.
    fn run(&self, args: &[&str]) -> Command {
        let mut cmd = crate::support::sandbox::Sandbox::at(self.tmp.path().join("home")).cmd();
        cmd.args(args).env("NO_COLOR", "1");
        cmd
    }

    fn migrate(&self, args: &[&str]) -> Command {
        let mut cmd = self.run(&["migrate"]);
        cmd.arg(self.src()).arg("--to").arg(self.dst()).args(args);
        cmd
    }

    /// Files below the old place that are not git's own, counted in the folder behind the
    /// mount: a walk through slowfs would take longer than the removal it watches.
    fn work_tree_files(&self) -> usize {
        let behind = self.tmp.path().join("backing/app");
        walkdir::WalkDir::new(&behind)
            .into_iter()
            .filter_entry(|e| e.file_name() != ".git")
            .flatten()
            .filter(|e| e.file_type().is_file())
            .count()
    }

    /// The command `check` at the old place names under "what to do", when it is a migrate.
    fn advised(&self) -> Option<Vec<String>> {
        if !self.src().is_dir() {
            return None;
        }
        let mut cmd = self.run(&["check", "--format", "json"]);
        cmd.arg(self.src());
        let out = cmd.run();
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).ok()?;
        let command = report["verdict"]["advice"][0]["command"].as_str()?;
        command
            .starts_with("wsl-place migrate ")
            .then(|| command.split(' ').map(str::to_string).collect())
    }

    /// What a person does next: each command `check` names, answered yes; what ran.
    fn follow_advice(&self) -> Vec<String> {
        let mut ran = Vec::new();
        for _ in 0..3 {
            let Some(command) = self.advised() else {
                break;
            };
            let mut cmd = self.run(&[]);
            cmd.args(&command[1..]).arg("--yes");
            let out = cmd.run();
            ran.push(format!(
                "{} -> {:?}\n{}",
                command.join(" "),
                out.status.code(),
                text(&out)
            ));
        }
        ran
    }
}

/// Every file of `before` exists with its bytes at the old place or the copy.
fn lost(before: &BTreeMap<PathBuf, Vec<u8>>, places: &[&Path]) -> Vec<PathBuf> {
    let now: Vec<BTreeMap<PathBuf, Vec<u8>>> = places.iter().map(|p| files(p)).collect();
    before
        .iter()
        .filter(|(rel, _)| !rel.starts_with(".git"))
        .filter(|(rel, bytes)| !now.iter().any(|tree| tree.get(*rel) == Some(*bytes)))
        .map(|(rel, _)| rel.clone())
        .collect()
}

/// When the run is stopped: once the old place has lost `share` of its work-tree files.
fn interrupted_removal(slow: bool, signal: Signal, share: f64) {
    let Some(scene) = Scene::new(slow) else {
        return;
    };
    scene.migrate(&["--yes"]).run().ok();
    let before = files(&scene.src());
    let total = scene.work_tree_files();
    let mut removal = scene.migrate(&["--remove-source", "--yes"]);
    removal
        .process_group(0)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let child = removal.spawn().unwrap();
    let target = total - ((total as f64 * share) as usize).min(total);
    let started = Instant::now();
    while scene.work_tree_files() > target && started.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(1));
    }
    // To the whole group, as a terminal's Ctrl-C: git's runs get it too.
    let group = rustix::process::Pid::from_child(&child);
    let _ = rustix::process::kill_process_group(group, signal);
    let out = Outcome::named(
        format!("--remove-source stopped by {signal:?}"),
        child.wait_with_output().unwrap(),
    );
    let left = scene.work_tree_files();
    if signal == Signal::INT {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let last = stderr.trim_end().lines().last().unwrap_or_default();
        match out.status.code() {
            Some(130) => assert!(
                last.contains("wsl-place migrate") && last.contains("--remove-source"),
                "the interrupted run's last line names no way on: {last}\n{}",
                text(&out)
            ),
            // The signal came after the last change: the run reports what it finished.
            Some(0) => assert!(!scene.src().exists() || left == 0, "{}", text(&out)),
            other => panic!("Ctrl-C ended the removal with {other:?}: {}", text(&out)),
        }
    }
    let followed = scene.follow_advice();
    let missing = lost(&before, &[&scene.src(), &scene.dst()]);
    assert!(
        missing.is_empty(),
        "{} files lost (first {:?}) after {signal:?} with {left} of {total} files left and the advice followed:\n{}",
        missing.len(),
        missing.first(),
        followed.join("\n")
    );
    // The copy's history is whole, whatever the old place's .git went through.
    git(&scene.dst(), &["fsck", "--no-progress"]);
    git(&scene.dst(), &["log", "--oneline", "-1"]);
    // Following the advice finished the removal.
    assert!(
        !scene.src().exists() || scene.work_tree_files() == 0,
        "the advice did not finish the removal: {} files left\n{}",
        scene.work_tree_files(),
        followed.join("\n")
    );
}

#[test]
#[ignore = "needs FUSE (/dev/fuse and fusermount3)"]
fn ctrl_c_at_the_first_deletions_then_the_advice_loses_nothing_on_slowfs() {
    interrupted_removal(true, Signal::INT, 0.02);
}

#[test]
#[ignore = "needs FUSE (/dev/fuse and fusermount3)"]
fn ctrl_c_midway_then_the_advice_loses_nothing_on_slowfs() {
    interrupted_removal(true, Signal::INT, 0.5);
}

#[test]
#[ignore = "needs FUSE (/dev/fuse and fusermount3)"]
fn sigkill_midway_then_the_advice_loses_nothing_on_slowfs() {
    interrupted_removal(true, Signal::KILL, 0.5);
}

#[test]
#[ignore = "needs FUSE (/dev/fuse and fusermount3)"]
fn sigkill_as_the_last_files_go_then_the_advice_loses_nothing_on_slowfs() {
    interrupted_removal(true, Signal::KILL, 0.97);
}

#[test]
#[ignore = "needs FUSE (/dev/fuse and fusermount3)"]
fn ctrl_c_as_the_last_files_go_then_the_advice_loses_nothing_on_slowfs() {
    interrupted_removal(true, Signal::INT, 0.97);
}

/// A clone that borrows its objects from a folder inside the old place's `.git` (as
/// `git clone --shared` leaves it): the copy owns them after the move, and keeps its history
/// once the old place is removed.
#[test]
fn a_copy_that_borrowed_objects_from_the_old_place_keeps_its_history() {
    let tmp = tempfile::tempdir().unwrap();
    let scene = Scene { tmp, slow: None };
    for dir in ["home/.local/state", "home/.cache", "home/.config", "dst"] {
        std::fs::create_dir_all(scene.tmp.path().join(dir)).unwrap();
    }
    let src = scene.src();
    let store = scene.tmp.path().join("store");
    write(&store.join("a.txt"), b"borrowed history\n");
    init_and_commit_all(&store, "the store's commit");
    std::fs::create_dir_all(src.parent().unwrap()).unwrap();
    git(
        scene.tmp.path(),
        &[
            "clone",
            "-q",
            "--shared",
            store.to_str().unwrap(),
            src.to_str().unwrap(),
        ],
    );
    // The store's objects moved inside the old place's .git, and the clone pointed there.
    let inside = src.join(".git/borrowed-objects");
    std::fs::rename(store.join(".git/objects"), &inside).unwrap();
    std::fs::write(
        src.join(".git/objects/info/alternates"),
        format!("{}\n", inside.display()),
    )
    .unwrap();
    std::fs::remove_dir_all(&store).unwrap();
    git(&src, &["status", "--short"]);
    assert!(git(&src, &["count-objects", "-v"]).starts_with("count: 0"));

    let moved = scene.migrate(&["--yes"]).run();
    moved.ok();
    assert!(
        text(&moved).contains("git repack -a -d"),
        "the result does not say the copy's objects were made its own: {}",
        text(&moved)
    );
    assert!(!scene.dst().join(".git/objects/info/alternates").exists());
    scene.migrate(&["--remove-source", "--yes"]).run().ok();
    assert!(!src.join(".git").exists(), "the old place's .git was kept");
    git(&scene.dst(), &["fsck", "--no-progress"]);
    let log = git(&scene.dst(), &["log", "--format=%s"]);
    assert_eq!(log.trim(), "the store's commit");
}

/// `--abort` after a commit at the old place keeps the copy, and its first line says how to
/// carry the commit over.
#[test]
fn abort_refused_for_a_commit_at_the_old_place_names_sync_first() {
    let scene = Scene::new(false).unwrap();
    scene.migrate(&["--yes"]).run().ok();
    write(&scene.src().join("lib/m0/t0.js"), b"changed\n");
    git(&scene.src(), &["commit", "-qam", "late"]);
    let out = scene.migrate(&["--abort", "--yes"]).run();
    assert_eq!(out.status.code(), Some(5), "{}", text(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let first = stderr.lines().next().unwrap_or_default();
    assert!(
        first.contains("--sync") && first.contains("wsl-place migrate"),
        "the refusal's first line names no --sync: {first}\n{stderr}"
    );
    assert!(scene.dst().join("lib/m0/t0.js").is_file());
}

/// A first copy stopped midway: `check` at the old place resumes it where it was going (the
/// person's `--to`), never starts a second copy under the default folder.
#[test]
#[ignore = "needs FUSE (/dev/fuse and fusermount3)"]
fn an_interrupted_first_copy_is_resumed_where_it_was_going_on_slowfs() {
    let Some(scene) = Scene::new(true) else {
        return;
    };
    let before = files(&scene.src());
    let mut first = scene.migrate(&["--yes"]);
    first
        .process_group(0)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let child = first.spawn().unwrap();
    let staging = scene.tmp.path().join("dst/.app.wsl-place-staging");
    let started = Instant::now();
    while !staging.join("tree").exists() && started.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(2));
    }
    let group = rustix::process::Pid::from_child(&child);
    let _ = rustix::process::kill_process_group(group, Signal::INT);
    let out = Outcome::named(
        "the first copy, interrupted",
        child.wait_with_output().unwrap(),
    );
    assert_eq!(out.status.code(), Some(130), "{}", text(&out));
    let advised = scene.advised().expect("check names a migrate command");
    let dst = scene.dst();
    assert!(
        advised
            .windows(2)
            .any(|w| w[0] == "--to" && Path::new(&w[1]) == dst),
        "the advice does not resume at the chosen folder: {advised:?}"
    );
    let followed = scene.follow_advice();
    assert!(dst.is_dir(), "{}", followed.join("\n"));
    assert!(lost(&before, &[&dst]).is_empty(), "{}", followed.join("\n"));
    assert!(
        !scene.tmp.path().join("home/src").exists(),
        "a second copy was made under the home folder"
    );
}

/// Found by the advice-following property test: a commit made at the copy, then a sync (which
/// takes the copy's `.git` into its snapshot as it stands), then `--abort` removed the copy and
/// the commit with it. The copy's history is now asked of git first.
#[test]
fn abort_after_a_sync_keeps_a_commit_made_only_at_the_copy() {
    let scene = Scene::new(false).unwrap();
    scene.migrate(&["--yes"]).run().ok();
    // No file of the work tree changes: the commit lives in `.git` alone.
    git(
        &scene.dst(),
        &["commit", "-q", "--allow-empty", "-m", "only at the copy"],
    );
    let commit = git(&scene.dst(), &["rev-parse", "HEAD"]);
    std::fs::remove_file(scene.src().join("lib/m2/t2.js")).unwrap();
    scene.migrate(&["--sync", "--yes"]).run().ok();
    let out = scene.migrate(&["--abort", "--yes"]).run();
    assert_eq!(out.status.code(), Some(5), "{}", text(&out));
    assert!(
        text(&out).contains("names a commit the old place does not have"),
        "{}",
        text(&out)
    );
    git(&scene.dst(), &["cat-file", "-e", commit.trim()]);
}
