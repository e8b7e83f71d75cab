//! Windows' global `.gitconfig` as git reads it, checked with git itself: a link (dotfiles)
//! written through and kept, a person's later entry that git puts in the tool's `[safe]` block
//! still `safe.directory` after `--abort`, a last line without a line ending never glued to
//! another migration's header, and a copy's path no config line can carry refused.

use super::Windows;
use crate::support::{Outcome, Run, text};
use std::fs;
use std::path::Path;
use std::process::Command;

/// Plain git on a fixture file of the test's own (`--file`: no repository, nothing else read).
fn git_config(file: &Path, args: &[&str]) -> Outcome {
    Command::new("git")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .args(["config", "--file"])
        .arg(file)
        .args(args)
        .run()
}

/// Every `key=value` git reads in `file`, in order; panics when git refuses the file.
fn listed(file: &Path) -> Vec<String> {
    let out = git_config(file, &["--list"]);
    assert!(
        out.status.success(),
        "git refuses {}: {}",
        file.display(),
        text(&out)
    );
    String::from_utf8(out.stdout.clone())
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

fn safe_directories(file: &Path) -> Vec<String> {
    listed(file)
        .into_iter()
        .filter_map(|l| l.strip_prefix("safe.directory=").map(str::to_string))
        .collect()
}

fn succeeds(out: &std::process::Output) {
    assert!(out.status.success(), "{}", text(out));
}

fn is_link(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

#[test]
fn a_linked_gitconfig_is_written_through_and_is_still_a_link_after_abort() {
    let host = Windows::new(false);
    let target = host.profile.join("dotfiles/gitconfig");
    fs::create_dir_all(target.parent().unwrap()).unwrap();
    let before = b"[user]\n\tname = Me\n[core]\n\tautocrlf = true\n";
    fs::write(&target, before).unwrap();
    fs::remove_file(host.gitconfig()).unwrap();
    std::os::unix::fs::symlink("dotfiles/gitconfig", host.gitconfig()).unwrap();

    succeeds(&host.migrate(&["--yes"]));
    assert!(is_link(&host.gitconfig()), "the link was replaced");
    assert_eq!(safe_directories(&target), host.entries());
    // The person adds one of their own the way they would, through the link.
    succeeds(&git_config(
        &host.gitconfig(),
        &["--add", "safe.directory", "D:/mine"],
    ));
    succeeds(&host.migrate(&["--abort", "--yes"]));
    assert!(is_link(&host.gitconfig()), "the link was replaced");
    assert_eq!(
        fs::read_link(host.gitconfig()).unwrap(),
        Path::new("dotfiles/gitconfig")
    );
    let mut expected = before.to_vec();
    expected.extend_from_slice(b"[safe]\n\tdirectory = D:/mine\n");
    assert_eq!(
        String::from_utf8(fs::read(&target).unwrap()).unwrap(),
        String::from_utf8(expected).unwrap()
    );
}

#[test]
fn a_persons_later_entry_in_the_tools_block_is_still_safe_directory_after_abort() {
    let host = Windows::new(false);
    let file = host.gitconfig();
    fs::write(
        &file,
        "[safe]\r\n\tdirectory = D:/work/other\r\n[core]\r\n\tautocrlf = true\r\n",
    )
    .unwrap();
    let before = listed(&file);
    succeeds(&host.migrate(&["--yes"]));
    // git appends it inside the last [safe] block, the tool's.
    succeeds(&git_config(&file, &["--add", "safe.directory", "D:/mine"]));
    succeeds(&git_config(&file, &["alias.st", "status"]));
    succeeds(&host.migrate(&["--abort", "--yes"]));
    let mut expected = before;
    expected.extend([
        "safe.directory=D:/mine".to_string(),
        "alias.st=status".to_string(),
    ]);
    let after = listed(&file);
    // Compared as sets of lines in git's order per key: the person's entry after the older one.
    assert_eq!(
        safe_directories(&file),
        ["D:/work/other", "D:/mine"],
        "{after:?}"
    );
    assert!(
        !after.iter().any(|l| l.starts_with("core.directory")),
        "{after:?}"
    );
    let mut sorted_after = after.clone();
    sorted_after.sort();
    expected.sort();
    assert_eq!(sorted_after, expected);
}

#[test]
fn a_last_line_without_a_line_ending_never_runs_into_another_migrations_header() {
    let host = Windows::new(false);
    let file = host.gitconfig();
    // A pattern, not `*`: `*` trusts every folder and gets nothing added.
    let original = "[core]\n\tautocrlf = true\n[safe]\n\tdirectory = C:/work/*";
    fs::write(&file, original).unwrap();
    // A second repository, migrated after the first.
    let other = host.profile.join("src/lib");
    fs::create_dir_all(&other).unwrap();
    fs::write(other.join("b.txt"), b"b").unwrap();
    let other_copy = host.sandbox.home().join("src/lib");
    let migrate_other = |extra: &[&str]| {
        host.cmd()
            .arg("migrate")
            .arg(&other)
            .arg("--to")
            .arg(&other_copy)
            .args(extra)
            .run()
    };
    succeeds(&host.migrate(&["--yes"]));
    succeeds(&migrate_other(&["--yes"]));
    let [a1, a2] = host.entries();
    let tail = other_copy.display();
    let b = [
        format!("%(prefix)///wsl.localhost/Ubuntu{tail}"),
        format!("%(prefix)///wsl$/Ubuntu{tail}"),
    ];
    assert_eq!(
        safe_directories(&file),
        ["C:/work/*", &a1, &a2, &b[0], &b[1]]
    );
    succeeds(&host.migrate(&["--abort", "--yes"]));
    let text = String::from_utf8(fs::read(&file).unwrap()).unwrap();
    assert!(!text.contains("*["), "{text}");
    assert_eq!(
        safe_directories(&file),
        ["C:/work/*", &b[0], &b[1]],
        "{text}"
    );
    succeeds(&migrate_other(&["--abort", "--yes"]));
    assert_eq!(safe_directories(&file), ["C:/work/*"]);
    assert_eq!(
        listed(&file),
        ["core.autocrlf=true", "safe.directory=C:/work/*"]
    );
}

#[test]
fn a_copy_path_with_a_newline_is_refused_for_the_gitconfig_in_one_sentence() {
    let host = Windows::new(false);
    let destination = host.sandbox.home().join("src/a\nb");
    let run = |extra: &[&str]| {
        host.cmd()
            .arg("migrate")
            .arg(&host.source)
            .arg("--to")
            .arg(&destination)
            .args(extra)
            .run()
    };
    let plan = run(&["--dry-run", "--format", "json"]).ok_json();
    let offer = &plan["windows"]["safe_directory"];
    assert_eq!(offer["missing"], serde_json::json!([]), "{offer}");
    assert_eq!(offer["commands"], serde_json::json!([]), "{offer}");
    assert!(
        offer["refused"]
            .as_str()
            .is_some_and(|r| r.contains("control character")),
        "{offer}"
    );
    let out = run(&["--yes"]);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(
        destination.join("a.txt").exists(),
        "the migration went on: {said}"
    );
    let lines: Vec<&str> = said
        .lines()
        .filter(|l| l.contains("holds a control character"))
        .collect();
    assert_eq!(
        lines.len(),
        2,
        "the plan and the result say it once each: {said}"
    );
    assert!(
        lines[0].contains("src/a%0Ab") && lines[0].trim_end().ends_with("Windows' git."),
        "{said}"
    );
    assert!(!said.contains("git.exe config"), "{said}");
    assert_eq!(fs::read(host.gitconfig()).unwrap(), super::GITCONFIG);
    listed(&host.gitconfig());
}
