//! What `check --verify` keeps and what the correction takes from it: the repository's own
//! command-running settings off while timed, verifications under load kept out, one
//! repository never setting the mount's figure, both sides corrected on one mount, two runs at
//! once both kept, and one predicted figure per quantity on the screen.

use crate::support;
use crate::support::{Outcome, Run};

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};
use support::gitrepo::{files_repo, git, init_and_commit_all};
use support::sandbox::Sandbox;
use support::text;

fn check(sandbox: &Sandbox, repo: &Path, extra: &[&str]) -> Outcome {
    sandbox
        .cmd()
        .args(["check", "--probe-budget-ms", "300"])
        .args(extra)
        .arg(repo)
        .run()
}

fn flat(out: &std::process::Output) -> String {
    text(out).split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A committed repository of `files` files whose index is newer than its files, as in use (no
/// racily clean entries, which `--verify` would not keep).
fn repo_in_use(sandbox: &Sandbox, name: &str, files: usize) -> PathBuf {
    let repo = sandbox.path(name);
    files_repo(&repo, files);
    init_and_commit_all(&repo, "init");
    repo_index_ahead(&repo);
    repo
}

fn record_file(sandbox: &Sandbox) -> PathBuf {
    sandbox.state().join("wsl-place/accuracy.json")
}

fn record(sandbox: &Sandbox) -> Value {
    serde_json::from_slice(&std::fs::read(record_file(sandbox)).expect("the accuracy record"))
        .unwrap()
}

/// Rewrites every kept verification as a `miss`-times miss of its model figure, taken at
/// `load` per core: fixture figures, as a live mount's miss depends on the machine's load.
fn rewrite_record(sandbox: &Sandbox, miss: f64, load: Option<f64>) {
    let mut kept = record(sandbox);
    for v in kept["verifications"].as_array_mut().unwrap() {
        let model = v["model_ms"].as_f64().unwrap();
        v["predicted_ms"] = model.into();
        v["measured_ms"] = (model * miss).into();
        v["load_per_core"] = load.map_or(Value::Null, Value::from);
    }
    std::fs::write(record_file(sandbox), serde_json::to_vec(&kept).unwrap()).unwrap();
}

fn verify_times(sandbox: &Sandbox, repo: &Path, times: usize) {
    for _ in 0..times {
        let report = check(sandbox, repo, &["--format", "json", "--verify"]).ok_json();
        assert!(
            report["verify"]["measured_ms"].as_f64().unwrap() > 0.0,
            "{report}"
        );
    }
}

#[test]
fn a_repositorys_fsmonitor_hook_does_not_run_or_slow_the_verification() {
    let sandbox = Sandbox::new();
    let repo = repo_in_use(&sandbox, "repo", 40);
    let marker = sandbox.path("fsmonitor-ran");
    let hook = sandbox.path("slow-fsmonitor");
    std::fs::write(
        &hook,
        format!("#!/bin/sh\ntouch '{}'\nsleep 0.3\n", marker.display()),
    )
    .unwrap();
    std::fs::set_permissions(&hook, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    git(&repo, &["config", "core.fsmonitor", hook.to_str().unwrap()]);
    // The fixture works: a plain `git status` there (not the tests' own git, which turns
    // fsmonitor off) runs the hook.
    let plain = std::process::Command::new("git")
        .args(["status", "--short"])
        .current_dir(&repo)
        .output()
        .unwrap();
    assert!(plain.status.success(), "{}", text(&plain));
    assert!(marker.exists(), "the fixture's hook never ran");
    std::fs::remove_file(&marker).unwrap();
    repo_index_ahead(&repo);

    let report = check(&sandbox, &repo, &["--format", "json", "--verify"]).ok_json();
    let runs = report["verify"]["runs_ms"].as_array().unwrap();
    assert_eq!(runs.len(), 3, "{report}");
    assert!(!marker.exists(), "the repository's fsmonitor hook ran");
    assert!(
        runs.iter().all(|r| r.as_f64().unwrap() < 300.0),
        "a run waited for the hook: {report}"
    );
}

fn repo_index_ahead(repo: &Path) {
    let index = std::fs::File::options()
        .write(true)
        .open(repo.join(".git/index"))
        .unwrap();
    index
        .set_modified(SystemTime::now() + Duration::from_secs(5))
        .unwrap();
}

#[test]
fn verifications_taken_under_load_are_kept_but_correct_nothing() {
    let sandbox = Sandbox::new();
    let repo = repo_in_use(&sandbox, "repo", 60);
    let busy = support::fakeproc::proc_with_load(3.0);
    for _ in 0..3 {
        let out = sandbox
            .cmd()
            .args(["check", "--probe-budget-ms", "300", "--verify"])
            .env("WSL_PLACE_PROC_ROOT", busy.path())
            .arg(&repo)
            .run();
        let shown = flat(&out);
        out.ok();
        assert!(
            shown.contains(
                "taken under load (3.0 runnable per core), so it corrects no later prediction"
            ),
            "{shown}"
        );
    }
    let kept = record(&sandbox);
    let entries = kept["verifications"].as_array().unwrap();
    assert_eq!(entries.len(), 3, "kept all the same: {kept}");
    assert!(
        entries
            .iter()
            .all(|v| v["load_per_core"].as_f64() > Some(2.9))
    );

    // Three 3x misses, all under load: no correction. The same taken on a quiet machine: one.
    rewrite_record(&sandbox, 3.0, Some(3.0));
    let report = check(&sandbox, &repo, &["--format", "json"]).ok_json();
    assert!(report["accuracy"]["correction"].is_null(), "{report}");
    rewrite_record(&sandbox, 3.0, Some(0.4));
    let report = check(&sandbox, &repo, &["--format", "json"]).ok_json();
    let factor = report["accuracy"]["correction"]["git_status"]["factor"].as_f64();
    assert!(factor > Some(2.5), "{report}");
}

#[test]
fn one_repository_corrects_itself_not_every_repository_on_its_mount() {
    let sandbox = Sandbox::new();
    let slow = repo_in_use(&sandbox, "slow", 60);
    let other = repo_in_use(&sandbox, "other", 60);
    verify_times(&sandbox, &slow, 3);
    rewrite_record(&sandbox, 3.0, None);
    let own = check(&sandbox, &slow, &["--format", "json"]).ok_json();
    let correction = &own["accuracy"]["correction"]["git_status"];
    assert_eq!(correction["repositories"], 1, "{own}");
    let report = check(&sandbox, &other, &["--format", "json"]).ok_json();
    assert!(report["accuracy"]["correction"].is_null(), "{report}");
}

#[test]
fn a_repository_on_the_linux_disk_reads_about_the_same_after_corrections() {
    let sandbox = Sandbox::new();
    // The sandbox's HOME, the baseline, is on the repository's own mount.
    let repo = repo_in_use(&sandbox, "repo", 80);
    verify_times(&sandbox, &repo, 3);
    rewrite_record(&sandbox, 3.0, None);
    let report = check(&sandbox, &repo, &["--format", "json"]).ok_json();
    let status = &report["predict"]["git_status_ms"];
    let factor = report["accuracy"]["correction"]["git_status"]["factor"]
        .as_f64()
        .expect("a correction");
    assert!(factor > 2.5, "{report}");
    let speedup = status["speedup"].as_f64().unwrap();
    assert!(
        (speedup - 1.0).abs() < 1e-6,
        "the disk against itself: {status}"
    );
    let shown = flat(&check(&sandbox, &repo, &[]));
    assert!(!shown.contains("faster there"), "{shown}");
}

#[test]
fn two_verifications_at_once_are_both_kept() {
    let sandbox = Sandbox::new();
    let repo = repo_in_use(&sandbox, "repo", 40);
    let started = Instant::now();
    verify_times(&sandbox, &repo, 1);
    let alone = started.elapsed();
    // Another writer holds the record's lock: both runs wait for it rather than write past it.
    let lock = std::fs::File::create(sandbox.state().join("wsl-place/accuracy.lock")).unwrap();
    lock.lock().unwrap();
    let spawn = || {
        sandbox
            .cmd()
            .args([
                "check",
                "--probe-budget-ms",
                "300",
                "--verify",
                "--format",
                "json",
            ])
            .arg(&repo)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (mut first, mut second) = (spawn(), spawn());
    std::thread::sleep(alone * 3 + Duration::from_secs(1));
    let waiting = [first.try_wait().unwrap(), second.try_wait().unwrap()];
    // What the other writer adds while it holds the lock.
    let mut kept = record(&sandbox);
    let mut added = kept["verifications"][0].clone();
    added["path"] = "/elsewhere/other-writer".into();
    kept["verifications"].as_array_mut().unwrap().push(added);
    std::fs::write(record_file(&sandbox), serde_json::to_vec(&kept).unwrap()).unwrap();
    drop(lock);
    let outputs = [first.wait_with_output(), second.wait_with_output()];
    for out in outputs {
        let out = out.unwrap();
        assert!(out.status.success(), "{}", text(&out));
    }
    assert_eq!(waiting, [None, None], "a run wrote past the lock");
    let entries = record(&sandbox)["verifications"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(entries.len(), 4, "{entries:?}");
    assert!(
        entries
            .iter()
            .any(|v| v["path"] == "/elsewhere/other-writer")
    );
}

/// The headline's `git status` figure ("ok: git status ~8.9 ms here").
fn headline_figure(screen: &str) -> String {
    let after = screen
        .split("git status ~")
        .nth(1)
        .expect("a headline figure");
    after.split(" here").next().unwrap().to_string()
}

#[test]
fn the_verify_screen_gives_one_predicted_and_one_measured_figure_up_top() {
    let sandbox = Sandbox::new();
    let repo = repo_in_use(&sandbox, "repo", 80);
    verify_times(&sandbox, &repo, 3);
    // A correction in place: the model's, the corrected and the headline's figures differ.
    rewrite_record(&sandbox, 1.6, None);
    let out = sandbox
        .cmd()
        .args(["check", "--probe-budget-ms", "300", "--verify"])
        .env("COLUMNS", "110")
        .arg(&repo)
        .run();
    let screen = text(&out);
    out.ok();
    let first: Vec<&str> = screen.lines().take(8).collect();
    let top = first
        .join(" ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(top.contains("verified git status measured "), "{screen}");
    let shown = headline_figure(&top);
    assert!(
        top.contains(&format!("against the ~{shown} above")),
        "{screen}"
    );
    let all = screen.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(all.contains("corrected git status here x"), "{screen}");
    assert!(
        !all.contains("predicted ~") && !all.contains("from ~"),
        "{screen}"
    );
}

/// The cached probe of each mount but the one at `except` (`XDG_CACHE_HOME/wsl-place/mounts`):
/// its file and entry, as the first look left it.
fn cached_probes(sandbox: &Sandbox, except: &Path) -> Vec<(PathBuf, Value)> {
    let dir = sandbox.cache().join("wsl-place/mounts");
    let found: Vec<(PathBuf, Value)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|file| file.unwrap().path())
        .map(|file| {
            let entry = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
            (file, entry)
        })
        .filter(|(_, entry): &(PathBuf, Value)| {
            entry["report"]["mount_point"].as_str() != except.to_str()
        })
        .collect();
    assert_eq!(
        found.len(),
        1,
        "one cached probe beside {}",
        except.display()
    );
    found
}

/// Writes `probe` back with every per-call figure (`*_us`) scaled by `times`: a reference
/// timed on a busy machine.
fn slow_cached_probe((file, probe): &(PathBuf, Value), times: f64) {
    fn scale(value: &mut Value, times: f64) {
        match value {
            Value::Object(map) => {
                for (key, v) in map.iter_mut() {
                    match v.as_f64() {
                        Some(us) if key.ends_with("_us") => *v = (us * times).into(),
                        _ => scale(v, times),
                    }
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|v| scale(v, times)),
            _ => {}
        }
    }
    let mut entry = probe.clone();
    scale(&mut entry["report"], times);
    std::fs::write(file, serde_json::to_vec(&entry).unwrap()).unwrap();
}

/// The hook's first look under `--fail-on move` with `move_git_status_ms`, reusing the cached
/// mount probes (its answer cache removed): exit code and entry.
fn first_look(sandbox: &Sandbox, repo: &Path, move_ms: f64) -> (i32, Value) {
    let _ = std::fs::remove_dir_all(sandbox.cache().join("wsl-place/advisory"));
    let policy = sandbox.path("policy.toml");
    std::fs::write(
        &policy,
        format!("[thresholds]\nmove_git_status_ms = {move_ms}\n"),
    )
    .unwrap();
    let out = sandbox
        .cmd()
        .args([
            "check",
            "--advisory",
            "--fail-on",
            "move",
            "--format",
            "json",
            "--policy",
        ])
        .arg(&policy)
        .arg(repo)
        .run();
    let entry: Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out)));
    (out.status.code().unwrap_or(-1), entry)
}

/// The case: a first look several times past `move_git_status_ms` whose Linux-disk
/// reference read many times slower than the disk is (a busy machine), enough to bring the
/// speedup below `move_speedup` (20), still blocks.
#[test]
#[ignore = "needs FUSE (/dev/fuse and fusermount3)"]
fn a_first_look_with_a_slow_reference_still_blocks() {
    let sandbox = Sandbox::new();
    let root = tempfile::tempdir().unwrap();
    let backing = root.path().join("backing");
    files_repo(&backing.join("repo"), 400);
    init_and_commit_all(&backing.join("repo"), "init");
    let Some(slow) = support::slowfs::SlowFs::mount(
        &backing,
        &root.path().join("mnt"),
        &["--profile", "drvfs-9p", "--scale", "1"],
    ) else {
        return;
    };
    let repo = slow.mountpoint().join("repo");
    git(&repo, &["status", "--short"]);
    let (_, quiet) = first_look(&sandbox, &repo, 200.0);
    let quiet_reference = quiet["recent"][0]["git_status_ms"][1].as_f64().unwrap();
    let probe = cached_probes(&sandbox, slow.mountpoint()).remove(0);
    // How slow the scaled probe makes the reference is not linear in the scale (git's own
    // start-up is not scaled): the scale is sought until the speedup left is 5x-16x, well
    // under `move_speedup` (20) and over `advise_speedup` (4), as a busy machine left it.
    let mut times = 40.0;
    for _ in 0..8 {
        slow_cached_probe(&probe, times);
        let (code, entry) = first_look(&sandbox, &repo, 200.0);
        let figures = &entry["recent"][0]["git_status_ms"];
        let (here, reference) = (figures[0].as_f64().unwrap(), figures[1].as_f64().unwrap());
        let speedup = here / reference;
        if !(5.0..=16.0).contains(&speedup) {
            times *= (speedup / 10.0).clamp(0.2, 5.0);
            continue;
        }
        assert!(
            reference > 5.0 * quiet_reference,
            "{quiet_reference} then {figures}"
        );
        assert!(here > 600.0, "several times past 200 ms: {figures}");
        assert_eq!(code, 1, "it did not block: {entry}");
        return;
    }
    panic!("no scale of the cached reference probe gave a 5x-16x speedup");
}
