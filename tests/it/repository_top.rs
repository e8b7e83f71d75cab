//! A path inside a git working tree stands for the whole repository: `check`, `probe` and
//! `migrate` work on its top level and say so in one line; a folder outside any repository is
//! taken as given.

use crate::support;
use crate::support::Run;

use support::gitrepo::files_repo;
use support::{stderr, wsl_place};

#[test]
fn check_and_probe_in_a_subfolder_work_on_the_repository() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    files_repo(&repo, 150);
    let sub = repo.join("src/d001");
    let top = std::fs::canonicalize(&repo).unwrap();

    let out = wsl_place()
        .args(["check", "--format", "json", "--no-probe"])
        .arg(&sub)
        .run();
    let report = out.ok_json();
    assert_eq!(report["paths"]["linux"], top.display().to_string());
    assert_eq!(report["scan"]["tracked"], 150, "{report}");
    let said = stderr(&out);
    assert_eq!(said.lines().count(), 1, "{said}");
    assert!(said.contains("checking the whole repository"), "{said}");
    assert!(said.contains(&top.display().to_string()), "{said}");

    let out = wsl_place()
        .args(["probe", "--format", "json", "--probe-budget-ms", "200"])
        .arg(&sub)
        .run();
    let report = out.ok_json();
    assert_eq!(report["dir"], top.display().to_string());
    // The tracked sample is the repository's (128 of its 150 files, the most timed), not the
    // subfolder's 50 files.
    assert_eq!(
        report["tracked_lstat"]["samples"].as_u64(),
        Some(128),
        "{report}"
    );
    assert!(stderr(&out).contains("probing the whole repository"));

    let quiet = wsl_place()
        .args(["check", "--quiet", "--no-probe"])
        .arg(&sub)
        .run();
    assert!(stderr(&quiet).is_empty(), "{}", stderr(&quiet));
}

#[test]
fn migrate_in_a_subfolder_moves_the_repository() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    files_repo(&repo, 150);
    let dest = tmp.path().join("moved");
    let out = support::Sandbox::at(tmp.path())
        .cmd()
        .args(["migrate", "--yes"])
        .arg(repo.join("src/d001"))
        .arg("--to")
        .arg(&dest)
        .run();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("moving the whole repository"));
    assert!(dest.join(".git/HEAD").is_file());
    assert!(dest.join("src/d000/f000.txt").is_file());
    assert!(dest.join("src/d001/f000.txt").is_file());
}

#[test]
fn a_folder_outside_a_repository_is_taken_as_given() {
    let tmp = tempfile::tempdir().unwrap();
    let plain = tmp.path().join("plain/sub");
    std::fs::create_dir_all(&plain).unwrap();
    std::fs::write(plain.join("a.txt"), "a").unwrap();
    let out = wsl_place()
        .args(["check", "--format", "json", "--no-probe"])
        .arg(&plain)
        .run();
    let report = out.ok_json();
    let canonical = std::fs::canonicalize(&plain).unwrap();
    assert_eq!(report["paths"]["linux"], canonical.display().to_string());
    assert!(stderr(&out).is_empty(), "{}", stderr(&out));
}
