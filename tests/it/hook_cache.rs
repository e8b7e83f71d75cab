//! The hook (`check --advisory`) on a real slow mount: what replaces a cached verdict, when a
//! provisional answer blocks, and that its line stays one line.

use crate::support;
use crate::support::{Exit, Outcome, Run};

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;
use support::SlowFs;
use support::gitrepo::files_repo;
use tempfile::TempDir;

/// Thresholds low enough that a few hundred files on slowfs at a fifth of 9p's latency are
/// clearly `move` (git status there is tens of milliseconds per hundred files, ext4 far less).
const LOW_THRESHOLDS: &str = "[thresholds]\nadvise_git_status_ms = 5\nadvise_speedup = 2\nmove_git_status_ms = 10\nmove_speedup = 3\n";

/// A home on the local disk (the baseline and the cache), a policy file, and repositories on
/// one slowfs mount.
struct Place {
    root: TempDir,
    slow: SlowFs,
}

impl Place {
    fn new(repos: &[&str]) -> Option<Self> {
        let root = tempfile::tempdir().unwrap();
        let backing = root.path().join("backing");
        for name in repos {
            let repo = backing.join(name);
            fs::create_dir_all(&repo).unwrap();
            files_repo(&repo, 300);
        }
        fs::create_dir_all(root.path().join("home")).unwrap();
        fs::write(root.path().join("policy.toml"), LOW_THRESHOLDS).unwrap();
        let slow = SlowFs::mount(
            &backing,
            &root.path().join("mnt"),
            &["--profile", "drvfs-9p", "--scale", "0.2"],
        )?;
        Some(Self { root, slow })
    }

    fn repo(&self, name: &str) -> PathBuf {
        self.slow.mountpoint().join(name)
    }

    fn cache(&self) -> PathBuf {
        self.root.path().join("home/.cache/wsl-place")
    }

    fn run(&self, args: &[&str], repo: &Path) -> Outcome {
        support::Sandbox::at(self.root.path().join("home"))
            .cmd()
            .args(args)
            .arg("--policy")
            .arg(self.root.path().join("policy.toml"))
            .arg(repo)
            .run()
    }
}

/// The one advisory cache entry.
fn only_entry(place: &Place) -> serde_json::Value {
    let files: Vec<PathBuf> = fs::read_dir(place.cache().join("advisory"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    serde_json::from_slice(&fs::read(&files[0]).unwrap()).unwrap()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The line's characters beside the repository's path (quoted or not) are within the budget.
fn assert_one_short_line(out: &Output, repo: &Path) {
    let shown = String::from_utf8_lossy(&out.stdout);
    assert_eq!(shown.lines().count(), 1, "{shown:?}");
    let line = shown.trim_end();
    let path = repo.display().to_string();
    let beside = line.replace(&format!("'{path}'"), "").replace(&path, "");
    assert!(line.len() > beside.len(), "the line names no path: {line}");
    assert!(
        beside.chars().count() <= 100,
        "{} characters: {line}",
        beside.chars().count()
    );
}

#[test]
#[ignore = "needs FUSE (/dev/fuse and fusermount3)"]
fn a_cold_clear_move_blocks_and_no_probe_never_downgrades_a_full_verdict() {
    let Some(place) = Place::new(&["app"]) else {
        return;
    };
    let repo = place.repo("app");
    // Cold: the short first look is provisional; clearly `move` (its whole range), it blocks.
    // A first look caught in a stall on a busy machine has a range reaching below `move`: then
    // it must not block and must say so. Up to four first looks, until one is clear.
    let mut blocked = false;
    for _ in 0..4 {
        // A new first look: no cached answer and no cached probe of the mounts.
        let _ = fs::remove_dir_all(place.cache());
        let cold = place.run(&["check", "--advisory", "--fail-on", "move"], &repo);
        let shown = stdout(&cold);
        assert_one_short_line(&cold, &repo);
        let entry = only_entry(&place);
        assert_eq!(entry["provisional"], true, "{entry}");
        assert_eq!(entry["level"], "move", "{entry}");
        if entry["levels"][0] == "move" {
            cold.fails(Exit::Verdict);
            assert!(
                shown.starts_with("wsl-place: move (first look: git status "),
                "{shown}"
            );
            blocked = true;
            break;
        }
        cold.ok();
        assert!(
            shown.starts_with(
                "wsl-place: move (did not block: a first look, its range reaches down to "
            ),
            "{shown}"
        );
    }
    assert!(blocked, "no first look of four was clearly `move`");

    // The full check replaces it; a `--no-probe` check (the mount's kind alone: `advise`)
    // does not replace the full one, so the hook still blocks.
    let full = place.run(&["check", "-q"], &repo);
    full.ok();
    let no_probe = place.run(&["check", "--no-probe", "--format", "json"], &repo);
    assert_eq!(support::json_of(&no_probe)["verdict"]["level"], "advise");
    let hook = place.run(&["check", "--advisory", "--fail-on", "move"], &repo);
    let shown = stdout(&hook);
    hook.fails(Exit::Verdict);
    assert!(shown.starts_with("wsl-place: move (git status "), "{shown}");
    // The full check weighed its own figures: a first look never joins the median of full
    // checks (issue 39), and two checks make no median.
    assert!(!shown.contains("median"), "{shown}");
    assert_eq!(
        only_entry(&place)["recent"].as_array().map(Vec::len),
        Some(1),
        "the first look stayed in the history"
    );
    assert_one_short_line(&hook, &repo);
    let entries = fs::read_dir(place.cache().join("advisory"))
        .unwrap()
        .count();
    assert_eq!(entries, 1);
}

/// Every file under `dir` with its bytes.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files: Vec<(PathBuf, Vec<u8>)> = fs::read_dir(dir)
        .map(|entries| {
            entries
                .map(|e| e.unwrap().path())
                .map(|p| {
                    let bytes = fs::read(&p).unwrap();
                    (p, bytes)
                })
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

#[test]
#[ignore = "needs FUSE (/dev/fuse and fusermount3)"]
fn a_second_repository_on_a_timed_mount_is_not_probed_again() {
    let Some(place) = Place::new(&["first", "second"]) else {
        return;
    };
    let mounts = place.cache().join("mounts");
    let first = place.run(&["check", "--advisory"], &place.repo("first"));
    first.ok();
    // The slow mount and the Linux disk, each timed once and kept.
    let timed = snapshot(&mounts);
    assert_eq!(
        timed.len(),
        2,
        "{:?}",
        timed.iter().map(|f| &f.0).collect::<Vec<_>>()
    );
    let second = place.run(&["check", "--advisory"], &place.repo("second"));
    second.ok();
    assert!(
        stdout(&second).starts_with("wsl-place: move (first look: "),
        "{}",
        stdout(&second)
    );
    // Every probe keeps what it measured: unchanged files mean nothing was probed again.
    assert_eq!(
        snapshot(&mounts),
        timed,
        "the second repository probed the mounts again"
    );
    // Two answers, one per repository.
    assert_eq!(
        fs::read_dir(place.cache().join("advisory"))
            .unwrap()
            .count(),
        2
    );
    // A full check takes both mounts' figures from the cache within its rule (same boot, under
    // a day: issue 54) and times only the repository's own files; --fresh measures both mounts
    // again and keeps what it measured.
    let full = place.run(&["check", "-q"], &place.repo("second"));
    full.ok();
    assert_eq!(
        snapshot(&mounts),
        timed,
        "a full check probed a cached mount again"
    );
    let fresh = place.run(&["check", "-q", "--fresh"], &place.repo("second"));
    fresh.ok();
    let after = snapshot(&mounts);
    let changed = after.iter().filter(|f| !timed.contains(f)).count();
    assert_eq!(changed, 2, "--fresh kept both mounts' new figures");
}
