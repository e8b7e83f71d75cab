//! After the move (issue 25): `migrate --sync` copies late edits at the old place to the copy,
//! verified, keeping both versions of a file changed at both places; `--abort` after a finished
//! migration removes an unchanged copy and refuses a changed one. On slowfs where the old place
//! is a slow mount; the abort on local folders.

use crate::moved::OldPlace;
use crate::support;
use crate::support::{Exit, Outcome, Run};

use std::fs;
use std::path::{Path, PathBuf};
use support::gitrepo::{repo_with_files, write};
use support::tree::{assert_same_tree, snapshot};
use support::{is_one_sentence, stderr, text};

fn append(path: &Path, more: &[u8]) {
    let mut content = fs::read(path).unwrap();
    content.extend_from_slice(more);
    fs::write(path, content).unwrap();
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut found: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    found.sort();
    found
}

/// The one file beside `path` whose name is `path`'s plus `.from-source-<8 digits>`.
fn saved_beside(path: &Path) -> PathBuf {
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let prefix = format!("{name}.from-source-");
    let found: Vec<PathBuf> = fs::read_dir(path.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy().into_owned();
            n.strip_prefix(&prefix)
                .is_some_and(|day| day.len() == 8 && day.bytes().all(|b| b.is_ascii_digit()))
        })
        .collect();
    assert_eq!(
        found.len(),
        1,
        "saved versions of {}: {found:?}",
        path.display()
    );
    found[0].clone()
}

#[test]
#[ignore = "needs FUSE (/dev/fuse and fusermount3)"]
fn late_edits_reach_the_copy_verified_and_the_old_place_then_says_nothing_changed() {
    let Some(old) = OldPlace::new(20) else {
        return;
    };
    let first = old.migrate(&["--yes"]);
    first.ok();

    // One changed, one added (in a new folder), one removed.
    append(&old.source().join("d0/f0.txt"), b"a late line\n");
    write(
        &old.source().join("late/new.txt"),
        b"written after the move\n",
    );
    fs::remove_file(old.source().join("d1/f1.txt")).unwrap();
    let moved = &old.sandbox().check_json(&old.source(), &[])["moved"];
    assert_eq!(
        (&moved["added"], &moved["changed"], &moved["removed"]),
        (&1.into(), &1.into(), &1.into()),
        "{moved}"
    );
    assert!(
        moved["sync"].as_str().unwrap().ends_with("--sync"),
        "{moved}"
    );
    let before = snapshot(&old.source());

    // What it would do, without doing it.
    let dry = old.migrate(&["--sync", "--dry-run", "--format", "json"]);
    let planned = dry.ok_json();
    assert_eq!(planned["sync"]["done"], false, "{planned}");
    assert_eq!(planned["sync"]["changed"], 1, "{planned}");
    assert!(
        String::from_utf8_lossy(&dry.stderr).contains("Syncing late edits from"),
        "{}",
        text(&dry)
    );
    assert_eq!(
        fs::read(old.dest().join("d0/f0.txt")).unwrap(),
        b"x",
        "a dry run wrote the destination"
    );

    let out = old.migrate(&["--sync", "--yes", "--format", "json"]);
    let report = out.ok_json();
    let sync = &report["sync"];
    assert_eq!(
        (
            &sync["added"],
            &sync["changed"],
            &sync["removed"],
            &sync["done"]
        ),
        (&1.into(), &1.into(), &1.into(), &true.into()),
        "{report}"
    );
    assert_eq!(sync["copied_files"], 2, "{report}");
    // The totals are the updated manifest's: what the copy holds now.
    let files = snapshot(&old.dest())
        .values()
        .filter(|n| n.kind == "file")
        .count();
    assert_eq!(report["files"], files, "{report}");
    assert!(sync["predicted_ms"].is_u64(), "{report}");
    assert_eq!(before, snapshot(&old.source()), "the sync wrote the source");
    // The whole tree as the source has it now (git's index is refreshed at the copy on purpose).
    assert_same_tree(&old.source(), &old.dest(), &[".git/index"]);
    assert_eq!(
        names(old.dest().parent().unwrap()),
        ["app"],
        "the sync left something beside the copy"
    );
    let status = support::gitrepo::git(&old.dest(), &["status", "--porcelain"]);
    assert!(
        status.contains("d0/f0.txt") && status.contains("late/"),
        "{status}"
    );

    // The old place now says nothing changed, and a second sync copies nothing.
    let moved = &old.sandbox().check_json(&old.source(), &[])["moved"];
    assert_eq!(
        (&moved["added"], &moved["changed"], &moved["removed"]),
        (&0.into(), &0.into(), &0.into()),
        "{moved}"
    );
    assert!(moved["synced_unix"].is_u64(), "{moved}");
    let again = old
        .migrate(&["--sync", "--yes", "--format", "json"])
        .ok_json();
    assert_eq!(
        (
            &again["sync"]["added"],
            &again["sync"]["changed"],
            &again["sync"]["copied_files"]
        ),
        (&0.into(), &0.into(), &0.into()),
        "{again}"
    );
}

#[test]
#[ignore = "needs FUSE (/dev/fuse and fusermount3)"]
fn a_file_changed_at_both_places_keeps_both_versions() {
    let Some(old) = OldPlace::new(20) else {
        return;
    };
    let first = old.migrate(&["--yes"]);
    first.ok();
    // Changed at both places; and one removed here but changed there.
    fs::write(old.dest().join("d2/f2.txt"), b"the destination's version\n").unwrap();
    fs::write(old.source().join("d2/f2.txt"), b"the source's version\n").unwrap();
    fs::write(old.dest().join("d3/f3.txt"), b"kept at the destination\n").unwrap();
    fs::remove_file(old.source().join("d3/f3.txt")).unwrap();

    let before = snapshot(&old.source());

    let out = old.migrate(&["--sync", "--yes"]);
    out.ok();
    assert_eq!(before, snapshot(&old.source()), "the sync wrote the source");
    assert_eq!(
        fs::read(old.dest().join("d2/f2.txt")).unwrap(),
        b"the destination's version\n",
        "the destination's edit was overwritten"
    );
    let saved = saved_beside(&old.dest().join("d2/f2.txt"));
    assert_eq!(fs::read(&saved).unwrap(), b"the source's version\n");
    assert_eq!(
        fs::read(old.dest().join("d3/f3.txt")).unwrap(),
        b"kept at the destination\n",
        "a file changed at the destination was removed"
    );
    // The person is told, with the saved file's name.
    let said = String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let saved_name = saved.file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        said.contains("changed at both places") && said.contains(&saved_name),
        "{}",
        text(&out)
    );
    assert!(said.contains("d3/f3.txt"), "{}", text(&out));
    // Each conflicting path is counted once: as a conflict, not also as "kept" there.
    assert!(!said.contains("keeps"), "{}", text(&out));
    // How to finish it: the difference and the merge, run in the copy.
    assert!(
        said.contains(&format!("git diff --no-index d2/f2.txt d2/{saved_name}"))
            && said.contains(&format!(
                "git merge-file -L copy -L base -L source d2/f2.txt /dev/null d2/{saved_name}"
            ))
            && said.contains(".git/info/exclude"),
        "{}",
        text(&out)
    );
    // The saved version stays out of `git add -A`; the person's edit does not.
    support::gitrepo::git(&old.dest(), &["add", "-A"]);
    let staged = support::gitrepo::git(&old.dest(), &["diff", "--cached", "--name-only"]);
    assert!(
        staged.contains("d2/f2.txt") && !staged.contains(&saved_name),
        "{staged}"
    );
    support::gitrepo::git(&old.dest(), &["reset", "-q"]);
    // Both settled: the old place has nothing more to give, a second sync changes nothing.
    let moved = &old.sandbox().check_json(&old.source(), &[])["moved"];
    assert_eq!(
        (&moved["added"], &moved["changed"], &moved["removed"]),
        (&0.into(), &0.into(), &0.into()),
        "{moved}"
    );
    let again = old.migrate(&["--sync", "--yes"]);
    again.ok();
    assert_eq!(saved_beside(&old.dest().join("d2/f2.txt")), saved);
    assert_eq!(
        fs::read(old.dest().join("d2/f2.txt")).unwrap(),
        b"the destination's version\n"
    );
    // Removed at both places alone: nothing to do there, but the old place stops counting it.
    fs::remove_file(old.dest().join("d0/f4.txt")).unwrap();
    fs::remove_file(old.source().join("d0/f4.txt")).unwrap();
    assert_eq!(
        old.sandbox().check_json(&old.source(), &[])["moved"]["removed"],
        1
    );
    let out = old.migrate(&["--sync", "--yes"]);
    out.ok();
    assert_eq!(
        old.sandbox().check_json(&old.source(), &[])["moved"]["removed"],
        0
    );
    // Merged and deleted: the next sync drops its exclude entry.
    let exclude = old.dest().join(".git/info/exclude");
    assert!(fs::read_to_string(&exclude).unwrap().contains(&saved_name));
    fs::remove_file(&saved).unwrap();
    let out = old.migrate(&["--sync", "--yes"]);
    out.ok();
    let listed = fs::read_to_string(&exclude).unwrap();
    assert!(
        !listed.contains(&saved_name) && !listed.contains("wsl-place"),
        "{listed}"
    );
}

/// A repository at `tmp/NAME` migrated to `tmp/linux/NAME`, with the tests' state folder.
fn migrated(tmp: &Path, name: &str) -> (PathBuf, PathBuf) {
    let source = tmp.join(name);
    repo_with_files(&source, 12);
    let dest = tmp.join("linux").join(name);
    let out = support::Sandbox::at(tmp)
        .migrate(&source, &dest)
        .arg("--yes")
        .run();
    out.ok();
    (source, dest)
}

fn abort(source: &Path, dest: &Path, home: &Path) -> Outcome {
    support::Sandbox::at(home)
        .migrate(source, dest)
        .args(["--abort", "--yes"])
        .env("NO_COLOR", "1")
        .run()
}

#[test]
fn abort_after_the_move_removes_an_unchanged_copy_and_refuses_a_changed_one() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();

    // Unchanged since (git status there changes nothing): removed, and the old place forgets.
    let (source, dest) = migrated(home, "quiet");
    support::gitrepo::git(&dest, &["status", "--porcelain"]);
    let manifest = support::Sandbox::at(home).manifest_of(&dest);
    let before = snapshot(&source);
    let out = abort(&source, &dest, home);
    out.ok();
    assert!(!dest.exists(), "the unchanged copy is still there");
    assert!(!manifest.exists(), "its manifest is still there");
    assert_eq!(before, snapshot(&source), "--abort touched the source");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("Removed the copy at"),
        "{}",
        text(&out)
    );
    let check = support::Sandbox::at(home)
        .cmd()
        .args(["check", "--no-probe", "--format", "json"])
        .arg(&source)
        .run();
    let report = check.ok_json();
    assert!(report["moved"].is_null(), "{report}");

    // Edited since: refused in one sentence naming it, the edit listed, nothing removed.
    let (source, dest) = migrated(home, "busy");
    fs::write(dest.join("d1/f1.txt"), b"work done at the new place\n").unwrap();
    let out = abort(&source, &dest, home);
    // Refused to lose the copy's edit: exit 5, not the usage code.
    out.fails(Exit::WouldLoseData);
    let message = stderr(&out);
    let message = message.trim();
    assert!(
        is_one_sentence(message) && message.contains(&dest.display().to_string()),
        "{message}"
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("changed  d1/f1.txt"),
        "{}",
        text(&out)
    );
    assert_eq!(
        fs::read(dest.join("d1/f1.txt")).unwrap(),
        b"work done at the new place\n"
    );
    assert!(support::Sandbox::at(home).manifest_of(&dest).is_file());
    assert_eq!(names(&home.join("linux")), ["busy"], "left beside the copy");

    // Nothing to sync where nothing was migrated: refused in one sentence, nothing made.
    let elsewhere = home.join("linux/never");
    let out = support::Sandbox::at(home)
        .migrate(&source, &elsewhere)
        .args(["--sync", "--yes"])
        .run();
    out.fails(Exit::Input);
    let message = stderr(&out);
    assert!(
        is_one_sentence(message.trim()) && message.contains("without --sync"),
        "{message}"
    );
    assert_eq!(names(&home.join("linux")), ["busy"]);
}

// Ctrl-C while a sync walks the old place: the walk so far would pass for a source whose other
// files were removed, which the sync would then remove from the copy. It stops with the code of
// an interrupted run instead, the copy and the source as they were.
#[test]
#[ignore = "needs FUSE (/dev/fuse and fusermount3)"]
fn ctrl_c_while_the_sync_walks_the_source_changes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let backing = tmp.path().join("backing");
    for d in 0..40 {
        for f in 0..3 {
            write(
                &backing.join(format!("app/d{d:02}/f{f}.txt")),
                format!("{d} {f}\n").as_bytes(),
            );
        }
    }
    support::gitrepo::init_and_commit_all(&backing.join("app"), "init");
    fs::create_dir_all(tmp.path().join("home")).unwrap();
    let (mnt, dest) = (tmp.path().join("mnt"), tmp.path().join("linux/app"));
    let migrate = |args: &[&str]| {
        let mut cmd =
            support::Sandbox::at(tmp.path().join("home")).migrate(&mnt.join("app"), &dest);
        cmd.args(args).env("NO_COLOR", "1");
        cmd
    };
    {
        let Some(_fs) = support::SlowFs::mount(&backing, &mnt, &["--profile", "none"]) else {
            return;
        };
        let first = migrate(&["--yes"]).run();
        first.ok();
    }
    let (copy_before, source_before) = (snapshot(&dest), snapshot(&backing));
    // Every listing now takes 150 ms, two at a time: the sync's walk of the 41 folders takes
    // seconds, and the signal comes in the middle of it, once the run lists a folder below the
    // source's top.
    let slow = [
        "--profile",
        "none",
        "--latency",
        "readdir=150",
        "--threads",
        "2",
    ];
    let Some(_fs) = support::SlowFs::mount(&backing, &mnt, &slow) else {
        return;
    };
    let child = migrate(&["--sync", "--yes"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let source = mnt.join("app");
    let (out, _) = support::signal_once(
        child,
        support::Signal::INT,
        "the walk of the source's folders",
        || support::lists_work_tree_below(pid, &source),
        std::time::Duration::from_secs(20),
        std::time::Duration::ZERO,
    );
    out.fails(Exit::Interrupted);
    assert!(
        stderr(&out).contains("nothing was synced"),
        "{}",
        stderr(&out)
    );
    assert_eq!(snapshot(&dest), copy_before);
    assert_eq!(snapshot(&backing), source_before);
}

/// Issue 55: every `--abort` that refuses because going on would lose data exits 5, not 2 (the
/// usage code): the copy unasked without a terminal, a sync verified and being applied, and a
/// staging folder that is another migration's or not wsl-place's.
#[test]
fn refused_aborts_exit_with_the_would_lose_data_code() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let (source, dest) = migrated(home, "app");
    let unasked = support::Sandbox::at(home)
        .migrate(&source, &dest)
        .arg("--abort")
        .run();
    unasked.fails(Exit::WouldLoseData);
    assert!(dest.is_dir(), "{}", text(&unasked));

    let sync = dest.with_file_name(".app.wsl-place-sync");
    fs::create_dir(&sync).unwrap();
    let canonical = fs::canonicalize(&source).unwrap();
    fs::write(sync.join("source"), format!("{}\n", canonical.display())).unwrap();
    fs::write(sync.join("finalising"), b"").unwrap();
    let applying = abort(&source, &dest, home);
    applying.fails(Exit::WouldLoseData);
    assert!(
        stderr(&applying).contains("is being applied"),
        "{}",
        text(&applying)
    );
    fs::remove_dir_all(&sync).unwrap();

    let (other, other_dest) = (home.join("other"), home.join("linux/other"));
    repo_with_files(&other, 2);
    let strange = other_dest.with_file_name(".other.wsl-place-staging");
    fs::create_dir_all(&strange).unwrap();
    fs::write(strange.join("notes.txt"), b"not wsl-place's\n").unwrap();
    let foreign = abort(&other, &other_dest, home);
    foreign.fails(Exit::WouldLoseData);
    assert!(
        stderr(&foreign).contains("not made by wsl-place"),
        "{}",
        text(&foreign)
    );
    assert!(strange.join("notes.txt").is_file(), "{}", text(&foreign));
}
