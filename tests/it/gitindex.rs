//! The git index reader on real git repositories: plain, subdirectory, linked worktree,
//! submodule, split and sparse indexes, and broken ones.

use crate::support;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command as Process;
use support::gitrepo::{git, repo_with_files, write};
use wsl_place::facade::measure::gitindex::{self, RepoKind};
use wsl_place::facade::reason::Worded;

/// WSL's default place for Windows drives; these repositories name none.
fn mnt() -> &'static Path {
    Path::new(wsl_place::facade::host::DEFAULT_AUTOMOUNT_ROOT)
}

fn sorted(mut v: Vec<PathBuf>) -> Vec<PathBuf> {
    v.sort();
    v
}

#[test]
fn tracked_sample_of_a_plain_repository_lists_worktree_relative_files() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("r");
    repo_with_files(&repo, 10);
    let all = gitindex::tracked_sample(&repo, 100, mnt()).unwrap();
    assert_eq!(all.len(), 10);
    assert!(all.contains(&PathBuf::from("d1/f5.txt")));
    for p in &all {
        assert!(p.is_relative());
        assert!(repo.join(p).is_file(), "{} is not a file", p.display());
    }
    let few = gitindex::tracked_sample(&repo, 3, mnt()).unwrap();
    assert_eq!(few.len(), 3);
    // Evenly spread: not simply the first three in index order.
    let index_order = sorted(all.clone());
    assert_ne!(sorted(few), index_order[..3].to_vec());
}

#[test]
fn tracked_sample_is_empty_outside_a_repository_and_before_the_first_add() {
    let tmp = tempfile::tempdir().unwrap();
    let plain = tmp.path().join("plain");
    write(&plain.join("a"), b"a");
    assert!(gitindex::discover(&plain, mnt()).unwrap().is_none());
    assert_eq!(
        gitindex::tracked_sample(&plain, 10, mnt()).unwrap(),
        Vec::<PathBuf>::new()
    );

    let fresh = tmp.path().join("fresh");
    fs::create_dir_all(&fresh).unwrap();
    git(&fresh, &["init", "-q"]);
    write(&fresh.join("untracked"), b"u");
    assert_eq!(
        gitindex::tracked_sample(&fresh, 10, mnt()).unwrap(),
        Vec::<PathBuf>::new()
    );
    let summary =
        gitindex::summarize(&gitindex::discover(&fresh, mnt()).unwrap().unwrap()).unwrap();
    assert_eq!(summary.entries, 0);
}

#[test]
fn tracked_sample_from_a_subdirectory_is_relative_to_it() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("r");
    repo_with_files(&repo, 8);
    let sub = repo.join("d2");
    let repo_info = gitindex::discover(&sub, mnt()).unwrap().unwrap();
    assert_eq!(repo_info.prefix, PathBuf::from("d2"));
    let got = sorted(gitindex::tracked_sample(&sub, 100, mnt()).unwrap());
    assert_eq!(got, vec![PathBuf::from("f2.txt"), PathBuf::from("f6.txt")]);
}

#[test]
fn linked_worktree_reads_its_own_index_through_the_gitdir_file() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("r");
    repo_with_files(&repo, 6);
    let wt = tmp.path().join("wt");
    git(&repo, &["worktree", "add", "-q", wt.to_str().unwrap()]);
    // Diverge: the linked worktree tracks one more file than the main one.
    write(&wt.join("extra.txt"), b"e");
    git(&wt, &["add", "extra.txt"]);
    assert!(wt.join(".git").is_file());

    let info = gitindex::discover(&wt, mnt()).unwrap().unwrap();
    assert_eq!(info.kind, RepoKind::LinkedWorktree);
    assert_eq!(
        fs::canonicalize(&info.common_dir).unwrap(),
        fs::canonicalize(repo.join(".git")).unwrap()
    );
    let sample = gitindex::tracked_sample(&wt, 100, mnt()).unwrap();
    assert_eq!(sample.len(), 7);
    assert!(sample.contains(&PathBuf::from("extra.txt")));
    assert_eq!(
        gitindex::tracked_sample(&repo, 100, mnt()).unwrap().len(),
        6
    );
}

#[test]
fn submodule_reads_the_index_under_the_superprojects_modules() {
    let tmp = tempfile::tempdir().unwrap();
    let lib = tmp.path().join("lib");
    repo_with_files(&lib, 3);
    let sup = tmp.path().join("sup");
    repo_with_files(&sup, 2);
    git(
        &sup,
        &[
            "submodule",
            "add",
            "-q",
            lib.to_str().unwrap(),
            "vendored/lib",
        ],
    );
    let sub = sup.join("vendored/lib");
    assert!(sub.join(".git").is_file());

    let info = gitindex::discover(&sub, mnt()).unwrap().unwrap();
    assert_eq!(info.kind, RepoKind::Submodule);
    assert_eq!(gitindex::tracked_sample(&sub, 100, mnt()).unwrap().len(), 3);
    // The superproject sees the submodule as one gitlink entry, which is not a file to lstat.
    let sup_info = gitindex::discover(&sup, mnt()).unwrap().unwrap();
    let summary = gitindex::summarize(&sup_info).unwrap();
    assert_eq!(summary.entries, 4); // 2 files + .gitmodules + the gitlink
    assert_eq!(summary.submodules, 1);
    assert_eq!(gitindex::tracked_sample(&sup, 100, mnt()).unwrap().len(), 3);
}

#[test]
fn split_index_counts_shared_and_split_entries() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("r");
    fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "-q"]);
    for i in 0..20 {
        write(&repo.join(format!("d{}/f{i}.txt", i % 4)), b"x");
    }
    write(&repo.join("new1"), b"n");
    write(&repo.join("new2"), b"n");
    // Files older than the index are not "racily clean", so git leaves them in the shared index
    // instead of copying every entry into the split one.
    let touched = Process::new("find")
        .arg(&repo)
        .args([
            "-path",
            "*/.git",
            "-prune",
            "-o",
            "-exec",
            "touch",
            "-d",
            "2020-01-01",
            "{}",
            "+",
        ])
        .status()
        .unwrap();
    assert!(touched.success());
    git(&repo, &["add", "d0", "d1", "d2", "d3"]);
    git(&repo, &["commit", "-q", "-m", "files"]);
    git(&repo, &["update-index", "--split-index"]);
    git(&repo, &["add", "new1", "new2"]);
    git(&repo, &["rm", "-q", "d0/f0.txt"]);
    let shared = fs::read_dir(repo.join(".git"))
        .unwrap()
        .flatten()
        .any(|e| e.file_name().to_string_lossy().starts_with("sharedindex."));
    assert!(shared, "git did not write a shared index");

    let info = gitindex::discover(&repo, mnt()).unwrap().unwrap();
    let s = gitindex::summarize(&info).unwrap();
    assert!(s.split);
    assert_eq!(s.entries, 21);
    // The split index itself holds only the change (2 added; the removal is a bitmap bit).
    assert_eq!(s.header_entries, 2);
    assert_eq!(
        gitindex::tracked_sample(&repo, 100, mnt()).unwrap().len(),
        21
    );
}

#[test]
fn sparse_index_reports_sparse_directories() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("r");
    repo_with_files(&repo, 12);
    git(
        &repo,
        &["sparse-checkout", "init", "--cone", "--sparse-index"],
    );
    git(&repo, &["sparse-checkout", "set", "d1"]);
    let info = gitindex::discover(&repo, mnt()).unwrap().unwrap();
    let s = gitindex::summarize(&info).unwrap();
    assert!(s.sparse);
    // d1 keeps its 3 files; d0, d2, d3 collapse to one sparse-directory entry each.
    assert_eq!(s.sparse_dirs, 3);
    assert_eq!(s.entries, 6);
    let sample = sorted(gitindex::tracked_sample(&repo, 100, mnt()).unwrap());
    assert_eq!(
        sample,
        vec![
            PathBuf::from("d1/f1.txt"),
            PathBuf::from("d1/f5.txt"),
            PathBuf::from("d1/f9.txt")
        ]
    );
}

#[test]
fn broken_index_is_an_error_not_a_panic() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("r");
    repo_with_files(&repo, 3);
    let index = repo.join(".git/index");
    let mut bytes = fs::read(&index).unwrap();
    bytes.truncate(40);
    fs::write(&index, &bytes).unwrap();
    let err = gitindex::tracked_sample(&repo, 10, mnt())
        .unwrap_err()
        .sentence();
    assert!(err.contains("index"), "{err}");

    fs::write(&index, b"NOPE").unwrap();
    assert!(gitindex::tracked_sample(&repo, 10, mnt()).is_err());
}

#[test]
fn dot_git_file_without_gitdir_is_an_error() {
    let tmp = tempfile::tempdir().unwrap();
    write(&tmp.path().join("r/.git"), b"hello\n");
    assert!(gitindex::discover(&tmp.path().join("r"), mnt()).is_err());
    write(&tmp.path().join("s/.git"), b"gitdir: ../nowhere\n");
    let err = gitindex::discover(&tmp.path().join("s"), mnt()).unwrap_err();
    assert!(
        matches!(&err, gitindex::GitProblem::TargetMissing { target, .. } if target.ends_with("nowhere")),
        "{err:?}"
    );
    assert!(err.sentence().contains("nowhere"), "{}", err.sentence());
}
