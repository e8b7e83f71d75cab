//! The repository scan, through the binary, on generated trees and real git repositories.

use crate::support;
use support::Run;

use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::process::Command as Process;
use support::gitrepo::{commit_all, git, repo_with_files, write};

/// The scan part of `check`'s report on `dir`, which must succeed and write nothing on stderr
/// (it is on a pipe).
fn scan_of(dir: &Path, extra: &[&str]) -> serde_json::Value {
    support::Sandbox::shared()
        .check(dir, extra)
        .quiet()
        .ok_json()["scan"]
        .clone()
}

fn n(v: &serde_json::Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a number: {v}"))
}

#[test]
fn scan_counts_a_generated_tree_exactly() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    // 5 files of 100 bytes at the top, 3 subdirectories with 10 files of 10 bytes each.
    for i in 0..5 {
        write(&root.join(format!("top{i}")), &[b'a'; 100]);
    }
    for d in 0..3 {
        for i in 0..10 {
            write(&root.join(format!("sub{d}/f{i}")), &[b'b'; 10]);
        }
    }
    // node_modules: 2 packages x 4 files of 1 byte, a nested node_modules counted inside it.
    for p in 0..2 {
        for i in 0..4 {
            write(&root.join(format!("node_modules/pkg{p}/f{i}.js")), b"x");
        }
    }
    write(
        &root.join("node_modules/pkg0/node_modules/inner/i.js"),
        b"yy",
    );
    write(&root.join(".venv/lib/site.py"), b"123");
    fs::create_dir_all(root.join("empty")).unwrap();

    let started = std::time::Instant::now();
    let s = scan_of(root, &[]);
    let wall_ms = started.elapsed().as_millis() as u64;
    assert_eq!(n(&s["files"]), 5 + 30 + 8 + 1 + 1);
    // sub0-2, node_modules, pkg0, pkg1, pkg0/node_modules, inner, .venv, lib, empty
    assert_eq!(n(&s["dirs"]), 11);
    assert_eq!(n(&s["symlinks"]), 0);
    assert_eq!(n(&s["bytes"]), 500 + 300 + 8 + 2 + 3);
    assert_eq!(s["complete"], true);
    assert_eq!(s["estimated"], false);
    assert_eq!(s.get("tracked"), Some(&serde_json::Value::Null));
    assert_eq!(s.get("git_dir_bytes"), Some(&serde_json::Value::Null));
    // The walk's own clock runs inside the process this test timed from outside.
    assert!(
        n(&s["elapsed_ms"]) <= wall_ms,
        "{} ms > {wall_ms} ms",
        s["elapsed_ms"]
    );
    let nm = s["node_modules"].as_array().unwrap();
    assert_eq!(
        nm.len(),
        1,
        "nested node_modules is part of the outer one: {nm:?}"
    );
    assert_eq!(nm[0]["path"], "node_modules");
    assert_eq!(n(&nm[0]["files"]), 9);
    assert_eq!(n(&nm[0]["dirs"]), 4);
    assert_eq!(n(&nm[0]["bytes"]), 10);
    let other = s["dependency_trees"].as_array().unwrap();
    assert_eq!(other.len(), 1);
    assert_eq!(other[0]["kind"], "venv");
    assert_eq!(n(&other[0]["files"]), 1);
    assert_eq!(s["largest_dirs"][0]["files"], 10);
    assert_eq!(s["largest_subtrees"][0]["path"], "sub0");
    assert_eq!(s["largest_subtrees"][0]["files"], 10);
}

#[test]
fn scan_survives_bad_input_and_counts_it() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    write(&root.join("ok/a"), b"abc");
    std::os::unix::fs::symlink("does-not-exist", root.join("dangling")).unwrap();
    std::os::unix::fs::symlink("loop2", root.join("loop1")).unwrap();
    std::os::unix::fs::symlink("loop1", root.join("loop2")).unwrap();
    std::os::unix::fs::symlink(".", root.join("ok/self")).unwrap();
    let weird = std::ffi::OsStr::from_bytes(b"caf\xe9-\xff.txt");
    write(&root.join(weird), b"12345");
    support::tree::mkfifo(&root.join("fifo"));
    let _socket = std::os::unix::net::UnixListener::bind(root.join("sock")).unwrap();
    // Hard links: three names, one inode; its 7 bytes count once.
    write(&root.join("h1"), b"1234567");
    fs::hard_link(root.join("h1"), root.join("h2")).unwrap();
    fs::hard_link(root.join("h1"), root.join("ok/h3")).unwrap();
    // An unreadable directory (root reads everything, so only meaningful as non-root).
    let locked = root.join("locked");
    write(&locked.join("hidden"), b"h");
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o000)).unwrap();
    let as_root = support::is_root();

    let s = scan_of(root, &[]);
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(n(&s["symlinks"]), 4);
    assert_eq!(n(&s["other"]), 2, "a FIFO and a socket");
    assert_eq!(n(&s["hardlinks"]), 2);
    assert_eq!(n(&s["dirs"]), 2);
    if as_root {
        assert_eq!(n(&s["files"]), 1 + 1 + 3 + 1);
        assert_eq!(n(&s["bytes"]), 3 + 5 + 7 + 1);
        assert!(s["unreadable_dirs"].as_array().unwrap().is_empty());
    } else {
        assert_eq!(n(&s["files"]), 1 + 1 + 3);
        assert_eq!(n(&s["bytes"]), 3 + 5 + 7);
        assert_eq!(s["unreadable_dirs"][0]["path"], "locked");
    }
    assert_eq!(s["complete"], true);

    // Root reads any directory, so as root the unreadable case is run again as `nobody`.
    if as_root {
        fs::set_permissions(root, fs::Permissions::from_mode(0o755)).unwrap();
        fs::set_permissions(&locked, fs::Permissions::from_mode(0o000)).unwrap();
        let out = support::Sandbox::shared()
            .program("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
            .arg(support::binary_path())
            .args(support::CHECK_JSON)
            .arg(root)
            .run();
        fs::set_permissions(&locked, fs::Permissions::from_mode(0o755)).unwrap();
        let report = out.ok_json();
        let s = &report["scan"];
        assert_eq!(n(&s["files"]), 1 + 1 + 3);
        assert_eq!(n(&s["dirs"]), 2);
        assert_eq!(s["unreadable_dirs"][0]["path"], "locked");
        assert!(
            s["unreadable_dirs"][0]["error"]
                .as_str()
                .unwrap()
                .contains("ermission")
        );
    }
}

/// Names that are not UTF-8 are written losslessly in every path field of the scan, as
/// docs/json.md says (each byte that is not UTF-8 as `%XX`), never as U+FFFD.
#[test]
fn scan_paths_that_are_not_utf8_are_written_losslessly() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join(std::ffi::OsStr::from_bytes(b"r\xff"));
    fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "-q"]);
    // More files directly in it than in any folder of `.git`, so it leads both lists.
    let many = repo.join(std::ffi::OsStr::from_bytes(b"d\xe9 100%"));
    for i in 0..40 {
        write(&many.join(format!("f{i}")), b"x");
    }
    write(
        &repo.join(std::ffi::OsStr::from_bytes(b"p\xfe/node_modules/a/i.js")),
        b"x",
    );

    let s = scan_of(&repo, &[]);
    assert_eq!(s["largest_dirs"][0]["path"], "d%E9 100%25");
    assert_eq!(s["largest_subtrees"][0]["path"], "d%E9 100%25");
    assert_eq!(s["node_modules"][0]["path"], "p%FE/node_modules");
    let git = &s["git"];
    let text = |key: &str| git[key].as_str().unwrap_or_default().to_string();
    assert!(text("worktree").ends_with("/r%FF"), "{git}");
    assert!(text("git_dir").ends_with("/r%FF/.git"), "{git}");
    assert!(text("common_dir").ends_with("/r%FF/.git"), "{git}");
}

#[test]
fn scan_of_a_real_git_repository_reads_tracked_and_git_dir() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("r");
    repo_with_files(&repo, 12);
    write(&repo.join("untracked.txt"), b"u");
    let s = scan_of(&repo, &[]);
    assert_eq!(n(&s["tracked"]), 12);
    let git_files = Process::new("find")
        .arg(repo.join(".git"))
        .args(["-type", "f"])
        .run();
    let git_files = String::from_utf8_lossy(&git_files.stdout).lines().count() as u64;
    assert_eq!(n(&s["files"]), 13 + git_files);
    assert!(n(&s["git_dir_bytes"]) > 0);
    assert_eq!(s["git"]["kind"], "repository");
    assert_eq!(n(&s["git"]["git_dir_files"]), git_files);
    assert_eq!(s["git"]["index"]["version"], 2);
    // One blob (every file holds "x"), five trees, one commit.
    assert_eq!(n(&s["git"]["loose_object_files"]), 7);

    // A broken index is reported, and the walk still counts everything.
    fs::write(repo.join(".git/index"), b"DIRC\0\0\0\x02garbage").unwrap();
    let s = scan_of(&repo, &[]);
    assert_eq!(s.get("tracked"), Some(&serde_json::Value::Null));
    assert!(s["git"]["index_error"].as_str().unwrap().contains("index"));
    assert_eq!(n(&s["files"]), 13 + git_files);
    let human = support::wsl_place()
        .args(["check", "--no-probe"])
        .arg(&repo)
        .run();
    assert!(String::from_utf8_lossy(&human.stdout).contains("index unreadable"));
}

#[test]
fn scan_of_a_linked_worktree_measures_the_shared_git_dir_apart() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("r");
    repo_with_files(&repo, 5);
    let wt = tmp.path().join("wt");
    git(&repo, &["worktree", "add", "-q", wt.to_str().unwrap()]);
    let s = scan_of(&wt, &[]);
    assert_eq!(s["git"]["kind"], "linked_worktree");
    assert_eq!(s["git"]["git_dir_inside_root"], false);
    assert_eq!(n(&s["tracked"]), 5);
    // The worktree holds 5 files and the `.git` file; the shared git dir is counted apart.
    assert_eq!(n(&s["files"]), 6);
    assert!(n(&s["git_dir_bytes"]) > 0);
}

#[test]
fn exhausted_budget_says_estimated_and_keeps_counts() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    for d in 0..40 {
        for i in 0..50 {
            write(&root.join(format!("d{d}/s/f{i}")), b"0123456789");
        }
    }
    let s = scan_of(root, &["--scan-budget-ms", "0"]);
    assert_eq!(s["complete"], false);
    assert_eq!(s["estimated"], true);
    // The root listing is always read: its 40 directories are exact, their contents are not.
    assert!(n(&s["dirs"]) >= 40);
    assert!(n(&s["counted"]["files"]) <= n(&s["files"]));
    assert!(n(&s["unvisited_dirs"]) > 0);
    let human = support::wsl_place()
        .args(["check", "--no-probe", "--scan-budget-ms", "0"])
        .arg(root)
        .run();
    let text = String::from_utf8_lossy(&human.stdout);
    // A budget of 0 lists the root only: no directory below it to estimate the rest from.
    assert!(
        text.lines()
            .any(|l| l.trim_start().starts_with("unknown ") && l.contains("scan budget")),
        "{text}"
    );

    // With time to spare the same tree is exact.
    let s = scan_of(root, &[]);
    assert_eq!(s["complete"], true);
    assert_eq!(s["totals_unknown"], false);
    assert_eq!(n(&s["files"]), 2000);
    assert_eq!(n(&s["dirs"]), 80);
    assert_eq!(n(&s["bytes"]), 20000);
}

/// The budget runs out on the root's own listing (one file, three folders): what was seen is
/// no estimate of the tree, so no report may print it as one ("~1 file").
#[test]
fn a_scan_stopped_before_listing_any_folder_says_its_totals_are_unknown() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    write(&root.join("README"), b"hello\n");
    for d in 0..3 {
        for i in 0..30 {
            write(&root.join(format!("d{d}/s/f{i}")), b"0123456789");
        }
    }
    let s = scan_of(root, &["--scan-budget-ms", "0"]);
    assert_eq!(s["complete"], false, "{s}");
    assert_eq!(s["totals_unknown"], true, "{s}");
    // The keys stay, holding what was counted: a floor, not an estimate.
    assert_eq!(s["files"], s["counted"]["files"], "{s}");
    assert_eq!(n(&s["files"]), 1, "{s}");
    assert_eq!(n(&s["dirs"]), 3, "{s}");

    let human = |format: &str| {
        let out = support::wsl_place()
            .args([
                "check",
                "--no-probe",
                "--scan-budget-ms",
                "0",
                "--format",
                format,
            ])
            .arg(root)
            .run();
        out.ok().stdout()
    };
    let text = human("human");
    assert!(!text.contains("~1 file"), "{text}");
    assert!(
        text.lines()
            .any(|l| l.trim_start().starts_with("everything")
                && l.contains("unknown: the scan saw only 1 file")),
        "{text}"
    );
    // The report wraps to the terminal's width; the sentence is checked across lines.
    let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        words.contains("unknown the scan budget (0 ms) ran out after 1 file, 3 directories and 0 B, before any directory was listed to estimate the rest from"),
        "{text}"
    );
    let markdown = human("markdown");
    assert!(
        markdown.contains("| files | unknown (1 seen before the scan budget ran out) |"),
        "{markdown}"
    );

    // With time to spare, the same tree's totals are known and exact.
    let s = scan_of(root, &[]);
    assert_eq!(s["totals_unknown"], false, "{s}");
    assert_eq!(n(&s["files"]), 91, "{s}");
}

#[test]
fn quiet_prints_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    write(&tmp.path().join("a"), b"a");
    let out = support::wsl_place()
        .args(["check", "--quiet", "--no-probe"])
        .arg(tmp.path())
        .run();
    assert!(out.ok().quiet().stdout().is_empty(), "{out}");
}

/// Bytes of the worktree outside `.git`, from `du`'s apparent sizes: the peer the scan agrees with.
fn du_bytes_outside_git(dir: &Path) -> u64 {
    let out = Process::new("du")
        .args(["-s", "-b", "--apparent-size", "--exclude=.git"])
        .arg(dir)
        .run();
    let text = String::from_utf8_lossy(&out.stdout);
    text.split_whitespace().next().unwrap().parse().unwrap()
}

#[test]
fn tracked_sizes_come_from_the_index_and_untracked_ones_from_lstat() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("r");
    fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "-q"]);
    for (i, size) in [10usize, 200, 3000, 1].iter().enumerate() {
        write(&repo.join(format!("src/f{i}.txt")), &vec![b'a'; *size]);
    }
    write(&repo.join("empty.txt"), b"");
    // Files older than the index are never racily clean (size 0 in the index, which the scan
    // must not trust), so the index records every size without waiting out the timestamp.
    for file in [
        "src/f0.txt",
        "src/f1.txt",
        "src/f2.txt",
        "src/f3.txt",
        "empty.txt",
    ] {
        support::tree::set_mtime(&repo.join(file), 1_600_000_000);
    }
    commit_all(&repo, "sizes");
    git(&repo, &["update-index", "--really-refresh"]);
    write(&repo.join("untracked/new.bin"), &[0u8; 777]);
    // Executable and staged-only files are tracked too.
    write(&repo.join("run.sh"), b"#!/bin/sh\n");
    git(&repo, &["update-index", "--add", "--chmod=+x", "run.sh"]);

    let s = scan_of(&repo, &[]);
    // Four sized files and run.sh come from the index; the empty file (size 0) and the
    // untracked one need an lstat.
    assert_eq!(n(&s["index_sized_files"]), 5);
    let git_bytes = n(&s["git_dir_bytes"]);
    assert_eq!(
        n(&s["bytes"]) - git_bytes,
        du_bytes_outside_git(&repo) - dirs_bytes(&repo)
    );
    assert_eq!(
        n(&s["bytes"]) - git_bytes,
        10 + 200 + 3000 + 1 + 777 + b"#!/bin/sh\n".len() as u64
    );
    assert!(s["complete"].as_bool().unwrap());

    // Outside a repository nothing is index-sized.
    let plain = tmp.path().join("plain");
    write(&plain.join("a.txt"), b"abc");
    let s = scan_of(&plain, &[]);
    assert_eq!(n(&s["index_sized_files"]), 0);
    assert_eq!(n(&s["bytes"]), 3);
}

/// `du -b` counts directories' own sizes; the scan counts regular files only.
fn dirs_bytes(dir: &Path) -> u64 {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_entry(|e| e.file_name() != ".git")
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_dir())
        .map(|e| e.metadata().unwrap().len())
        .sum()
}

/// A linked worktree made by Git for Windows names its repository by a Windows path
/// (`gitdir: C:/Users/me/repo/.git/worktrees/wt`, or with backslashes). Here the "drive" is a
/// folder named as the automount root of a fixture `/etc/wsl.conf`, as no real drive exists
/// on this machine: the repository is found there, and not without that setting.
#[test]
fn a_worktree_whose_gitdir_is_a_windows_path_is_found_under_the_automount_root() {
    let tmp = tempfile::tempdir().unwrap();
    let drives = tmp.path().join("drives");
    let repo = drives.join("c/Users/me/repo");
    repo_with_files(&repo, 5);
    let wt = tmp.path().join("wt");
    git(&repo, &["worktree", "add", "-q", wt.to_str().unwrap()]);
    let etc = tmp.path().join("etc");
    write(
        &etc.join("wsl.conf"),
        format!("[automount]\nroot = {}/\n", drives.display()).as_bytes(),
    );
    let check = |etc_root: Option<&Path>| {
        let mut cmd = support::Sandbox::at(tmp.path()).cmd();
        cmd.args(["check", "--no-probe", "--format", "json"])
            .arg(&wt);
        if let Some(etc_root) = etc_root {
            cmd.env("WSL_PLACE_ETC_ROOT", etc_root);
        }
        cmd.run().ok_json()["scan"].clone()
    };
    for gitdir in [
        "gitdir: C:/Users/me/repo/.git/worktrees/wt\n",
        "gitdir: C:\\Users\\me\\repo\\.git\\worktrees\\wt\r\n",
    ] {
        std::fs::write(wt.join(".git"), gitdir).unwrap();
        let s = check(Some(&etc));
        assert_eq!(s["git"]["kind"], "linked_worktree", "{gitdir}: {s}");
        assert_eq!(n(&s["tracked"]), 5, "{gitdir}: {s}");
        let common = std::fs::canonicalize(repo.join(".git")).unwrap();
        assert_eq!(
            std::fs::canonicalize(s["git"]["common_dir"].as_str().unwrap()).unwrap(),
            common,
            "{gitdir}: {s}"
        );
    }
    // Without the setting (an /etc with no wsl.conf, so that a WSL machine running the test
    // reads no real one), C: is looked for at /mnt/c, which does not hold this repository.
    let empty_etc = tmp.path().join("empty-etc");
    std::fs::create_dir(&empty_etc).unwrap();
    let s = check(Some(&empty_etc));
    let error = s["git"]["error"].as_str().unwrap_or_default();
    assert!(
        error.contains("points to the Windows path C:\\Users"),
        "{s}"
    );
    assert!(
        error.contains("/mnt/c/Users/me/repo/.git/worktrees/wt"),
        "{s}"
    );
    // The same reason typed, for a script to branch on.
    let kind = &s["git"]["error_kind"];
    assert_eq!(kind["kind"], "windows_target_missing", "{s}");
    assert_eq!(
        kind["windows"], "C:\\Users\\me\\repo\\.git\\worktrees\\wt",
        "{s}"
    );
    assert_eq!(
        kind["here"], "/mnt/c/Users/me/repo/.git/worktrees/wt",
        "{s}"
    );
}
