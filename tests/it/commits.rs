//! At the old place of a finished migration, people count commits (issue 55, "Talk in
//! commits"): one edit and one commit are "1 commit and 1 file not in the copy" on every
//! surface, `check` (its screen and JSON), the hook's line (`check --advisory`) and the shell
//! nudge, never the files the commit touched counted again as files.

use crate::support;
use crate::support::{Outcome, Run};

use std::path::{Path, PathBuf};
use support::gitrepo::{commit_all, init_and_commit_all, write};

/// A repository at `tmp/app` (`a.txt`, `b.txt`, `c.txt`) migrated to `tmp/linux/app`.
struct OldPlace {
    tmp: tempfile::TempDir,
}

impl OldPlace {
    fn new() -> Self {
        let old = OldPlace {
            tmp: tempfile::tempdir().unwrap(),
        };
        for name in ["a.txt", "b.txt", "c.txt"] {
            write(&old.src().join(name), format!("{name}\n").as_bytes());
        }
        init_and_commit_all(&old.src(), "first");
        old.sandbox()
            .migrate(&old.src(), &old.dst())
            .arg("--yes")
            .run()
            .ok();
        old
    }

    fn src(&self) -> PathBuf {
        self.tmp.path().join("app")
    }

    fn dst(&self) -> PathBuf {
        self.tmp.path().join("linux/app")
    }

    fn sandbox(&self) -> support::Sandbox {
        support::Sandbox::at(self.tmp.path())
    }

    fn run(&self, args: &[&str], dir: &Path) -> Outcome {
        self.sandbox()
            .cmd()
            .args(args)
            .env("NO_COLOR", "1")
            .env("COLUMNS", "400")
            .current_dir(dir)
            .run()
    }

    /// What each surface says: check's JSON `moved`, its screen (words joined), the hook's line
    /// and the nudge's.
    fn surfaces(&self) -> (serde_json::Value, String, String, String) {
        let src = self.src();
        let json = self.sandbox().check_json(&src, &[]);
        let screen = self.run(&["check"], &src).stdout();
        let screen = screen.split_whitespace().collect::<Vec<_>>().join(" ");
        let hook = self.run(&["check", "--advisory"], &src).stdout();
        let nudge = self.run(&["__nudge"], &src);
        let nudge = nudge.stderr() + &nudge.stdout();
        (json["moved"].clone(), screen, hook, nudge)
    }

    /// Every surface says `words`, and the JSON counts `commits` and `files`.
    fn all_say(&self, words: &str, commits: u64, files: u64) {
        let (moved, screen, hook, nudge) = self.surfaces();
        assert_eq!(moved["commits_not_in_copy"], commits, "{moved}");
        assert_eq!(moved["files_changed"], files, "{moved}");
        let message = moved["message"].as_str().unwrap_or_default();
        assert!(message.contains(words), "JSON: {moved}");
        assert!(screen.contains(words), "check:\n{screen}");
        assert!(hook.contains(words), "hook:\n{hook}");
        assert!(nudge.contains(words), "nudge:\n{nudge}");
        assert!(hook.trim_end().ends_with("--sync"), "hook:\n{hook}");
    }
}

#[test]
fn one_commit_and_one_edit_are_one_commit_and_one_file() {
    let old = OldPlace::new();
    let src = old.src();
    write(&src.join("a.txt"), b"a.txt, edited and committed\n");
    commit_all(&src, "second");
    write(&src.join("b.txt"), b"b.txt, edited\n");
    old.all_say("1 commit and 1 file not in the copy", 1, 1);
    // The edit committed too: commits alone, no file.
    commit_all(&src, "third");
    old.all_say("2 commits not in the copy", 2, 0);
    let (_, screen, ..) = old.surfaces();
    assert!(screen.contains("changed here 2 commits"), "{screen}");
    assert!(!screen.contains("file"), "{screen}");
}

#[test]
fn an_edit_without_a_commit_names_files_only() {
    let old = OldPlace::new();
    write(&old.src().join("b.txt"), b"b.txt, edited\n");
    old.all_say("1 file changed here since", 0, 1);
    let (moved, screen, hook, _) = old.surfaces();
    assert!(!screen.contains("commit"), "{screen}");
    assert!(!hook.contains("commit"), "{hook}");
    assert!(!moved["message"].as_str().unwrap().contains("commit"));
}

#[test]
fn a_sync_carries_the_commits_and_the_count_starts_again() {
    let old = OldPlace::new();
    let src = old.src();
    write(&src.join("a.txt"), b"a.txt, edited and committed\n");
    commit_all(&src, "second");
    old.all_say("1 commit not in the copy", 1, 0);
    old.sandbox()
        .migrate(&src, &old.dst())
        .args(["--sync", "--yes"])
        .run()
        .ok();
    let moved = old.sandbox().check_json(&src, &[])["moved"].clone();
    assert_eq!(moved["commits_not_in_copy"], 0, "{moved}");
    assert_eq!(moved["files_changed"], 0, "{moved}");
}
