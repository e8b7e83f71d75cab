//! The probe and the predictions, run as the binary on real mounts: tmpfs, a loop-mounted
//! ext4 and the slowfs emulator. Root-only mounts skip with a printed reason unless
//! WSL_PLACE_REQUIRE_FUSE=1 (CI), where a skip is a failure.

use crate::support;
use support::{Exit, Outcome, Run};

use serde_json::Value;
use std::path::Path;
use std::time::Duration;
use support::gitrepo::{files_repo, git, init_and_commit_all, write};
use support::{Mount, SlowFs};

fn leftovers(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".wsl-place-probe-"))
        .collect()
}

/// `check --format json --probe-budget-ms 400 EXTRA REPO` in a sandbox at `home`.
fn check(repo: &Path, home: &Path, extra: &[&str]) -> Outcome {
    support::Sandbox::at(home)
        .cmd()
        .args(["check", "--format", "json", "--probe-budget-ms", "400"])
        .args(extra)
        .arg(repo)
        .run()
}

fn probe_json(dir: &Path, budget: &str) -> Value {
    let out = support::wsl_place()
        .args(["probe", "--format", "json", "--probe-budget-ms", budget])
        .arg(dir)
        .run();
    out.ok_json()
}

fn git_status_speedup(v: &Value) -> f64 {
    v["predict"]["git_status_ms"]["speedup"]
        .as_f64()
        .unwrap_or_else(|| panic!("no speedup in {:#}", v["predict"]))
}

#[test]
fn a_local_disk_gets_two_large_writes_a_round_each_read_back() {
    // A MiB written on a local disk stays in the CPU's caches, so the bandwidth is two 8 MiB
    // writes a round there, each followed by the read-back of one MiB.
    let dir = tempfile::tempdir().unwrap();
    let v = probe_json(dir.path(), "300");
    let rounds = v["rounds"].as_u64().unwrap();
    assert!(rounds >= 1, "{v}");
    assert_eq!(
        v["ops"]["write_mib"]["samples"].as_u64(),
        Some(2 * rounds),
        "{v}"
    );
    assert_eq!(
        v["ops"]["read_mib"]["samples"].as_u64(),
        Some(2 * rounds),
        "{v}"
    );
    // Per MiB: 8 MiB in pages take longer than a MiB's worth of any single small call.
    let write = v["ops"]["write_mib"]["median_us"].as_f64().unwrap();
    let create = v["ops"]["create"]["median_us"].as_f64().unwrap();
    assert!(write > create, "{v}");
}

#[test]
fn probe_measures_every_operation_verifies_and_cleans_up() {
    let dir = tempfile::tempdir().unwrap();
    let v = probe_json(dir.path(), "300");
    for op in [
        "create",
        "read",
        "lstat",
        "readdir_entry",
        "opendir",
        "unlink",
        "mkdir",
        "rename",
        "write_mib",
    ] {
        let s = &v["ops"][op];
        assert!(s["samples"].as_u64().unwrap() > 0, "{op}: {s}");
        let us = |key: &str| {
            s[key]
                .as_f64()
                .unwrap_or_else(|| panic!("{op}: no {key} in {s}"))
        };
        let (p10, median, p90) = (us("p10_us"), us("median_us"), us("p90_us"));
        // A temporary directory on a local disk: no operation takes anywhere near a second.
        assert!(
            0.0 <= p10 && p10 <= median && median <= p90 && p90 < 1e6,
            "{op}: {s}"
        );
        if median > 0.0 {
            let spread = (p90 - p10) / median;
            assert!((us("spread") - spread).abs() < 1e-6, "{op}: {s}");
        }
    }
    assert!(v["rounds"].as_u64().unwrap() >= 1);
    assert_eq!(v["verify_errors"], 0);
    assert_eq!(
        v["verified_files"].as_u64().unwrap(),
        v["verified_bytes"].as_u64().unwrap() / 4096
    );
    assert_eq!(v["cleaned"], true);
    assert_eq!(v["parallel_lstat"].as_array().unwrap().len(), 3);
    assert!(leftovers(dir.path()).is_empty());

    let human = support::wsl_place()
        .args(["probe", "--probe-budget-ms", "200"])
        .arg(dir.path())
        .run();
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(text.contains("create+write 4K+close"), "{text}");
    assert!(text.contains("scratch removed"), "{text}");
    assert!(leftovers(dir.path()).is_empty());
}

#[test]
fn probe_times_the_repositorys_tracked_files() {
    let dir = tempfile::tempdir().unwrap();
    files_repo(dir.path(), 150);
    let v = probe_json(dir.path(), "300");
    // 128 of the 150 files: past that many a local disk's mean does not move.
    assert_eq!(
        v["tracked_lstat"]["samples"], 128,
        "{:#}",
        v["tracked_lstat"]
    );
    // `probe` measures the overlap at every thread count, on the repository's own files.
    let parallel = v["parallel_lstat"].as_array().unwrap();
    assert_eq!(parallel.len(), 3);
    assert!(
        parallel.iter().all(|l| l["source"] == "tracked"),
        "{parallel:?}"
    );
}

#[test]
#[ignore = "needs root (mounts a tmpfs)"]
fn unwritable_directory_is_a_clear_sentence_not_a_crash() {
    let Some(mount) = Mount::tmpfs("256m") else {
        return;
    };
    mount.remount_read_only();
    support::wsl_place()
        .args(["probe", "--probe-budget-ms", "200"])
        .arg(mount.point())
        .run()
        .fails(Exit::Input)
        .stderr_has("cannot create a scratch folder")
        .stderr_has("Read-only");
    // check still succeeds and says why there is no prediction.
    let home = tempfile::tempdir().unwrap();
    let v = check(mount.point(), home.path(), &[]).ok_json();
    assert_eq!(v.get("predict"), Some(&Value::Null));
    let reason = v["probe"]["current"]["skipped"].as_str().unwrap();
    assert!(reason.contains("scratch folder"), "{reason}");
    let kind = &v["probe"]["current"]["skipped_kind"];
    assert_eq!(kind["kind"], "no_scratch", "{kind}");
    assert!(
        kind["error"]
            .as_str()
            .is_some_and(|e| e.contains("Read-only")),
        "{kind}"
    );
}

#[test]
fn no_probe_leaves_probe_and_predict_out() {
    let dir = tempfile::tempdir().unwrap();
    let v = check(dir.path(), dir.path(), &["--no-probe"]).ok_json();
    assert_eq!(v.get("probe"), Some(&Value::Null), "{v:#}");
    assert_eq!(v.get("predict"), Some(&Value::Null), "{v:#}");
}

#[test]
#[ignore = "needs root (mounts a tmpfs)"]
fn tmpfs_baseline_is_refused_with_a_reason() {
    let Some(home) = Mount::tmpfs("256m") else {
        return;
    };
    let repo = tempfile::tempdir().unwrap();
    files_repo(repo.path(), 50);
    let v = check(repo.path(), home.point(), &[]).ok_json();
    assert_eq!(v["probe"].get("baseline"), Some(&Value::Null));
    let note = v["probe"]["baseline_note"].as_str().unwrap();
    assert!(
        note.contains("tmpfs") && note.contains("--baseline"),
        "{note}"
    );
    // The same reason typed, for a script to branch on.
    let kind = &v["probe"]["baseline_note_kind"];
    assert_eq!(kind["kind"], "memory", "{kind}");
    assert_eq!(kind["folder"], home.point().to_str().unwrap(), "{kind}");
    assert!(v["predict"]["git_status_ms"]["current"].as_f64().unwrap() > 0.0);
    assert_eq!(
        v["predict"]["git_status_ms"].get("baseline"),
        Some(&Value::Null)
    );
    assert!(leftovers(home.point()).is_empty() && leftovers(repo.path()).is_empty());
}

#[test]
#[ignore = "needs root (mounts a loop ext4)"]
fn same_mount_baseline_says_so_and_compares_equal() {
    let Some(disk) = Mount::ext4("128M") else {
        return;
    };
    let repo = disk.point().join("repo");
    std::fs::create_dir(&repo).unwrap();
    files_repo(&repo, 50);
    let home = disk.point().join("home");
    std::fs::create_dir(&home).unwrap();
    let v = check(&repo, &home, &[]).ok_json();
    assert_eq!(v["probe"]["baseline_same_mount"], true);
    assert_eq!(v["probe"]["baseline_note_kind"]["kind"], "same_mount");
    assert!(
        v["probe"]["baseline_note"]
            .as_str()
            .unwrap()
            .contains("same mount")
    );
    assert!((git_status_speedup(&v) - 1.0).abs() < 1e-9);
}

#[test]
#[ignore = "needs root and FUSE (mounts a loop ext4, a tmpfs and slowfs)"]
fn slowfs_repository_is_predicted_much_slower_than_tmpfs_and_ext4() {
    let Some(disk) = Mount::ext4("128M") else {
        return;
    };
    let home = disk.point().join("home");
    std::fs::create_dir(&home).unwrap();

    // The emulated /mnt/c: drvfs-9p latencies at 5%.
    let root = tempfile::tempdir().unwrap();
    let (backing, mnt) = (root.path().join("backing"), root.path().join("mnt"));
    std::fs::create_dir_all(backing.join("repo")).unwrap();
    files_repo(&backing.join("repo"), 1000);
    let Some(slow) = SlowFs::mount(
        &backing,
        &mnt,
        &["--profile", "drvfs-9p", "--scale", "0.05"],
    ) else {
        return;
    };
    let slow_repo = slow.mountpoint().join("repo");
    let slow_v = check(&slow_repo, &home, &[]).ok_json();

    let Some(fast) = Mount::tmpfs("256m") else {
        return;
    };
    files_repo(fast.point(), 1000);
    let fast_v = check(fast.point(), &home, &[]).ok_json();

    let ext4_repo = disk.point().join("repo");
    std::fs::create_dir(&ext4_repo).unwrap();
    files_repo(&ext4_repo, 1000);
    let ext4_v = check(&ext4_repo, &home, &[]).ok_json();

    let slow_ms = slow_v["predict"]["git_status_ms"]["current"]
        .as_f64()
        .unwrap();
    let fast_ms = fast_v["predict"]["git_status_ms"]["current"]
        .as_f64()
        .unwrap();
    let ext4_ms = ext4_v["predict"]["git_status_ms"]["current"]
        .as_f64()
        .unwrap();
    assert!(
        slow_ms > 5.0 * fast_ms,
        "slowfs {slow_ms} ms vs tmpfs {fast_ms} ms"
    );
    assert!(
        slow_ms > 5.0 * ext4_ms,
        "slowfs {slow_ms} ms vs ext4 {ext4_ms} ms"
    );
    assert!(git_status_speedup(&slow_v) > 5.0, "{:#}", slow_v["predict"]);
    // tmpfs and ext4 against an ext4 baseline: nothing much to gain.
    assert!(git_status_speedup(&fast_v) < 3.0, "{:#}", fast_v["predict"]);
    // Where a call waits on the mount, the overlap is measured on the repository's own files,
    // with the two threads git's preload uses for 1,000 entries.
    let slow_parallel = slow_v["probe"]["current"]["parallel_lstat"]
        .as_array()
        .unwrap();
    assert_eq!(slow_parallel.len(), 1, "{slow_parallel:?}");
    assert_eq!(slow_parallel[0]["source"], "tracked");
    assert_eq!(slow_parallel[0]["threads"], 2);
    // On a local disk `check` does not measure it: lstat is CPU work there, so the figure is
    // the serial one over the cores.
    let ext4_current = &ext4_v["probe"]["current"];
    assert_eq!(ext4_current["parallel_lstat"][0]["source"], "cores");
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let want = ext4_current["tracked_lstat"]["median_us"].as_f64().unwrap() / 2.min(cores) as f64;
    let got = ext4_current["parallel_lstat"][0]["per_entry_us"]
        .as_f64()
        .unwrap();
    assert!((got - want).abs() < 1e-9, "{got} vs {want}");
    for v in [&slow_v, &fast_v, &ext4_v] {
        assert_eq!(v["predict"]["inputs"]["tracked"], 1000);
        assert_eq!(v["probe"]["current"]["verify_errors"], 0);
    }
    let checkout_speedup = |v: &Value| {
        v["predict"]["checkout_ms"]["speedup"]
            .as_f64()
            .unwrap_or_else(|| panic!("no checkout speedup in {:#}", v["predict"]))
    };
    // A checkout writes every file: far slower through slowfs, no gain from tmpfs over ext4, and
    // the ext4 repository shares its mount with the baseline.
    assert!(checkout_speedup(&slow_v) > 5.0, "{:#}", slow_v["predict"]);
    assert!(checkout_speedup(&fast_v) < 3.0, "{:#}", fast_v["predict"]);
    assert!(
        (checkout_speedup(&ext4_v) - 1.0).abs() < 1e-9,
        "{:#}",
        ext4_v["predict"]
    );
    assert!(leftovers(&slow_repo).is_empty() && leftovers(&home).is_empty());

    // The headline leads the human report.
    let out = support::Sandbox::at(&home)
        .cmd()
        .args(["check", "--probe-budget-ms", "300"])
        .arg(&slow_repo)
        .run();
    let text = String::from_utf8_lossy(&out.stdout);
    // The verdict's word first; the headline may wrap at the default width.
    let headline = text
        .split("\n\n")
        .next()
        .unwrap_or_default()
        .replace("\n  ", " ");
    assert!(
        headline
            .split_once(": git status ~")
            .is_some_and(|(word, _)| ["ok", "advise", "move"].contains(&word))
            && headline.contains("x faster there)"),
        "{text}"
    );
}

#[test]
#[ignore = "needs FUSE (/dev/fuse and fusermount3)"]
fn ctrl_c_removes_the_scratch_folder() {
    let root = tempfile::tempdir().unwrap();
    let (backing, mnt) = (root.path().join("backing"), root.path().join("mnt"));
    std::fs::create_dir(&backing).unwrap();
    // Full drvfs-9p latency: two rounds (the fewest that can be "stable") take seconds, so the
    // probe is certainly still running when the signal arrives.
    let Some(slow) = SlowFs::mount(&backing, &mnt, &["--profile", "drvfs-9p", "--scale", "1"])
    else {
        return;
    };
    let child = support::wsl_place()
        .args(["probe", "--probe-budget-ms", "20000"])
        .arg(slow.mountpoint())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let (out, _) = support::signal_once(
        child,
        support::Signal::INT,
        "the probe's start",
        || !leftovers(slow.mountpoint()).is_empty(),
        Duration::from_secs(10),
        Duration::from_millis(100),
    );
    out.fails(Exit::Interrupted);
    assert!(leftovers(slow.mountpoint()).is_empty());
    assert!(leftovers(&backing).is_empty());
}

#[test]
fn git_walk_skips_ignored_directories_even_when_they_hold_tracked_files() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    for file in ["src/a.c", "src/b/c.c", "docs/x.md", "notes/n.txt"] {
        write(&repo.join(file), b"text\n");
    }
    for i in 0..5 {
        write(
            &repo.join(format!("vendor/p{i}/index.js")),
            b"module.exports = 1;\n",
        );
    }
    init_and_commit_all(&repo, "init");
    // Ignored after they were committed: still tracked, so git lstats them, but its walk
    // never opens the directories. Three sources of rules: .gitignore, info/exclude and
    // core.excludesFile.
    write(&repo.join(".gitignore"), b"vendor/\n");
    write(&repo.join(".git/info/exclude"), b"docs/\n");
    write(&tmp.path().join("global-ignore"), b"notes/\n");
    let global = tmp.path().join("global-ignore");
    git(
        &repo,
        &["config", "core.excludesFile", global.to_str().unwrap()],
    );
    git(&repo, &["add", ".gitignore"]);
    git(&repo, &["commit", "-q", "-m", "ignore"]);
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();

    let v = check(&repo, &home, &[]).ok_json();
    let walk = &v["probe"]["git_walk"];
    assert_eq!(walk["tracked"], 10, "{walk:#}");
    // The root, src and src/b; vendor and its five packages, docs and notes are never opened.
    assert_eq!(walk["walked_dirs"], 3, "{walk:#}");
    assert_eq!(walk["ignored_dirs"], 8, "{walk:#}");
    assert_eq!(walk["listed_tracked"], 3, "{walk:#}");
    let inputs = &v["predict"]["inputs"];
    assert_eq!(inputs["tracked"], 10, "{inputs:#}");
    assert_eq!(inputs["worktree_dirs"], 3, "{inputs:#}");
}
