//! The first `git status` after a copy: the bytes git scans for line endings, as git itself
//! reads `.gitattributes`, and the cold figure beside the warm one.

use crate::support;
use crate::support::Run;

use support::gitrepo::{git, init_and_commit_all, write};
use support::wsl_place;

/// A repository whose rules give every kind of file: `text=auto` at the top, `binary` images,
/// a deeper file that marks Markdown `text` and turns text off for `.txt`, and `eol` alone.
fn attributes_repo(dir: &std::path::Path) {
    write(
        &dir.join(".gitattributes"),
        b"* text=auto\n*.png binary\n*.sh eol=lf\n",
    );
    write(
        &dir.join("docs/.gitattributes"),
        b"*.md text\n*.txt -text\n",
    );
    for i in 0..30 {
        let body = format!("fn f{i}() {{}}\n").repeat(i + 1);
        write(&dir.join(format!("src/m{i}.rs")), body.as_bytes());
    }
    write(&dir.join("img/logo.png"), &[0u8; 3000]);
    write(&dir.join("run.sh"), b"#!/bin/sh\necho hi\n");
    write(
        &dir.join("docs/guide.md"),
        "# Guide\n".repeat(50).as_bytes(),
    );
    write(&dir.join("docs/notes.txt"), "notes\n".repeat(40).as_bytes());
    write(&dir.join("docs/more/deep.md"), b"deep\n");
    init_and_commit_all(dir, "init");
}

/// Bytes of the tracked files git itself gives `text`/`eol` and `text=auto`.
fn bytes_by_git(dir: &std::path::Path) -> (u64, u64) {
    let files = git(dir, &["ls-files"]);
    let (mut text, mut auto) = (0, 0);
    for file in files.lines() {
        let attrs = git(dir, &["check-attr", "text", "eol", "--", file]);
        let value = |name: &str| {
            attrs
                .lines()
                .find(|l| l.contains(&format!(": {name}: ")))
                .and_then(|l| l.rsplit(": ").next())
                .unwrap_or("unspecified")
                .to_string()
        };
        let size = std::fs::metadata(dir.join(file)).unwrap().len();
        match (value("text").as_str(), value("eol").as_str()) {
            ("auto", _) => auto += size,
            ("set", _) => text += size,
            ("unspecified", eol) if eol != "unspecified" => text += size,
            _ => {}
        }
    }
    (text, auto)
}

#[test]
fn line_ending_bytes_follow_git_and_the_cold_figure_is_not_below_the_warm_one() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    attributes_repo(&repo);
    let (text, auto) = bytes_by_git(&repo);
    assert!(text > 0 && auto > 0, "{text} {auto}");

    let out = wsl_place()
        .args([
            "check",
            "--fresh",
            "--format",
            "json",
            "--probe-budget-ms",
            "300",
        ])
        .arg(&repo)
        .run();
    let report = out.ok_json();
    let walk = &report["probe"]["git_walk"];
    assert_eq!(walk["text_bytes"].as_u64(), Some(text), "{walk}");
    assert_eq!(walk["auto_text_bytes"].as_u64(), Some(auto), "{walk}");
    let inputs = &report["predict"]["inputs"];
    assert_eq!(inputs["auto_text_bytes"].as_u64(), Some(auto), "{inputs}");

    // A temporary folder is on a local disk (or tmpfs): lstat is CPU work, so cold reads are
    // timed there, and the cold figure adds them to the warm one.
    let cold_read = &report["probe"]["current"]["cold_read"];
    assert!(
        cold_read["file_us"].as_f64().unwrap_or(0.0) > 0.0,
        "{cold_read}"
    );
    assert!(
        cold_read["mib_us"].as_f64().unwrap_or(0.0) > 0.0,
        "{cold_read}"
    );
    let warm = report["predict"]["first_git_status_ms"]["current"]
        .as_f64()
        .unwrap();
    let cold = report["predict"]["first_git_status_cold_ms"]["current"]
        .as_f64()
        .unwrap();
    assert!(cold > warm, "cold {cold} vs warm {warm}");
    // The probe's cold reads leave nothing behind in the repository.
    let left: Vec<_> = std::fs::read_dir(&repo)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with(".wsl-place"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn info_attributes_and_autocrlf_change_what_is_scanned() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    attributes_repo(&repo);
    // Everything off in info/attributes: nothing is scanned.
    write(&repo.join(".git/info/attributes"), b"* -text\n");
    let off = bytes_by_git(&repo);
    assert_eq!(off, (0, 0));
    let walk_of = |repo: &std::path::Path| {
        let out = wsl_place()
            .args(["check", "--format", "json", "--probe-budget-ms", "200"])
            .arg(repo)
            .run();
        out.ok_json()["probe"]["git_walk"].clone()
    };
    let walk = walk_of(&repo);
    assert_eq!(walk["text_bytes"].as_u64(), Some(0), "{walk}");
    assert_eq!(walk["auto_text_bytes"].as_u64(), Some(0), "{walk}");

    // No rules but core.autocrlf: every file is text=auto to git.
    std::fs::remove_file(repo.join(".git/info/attributes")).unwrap();
    git(
        &repo,
        &["rm", "-q", ".gitattributes", "docs/.gitattributes"],
    );
    git(&repo, &["commit", "-q", "-m", "no rules"]);
    git(&repo, &["config", "core.autocrlf", "input"]);
    let tracked: u64 = git(&repo, &["ls-files"])
        .lines()
        .map(|f| std::fs::metadata(repo.join(f)).unwrap().len())
        .sum();
    let walk = walk_of(&repo);
    assert_eq!(walk["auto_text_bytes"].as_u64(), Some(tracked), "{walk}");
    assert_eq!(walk["text_bytes"].as_u64(), Some(0), "{walk}");
}
