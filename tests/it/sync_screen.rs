//! Issue 55: the sync's screens as a terminal of 110 columns and 40 rows shows them. A sync with
//! four conflicts fits, with no line wider than the terminal (so none is soft-wrapped inside a
//! name) and its answer last; `--sync`, `--abort` and `--remove-source` run inside the copy
//! answer for the old place; a staging folder that is not this run's is refused with the
//! would-lose-data code.

use crate::support;
use crate::support::{Exit, Run};

use std::fs;
use std::path::{Path, PathBuf};
use support::gitrepo::{repo_with_files, write};
use support::text;

/// Deep enough that a conflict's saved name is wider than a line's room beside the keys.
const DEEP: &str = "packages/server/src/routes/authentication";

/// A repository at a Windows-like path, migrated to `linux/express-api-server`, with four
/// files changed at both places and one file added at the old place since.
fn four_conflicts(home: &Path) -> (PathBuf, PathBuf) {
    let source = home.join("Users/me/source/express-api-server");
    repo_with_files(&source, 6);
    for i in 1..=4 {
        write(
            &source.join(format!("{DEEP}/session-token-refresh-handler-{i}.js")),
            b"v1\n",
        );
    }
    support::gitrepo::git(&source, &["add", "-A"]);
    support::gitrepo::git(&source, &["commit", "-qm", "handlers"]);
    let dest = home.join("linux/express-api-server");
    support::Sandbox::at(home)
        .migrate(&source, &dest)
        .arg("--yes")
        .run()
        .ok();
    for i in 1..=4 {
        let rel = format!("{DEEP}/session-token-refresh-handler-{i}.js");
        fs::write(dest.join(&rel), b"edited in the copy\n").unwrap();
        fs::write(source.join(&rel), b"edited at the old place\n").unwrap();
    }
    write(&source.join("lib/added-late.js"), b"new\n");
    (source, dest)
}

/// Rows `text` takes on a terminal `width` columns wide (a longer line wraps onto more).
fn rows(text: &str, width: usize) -> usize {
    text.lines()
        .map(|line| line.chars().count().div_ceil(width).max(1))
        .sum()
}

#[test]
fn a_sync_with_four_conflicts_fits_110_by_40_with_its_answer_last() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let (source, dest) = four_conflicts(home);
    let out = support::Sandbox::at(home)
        .migrate(&source, &dest)
        .args(["--sync", "--yes"])
        .env("COLUMNS", "110")
        .env("NO_COLOR", "1")
        .run();
    out.ok();
    // The plan goes to standard output before the result; both are on the terminal.
    let shown = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    );
    let wide: Vec<&str> = shown.lines().filter(|l| l.chars().count() > 110).collect();
    assert!(
        wide.is_empty(),
        "lines wider than 110 columns: {wide:#?}\n{shown}"
    );
    assert!(
        rows(&shown, 110) <= 40,
        "{} rows:\n{shown}",
        rows(&shown, 110)
    );
    // Each conflict is named whole, and so is the name a saved version takes.
    for i in 1..=4 {
        let name = format!("{DEEP}/session-token-refresh-handler-{i}.js");
        assert!(
            shown.lines().filter(|l| l.contains(&name)).count() >= 2,
            "{name} is not named whole in the plan and the result:\n{shown}"
        );
    }
    assert!(shown.contains("NAME.from-source-"), "{shown}");
    // The answer and its figures are last, where the terminal leaves the cursor.
    let last = shown.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("  synced") && last.contains("1 added") && last.contains("4 conflicts"),
        "the last line is {last:?}:\n{shown}"
    );
    // The first conflict's commands, broken between words, paste back whole.
    let saved = fs::read_dir(dest.join(DEEP))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .find(|n| n.starts_with("session-token-refresh-handler-1.js.from-source-"))
        .expect("the first conflict's saved version");
    let joined = shown.replace(" \\\n", " ");
    let merge = format!(
        "git merge-file -L copy -L base -L source {DEEP}/session-token-refresh-handler-1.js /dev/null {DEEP}/{saved}"
    );
    let merge_words: Vec<&str> = merge.split(' ').collect();
    let pasted = joined
        .lines()
        .find(|l| l.trim_start().starts_with("git merge-file"))
        .map(|l| l.split_whitespace().collect::<Vec<_>>());
    assert_eq!(pasted, Some(merge_words), "{shown}");
}

#[test]
fn sync_abort_and_remove_source_run_in_the_copy_answer_for_the_old_place() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let source = home.join("app");
    repo_with_files(&source, 6);
    let dest = home.join("src/app");
    // The default destination (~/src/<name>): run in it, the copy is what migrate would choose.
    support::Sandbox::at(home)
        .cmd()
        .args(["migrate", "--yes"])
        .arg(&source)
        .run()
        .ok();
    assert!(dest.join(".git").is_dir());
    write(&source.join("late.txt"), b"written at the old place\n");
    let in_copy = |args: &[&str]| {
        support::Sandbox::at(home)
            .cmd()
            .arg("migrate")
            .args(args)
            .current_dir(&dest)
            .env("NO_COLOR", "1")
            .run()
    };

    // --sync: done, for the old place (it writes only the copy and keeps both of a conflict).
    let synced = in_copy(&["--sync", "--yes"]);
    synced.ok();
    assert_eq!(
        fs::read(dest.join("late.txt")).unwrap(),
        b"written at the old place\n",
        "{}",
        text(&synced)
    );

    // --abort: it would delete the copy the person stands in; answered with the command.
    let abort = in_copy(&["--abort", "--yes"]);
    abort.ok();
    let said = String::from_utf8_lossy(&abort.stdout);
    assert!(
        said.contains("This repository is the copy of")
            && said.contains(&format!(
                "wsl-place migrate {} --to {} --abort",
                source.display(),
                dest.display()
            )),
        "{}",
        text(&abort)
    );
    assert!(dest.join(".git").is_dir(), "--abort in the copy removed it");

    // --remove-source: the old place stays until the command naming it is run.
    let remove = in_copy(&["--remove-source", "--yes"]);
    remove.ok();
    assert!(
        String::from_utf8_lossy(&remove.stdout).contains("--remove-source"),
        "{}",
        text(&remove)
    );
    assert!(
        source.join("late.txt").is_file(),
        "the old place was removed"
    );
}

#[test]
fn a_staging_folder_not_of_this_run_is_refused_with_the_would_lose_data_code() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let source = home.join("app");
    repo_with_files(&source, 4);
    let dest = home.join("linux/app");
    support::Sandbox::at(home)
        .migrate(&source, &dest)
        .arg("--yes")
        .run()
        .ok();
    write(&source.join("late.txt"), b"late\n");
    // A folder where the run would stage, holding someone's notes.
    let strange = dest.with_file_name(".app.wsl-place-staging");
    write(&strange.join("notes.txt"), b"not wsl-place's\n");
    let sync = support::Sandbox::at(home)
        .migrate(&source, &dest)
        .args(["--sync", "--yes"])
        .run();
    sync.fails(Exit::WouldLoseData);
    assert!(
        support::stderr(&sync).contains("not made by wsl-place"),
        "{}",
        text(&sync)
    );
    assert!(strange.join("notes.txt").is_file(), "{}", text(&sync));
    assert!(!dest.join("late.txt").exists(), "{}", text(&sync));

    // Another source's interrupted migration there: the same refusal, for a first migration.
    let other = home.join("other");
    repo_with_files(&other, 2);
    fs::remove_file(strange.join("notes.txt")).unwrap();
    let canonical = fs::canonicalize(&other).unwrap();
    fs::write(strange.join("source"), format!("{}\n", canonical.display())).unwrap();
    let again = support::Sandbox::at(home)
        .migrate(&source, &home.join("linux/app"))
        .args(["--sync", "--yes"])
        .run();
    again.fails(Exit::WouldLoseData);
    assert!(
        support::stderr(&again).contains("holds an interrupted migration of"),
        "{}",
        text(&again)
    );
}
