//! What a check may skip because it is a property of the machine, not of the repository: the
//! Linux disk's probe for a repository on that disk (only its tracked files are timed again),
//! git's version and start-up; and the hook's first look on a slow mount, whose scratch round
//! is the small one.

use crate::support;
use support::{Outcome, Run};

use std::fs;
use std::path::Path;
use support::SlowFs;
use support::gitrepo::{fake_git, files_repo, path_with};

/// `check --format json --probe-budget-ms 150 ARGS REPO` in a sandbox at `home`, with `path`
/// as PATH when given.
fn check(home: &Path, repo: &Path, path: Option<&std::ffi::OsStr>, args: &[&str]) -> Outcome {
    let mut command = support::Sandbox::at(home).cmd();
    command
        .args(["check", "--format", "json", "--probe-budget-ms", "150"])
        .args(args)
        .arg(repo);
    if let Some(path) = path {
        command.env("PATH", path);
    }
    command.run()
}

/// The current mount's scratch figures, which only a probe of that mount produces.
fn scratch_figures(report: &serde_json::Value) -> (f64, f64) {
    let ops = &report["probe"]["current"]["ops"];
    let median = |op: &str| {
        ops[op]["median_us"]
            .as_f64()
            .unwrap_or_else(|| panic!("no {op} median in {ops}"))
    };
    (median("create"), median("unlink"))
}

#[test]
fn a_repository_on_the_linux_disk_reuses_that_disks_probe_and_times_its_own_files() {
    let home = tempfile::tempdir().unwrap();
    let repo = tempfile::tempdir().unwrap();
    files_repo(repo.path(), 120);
    let first = check(home.path(), repo.path(), None, &[]).ok_json();
    assert_eq!(first["probe"]["baseline_same_mount"], true, "{first}");
    let second = check(home.path(), repo.path(), None, &[]).ok_json();
    assert_eq!(
        scratch_figures(&first),
        scratch_figures(&second),
        "the second check probed the Linux disk again"
    );
    let tracked = &second["probe"]["current"]["tracked_lstat"]["samples"];
    assert!(tracked.as_u64().is_some_and(|n| n > 0), "{second}");
    // `--fresh` measures everything anew.
    let fresh = check(home.path(), repo.path(), None, &["--fresh"]).ok_json();
    assert_ne!(scratch_figures(&first), scratch_figures(&fresh));
}

#[test]
fn git_is_asked_its_version_once_until_it_changes() {
    let home = tempfile::tempdir().unwrap();
    let repo = tempfile::tempdir().unwrap();
    files_repo(repo.path(), 20);
    let fake = fake_git("2.47.1");
    let log = fake.path().join("asked");
    let script = fs::read_to_string(fake.path().join("git"))
        .unwrap()
        .replacen(
            "then echo",
            &format!("then echo >> '{}'; echo", log.display()),
            1,
        );
    support::write_executable(&fake.path().join("git"), &script);
    let path = path_with(fake.path());
    // A quiet machine throughout: a start-up kept from a busy one is timed again on a quiet
    // one (tests/it/git_startup.rs), which a loaded test machine would otherwise decide.
    let quiet = crate::support::fakeproc::proc_with_load(0.1);
    let checked = || {
        support::Sandbox::at(home.path())
            .cmd()
            .args(["check", "--format", "json", "--probe-budget-ms", "150"])
            .arg(repo.path())
            .env("PATH", &path)
            .env("WSL_PLACE_PROC_ROOT", quiet.path())
            .run()
            .ok_json()
    };
    let asked = || fs::read_to_string(&log).map_or(0, |text| text.lines().count());
    let report = checked();
    assert_eq!(report["git_version"], "2.47.1", "{report}");
    assert_eq!(asked(), 3, "three timed runs the first time");
    let report = checked();
    assert_eq!(report["git_version"], "2.47.1", "{report}");
    assert_eq!(asked(), 3, "the second check asked git again");
    // Another git build (an upgrade) is asked again.
    support::write_executable(
        &fake.path().join("git"),
        &script.replace("2.47.1", "2.55.0"),
    );
    let report = checked();
    assert_eq!(report["git_version"], "2.55.0", "{report}");
    assert_eq!(asked(), 6);
}

#[test]
#[ignore = "needs FUSE (slowfs)"]
fn the_hooks_first_look_on_a_slow_mount_is_one_small_round() {
    let root = tempfile::tempdir().unwrap();
    let backing = root.path().join("backing");
    fs::create_dir_all(backing.join("repo")).unwrap();
    files_repo(&backing.join("repo"), 100);
    let Some(slow) = SlowFs::mount(
        &backing,
        &root.path().join("mnt"),
        &["--profile", "drvfs-9p", "--scale", "1"],
    ) else {
        return;
    };
    let home = root.path().join("home");
    fs::create_dir_all(&home).unwrap();
    let out = support::Sandbox::at(&home)
        .cmd()
        .args(["check", "--advisory"])
        .arg(slow.mountpoint().join("repo"))
        .run();
    out.ok();
    // The mount's figures the first look measured, kept for the next repository there.
    let cached: Vec<serde_json::Value> = fs::read_dir(home.join(".cache/wsl-place/mounts"))
        .unwrap()
        .map(|e| serde_json::from_slice(&fs::read(e.unwrap().path()).unwrap()).unwrap())
        .filter(|entry: &serde_json::Value| entry["report"]["fstype"] == "fuse")
        .collect();
    assert_eq!(cached.len(), 1, "{cached:?}");
    let report = &cached[0]["report"];
    assert_eq!(report["rounds"], 1, "{report}");
    assert_eq!(report["largest_batch"], 4, "{report}");
    assert_eq!(report["ops"]["create"]["samples"], 4, "{report}");
    assert_eq!(report["ops"]["write_mib"]["samples"], 1, "{report}");
    // A quarter MiB written, counted as a MiB: well above four 4 KiB creates.
    let write_mib = report["ops"]["write_mib"]["median_us"].as_f64().unwrap();
    let create = report["ops"]["create"]["median_us"].as_f64().unwrap();
    assert!(write_mib > 2.0 * create, "{report}");
}
