//! `wsl-place migrate` on real trees: byte-for-byte copies, refusals, fix-ups, fault injection.

use crate::support;
use crate::support::{Exit, Outcome, Run};

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use support::fakeproc::{FakeProc, WSL2_VERSION};
use support::gitrepo::{commit_all, git, write};
use support::tree::*;
use support::{Mount, text};

fn run(args: &[&std::ffi::OsStr], home: &Path) -> Outcome {
    support::Sandbox::at(home).cmd().args(args).run()
}

/// `migrate SOURCE --to DEST` and then `extra`.
fn migrate_args<'a>(
    source: &'a Path,
    dest: &'a Path,
    extra: &[&'a str],
) -> Vec<&'a std::ffi::OsStr> {
    let mut args = vec![
        os("migrate"),
        source.as_os_str(),
        os("--to"),
        dest.as_os_str(),
    ];
    args.extend(extra.iter().map(|e| os(*e)));
    args
}

fn os<S: AsRef<std::ffi::OsStr> + ?Sized>(s: &S) -> &std::ffi::OsStr {
    s.as_ref()
}

#[test]
fn migrates_a_real_repository_byte_for_byte() {
    let tmp = tempfile::tempdir().unwrap();
    let source = tmp.path().join("win/app");
    real_tree(&source);
    // git status refreshes the source's index; do it before the snapshot, not after.
    let status_before = git(&source, &["status", "--porcelain"]);
    let before = snapshot(&source);
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();

    let out = run(&[os("migrate"), source.as_os_str(), os("--yes")], &home);
    assert!(out.status.success(), "{}", text(&out));
    let dest = home.join("src/app");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains(&dest.display().to_string()), "{stdout}");
    assert!(stdout.contains("fifo: a FIFO"), "{stdout}");

    assert_eq!(before, snapshot(&source), "the source changed");
    // Fix-ups rewrite these three on purpose; everything else is identical.
    assert_same_tree(
        &source,
        &dest,
        &[
            ".git/index",
            ".git/worktrees/wt/gitdir",
            ".git/worktrees/wt/index",
            "wt/.git",
        ],
    );
    assert_eq!(
        std::fs::read_to_string(dest.join("wt/.git"))
            .unwrap()
            .trim(),
        format!("gitdir: {}", dest.join(".git/worktrees/wt").display())
    );
    assert_eq!(
        std::fs::read_to_string(dest.join(".git/worktrees/wt/gitdir"))
            .unwrap()
            .trim(),
        dest.join("wt/.git").display().to_string()
    );
    assert_eq!(git(&dest, &["status", "--porcelain"]), status_before);
    assert_eq!(git(&dest, &["log", "--oneline"]).lines().count(), 3);
    assert!(git(&dest.join("wt"), &["status", "--porcelain"]).is_empty());
    assert!(git(&dest, &["worktree", "list"]).contains(&dest.join("wt").display().to_string()));
    git(&dest, &["fsck", "--no-progress"]);

    let manifest = std::fs::read_to_string(support::Sandbox::at(&home).manifest_of(&dest)).unwrap();
    assert!(
        manifest.contains("untracked-area/caf%E9-latin1.txt"),
        "{manifest}"
    );
    assert!(manifest.contains("symlink\t../../..\tuntracked-area/escape"));
    assert!(!home.join("src/.app.wsl-place-staging").exists());
}

#[test]
fn refuses_existing_destination_and_destination_inside_source() {
    let tmp = tempfile::tempdir().unwrap();
    let source = tmp.path().join("app");
    write(&source.join("a"), b"a");
    let taken = tmp.path().join("taken");
    std::fs::create_dir_all(&taken).unwrap();
    let out = run(&migrate_args(&source, &taken, &["--yes"]), tmp.path());
    out.fails(Exit::Input);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("already exists"),
        "{}",
        text(&out)
    );
    // A free name beside it is suggested (issue 26).
    let free = format!("--to {}-2 is free", taken.display());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(&free),
        "{}",
        text(&out)
    );

    let inside = source.join("moved");
    let out = run(&migrate_args(&source, &inside, &["--yes"]), tmp.path());
    out.fails(Exit::Input);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("inside the source"),
        "{}",
        text(&out)
    );
    assert!(!inside.exists());

    let out = run(
        &migrate_args(&source, &tmp.path().join("new"), &[]),
        tmp.path(),
    );
    out.fails(Exit::Input);
    assert!(!tmp.path().join("new").exists());
}

/// Bytes available to unprivileged writes on `dir`'s file system, as df reports them.
fn df_avail_bytes(dir: &Path) -> u64 {
    let out = std::process::Command::new("df")
        .args(["-B1", "--output=avail"])
        .arg(dir)
        .run();
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines()
        .nth(1)
        .and_then(|l| l.trim().parse().ok())
        .unwrap_or_else(|| panic!("df output: {text}"))
}

#[test]
fn dry_run_prints_the_plan_and_creates_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let source = tmp.path().join("app");
    write(&source.join("index.js"), b"x");
    for i in 0..5 {
        write(
            &source.join(format!("node_modules/pkg{i}/index.js")),
            &bytes(i, 100),
        );
    }
    write(&source.join("Readme.md"), b"1");
    write(&source.join("README.md"), b"2");
    write(&source.join("aux.c"), b"3");
    let dest = tmp.path().join("out/app");
    let out = run(
        &[
            os("migrate"),
            os("--format"),
            os("json"),
            source.as_os_str(),
            os("--to"),
            dest.as_os_str(),
            os("--dry-run"),
            os("--skip-node-modules"),
        ],
        tmp.path(),
    );
    assert!(out.status.success(), "{}", text(&out));
    let plan: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON plan");
    assert_eq!(plan["files"], 4, "{plan}");
    assert_eq!(plan["node_modules"][0]["path"], "node_modules");
    assert_eq!(plan["node_modules"][0]["files"], 5);
    assert_eq!(plan["node_modules"][0]["skipped"], true);
    assert_eq!(plan["case_collisions"][0][0], "README.md");
    assert_eq!(plan["windows_invalid"][0], "aux.c");
    assert_eq!(plan["bytes"], 4, "{plan}");
    // Issue 39: what the space figure holds: the four bytes, each file a whole 4 KiB block.
    assert_eq!(plan["needed_file_bytes"], 4, "{plan}");
    assert_eq!(plan["needed_other_entries"], 0, "{plan}");
    assert_eq!(plan["needed_bytes"], 4 * 4096, "{plan}");
    // The destination's nearest existing ancestor is the temporary directory: df's figure for
    // it, give or take what other processes wrote in between.
    let free = plan["free_bytes"].as_u64().expect("free_bytes");
    let df = df_avail_bytes(tmp.path());
    assert!(
        free.abs_diff(df) <= (df / 20).max(256 << 20),
        "free_bytes {free} vs df {df}"
    );
    // Four one-byte files on a local disk: a moment, but never nothing.
    let predicted = plan["predicted_copy_ms"]
        .as_u64()
        .expect("predicted_copy_ms");
    assert!((1..1000).contains(&predicted), "{predicted} ms");
    // A local source's calls are CPU work: its threads come from the cores, 2 to 8.
    let threads = plan["copy_threads"].as_u64().expect("copy_threads");
    // Issue 39: how many files are copied at once, in those words, not the model's terms.
    assert!(
        plan["prediction_basis"].as_str().is_some_and(|b| b
            .starts_with(&format!("copying {threads} files at a time"))
            && !b.contains("lstat")
            && !b.contains("overlap")),
        "{plan}"
    );
    assert_eq!(plan["dry_run"], true, "{plan}");
    assert!((2..=8).contains(&threads), "{plan}");
    assert_eq!(plan["prediction"]["threads"], threads, "{plan}");
    assert!(
        !tmp.path().join("out").exists(),
        "a dry run created the destination's parent"
    );
}

#[test]
fn skip_node_modules_leaves_it_behind_and_remove_source_deletes_only_the_manifest() {
    let tmp = tempfile::tempdir().unwrap();
    let source = tmp.path().join("app");
    write(&source.join("index.js"), b"x");
    write(&source.join("lib/a.js"), b"a");
    write(&source.join("node_modules/pkg/index.js"), b"dep");
    mkfifo(&source.join("lib/fifo"));
    let dest = tmp.path().join("out/app");
    let out = run(
        &migrate_args(
            &source,
            &dest,
            &["--yes", "--skip-node-modules", "--remove-source"],
        ),
        tmp.path(),
    );
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(std::fs::read(dest.join("lib/a.js")).unwrap(), b"a");
    assert!(!dest.join("node_modules").exists());
    // Only what was copied is gone: the FIFO and node_modules stay, and so do their folders.
    assert!(!source.join("index.js").exists() && !source.join("lib/a.js").exists());
    assert!(source.join("lib/fifo").exists());
    assert_eq!(
        std::fs::read(source.join("node_modules/pkg/index.js")).unwrap(),
        b"dep"
    );
}

#[test]
fn windows_clone_settings_are_reset_and_modes_restored_from_the_index() {
    let tmp = tempfile::tempdir().unwrap();
    let source = tmp.path().join("app");
    std::fs::create_dir_all(&source).unwrap();
    git(&source, &["init", "-q", "-b", "main"]);
    write(&source.join("lib.rs"), b"pub fn x() {}\n");
    write(&source.join("build.sh"), b"#!/bin/sh\n");
    std::fs::set_permissions(
        source.join("build.sh"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    commit_all(&source, "init");
    // What a clone on drvfs looks like: every file 0777, and git told not to trust modes.
    for f in ["lib.rs", "build.sh"] {
        std::fs::set_permissions(source.join(f), std::fs::Permissions::from_mode(0o777)).unwrap();
    }
    git(&source, &["config", "core.filemode", "false"]);
    git(&source, &["config", "core.ignorecase", "true"]);
    git(&source, &["config", "core.autocrlf", "true"]);
    let dest = tmp.path().join("out/app");
    let out = run(&migrate_args(&source, &dest, &["--yes"]), tmp.path());
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(git(&dest, &["config", "core.filemode"]).trim(), "true");
    assert_eq!(git(&dest, &["config", "core.ignorecase"]).trim(), "false");
    // Not drvfs's doing, so --yes leaves it and says so.
    assert_eq!(git(&dest, &["config", "core.autocrlf"]).trim(), "true");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("core.autocrlf"),
        "{}",
        text(&out)
    );
    let mode = |f: &str| {
        std::fs::metadata(dest.join(f))
            .unwrap()
            .permissions()
            .mode()
            & 0o777
    };
    assert_eq!(mode("lib.rs"), 0o666);
    assert_eq!(mode("build.sh"), 0o777);
    assert_eq!(git(&dest, &["status", "--porcelain"]), "");
    // The source's configuration is its own.
    assert_eq!(git(&source, &["config", "core.filemode"]).trim(), "false");
}

#[test]
#[ignore = "needs root (mounts a tmpfs)"]
fn refuses_before_copying_when_space_is_short() {
    let Some(out) = refused_on_a_small_tmpfs("1m", |source| {
        write(&source.join("big"), &bytes(1, 3 * 1024 * 1024));
    }) else {
        return;
    };
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("not enough space"),
        "{}",
        text(&out)
    );
}

/// `migrate --yes` of a source that `fill` writes, to a tmpfs mounted with `options` that it
/// cannot fit: the run must exit 2 having written nothing there. None after a skip.
fn refused_on_a_small_tmpfs(options: &str, fill: impl Fn(&Path)) -> Option<Outcome> {
    let small = Mount::tmpfs(options)?;
    let tmp = tempfile::tempdir().unwrap();
    let source = tmp.path().join("app");
    fill(&source);
    let dest = small.point().join("app");
    let out = run(&migrate_args(&source, &dest, &["--yes"]), tmp.path());
    out.fails(Exit::Input);
    assert_eq!(
        std::fs::read_dir(small.point()).unwrap().count(),
        0,
        "something was written"
    );
    Some(out)
}

#[test]
#[ignore = "needs FUSE (/dev/fuse and fusermount3)"]
fn enospc_mid_copy_keeps_staging_for_resume_or_abort() {
    let tmp = tempfile::tempdir().unwrap();
    let source = tmp.path().join("app");
    for i in 0..40u64 {
        write(&source.join(format!("d{}/f{i}", i % 4)), &bytes(i, 100_000));
    }
    let before = snapshot(&source);
    let backing = tmp.path().join("backing");
    std::fs::create_dir_all(&backing).unwrap();
    // The plan's one scratch round at the destination writes about 1 MiB (and removes it); the
    // copy's 4 MB then runs out of space half-way.
    let Some(fs) = support::SlowFs::mount(
        &backing,
        &tmp.path().join("mnt"),
        &["--profile", "none", "--enospc-after-bytes", "2500000"],
    ) else {
        return;
    };
    let dest = fs.mountpoint().join("app");
    let args = migrate_args(&source, &dest, &["--yes"]);
    let out = run(&args, tmp.path());
    out.fails(Exit::Internal);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        // A copy worker or the journal (a one-pass run journals while it walks) meets it first.
        stderr.contains("No space left")
            && (stderr.contains("the destination is full") || stderr.contains("free some space"))
            && stderr.contains("--abort"),
        "{stderr}"
    );
    assert_eq!(before, snapshot(&source), "the source changed");
    assert!(!dest.exists());
    let staging = fs.mountpoint().join(".app.wsl-place-staging");
    assert!(staging.join("journal").is_file(), "staging was not kept");

    let out = run(
        &[args[0], args[1], args[2], args[3], os("--abort")],
        tmp.path(),
    );
    assert!(out.status.success(), "{}", text(&out));
    assert!(!staging.exists(), "--abort left the staging directory");
    assert_eq!(before, snapshot(&source), "the source changed");
}

/// A source where every call waits on a server: the copy's threads come from its parallel
/// `lstat` figures, and the copy reports how long it took beside what the plan predicted.
#[test]
#[ignore = "needs FUSE (/dev/fuse and fusermount3)"]
fn a_latency_bound_source_is_copied_with_the_threads_its_parallel_figures_allow() {
    let tmp = tempfile::tempdir().unwrap();
    let backing = tmp.path().join("backing");
    for i in 0..60u64 {
        write(
            &backing.join(format!("d{}/f{i}", i % 6)),
            &bytes(i, 3000 + 100 * i as usize),
        );
    }
    // 1 ms per lookup and attribute request, served by slowfs's 16 threads: 8 threads and
    // more overlap the calls, where the cores would have allowed 2 per core.
    let Some(fs) = support::SlowFs::mount(
        &backing,
        &tmp.path().join("mnt"),
        &[
            "--profile",
            "none",
            "--latency",
            "lookup=1",
            "--latency",
            "getattr=1",
        ],
    ) else {
        return;
    };
    let source = fs.mountpoint().to_path_buf();
    let dest = tmp.path().join("out/app");
    let plan = run(
        &migrate_args(&source, &dest, &["--dry-run", "--format", "json"]),
        tmp.path(),
    );
    assert!(plan.status.success(), "{}", text(&plan));
    let plan: serde_json::Value = serde_json::from_slice(&plan.stdout).expect("JSON plan");
    let threads = plan["copy_threads"].as_u64().expect("copy_threads");
    assert!(threads >= 8, "{plan}");
    // 60 files of a few ms of calls each: some milliseconds, not nothing, not minutes.
    let predicted = plan["predicted_copy_ms"]
        .as_u64()
        .expect("predicted_copy_ms");
    assert!((1..60_000).contains(&predicted), "{plan}");
    assert!(plan["walk_ms"].as_u64().is_some(), "{plan}");

    let out = run(
        &migrate_args(&source, &dest, &["--yes", "--format", "json"]),
        tmp.path(),
    );
    assert!(out.status.success(), "{}", text(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON report");
    assert_eq!(report["files"], 60, "{report}");
    assert!(
        report["copy_ms"].as_u64().is_some_and(|ms| ms > 0),
        "{report}"
    );
    assert_eq!(snapshot(&backing), snapshot(&dest), "the copy differs");
}

#[test]
#[ignore = "needs FUSE (/dev/fuse and fusermount3)"]
fn unreadable_source_files_are_listed_and_block_finalising() {
    let tmp = tempfile::tempdir().unwrap();
    let backing = tmp.path().join("backing");
    for i in 0..10u64 {
        write(&backing.join(format!("ok/f{i}")), &bytes(i, 5000));
    }
    write(&backing.join("bad/broken.bin"), &bytes(7, 5000));
    write(&backing.join("bad/also.bin"), &bytes(8, 50));
    let Some(fs) = support::SlowFs::mount(
        &backing,
        &tmp.path().join("mnt"),
        &["--profile", "none", "--eio-path-prefix", "bad"],
    ) else {
        return;
    };
    let source = fs.mountpoint().to_path_buf();
    let dest = tmp.path().join("out/app");
    let args = migrate_args(&source, &dest, &["--yes"]);
    let out = run(&args, tmp.path());
    assert!(!out.status.success(), "{}", text(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("bad/broken.bin") && stderr.contains("bad/also.bin"),
        "{stderr}"
    );
    assert!(stderr.contains("--skip-unreadable"), "{stderr}");
    assert!(!dest.exists(), "finalised despite unreadable files");

    let out = support::Sandbox::at(tmp.path())
        .cmd()
        .args(args)
        .arg("--skip-unreadable")
        .run();
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("bad/broken.bin"),
        "{}",
        text(&out)
    );
    for i in 0..10u64 {
        assert_eq!(
            std::fs::read(dest.join(format!("ok/f{i}"))).unwrap(),
            bytes(i, 5000)
        );
    }
    assert!(!dest.join("bad/broken.bin").exists());
    assert_eq!(
        std::fs::read(backing.join("bad/broken.bin")).unwrap(),
        bytes(7, 5000)
    );
}

#[test]
fn prints_the_windows_path_of_the_new_location_on_wsl() {
    let tmp = tempfile::tempdir().unwrap();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mountinfo");
    let mountinfo = std::fs::read_to_string(fixtures.join("wsl-9p-drvfs.mountinfo")).unwrap();
    let proc = FakeProc::new(WSL2_VERSION, &mountinfo, false);
    let source = tmp.path().join("app");
    write(&source.join("a.txt"), b"a");
    let dest = tmp.path().join("linux/app");
    let out = support::Sandbox::at(tmp.path())
        .cmd()
        .args(migrate_args(&source, &dest, &["--yes"]))
        .env("WSL_PLACE_PROC_ROOT", proc.dir.path())
        .env("WSL_DISTRO_NAME", "Ubuntu-24.04")
        .run();
    assert!(out.status.success(), "{}", text(&out));
    let unc = format!(
        "\\\\wsl.localhost\\Ubuntu-24.04{}",
        dest.display().to_string().replace('/', "\\")
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains(&unc), "expected {unc} in\n{stdout}");
    assert!(stdout.contains("code ."), "{stdout}");
    assert!(stdout.contains("explorer.exe ."), "{stdout}");
    // Off WSL, Windows' file manager is not offered.
    let plain = tmp.path().join("linux/plain");
    let out = run(&migrate_args(&source, &plain, &["--yes"]), tmp.path());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("code ."),
        "{}",
        text(&out)
    );
    assert!(!stdout.contains("explorer.exe"), "{stdout}");
}

#[test]
#[ignore = "needs FUSE (/dev/fuse and fusermount3)"]
fn a_file_that_keeps_changing_is_reported_and_blocks_finalising() {
    let tmp = tempfile::tempdir().unwrap();
    let backing = tmp.path().join("backing");
    for i in 0..5u64 {
        write(&backing.join(format!("src/f{i}")), &bytes(i, 3000));
    }
    let hot = backing.join("logs/hot.bin");
    write(&hot, &bytes(99, 1 << 20));
    // The source is a slow mount (50 ms a read: about half a second for each attempt at the
    // hot file's nine reads), so each copy attempt lasts longer than a loaded machine leaves the
    // writer below off the CPU: at 10 ms a read, a CI run with the load at 7 once copied the
    // file whole between two of its writes.
    let Some(fs) = support::SlowFs::mount(
        &backing,
        &tmp.path().join("win/app"),
        &["--profile", "none", "--latency", "read=50"],
    ) else {
        return;
    };
    let source = fs.mountpoint().to_path_buf();
    // A writer that never stops: every copy attempt sees a different size before and after.
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writer = {
        let stop = stop.clone();
        let hot = hot.clone();
        std::thread::spawn(move || {
            let file = std::fs::OpenOptions::new().write(true).open(&hot).unwrap();
            let mut grow = 0u64;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                grow = (grow + 1) % 4096;
                file.set_len((1 << 20) + grow).unwrap();
            }
        })
    };
    // The writer is running before the copy starts, not still being scheduled.
    let started = std::time::Instant::now();
    while std::fs::metadata(&hot).map(|m| m.len()).unwrap_or(0) == 1 << 20 {
        assert!(started.elapsed().as_secs() < 30, "the writer never ran");
        std::thread::yield_now();
    }
    let dest = tmp.path().join("out/app");
    let out = run(&migrate_args(&source, &dest, &["--yes"]), tmp.path());
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    writer.join().unwrap();
    assert!(!out.status.success(), "{}", text(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("logs/hot.bin"), "{}", text(&out));
    assert!(stderr.contains("kept changing"), "{}", text(&out));
    assert!(
        !dest.exists(),
        "finalised with a file that never held still"
    );

    // Once the writer is done, the same command resumes and finishes with the file as it is now.
    let out = run(&migrate_args(&source, &dest, &["--yes"]), tmp.path());
    assert!(out.status.success(), "{}", text(&out));
    assert_same_tree(&source, &dest, &[]);
}

#[test]
#[ignore = "needs FUSE (/dev/fuse and fusermount3)"]
fn ctrl_c_stops_the_copy_with_code_130_and_keeps_it_for_the_next_run() {
    let tmp = tempfile::tempdir().unwrap();
    let backing = tmp.path().join("backing");
    for i in 0..300u64 {
        write(&backing.join(format!("src/f{i}")), &bytes(i, 2000));
    }
    let before = snapshot(&backing);
    // 20 ms per read: the copy takes seconds, so it is surely running when the signal comes.
    let Some(fs) = support::SlowFs::mount(
        &backing,
        &tmp.path().join("mnt"),
        &["--profile", "none", "--latency", "read=20"],
    ) else {
        return;
    };
    let source = fs.mountpoint().to_path_buf();
    let dest = tmp.path().join("out/app");
    let staging = tmp.path().join("out/.app.wsl-place-staging");
    let args = migrate_args(&source, &dest, &["--yes"]);
    let child = support::Sandbox::at(tmp.path())
        .cmd()
        .args(&args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let (out, _) = support::signal_once(
        child,
        support::Signal::INT,
        "the copy's start",
        || staging.join("tree/src").is_dir(),
        std::time::Duration::from_secs(20),
        std::time::Duration::from_millis(200),
    );
    out.fails(Exit::Interrupted);
    let stderr = String::from_utf8_lossy(&out.stderr);
    // One line with the exact commands that resume and that abandon it.
    let again = format!(
        "wsl-place migrate {} --to {}",
        source.display(),
        dest.display()
    );
    let line = stderr
        .lines()
        .find(|l| l.contains("interrupted"))
        .unwrap_or_else(|| panic!("no interrupted line: {stderr}"));
    assert!(
        line.contains(&format!("`{again}`")) && line.contains(&format!("`{again} --abort`")),
        "{stderr}"
    );
    assert!(!dest.exists(), "finalised after Ctrl-C");
    assert!(staging.join("journal").is_file(), "staging was not kept");

    // The next run resumes and finishes; the source never changed.
    let out = run(&args, tmp.path());
    assert!(out.status.success(), "{}", text(&out));
    assert!(!staging.exists());
    drop(fs);
    assert_eq!(before, snapshot(&backing), "the source changed");
    assert_same_tree(&backing, &dest, &[]);
}

#[test]
#[ignore = "needs root (mounts a tmpfs)"]
fn refuses_before_copying_when_inodes_are_short() {
    // Plenty of bytes, 40 inodes: 60 small files cannot fit.
    let Some(out) = refused_on_a_small_tmpfs("16m,nr_inodes=40", |source| {
        for i in 0..60 {
            write(&source.join(format!("f{i}.txt")), b"x");
        }
    }) else {
        return;
    };
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("not enough free inodes"), "{}", text(&out));
    assert!(
        stderr.contains("61 files, directories and links copied"),
        "{}",
        text(&out)
    );
}

#[test]
fn without_a_terminal_it_asks_for_yes_before_walking() {
    let tmp = tempfile::tempdir().unwrap();
    let source = tmp.path().join("app");
    write(&source.join("a.txt"), b"a");
    let dest = tmp.path().join("moved");
    let out = support::Sandbox::at(tmp.path())
        .cmd()
        .args(migrate_args(&source, &dest, &[]))
        .stdin(std::process::Stdio::null())
        .run();
    out.fails(Exit::Input);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("pass --yes"), "{}", text(&out));
    // Said before the plan: nothing of it was printed.
    assert!(out.stdout.is_empty(), "{}", text(&out));
    assert!(!dest.exists());
}

#[test]
fn the_reinstall_command_fits_each_lockfile() {
    let tmp = tempfile::tempdir().unwrap();
    let source = tmp.path().join("app");
    for (dir, lock) in [
        ("a", "pnpm-lock.yaml"),
        ("b", "package-lock.json"),
        ("c", ""),
    ] {
        write(&source.join(dir).join("package.json"), b"{}");
        if !lock.is_empty() {
            write(&source.join(dir).join(lock), b"");
        }
        write(&source.join(dir).join("node_modules/x/index.js"), b"1");
    }
    let out = run(
        &migrate_args(
            &source,
            &tmp.path().join("moved"),
            &["--dry-run", "--format", "json", "--skip-node-modules"],
        ),
        tmp.path(),
    );
    assert!(out.status.success(), "{}", text(&out));
    let plan: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let installs: Vec<(&str, &str)> = plan["node_modules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| (n["path"].as_str().unwrap(), n["install"].as_str().unwrap()))
        .collect();
    assert_eq!(
        installs,
        [
            ("a/node_modules", "pnpm install --frozen-lockfile"),
            ("b/node_modules", "npm ci"),
            ("c/node_modules", "npm install")
        ]
    );
}

#[test]
fn dry_run_lists_every_question_with_what_enter_and_yes_answer() {
    let tmp = tempfile::tempdir().unwrap();
    let source = tmp.path().join("app");
    std::fs::create_dir_all(&source).unwrap();
    git(&source, &["init", "-q"]);
    write(&source.join("package-lock.json"), b"{}");
    write(&source.join("node_modules/dep/index.js"), b"1");
    // npm run on Windows: the win32 build of a platform package, and a PE addon.
    write(
        &source.join("node_modules/@esbuild/win32-x64/esbuild.exe"),
        b"MZ",
    );
    write(
        &source.join("node_modules/dep/build/Release/dep.node"),
        b"MZ\x90\0",
    );
    git(&source, &["config", "core.filemode", "false"]);
    git(&source, &["config", "core.ignorecase", "true"]);
    let dest = tmp.path().join("moved");
    let args = migrate_args(&source, &dest, &["--dry-run", "--remove-source"]);
    let mut json_args = args.clone();
    json_args.extend([os("--format"), os("json")]);
    let out = run(&json_args, tmp.path());
    assert!(out.status.success(), "{}", text(&out));
    let plan: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let questions: Vec<(&str, bool, bool)> = plan["questions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| {
            (
                q["id"].as_str().unwrap(),
                q["default"].as_bool().unwrap(),
                q["with_yes"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        questions,
        [
            // Windows builds cannot run here, so leaving it behind is the default.
            ("node_modules", true, true),
            ("core.fileMode", true, true),
            ("core.ignoreCase", true, true),
            ("remove_source", false, true),
            ("copy", true, true),
        ]
    );
    let builds = plan["node_modules"][0]["windows_builds"]
        .as_array()
        .unwrap();
    assert_eq!(
        builds,
        &[
            "node_modules/@esbuild/win32-x64",
            "node_modules/dep/build/Release/dep.node"
        ]
    );
    let human = run(&args, tmp.path());
    let shown = String::from_utf8_lossy(&human.stdout);
    for question in [
        "Leave node_modules behind",
        "core.fileMode is false",
        "core.ignoreCase is true",
        "delete from",
        "Copy, verify and move it to",
    ] {
        assert!(shown.contains(question), "{question:?} not shown:\n{shown}");
    }
    assert!(shown.contains("native Windows builds"), "{shown}");
    assert!(!dest.exists() && !tmp.path().join(".moved.wsl-place-staging").exists());

    // --yes takes those answers: node_modules stays behind, the settings are reset.
    let out = run(&migrate_args(&source, &dest, &["--yes"]), tmp.path());
    assert!(out.status.success(), "{}", text(&out));
    assert!(!dest.join("node_modules").exists());
    assert_eq!(git(&dest, &["config", "core.filemode"]).trim(), "true");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("npm ci") && stdout.contains("do not copy it over"),
        "{stdout}"
    );
}

/// `git worktree add` of a new branch `branch` at `at`, from `source`.
fn add_worktree(source: &Path, at: &Path, branch: &str) {
    git(
        source,
        &["worktree", "add", "-q", at.to_str().unwrap(), "-b", branch],
    );
}

/// The repository at `repo` records `worktree` among its linked worktrees.
fn assert_lists_worktree(repo: &Path, worktree: &Path) {
    let listed = git(repo, &["worktree", "list", "--porcelain"]);
    assert!(
        listed.contains(&format!("worktree {}\n", worktree.display())),
        "{listed}"
    );
}

#[test]
fn linked_worktrees_outside_move_along_and_are_relinked_both_ways() {
    let tmp = tempfile::tempdir().unwrap();
    let win = tmp.path().join("win");
    let source = win.join("app");
    support::gitrepo::repo_with_files(&source, 6);
    let feature = win.join("app-feature");
    let left = win.join("app-left");
    add_worktree(&source, &feature, "feature");
    add_worktree(&source, &left, "left");
    write(&feature.join("only-here.txt"), b"work in progress");
    let out_dir = tmp.path().join("out");
    // Where app-left would go is taken, so it stays attached to the old copy.
    write(&out_dir.join("app-left/keep.txt"), b"mine");
    let before = [snapshot(&source), snapshot(&feature), snapshot(&left)];
    let list_before = git(&source, &["worktree", "list", "--porcelain"]);

    let dest = out_dir.join("app");
    let plan = run(
        &migrate_args(&source, &dest, &["--dry-run", "--format", "json"]),
        tmp.path(),
    );
    assert!(plan.status.success(), "{}", text(&plan));
    let plan: serde_json::Value = serde_json::from_slice(&plan.stdout).unwrap();
    let ids: Vec<&str> = plan["questions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| q["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["worktrees", "copy"], "{plan}");

    let out = run(&migrate_args(&source, &dest, &["--yes"]), tmp.path());
    assert!(out.status.success(), "{}", text(&out));
    let moved = out_dir.join("app-feature");
    assert_same_tree(&feature, &moved, &[".git", "index"]);
    // Both ends name each other: the new worktree's .git and the new repository's record.
    assert_lists_worktree(&dest, &moved);
    assert_eq!(
        git(
            &moved,
            &["rev-parse", "--path-format=absolute", "--git-common-dir"]
        )
        .trim(),
        dest.join(".git").display().to_string()
    );
    assert_eq!(git(&moved, &["branch", "--show-current"]).trim(), "feature");
    assert_eq!(
        git(&moved, &["status", "--porcelain"]),
        "?? only-here.txt\n"
    );
    // The old copies still work with each other, untouched.
    assert_eq!(
        git(&source, &["worktree", "list", "--porcelain"]),
        list_before
    );
    assert_eq!(
        before,
        [snapshot(&source), snapshot(&feature), snapshot(&left)],
        "a source changed"
    );
    // The one that could not move is named, with what removing the source would do.
    let stdout = String::from_utf8_lossy(&out.stdout).replace('\n', " ");
    assert!(
        stdout.contains("app-left") && stdout.contains("breaks it"),
        "{}",
        text(&out)
    );
    assert_eq!(
        std::fs::read(out_dir.join("app-left/keep.txt")).unwrap(),
        b"mine"
    );
    // The new copy no longer claims it, so a repair there cannot take it from the old copy.
    git(&dest, &["worktree", "repair"]);
    assert_eq!(
        snapshot(&left),
        before[2],
        "the worktree left behind was re-pointed"
    );
    assert_eq!(
        git(
            &left,
            &["rev-parse", "--path-format=absolute", "--git-common-dir"]
        )
        .trim(),
        source.join(".git").display().to_string()
    );
    assert!(!out_dir.join(".app-feature.wsl-place-staging").exists());
}

#[test]
#[ignore = "needs FUSE (/dev/fuse and fusermount3)"]
fn a_worktree_copy_that_stops_is_resumed_by_the_repositorys_own_command() {
    let tmp = tempfile::tempdir().unwrap();
    let backing = tmp.path().join("backing");
    std::fs::create_dir_all(&backing).unwrap();
    // Reads under app-feature/bad fail, as a drive's broken sectors would.
    let Some(fs) = support::SlowFs::mount(
        &backing,
        &tmp.path().join("mnt"),
        &["--profile", "none", "--eio-path-prefix", "app-feature/bad"],
    ) else {
        return;
    };
    let drive = fs.mountpoint().to_path_buf();
    let source = drive.join("app");
    support::gitrepo::repo_with_files(&source, 4);
    let feature = drive.join("app-feature");
    add_worktree(&source, &feature, "feature");
    write(&backing.join("app-feature/bad/broken.bin"), b"unreadable");
    let dest = tmp.path().join("out/app");
    let moved = tmp.path().join("out/app-feature");
    let worktree_staging = tmp.path().join("out/.app-feature.wsl-place-staging");

    let args = migrate_args(&source, &dest, &["--yes"]);
    let out = run(&args, tmp.path());
    assert!(!out.status.success(), "{}", text(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    // The repository's command resumes it, not one for the worktree alone.
    let again = format!(
        "wsl-place migrate {} --to {}",
        source.display(),
        dest.display()
    );
    assert!(
        stderr.contains(&format!("`{again} --abort`")),
        "{}",
        text(&out)
    );
    assert!(
        !dest.exists() && !moved.exists(),
        "finalised with a worktree unread"
    );
    assert!(worktree_staging.join("journal").is_file(), "{}", text(&out));
    // The repository's copy was sealed before the worktree's stopped. One of its staged files
    // rewritten now, size and mtime put back (issue 22 item 4), is found by its bytes and
    // copied again: the manifest never vouches for bytes the copy does not hold.
    let sealed = tmp.path().join("out/.app.wsl-place-staging");
    assert!(sealed.join("finalising").is_file(), "{}", text(&out));
    let staged = sealed.join("tree/d0/f0.txt");
    let mtime = std::fs::metadata(&staged).unwrap().modified().unwrap();
    std::fs::write(&staged, b"y").unwrap();
    std::fs::File::options()
        .write(true)
        .open(&staged)
        .unwrap()
        .set_times(std::fs::FileTimes::new().set_modified(mtime))
        .unwrap();

    let out = support::Sandbox::at(tmp.path())
        .cmd()
        .args(&args)
        .arg("--skip-unreadable")
        .run();
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(std::fs::read(moved.join("d0/f0.txt")).unwrap(), b"x");
    assert_eq!(std::fs::read(dest.join("d0/f0.txt")).unwrap(), b"x");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("changed since it was verified"),
        "{}",
        text(&out)
    );
    assert!(!moved.join("bad/broken.bin").exists());
    assert_lists_worktree(&dest, &moved);
    assert!(!worktree_staging.exists() && !tmp.path().join("out/.app.wsl-place-staging").exists());
    drop(fs);
}

// Issue 22 item 15: `--abort` removes an interrupted run's staging folder and nothing else, so
// with `--remove-source` or `--dry-run` it is refused (exit 2, one sentence) before anything is
// touched: the staging folder and the source stay.
#[test]
fn abort_refuses_remove_source_and_dry_run() {
    let tmp = tempfile::tempdir().unwrap();
    let source = tmp.path().join("app");
    write(&source.join("a.txt"), b"a");
    let source = source.canonicalize().unwrap();
    let dest = tmp.path().join("out/app");
    let staging = tmp.path().join("out/.app.wsl-place-staging");
    write(
        &staging.join("source"),
        format!("{}\n", source.display()).as_bytes(),
    );
    for other in ["--remove-source", "--dry-run"] {
        let out = run(
            &migrate_args(&source, &dest, &["--abort", other]),
            tmp.path(),
        );
        out.fails(Exit::Input);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let message = stderr.trim_end().trim_start_matches("wsl-place: ");
        assert!(support::is_one_sentence(message), "{stderr}");
        assert!(
            message.contains(other) && message.contains("--abort"),
            "{stderr}"
        );
        assert!(staging.join("source").is_file(), "{other}: staging removed");
        assert_eq!(std::fs::read(source.join("a.txt")).unwrap(), b"a");
    }
}

// Issue 22 item 14: Ctrl-C while the plan is made, with staging an earlier run left: the
// message gives the commands that resume and abandon it, not "nothing was copied" alone.
#[test]
#[ignore = "needs FUSE (/dev/fuse and fusermount3)"]
fn ctrl_c_while_planning_names_the_staging_left_and_its_commands() {
    let tmp = tempfile::tempdir().unwrap();
    let backing = tmp.path().join("backing");
    for i in 0..3000u64 {
        write(&backing.join(format!("d{}/f{i}", i % 10)), b"x");
    }
    // Every lookup waits: the walk alone takes seconds.
    let Some(fs) = support::SlowFs::mount(
        &backing,
        &tmp.path().join("mnt"),
        &["--profile", "none", "--latency", "lookup=5"],
    ) else {
        return;
    };
    let source = fs.mountpoint().to_path_buf();
    let dest = tmp.path().join("out/app");
    let staging = tmp.path().join("out/.app.wsl-place-staging");
    // What a run killed right after making its staging folder leaves.
    write(
        &staging.join("source"),
        format!("{}\n", source.display()).as_bytes(),
    );
    let child = support::Sandbox::at(tmp.path())
        .cmd()
        .args(migrate_args(&source, &dest, &["--yes"]))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    // The run locks the staging folder it found before it reads the source, and plans for
    // seconds after: the signal comes once it holds the lock, not after a guessed delay.
    let (out, _) = support::signal_once(
        child,
        support::Signal::INT,
        "the lock on the staging folder",
        || support::holds_flock(pid, &staging),
        std::time::Duration::from_secs(20),
        std::time::Duration::ZERO,
    );
    out.fails(Exit::Interrupted);
    let again = format!(
        "wsl-place migrate {} --to {}",
        source.display(),
        dest.display()
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("`{again}`")) && stderr.contains(&format!("`{again} --abort`")),
        "{}",
        text(&out)
    );
    assert!(staging.join("source").is_file() && !dest.exists());
}

// Issue 22 item 11: a destination name with no room left for the staging folder and manifest
// beside it (19 bytes more, within 255 per name) is refused up front, by a dry run too, with
// the cause and the limit; the longest name that fits works.
#[test]
fn destination_names_too_long_for_the_staging_folder_are_refused_with_the_limit() {
    let tmp = tempfile::tempdir().unwrap();
    let source = tmp.path().join("app");
    write(&source.join("a.txt"), b"a");
    let out_dir = tmp.path().join("out");
    std::fs::create_dir_all(&out_dir).unwrap();
    for extra in [&[][..], &["--dry-run"][..]] {
        let mut args = vec!["--yes"];
        args.extend_from_slice(extra);
        let dest = out_dir.join("n".repeat(237));
        let out = run(&migrate_args(&source, &dest, &args), tmp.path());
        out.fails(Exit::Input);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("237 bytes")
                && stderr.contains("255")
                && stderr.contains("at most 236"),
            "{stderr}"
        );
        assert!(!stderr.contains("journal"), "{stderr}");
        assert_eq!(std::fs::read_dir(&out_dir).unwrap().count(), 0);
    }
    let dest = out_dir.join("n".repeat(236));
    let out = run(&migrate_args(&source, &dest, &["--yes"]), tmp.path());
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(std::fs::read(dest.join("a.txt")).unwrap(), b"a");
}

// Issue 22 item 12: the free-inode check counts everything the run makes (the staging folder's
// own files, the manifest, git's lock files), so on a destination with just too few inodes it
// refuses up front and never fails mid-copy with ENOSPC.
#[test]
#[ignore = "needs root (mounts a tmpfs)"]
fn the_inode_check_counts_the_staging_folders_own_files() {
    let tmp = tempfile::tempdir().unwrap();
    let source = tmp.path().join("app");
    for i in 0..198 {
        write(&source.join(format!("f{i}.txt")), b"x");
    }
    let mut finished = Vec::new();
    for inodes in 200..=212 {
        let Some(small) = Mount::tmpfs(&format!("16m,nr_inodes={inodes}")) else {
            return;
        };
        let dest = small.point().join("app");
        let out = run(&migrate_args(&source, &dest, &["--yes"]), tmp.path());
        match out.status.code() {
            Some(0) => finished.push(inodes),
            Some(2) => {
                assert!(
                    String::from_utf8_lossy(&out.stderr).contains("not enough free inodes"),
                    "{inodes}: {}",
                    text(&out)
                );
                assert_eq!(
                    std::fs::read_dir(small.point()).unwrap().count(),
                    0,
                    "{inodes}: something was written"
                );
            }
            _ => panic!("nr_inodes={inodes}: {}", text(&out)),
        }
    }
    assert!(
        !finished.is_empty() && !finished.contains(&200),
        "{finished:?}"
    );
}

// Issue 22 item 3: a worktree record whose folder is gone and made again with unrelated files,
// and one whose gitdir names /etc/.git, are not worktrees of this repository: nothing of them
// is offered, copied or given a `.git` file.
#[test]
fn stale_worktree_records_move_no_unrelated_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let source = tmp.path().join("app");
    support::gitrepo::repo_with_files(&source, 3);
    let side = tmp.path().join("side");
    add_worktree(&source, &side, "side");
    std::fs::remove_dir_all(&side).unwrap();
    write(&side.join("unrelated.txt"), b"not a worktree");
    let etc = source.join(".git/worktrees/etc");
    write(&etc.join("gitdir"), b"/etc/.git\n");
    write(&etc.join("HEAD"), b"ref: refs/heads/main\n");
    let dest = tmp.path().join("out/app");
    let plan = run(
        &migrate_args(&source, &dest, &["--dry-run", "--format", "json"]),
        tmp.path(),
    );
    let plan = support::json_of(&plan);
    assert_eq!(plan["worktrees"], serde_json::json!([]), "{plan}");
    let out = run(&migrate_args(&source, &dest, &["--yes"]), tmp.path());
    assert!(out.status.success(), "{}", text(&out));
    let made: Vec<_> = std::fs::read_dir(tmp.path().join("out"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    // The copy alone: the manifest is kept out of sight.
    assert_eq!(made, ["app"], "{made:?}");
    assert!(!side.join(".git").exists());
    assert_eq!(
        std::fs::read(side.join("unrelated.txt")).unwrap(),
        b"not a worktree"
    );
}

// Issue 22 item 2: a linked worktree migrated on its own would share its repository's record
// with the original (one index for two trees); it is refused with one sentence saying how to
// move it (with its repository), by a dry run too, and nothing anywhere is changed.
#[test]
fn a_linked_worktree_on_its_own_is_refused_with_how_to_move_it() {
    let tmp = tempfile::tempdir().unwrap();
    let main = tmp.path().join("main");
    support::gitrepo::repo_with_files(&main, 3);
    let feat = tmp.path().join("feat");
    add_worktree(&main, &feat, "feat");
    let before = [snapshot(&main), snapshot(&feat)];
    let dest = tmp.path().join("feat-new");
    for extra in [&["--yes"][..], &["--dry-run"][..]] {
        let out = run(&migrate_args(&feat, &dest, extra), tmp.path());
        out.fails(Exit::Input);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let message = stderr.trim_end().trim_start_matches("wsl-place: ");
        assert!(support::is_one_sentence(message), "{stderr}");
        assert!(
            message.contains("linked worktree")
                && message.contains(&format!("`wsl-place migrate {}`", main.display())),
            "{stderr}"
        );
    }
    assert!(!dest.exists());
    assert_eq!(
        before,
        [snapshot(&main), snapshot(&feat)],
        "a source changed"
    );
}

// Issue 22 item 16: hard links within the tree stay hard links (as `cp -a` and `rsync -H` keep
// them), each name verified, and `--remove-source` then removes every name.
#[test]
fn hard_links_within_the_tree_are_kept() {
    use std::os::unix::fs::MetadataExt;
    let tmp = tempfile::tempdir().unwrap();
    let source = tmp.path().join("app");
    write(&source.join("a.bin"), &bytes(7, 50_000));
    std::fs::create_dir_all(source.join("sub")).unwrap();
    std::fs::hard_link(source.join("a.bin"), source.join("sub/b.bin")).unwrap();
    std::fs::hard_link(source.join("a.bin"), source.join("z.bin")).unwrap();
    // A link from outside the tree: its one name inside is an ordinary file in the copy.
    write(&source.join("alone.txt"), b"alone");
    std::fs::hard_link(source.join("alone.txt"), tmp.path().join("outside.txt")).unwrap();
    let dest = tmp.path().join("out/app");
    let out = run(
        &migrate_args(&source, &dest, &["--yes", "--remove-source"]),
        tmp.path(),
    );
    assert!(out.status.success(), "{}", text(&out));
    let meta = |rel: &str| std::fs::metadata(dest.join(rel)).unwrap();
    assert_eq!(meta("a.bin").nlink(), 3);
    assert_eq!(meta("a.bin").ino(), meta("sub/b.bin").ino());
    assert_eq!(meta("a.bin").ino(), meta("z.bin").ino());
    assert_eq!(std::fs::read(dest.join("z.bin")).unwrap(), bytes(7, 50_000));
    assert_eq!(meta("alone.txt").nlink(), 1);
    let manifest =
        std::fs::read_to_string(support::Sandbox::at(tmp.path()).manifest_of(&dest)).unwrap();
    assert!(
        manifest.contains("\tsub/b.bin\n") && manifest.contains("\tz.bin\n"),
        "{manifest}"
    );
    assert!(!source.exists(), "{}", text(&out));
    assert_eq!(
        std::fs::read(tmp.path().join("outside.txt")).unwrap(),
        b"alone"
    );
}

// Issue 54: `--yes` copies while it walks (one pass); what the plan decides after the walk
// still holds: hard links stay links, symlinks stay symlinks, both names of a case collision
// are copied, and a node_modules with a Windows build, which --yes leaves behind, is not in
// the copy even though the walk met its files first.
#[test]
fn a_one_pass_move_keeps_links_collisions_and_leaves_node_modules_behind() {
    use std::os::unix::fs::MetadataExt;
    let tmp = tempfile::tempdir().unwrap();
    let source = tmp.path().join("app");
    for i in 0..300 {
        write(
            &source.join(format!("src/m{}/f{i}.rs", i % 9)),
            &bytes(i, 700),
        );
    }
    write(&source.join("a.bin"), &bytes(3, 40_000));
    std::fs::hard_link(source.join("a.bin"), source.join("src/b.bin")).unwrap();
    std::os::unix::fs::symlink("../a.bin", source.join("src/link")).unwrap();
    write(&source.join("Readme.md"), b"1");
    write(&source.join("README.md"), b"2");
    write(&source.join("node_modules/dep/index.js"), &bytes(4, 900));
    write(
        &source.join("node_modules/@esbuild/win32-x64/esbuild.exe"),
        b"MZ",
    );
    let dest = tmp.path().join("out/app");
    let out = run(
        &migrate_args(&source, &dest, &["--yes", "--format", "json"]),
        tmp.path(),
    );
    assert!(out.status.success(), "{}", text(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON report");
    let meta = |rel: &str| std::fs::symlink_metadata(dest.join(rel)).unwrap();
    assert_eq!(meta("a.bin").ino(), meta("src/b.bin").ino(), "{report}");
    assert_eq!(
        std::fs::read_link(dest.join("src/link")).unwrap(),
        Path::new("../a.bin")
    );
    assert_eq!(std::fs::read(dest.join("Readme.md")).unwrap(), b"1");
    assert_eq!(std::fs::read(dest.join("README.md")).unwrap(), b"2");
    assert!(!dest.join("node_modules").exists(), "{report}");
    let left = [
        "node_modules",
        "node_modules/dep",
        "node_modules/dep/index.js",
        "node_modules/@esbuild",
        "node_modules/@esbuild/win32-x64",
        "node_modules/@esbuild/win32-x64/esbuild.exe",
    ];
    assert_same_tree(&source, &dest, &left);
    // Every file this run copied counts once, whether the walk's copy or the one after took it.
    assert_eq!(report["copied_files"], 304, "{report}");
    let manifest =
        std::fs::read_to_string(support::Sandbox::at(tmp.path()).manifest_of(&dest)).unwrap();
    assert!(!manifest.contains("node_modules/dep"), "{manifest}");
}

// Issue 54: the journal a one-pass run writes while it walks is its own copy, not an
// interrupted run's: the plan it shows resumes nothing and needs the space of the whole tree.
#[test]
fn a_one_pass_plan_resumes_nothing_and_counts_the_whole_tree() {
    let tmp = tempfile::tempdir().unwrap();
    let source = tmp.path().join("app");
    for i in 0..200 {
        write(&source.join(format!("m{}/f{i}.rs", i % 5)), &bytes(i, 5000));
    }
    let dest = tmp.path().join("out/app");
    let out = run(&migrate_args(&source, &dest, &["--yes"]), tmp.path());
    assert!(out.status.success(), "{}", text(&out));
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(!shown.contains("interrupted run"), "{shown}");
    assert!(shown.contains("200 files"), "{shown}");
    assert!(
        !shown.contains("needs 0 B") && !shown.contains("0 B of files"),
        "{shown}"
    );
    assert_same_tree(&source, &dest, &[]);
}
