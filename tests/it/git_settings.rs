//! `core.worktree` and `core.hooksPath` written as absolute paths into the old place (issue 50):
//! copied as they were, the copy's git worked on the old place (its status, migrate's own index
//! refresh) and ran the old place's hooks, which silently stopped once the source was removed.
//! They now follow the copy; one naming a place outside both is named in the result. The old
//! place's configuration is never written.

use crate::support;
use crate::support::Run;

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use support::gitrepo::{git, write};

fn migrate(root: &Path, source: &Path, dest: &Path) -> serde_json::Value {
    let mut cmd = support::Sandbox::at(root).migrate(source, dest);
    cmd.args(["--yes", "--format", "json"]).run().ok_json()
}

/// The inode git's index records for `file` in `repo` (`git ls-files --debug`).
fn indexed_inode(repo: &Path, file: &str) -> u64 {
    let debug = git(repo, &["ls-files", "--debug", "--", file]);
    let ino = debug
        .split_whitespace()
        .skip_while(|word| *word != "ino:")
        .nth(1)
        .unwrap_or_else(|| panic!("no inode in {debug}"));
    ino.parse().unwrap()
}

#[test]
fn an_absolute_worktree_and_hooks_path_into_the_old_place_follow_the_copy() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let (source, dest) = (root.join("app"), root.join("linux/app"));
    write(&source.join("main.txt"), b"one\n");
    fs::create_dir_all(source.join(".githooks")).unwrap();
    support::write_executable(
        &source.join(".githooks/pre-commit"),
        "#!/bin/sh\ntouch hook-ran\n",
    );
    git(&source, &["init", "-q"]);
    git(
        &source,
        &["config", "core.worktree", source.to_str().unwrap()],
    );
    let hooks = source.join(".githooks");
    git(
        &source,
        &["config", "core.hooksPath", hooks.to_str().unwrap()],
    );
    git(&source, &["add", "main.txt", ".githooks"]);
    git(&source, &["commit", "-q", "--no-verify", "-m", "one"]);
    let config_before = fs::read(source.join(".git/config")).unwrap();

    let json = migrate(&root, &source, &dest);
    let done = json["fixups"]["done"].to_string();
    assert!(
        done.contains("pointed core.worktree") && done.contains("pointed core.hooksPath"),
        "{json:#}"
    );
    let top = git(&dest, &["rev-parse", "--show-toplevel"]);
    assert_eq!(Path::new(top.trim()), dest);
    // migrate's own refresh read the copy's files, not the old place's.
    assert_eq!(
        indexed_inode(&dest, "main.txt"),
        fs::metadata(dest.join("main.txt")).unwrap().ino(),
        "the index was refreshed against another folder"
    );
    write(&dest.join("main.txt"), b"two\n");
    let status = git(&dest, &["status", "--porcelain", "--untracked-files=no"]);
    assert_eq!(
        status, " M main.txt\n",
        "an edit at the copy is invisible to git"
    );
    let hooks_at_copy = git(&dest, &["config", "core.hooksPath"]);
    assert_eq!(Path::new(hooks_at_copy.trim()), dest.join(".githooks"));
    git(&dest, &["commit", "-q", "-am", "two"]);
    assert!(
        dest.join("hook-ran").exists(),
        "the copy's hook did not run"
    );
    assert!(
        !source.join("hook-ran").exists(),
        "a commit at the copy ran the old place's hook"
    );
    assert_eq!(
        fs::read(source.join(".git/config")).unwrap(),
        config_before,
        "the old place's configuration was written"
    );
}

#[test]
fn a_hooks_path_outside_both_places_is_named_and_left_as_it_is() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let (source, dest) = (root.join("app"), root.join("linux/app"));
    let shared = root.join("shared-hooks");
    fs::create_dir_all(&shared).unwrap();
    write(&source.join("main.txt"), b"one\n");
    git(&source, &["init", "-q"]);
    git(
        &source,
        &["config", "core.hooksPath", shared.to_str().unwrap()],
    );
    support::gitrepo::commit_all(&source, "one");

    let json = migrate(&root, &source, &dest);
    let advice = json["fixups"]["advice"].to_string();
    assert!(
        advice.contains(&format!(
            "core.hooksPath of {} names {}, outside the copy",
            dest.display(),
            shared.display()
        )),
        "{json:#}"
    );
    let at_copy = git(&dest, &["config", "core.hooksPath"]);
    assert_eq!(Path::new(at_copy.trim()), shared);
}
