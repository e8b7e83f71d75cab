//! Sets `WSL_PLACE_VERSION` for `--version`: the package version, and the git commit when the
//! build can tell it. A crate packaged by cargo names its commit in `.cargo_vcs_info.json`; a git
//! checkout of this repository is asked with `git`. Anything else (no git installed, a tarball,
//! the crate vendored inside another repository) gets the bare version: a wrong commit is worse
//! than none.

use std::path::{Path, PathBuf};
use std::process::Command;

const COMMIT_DIGITS: usize = 12;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
    let manifest_dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let commit = packaged_commit(&manifest_dir).or_else(|| checkout_commit(&manifest_dir));
    let full = match commit {
        Some(commit) => format!("{version} (commit {commit})"),
        None => version,
    };
    println!("cargo:rustc-env=WSL_PLACE_VERSION={full}");
}

/// The commit `cargo package` recorded, for builds from crates.io.
fn packaged_commit(manifest_dir: &Path) -> Option<String> {
    let text = std::fs::read_to_string(manifest_dir.join(".cargo_vcs_info.json")).ok()?;
    let after_key = &text[text.find("\"sha1\"")? + "\"sha1\"".len()..];
    let value = after_key.trim_start().strip_prefix(':')?.trim_start();
    let hex: String = value
        .strip_prefix('"')?
        .chars()
        .take_while(char::is_ascii_hexdigit)
        .collect();
    (hex.len() >= COMMIT_DIGITS).then(|| hex[..COMMIT_DIGITS].to_owned())
}

/// HEAD of the git checkout whose top level is this package, and the files that move with it
/// (so a commit or checkout rebuilds `--version`, and nothing else does).
fn checkout_commit(manifest_dir: &Path) -> Option<String> {
    let top = git(manifest_dir, &["rev-parse", "--show-toplevel"])?;
    if Path::new(&top).canonicalize().ok()? != manifest_dir.canonicalize().ok()? {
        return None;
    }
    let commit = git(
        manifest_dir,
        &["rev-parse", &format!("--short={COMMIT_DIGITS}"), "HEAD"],
    )?;
    let mut watched = vec![git_path(manifest_dir, "HEAD")?];
    if let Some(branch) = git(manifest_dir, &["symbolic-ref", "-q", "HEAD"]) {
        let loose = git_path(manifest_dir, &branch)?;
        // A packed ref has no file of its own until the next commit writes one beside it.
        match loose.is_file() {
            true => watched.push(loose),
            false => watched.extend(loose.parent().map(Path::to_path_buf)),
        }
        watched.push(git_path(manifest_dir, "packed-refs")?);
    }
    for path in watched.iter().filter(|path| path.exists()) {
        println!("cargo:rerun-if-changed={}", path.display());
    }
    Some(commit)
}

fn git_path(dir: &Path, name: &str) -> Option<PathBuf> {
    git(dir, &["rev-parse", "--git-path", name]).map(|path| dir.join(path))
}

fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    (out.status.success() && !text.trim().is_empty()).then(|| text.trim().to_owned())
}
