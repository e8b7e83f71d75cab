//! Real git repositories for the integration tests, made with the git on the machine.
//!
//! Every call pins what a developer's own git config could change: identity, the default
//! branch, no system or global config, no fsmonitor, no automatic gc.

use std::path::{Path, PathBuf};
use std::process::Command;
use tempfile::TempDir;

/// Runs `git -C dir args...` and returns its stdout; a failure fails the test with git's stderr.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=T", "-c", "user.email=t@example.invalid"])
        .args([
            "-c",
            "init.defaultBranch=main",
            "-c",
            "core.fsmonitor=false",
        ])
        .args(["-c", "gc.auto=0", "-c", "protocol.file.allow=always"])
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?} in {} failed: {}",
        dir.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Stages everything below `dir` and commits it as `message`.
pub fn commit_all(dir: &Path, message: &str) {
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", message]);
}

/// A repository made in `dir` of what it holds, committed as `message`.
pub fn init_and_commit_all(dir: &Path, message: &str) {
    git(dir, &["init", "-q"]);
    commit_all(dir, message);
}

/// Writes `content` at `path`, making its parent directories.
pub fn write(path: &Path, content: &[u8]) {
    std::fs::create_dir_all(path.parent().expect("a file path has a parent")).unwrap();
    std::fs::write(path, content).unwrap();
}

/// A committed repository of `n` files in directories of 100 (`src/d000/f000.txt`, ...), as
/// the accuracy benchmark builds them, with `src/d000/f000.txt` modified afterwards.
pub fn files_repo(dir: &Path, n: usize) {
    for i in 0..n {
        let file = dir.join(format!("src/d{:03}/f{:03}.txt", i / 100, i % 100));
        write(&file, format!("file {i}\n").as_bytes());
    }
    init_and_commit_all(dir, "init");
    std::fs::write(dir.join("src/d000/f000.txt"), "changed\n").unwrap();
}

/// A committed repository of `n` one-byte files spread over four directories
/// (`d{i % 4}/f{i}.txt`).
pub fn repo_with_files(dir: &Path, n: usize) {
    std::fs::create_dir_all(dir).unwrap();
    git(dir, &["init", "-q"]);
    for i in 0..n {
        write(&dir.join(format!("d{}/f{i}.txt", i % 4)), b"x");
    }
    commit_all(dir, "files");
}

/// A directory holding a `git` that reports `version` and hands everything else to the real git.
pub fn fake_git(version: &str) -> TempDir {
    let real = which_git();
    let dir = tempfile::tempdir().unwrap();
    let script = format!(
        "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'git version {version}'; exit 0; fi\nexec '{}' \"$@\"\n",
        real.display()
    );
    super::write_executable(&dir.path().join("git"), &script);
    dir
}

fn which_git() -> PathBuf {
    let paths = std::env::var_os("PATH").expect("PATH is set");
    std::env::split_paths(&paths)
        .map(|dir| dir.join("git"))
        .find(|candidate| candidate.is_file())
        .expect("git on PATH")
}

pub fn path_with(dir: &Path) -> std::ffi::OsString {
    let mut paths = vec![dir.to_path_buf()];
    paths.extend(std::env::split_paths(&std::env::var_os("PATH").unwrap()));
    std::env::join_paths(paths).unwrap()
}

/// A committed repository of `n` empty files in directories of 250, made with one `git add`.
pub fn big_repo(dir: &Path, n: usize) {
    for i in 0..n {
        let sub = dir.join(format!("d{:03}", i / 250));
        if i % 250 == 0 {
            std::fs::create_dir_all(&sub).unwrap();
        }
        std::fs::write(sub.join(format!("f{i}")), b"").unwrap();
    }
    init_and_commit_all(dir, "files");
}
