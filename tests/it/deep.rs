//! Trees deeper than PATH_MAX (4096 bytes), through the binary: `check` counts every level and
//! `migrate` moves, verifies and removes them. The trees are built and read with `*at` calls
//! from one open directory to the next, as no full path to their bottom can be used.

use crate::support;

use rustix::fs::{Mode, OFlags};
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use support::{Sandbox, binary_path, json_of, kill, text};

const LEVELS: usize = 500;
/// A symlink at the bottom, beside the last file.
const LINK: &str = "to-f";

fn level_name(i: usize) -> String {
    format!("level-{i:03}-{}", "d".repeat(8))
}

fn open_dir(at: &OwnedFd, name: &str) -> OwnedFd {
    rustix::fs::openat(
        at,
        name,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .unwrap_or_else(|e| panic!("open {name}: {e}"))
}

fn open_root(path: &Path) -> OwnedFd {
    rustix::fs::open(path, OFlags::RDONLY | OFlags::DIRECTORY, Mode::empty()).unwrap()
}

/// `root/level-001-…/level-002-…/…` down `LEVELS` levels, a file `f` in each holding its level
/// number, and a symlink to it at the bottom. Returns the path of the bottom (too long to use).
fn build_deep_tree(root: &Path) -> PathBuf {
    std::fs::create_dir_all(root).unwrap();
    let mut dir = open_root(root);
    let mut bottom = root.to_path_buf();
    for i in 1..=LEVELS {
        let name = level_name(i);
        rustix::fs::mkdirat(&dir, name.as_str(), Mode::from_raw_mode(0o755)).unwrap();
        dir = open_dir(&dir, &name);
        let file = rustix::fs::openat(
            &dir,
            "f",
            OFlags::WRONLY | OFlags::CREATE | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o644),
        )
        .unwrap();
        rustix::io::write(&file, format!("level {i}\n").as_bytes()).unwrap();
        bottom.push(name);
    }
    rustix::fs::symlinkat("f", &dir, LINK).unwrap();
    assert!(
        bottom.as_os_str().len() > 2 * 4096,
        "the tree must pass PATH_MAX"
    );
    bottom
}

/// Reads the tree back level by level: every file's content, and the bottom symlink's target.
fn read_deep_tree(root: &Path) -> (Vec<String>, String) {
    let mut dir = open_root(root);
    let mut contents = Vec::new();
    for i in 1..=LEVELS {
        dir = open_dir(&dir, &level_name(i));
        let file = rustix::fs::openat(&dir, "f", OFlags::RDONLY | OFlags::CLOEXEC, Mode::empty())
            .unwrap_or_else(|e| panic!("level {i}: f: {e}"));
        let mut buf = vec![0u8; 64];
        let n = rustix::io::read(&file, &mut buf).unwrap();
        contents.push(String::from_utf8_lossy(&buf[..n]).into_owned());
    }
    let target = rustix::fs::readlinkat(&dir, LINK, Vec::new()).unwrap();
    (contents, target.to_string_lossy().into_owned())
}

fn expected_contents() -> Vec<String> {
    (1..=LEVELS).map(|i| format!("level {i}\n")).collect()
}

/// The binary in `sandbox` with at most `fds` open files, so a walk holding one descriptor per
/// directory (500 here) fails.
fn with_fd_limit(sandbox: &Sandbox, fds: u32) -> std::process::Command {
    let mut cmd = sandbox.program("sh");
    cmd.arg("-c")
        .arg(format!("ulimit -n {fds} && exec \"$0\" \"$@\""))
        .arg(binary_path());
    cmd
}

/// The sandbox of a migration of `source`: HOME beside it.
fn home_beside(source: &Path) -> Sandbox {
    let home = source.parent().unwrap().join("home");
    std::fs::create_dir_all(&home).unwrap();
    Sandbox::at(home)
}

#[test]
fn check_counts_every_level_of_a_tree_past_path_max() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("deep");
    build_deep_tree(&root);
    // 64 descriptors: far fewer than the tree's 500 levels.
    let out = with_fd_limit(Sandbox::shared(), 64)
        .args(["check", "--no-probe", "--format", "json"])
        .arg(&root)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let scan = &report["scan"];
    assert_eq!(scan["files"], LEVELS as u64, "{scan}");
    assert_eq!(scan["dirs"], LEVELS as u64, "{scan}");
    assert_eq!(scan["symlinks"], 1, "{scan}");
    let bytes: usize = expected_contents().iter().map(String::len).sum();
    assert_eq!(scan["bytes"], bytes as u64, "{scan}");
    assert_eq!(scan["complete"], true, "{scan}");
    assert_eq!(scan["errors"], 0, "{scan}");
    assert_eq!(scan["unreadable_dirs"], serde_json::json!([]), "{scan}");
    assert_eq!(
        read_deep_tree(&root),
        (expected_contents(), "f".to_string())
    );
}

fn migrate(source: &Path, dest: &Path, extra: &[&str]) -> serde_json::Value {
    let out = with_fd_limit(&home_beside(source), 64)
        .arg("migrate")
        .arg(source)
        .arg("--to")
        .arg(dest)
        .args(["--yes", "--format", "json"])
        .args(extra)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    json_of(&out)
}

#[test]
fn migrate_copies_and_verifies_every_level_of_a_tree_past_path_max() {
    let tmp = tempfile::tempdir().unwrap();
    let source = tmp.path().join("src");
    build_deep_tree(&source);
    let dest = tmp.path().join("out/deep");
    let report = migrate(&source, &dest, &[]);
    assert_eq!(report["files"], LEVELS as u64, "{report}");
    assert_eq!(report["dirs"], LEVELS as u64, "{report}");
    assert_eq!(report["symlinks"], 1, "{report}");
    assert_eq!(report["copied_files"], LEVELS as u64, "{report}");
    assert_eq!(report["not_copied"], serde_json::json!([]), "{report}");
    let expected = (expected_contents(), "f".to_string());
    assert_eq!(read_deep_tree(&dest), expected, "the copy");
    assert_eq!(read_deep_tree(&source), expected, "the source is untouched");
    // Every file is in the manifest with its CRC32: the bottom one too.
    let manifest = std::fs::read_to_string(home_beside(&source).manifest_of(&dest)).unwrap();
    let bottom = format!("{}/f", level_name(LEVELS));
    let line = manifest
        .lines()
        .find(|l| l.ends_with(&bottom))
        .unwrap_or_else(|| panic!("no manifest line for the bottom file"));
    let crc = format!(
        "{:08x}",
        crc32fast::hash(format!("level {LEVELS}\n").as_bytes())
    );
    assert!(line.contains(&crc), "{line} lacks {crc}");
    assert!(
        !tmp.path().join("out/.deep.wsl-place-staging").exists(),
        "staging left behind"
    );
}

#[test]
fn remove_source_removes_a_tree_past_path_max_after_moving_it() {
    let tmp = tempfile::tempdir().unwrap();
    let source = tmp.path().join("src");
    build_deep_tree(&source);
    let dest = tmp.path().join("out/deep");
    let report = migrate(&source, &dest, &["--remove-source"]);
    let removal = &report["removal"];
    assert_eq!(removal["removed_files"], LEVELS as u64, "{report}");
    assert_eq!(removal["removed_symlinks"], 1, "{report}");
    // Every level, as the removal's plan counts them, and the source folder itself apart.
    assert_eq!(removal["removed_dirs"], LEVELS as u64, "{report}");
    assert_eq!(removal["removed_source_folder"], true, "{report}");
    assert_eq!(removal["kept_count"], 0, "{report}");
    assert!(!source.exists(), "the source is still there");
    assert_eq!(
        read_deep_tree(&dest),
        (expected_contents(), "f".to_string())
    );
}

/// Puts a `big` file of `size` bytes (different at each level) beside every `f`, so that a copy
/// takes long enough to be killed halfway.
fn add_big_files(root: &Path, size: usize) {
    let mut dir = open_root(root);
    for i in 1..=LEVELS {
        dir = open_dir(&dir, &level_name(i));
        let file = rustix::fs::openat(
            &dir,
            "big",
            OFlags::WRONLY | OFlags::CREATE | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o644),
        )
        .unwrap();
        let data = vec![(i % 251) as u8; size];
        let mut written = 0;
        while written < size {
            written += rustix::io::write(&file, &data[written..]).unwrap();
        }
    }
}

/// The CRC32 of every level's `big` file.
fn big_file_crcs(root: &Path) -> Vec<u32> {
    let mut dir = open_root(root);
    let mut crcs = Vec::new();
    for i in 1..=LEVELS {
        dir = open_dir(&dir, &level_name(i));
        let file = rustix::fs::openat(&dir, "big", OFlags::RDONLY | OFlags::CLOEXEC, Mode::empty())
            .unwrap_or_else(|e| panic!("level {i}: big: {e}"));
        let mut hasher = crc32fast::Hasher::new();
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            let n = rustix::io::read(&file, &mut buf).unwrap();
            if n == 0 {
                break;
            }
            hasher.update(&buf[..n]);
        }
        crcs.push(hasher.finalize());
    }
    crcs
}

#[test]
fn a_migration_of_a_tree_past_path_max_killed_halfway_resumes_from_its_journal() {
    let tmp = tempfile::tempdir().unwrap();
    let source = tmp.path().join("src");
    build_deep_tree(&source);
    add_big_files(&source, 96 * 1024);
    let expected = (read_deep_tree(&source), big_file_crcs(&source));
    let dest = tmp.path().join("out/deep");
    let journal = tmp.path().join("out/.deep.wsl-place-staging/journal");
    let sandbox = home_beside(&source);
    let mut killed = false;
    for _attempt in 0..5 {
        let mut child = with_fd_limit(&sandbox, 64)
            .arg("migrate")
            .arg(&source)
            .arg("--to")
            .arg(&dest)
            .arg("--yes")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        // The journal gets its first lines after 256 verified files: kill then, mid-copy.
        while child.try_wait().unwrap().is_none()
            && std::fs::metadata(&journal).map_or(true, |m| m.len() == 0)
        {
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        if child.try_wait().unwrap().is_none() {
            kill(&mut child);
            killed = true;
            break;
        }
        // Finished before the kill: start again from nothing.
        std::fs::remove_dir_all(&dest).unwrap();
        std::fs::remove_file(sandbox.manifest_of(&dest)).unwrap();
    }
    assert!(killed, "the migration always finished before the kill");
    assert!(
        !dest.exists(),
        "killed mid-copy, yet the destination exists"
    );
    assert_eq!(
        (read_deep_tree(&source), big_file_crcs(&source)),
        expected,
        "the source changed"
    );

    let report = migrate(&source, &dest, &[]);
    let copied = report["copied_files"].as_u64().unwrap();
    eprintln!("resume: {copied} of {} files copied again", 2 * LEVELS);
    assert!(
        copied < 2 * LEVELS as u64,
        "the resume copied all {copied} files again: {report}"
    );
    assert_eq!(report["files"], 2 * LEVELS as u64, "{report}");
    assert_eq!(
        (read_deep_tree(&dest), big_file_crcs(&dest)),
        expected,
        "the resumed copy"
    );
    assert!(!journal.exists(), "staging left behind");
}

#[test]
fn check_walks_many_deep_branches_in_parallel_within_a_small_descriptor_limit() {
    let tmp = tempfile::tempdir().unwrap();
    // 8,000 directories are slow to delete from a busy disk; tmpfs drops them at once.
    let mount = support::is_root().then(|| {
        support::Mount::try_tmpfs_at(&tmp.path().join("fs"), "64m")
            .unwrap_or_else(|e| panic!("{e}"))
    });
    let root = mount
        .as_ref()
        .map_or(tmp.path(), |m| m.point())
        .join("wide");
    const BRANCHES: usize = 16;
    for b in 0..BRANCHES {
        build_deep_tree(&root.join(format!("branch-{b}")));
    }
    // The parallel walk has several branches open at once, each holding a few anchors.
    let out = with_fd_limit(Sandbox::shared(), 64)
        .args(["check", "--no-probe", "--format", "json"])
        .arg(&root)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let scan = &report["scan"];
    assert_eq!(scan["files"], (BRANCHES * LEVELS) as u64, "{scan}");
    assert_eq!(scan["dirs"], (BRANCHES * (LEVELS + 1)) as u64, "{scan}");
    assert_eq!(scan["symlinks"], BRANCHES as u64, "{scan}");
    assert_eq!(scan["unreadable_dirs"], serde_json::json!([]), "{scan}");
    assert!(
        scan["engine"].as_str().unwrap().starts_with("parallel"),
        "{scan}"
    );
}
