//! Real git repositories for the integration tests, made with the git on the machine.
//!
//! Every call pins what a developer's own git config could change: identity, the default
//! branch, no system or global config, no fsmonitor, no automatic gc.

use std::path::Path;
use std::process::Command;

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
    git(dir, &["init", "-q"]);
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", "init"]);
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
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", "files"]);
}
