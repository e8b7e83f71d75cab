//! Issue 36, item 11: `survey` says why it did not judge a repository whose `.git` leads
//! nowhere, and never says "no repositories" when its search did not look.

use crate::support::{self, Run, Sandbox, gitrepo};
use std::fs;
use std::path::Path;
use std::process::Command;

/// The tool with `home` as HOME and the XDG folders below it: the one place these tests set them.
fn tool(home: &Path) -> Command {
    let mut cmd = Sandbox::at(home).cmd();
    cmd.env("NO_COLOR", "1");
    cmd
}

#[test]
fn a_broken_git_file_is_reported_with_its_reason() {
    let base = tempfile::tempdir().unwrap();
    let tree = base.path().join("tree");
    gitrepo::files_repo(&tree.join("good"), 2);
    let broken = tree.join("broken");
    fs::create_dir_all(&broken).unwrap();
    fs::write(broken.join(".git"), "gitdir: /nowhere/at/all\n").unwrap();
    fs::write(broken.join("file.txt"), "x").unwrap();

    let json = tool(base.path())
        .args(["survey", "--no-probe", "--format", "json"])
        .arg(&tree)
        .run();
    let json = json.ok_json();
    let judged: Vec<&str> = json["repositories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["path"].as_str().unwrap())
        .collect();
    assert_eq!(judged, [tree.join("good").to_str().unwrap()], "{json}");
    let not_judged = &json["not_judged"][0];
    assert_eq!(not_judged["path"], broken.to_str().unwrap(), "{json}");
    let why = not_judged["why"].as_str().unwrap();
    assert!(why.contains("broken .git"), "{why}");
    assert!(why.contains("/nowhere/at/all"), "{why}");

    let human = tool(base.path())
        .args(["survey", "--no-probe"])
        .arg(&tree)
        .run();
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(text.contains("broken .git"), "{}", support::text(&human));
}

#[test]
fn a_search_stopped_by_its_budget_does_not_say_there_is_nothing() {
    let base = tempfile::tempdir().unwrap();
    let tree = base.path().join("tree");
    for name in ["a", "b", "c"] {
        gitrepo::files_repo(&tree.join(name), 1);
    }
    for format in ["human", "markdown"] {
        let out = tool(base.path())
            .args([
                "survey",
                "--no-probe",
                "--search-budget-ms",
                "0",
                "--format",
                format,
            ])
            .arg(&tree)
            .run();
        assert!(out.status.success(), "{}", support::text(&out));
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(!text.contains("No git repositories"), "{format}: {text}");
        assert!(text.contains("stopped at its budget"), "{format}: {text}");
        assert!(text.contains("--search-budget-ms"), "{format}: {text}");
    }
    // With the time to look, there is a table and the same words are not said.
    let out = tool(base.path())
        .args(["survey", "--no-probe"])
        .arg(&tree)
        .run();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("3 repositories"), "{text}");
    assert!(!text.contains("stopped at its budget"), "{text}");
}
