//! Real trees, snapshots and byte-for-byte comparison, for the migration tests.

use super::gitrepo::{commit_all, git, write};

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, UNIX_EPOCH};

/// Everything about one entry that a faithful copy must keep.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    pub kind: &'static str,
    pub mode: u32,
    pub mtime: (i64, i64),
    pub size: u64,
    pub content: Option<Vec<u8>>,
    pub target: Option<PathBuf>,
}

/// Paths, kinds, modes, mtimes, sizes, full contents and link targets of a tree.
pub fn snapshot(root: &Path) -> BTreeMap<PathBuf, Node> {
    let mut out = BTreeMap::new();
    for item in walkdir::WalkDir::new(root).min_depth(1).follow_links(false) {
        let item = item.expect("walk");
        let meta = item.path().symlink_metadata().expect("lstat");
        let ft = meta.file_type();
        let kind = if ft.is_dir() {
            "dir"
        } else if ft.is_file() {
            "file"
        } else if ft.is_symlink() {
            "symlink"
        } else {
            "special"
        };
        let node = Node {
            kind,
            mode: meta.permissions().mode() & 0o7777,
            mtime: if ft.is_dir() {
                (0, 0)
            } else {
                (meta.mtime(), meta.mtime_nsec())
            },
            size: if ft.is_file() { meta.len() } else { 0 },
            content: ft
                .is_file()
                .then(|| std::fs::read(item.path()).expect("read")),
            target: ft
                .is_symlink()
                .then(|| std::fs::read_link(item.path()).expect("readlink")),
        };
        out.insert(item.path().strip_prefix(root).unwrap().to_path_buf(), node);
    }
    out
}

/// Directory mtimes too (a snapshot leaves them out because git and walks can touch them).
pub fn dir_mtimes(root: &Path) -> BTreeMap<PathBuf, (i64, i64)> {
    walkdir::WalkDir::new(root)
        .min_depth(1)
        .follow_links(false)
        .into_iter()
        .map(|e| e.expect("walk"))
        .filter(|e| e.file_type().is_dir())
        .map(|e| {
            let m = e.path().symlink_metadata().unwrap();
            (
                e.path().strip_prefix(root).unwrap().to_path_buf(),
                (m.mtime(), m.mtime_nsec()),
            )
        })
        .collect()
}

/// Asserts `dest` holds exactly what `source` holds, except the paths in `except`.
pub fn assert_same_tree(source: &Path, dest: &Path, except: &[&str]) {
    let skip = |p: &PathBuf| except.iter().any(|e| p == Path::new(e));
    let a: BTreeMap<_, _> = snapshot(source)
        .into_iter()
        .filter(|(p, n)| !skip(p) && n.kind != "special")
        .collect();
    let b: BTreeMap<_, _> = snapshot(dest)
        .into_iter()
        .filter(|(p, _)| !skip(p))
        .collect();
    let only_a: Vec<_> = a.keys().filter(|k| !b.contains_key(*k)).collect();
    let only_b: Vec<_> = b.keys().filter(|k| !a.contains_key(*k)).collect();
    assert!(
        only_a.is_empty() && only_b.is_empty(),
        "missing at destination: {only_a:?}; extra: {only_b:?}"
    );
    for (path, node) in &a {
        assert_eq!(Some(node), b.get(path), "{} differs", path.display());
    }
    let dirs_a = dir_mtimes(source);
    let dirs_b = dir_mtimes(dest);
    for (path, mtime) in dirs_a.iter().filter(|(p, _)| !skip(p)) {
        if path.starts_with(".git") || path.starts_with("wt") {
            continue;
        }
        assert_eq!(
            Some(mtime),
            dirs_b.get(path),
            "mtime of directory {}",
            path.display()
        );
    }
}

pub fn set_mtime(path: &Path, secs: u64) {
    let f = std::fs::File::options().write(true).open(path).unwrap();
    f.set_modified(UNIX_EPOCH + Duration::from_secs(secs) + Duration::from_nanos(123_456_789))
        .unwrap();
}

/// Deterministic bytes without a random-number crate.
pub fn bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407)
        | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

pub fn mkfifo(path: &Path) {
    rustix::fs::mkfifoat(
        rustix::fs::CWD,
        path,
        rustix::fs::Mode::from_raw_mode(0o644),
    )
    .unwrap_or_else(|e| panic!("mkfifo {}: {e}", path.display()));
}

/// A git repository with history, an inner linked worktree, symlinks of every sort, a
/// non-UTF-8 name, empty and read-only directories, large and small files, and a FIFO.
pub fn real_tree(root: &Path) {
    std::fs::create_dir_all(root).unwrap();
    git(root, &["init", "-q", "-b", "main"]);
    write(&root.join("README.md"), b"# app\n");
    write(&root.join("src/main.rs"), b"fn main() {}\n");
    commit_all(root, "one");
    for i in 0..150u64 {
        write(
            &root.join(format!("src/mod{}/f{i}.txt", i % 7)),
            &bytes(i, (i as usize * 37) % 3000),
        );
    }
    write(
        &root.join("assets/big.bin"),
        &bytes(99, 3 * 1024 * 1024 + 17),
    );
    write(&root.join("run.sh"), b"#!/bin/sh\necho hi\n");
    std::fs::set_permissions(root.join("run.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
    commit_all(root, "two");
    write(
        &root.join("src/main.rs"),
        b"fn main() { println!(\"hi\"); }\n",
    );
    git(root, &["commit", "-q", "-am", "three"]);
    git(root, &["worktree", "add", "-q", "wt", "-b", "feature"]);
    write(&root.join(".git/info/exclude"), b"wt/\nuntracked-area/\n");
    // Untracked material: the part git does not protect and a copy must keep anyway.
    let area = root.join("untracked-area");
    write(
        &area.join(OsStr::from_bytes(b"caf\xe9-latin1.txt")),
        b"non-utf8 name\n",
    );
    write(&area.join("empty-file"), b"");
    write(&area.join("readonly.txt"), b"ro\n");
    std::fs::set_permissions(
        area.join("readonly.txt"),
        std::fs::Permissions::from_mode(0o444),
    )
    .unwrap();
    std::fs::create_dir_all(area.join("empty")).unwrap();
    std::fs::create_dir_all(area.join("deep/a/b/c")).unwrap();
    write(&area.join("locked/inside.txt"), b"inside\n");
    std::os::unix::fs::symlink("../src/main.rs", area.join("link-rel")).unwrap();
    std::os::unix::fs::symlink("/etc/hostname", area.join("link-abs-outside")).unwrap();
    std::os::unix::fs::symlink("does-not-exist", area.join("dangling")).unwrap();
    std::os::unix::fs::symlink("../src", area.join("dirlink")).unwrap();
    std::os::unix::fs::symlink("../../..", area.join("escape")).unwrap();
    set_mtime(&area.join("empty-file"), 1_000_000_000);
    set_mtime(&root.join("assets/big.bin"), 1_500_000_000);
    mkfifo(&area.join("fifo"));
    std::fs::set_permissions(area.join("locked"), std::fs::Permissions::from_mode(0o555)).unwrap();
    std::fs::set_permissions(area.join("deep/a"), std::fs::Permissions::from_mode(0o750)).unwrap();
}
