//! Nothing lost after the move (issue 36): `--sync`, `--abort` and `--remove-source` after a
//! finished migration never destroy the only copy of a file, never write outside the copy, and
//! never get stuck. Each test reproduces one of the issue's sequences through the binary and
//! checks the files themselves, not only the exit code. Items 1-3 run on a local disk and, with
//! the old place on the slowfs emulator, on a slow mount.

use crate::support;
use crate::support::{Outcome, Run};

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use support::SlowFs;
use support::gitrepo::{git, init_and_commit_all, write};
use support::{json_of, text};

/// The repository of the issue's repros: `docs/d1..d3.md`, `top.txt`, `b.bin`, committed.
const FILES: [(&str, &[u8]); 5] = [
    ("docs/d1.md", b"# one\n"),
    ("docs/d2.md", b"# two\n"),
    ("docs/d3.md", b"# three\n"),
    ("top.txt", b"top\n"),
    ("b.bin", b"\x00\x01\x02binary\xff"),
];

/// A repository migrated to `dst/r`, with its own home and state folders; the old place on the
/// local disk or on slowfs.
pub struct Place {
    pub tmp: tempfile::TempDir,
    slow: Option<SlowFs>,
}

impl Place {
    /// The old place on the local disk, not yet migrated.
    pub fn local() -> Place {
        let place = Place {
            tmp: tempfile::tempdir().unwrap(),
            slow: None,
        };
        place.make_repo();
        place
    }

    /// The old place on slowfs; None after a skip.
    pub fn slow() -> Option<Place> {
        let tmp = tempfile::tempdir().unwrap();
        let backing = tmp.path().join("backing");
        fs::create_dir_all(&backing).unwrap();
        let slow = SlowFs::mount(
            &backing,
            &tmp.path().join("mnt"),
            &["--profile", "none", "--latency", "open=1"],
        )?;
        let place = Place {
            tmp,
            slow: Some(slow),
        };
        place.make_repo();
        Some(place)
    }

    fn make_repo(&self) {
        for dir in [".local/state", ".cache", ".config"] {
            fs::create_dir_all(self.tmp.path().join("home").join(dir)).unwrap();
        }
        fs::create_dir_all(self.tmp.path().join("dst")).unwrap();
        fs::create_dir_all(self.outside()).unwrap();
        for (rel, content) in FILES {
            write(&self.src().join(rel), content);
        }
        init_and_commit_all(&self.src(), "init");
    }

    /// Migrated, as every repro starts.
    pub fn migrated() -> Place {
        let place = Place::local();
        place.migrate_ok(&["--yes"]);
        place
    }

    pub fn src(&self) -> PathBuf {
        match &self.slow {
            Some(fs) => fs.mountpoint().join("src"),
            None => self.tmp.path().join("src"),
        }
    }

    pub fn dst(&self) -> PathBuf {
        self.tmp.path().join("dst/r")
    }

    /// A folder beside both trees, out of them both.
    pub fn outside(&self) -> PathBuf {
        self.tmp.path().join("outside")
    }

    /// `wsl-place ARGS` with this place's own home, state, cache and config folders: the one
    /// place in this file that sets them.
    pub fn run(&self, args: &[&str]) -> Command {
        let home = self.tmp.path().join("home");
        let mut cmd = support::wsl_place();
        cmd.args(args)
            .env("HOME", &home)
            .env("XDG_STATE_HOME", home.join(".local/state"))
            .env("XDG_CACHE_HOME", home.join(".cache"))
            .env("XDG_CONFIG_HOME", home.join(".config"))
            .env("NO_COLOR", "1");
        cmd
    }

    /// `wsl-place migrate SRC --to DST ARGS`.
    pub fn migrate(&self, args: &[&str]) -> Outcome {
        let mut cmd = self.run(&["migrate"]);
        cmd.arg(self.src()).arg("--to").arg(self.dst()).args(args);
        cmd.run()
    }

    pub fn migrate_ok(&self, args: &[&str]) -> Outcome {
        let out = self.migrate(args);
        out.ok();
        out
    }
}

/// Every regular file below `root` by its bytes, never following a link.
pub fn files(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut found = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(listing) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in listing.flatten() {
            let path = entry.path();
            let Ok(meta) = fs::symlink_metadata(&path) else {
                continue;
            };
            if meta.is_dir() {
                stack.push(path);
            } else if meta.is_file() {
                let rel = path.strip_prefix(root).unwrap().to_path_buf();
                found.insert(rel, fs::read(&path).unwrap_or_default());
            }
        }
    }
    found
}

/// The issue's files, each at `root` with its committed content.
fn assert_has_the_files(root: &Path, what: &str) {
    for (rel, content) in FILES {
        let path = root.join(rel);
        assert_eq!(
            fs::read(&path).ok().as_deref(),
            Some(content),
            "{what}: {} is gone or changed",
            path.display()
        );
    }
    assert!(root.join(".git/HEAD").is_file(), "{what}: .git is gone");
}

fn sync_after_remove_source_keeps_the_copy(place: &Place) {
    place.migrate_ok(&["--yes"]);
    write(&place.src().join("late.txt"), b"late\n");
    place.migrate_ok(&["--remove-source", "--yes"]);
    assert!(place.src().join("late.txt").is_file());
    let dry = place.migrate_ok(&["--sync", "--dry-run", "--format", "json"]);
    let planned = dry.ok_json();
    assert_eq!(planned["sync"]["removed"], 0, "{planned}");
    place.migrate_ok(&["--sync", "--yes"]);
    assert_has_the_files(&place.dst(), "--sync after --remove-source");
    assert_eq!(fs::read(place.dst().join("late.txt")).unwrap(), b"late\n");
    git(&place.dst(), &["status", "--short"]);

    // The source removed whole, then made again empty: still never a removal.
    fs::remove_file(place.src().join("late.txt")).unwrap();
    place.migrate_ok(&["--remove-source", "--yes"]);
    fs::create_dir_all(place.src()).unwrap();
    let dry = place.migrate_ok(&["--sync", "--dry-run", "--format", "json"]);
    let planned = dry.ok_json();
    assert_eq!(planned["sync"]["removed"], 0, "{planned}");
    place.migrate_ok(&["--sync", "--yes"]);
    assert_has_the_files(&place.dst(), "--sync at a source made again empty");
}

/// Item 1.
#[test]
fn sync_after_remove_source_never_removes_from_the_copy() {
    sync_after_remove_source_keeps_the_copy(&Place::local());
}

#[test]
#[ignore = "needs FUSE (/dev/fuse and fusermount3)"]
fn sync_after_remove_source_never_removes_from_the_copy_on_slowfs() {
    if let Some(place) = Place::slow() {
        sync_after_remove_source_keeps_the_copy(&place);
    }
}

fn sync_keeps_what_a_source_link_reaches_in_the_copy(place: &Place) {
    place.migrate_ok(&["--yes"]);
    fs::remove_dir_all(place.src().join("docs")).unwrap();
    std::os::unix::fs::symlink(place.dst().join("docs"), place.src().join("docs")).unwrap();
    let out = place.migrate(&["--sync", "--yes", "--format", "json"]);
    assert_has_the_files(
        &place.dst(),
        "--sync with a source folder linked into the copy",
    );
    // The report lists no removal of what the link reaches, and the link as a conflict (the
    // copy's folder kept), not as a file added.
    let report = json_of(&out);
    assert_eq!(report["sync"]["removed"], 0, "{}", text(&out));
    assert_eq!(report["sync"]["added"], 0, "{}", text(&out));
    let conflicts = report["sync"]["conflicts"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(
        conflicts.iter().any(|c| c["path"] == "docs"),
        "the link is not listed as a conflict: {}",
        text(&out)
    );
    assert!(place.dst().join("docs").is_dir() && !place.dst().join("docs").is_symlink());
}

/// Item 2.
#[test]
fn sync_never_removes_what_a_source_link_into_the_copy_reaches() {
    sync_keeps_what_a_source_link_reaches_in_the_copy(&Place::local());
}

#[test]
#[ignore = "needs FUSE (/dev/fuse and fusermount3)"]
fn sync_never_removes_what_a_source_link_into_the_copy_reaches_on_slowfs() {
    if let Some(place) = Place::slow() {
        sync_keeps_what_a_source_link_reaches_in_the_copy(&place);
    }
}

fn abort_keeps_the_copy_the_source_no_longer_holds(place: &Place) {
    place.migrate_ok(&["--yes"]);
    // A folder gone from the source.
    fs::remove_dir_all(place.src().join("docs")).unwrap();
    let out = place.migrate(&["--abort", "--yes"]);
    out.fails_somehow();
    assert_has_the_files(&place.dst(), "--abort with docs/ gone from the source");
    assert!(
        text(&out).contains("docs/d1.md (missing)"),
        "the refusal names a missing file: {}",
        text(&out)
    );

    // The folder back as a link into the copy: reading through it proves nothing.
    std::os::unix::fs::symlink(place.dst().join("docs"), place.src().join("docs")).unwrap();
    let out = place.migrate(&["--abort", "--yes"]);
    out.fails_somehow();
    assert_has_the_files(&place.dst(), "--abort with docs/ a link into the copy");
    fs::remove_file(place.src().join("docs")).unwrap();

    // The source moved away and an empty folder made in its place.
    let away = place.src().with_file_name("src-away");
    fs::rename(place.src(), &away).unwrap();
    fs::create_dir(place.src()).unwrap();
    let out = place.migrate(&["--abort", "--yes"]);
    out.fails_somehow();
    assert_has_the_files(&place.dst(), "--abort with the source moved away");

    // The same files again, but a different folder than the migration recorded.
    fs::remove_dir(place.src()).unwrap();
    copy_tree(&away, &place.src());
    fs::remove_dir_all(&away).unwrap();
    let out = place.migrate(&["--abort", "--yes"]);
    out.fails_somehow();
    assert_has_the_files(&place.dst(), "--abort with another folder at the source");
}

fn copy_tree(from: &Path, to: &Path) {
    let status = Command::new("cp")
        .arg("-a")
        .arg(from)
        .arg(to)
        .status()
        .unwrap();
    assert!(status.success());
}

/// Item 3.
#[test]
fn abort_after_finish_keeps_a_copy_the_source_no_longer_holds() {
    abort_keeps_the_copy_the_source_no_longer_holds(&Place::local());
}

#[test]
#[ignore = "needs FUSE (/dev/fuse and fusermount3)"]
fn abort_after_finish_keeps_a_copy_the_source_no_longer_holds_on_slowfs() {
    if let Some(place) = Place::slow() {
        abort_keeps_the_copy_the_source_no_longer_holds(&place);
    }
}

/// Item 3's other half: with the source intact, `--abort` still removes the copy.
#[test]
fn abort_after_finish_removes_a_copy_the_source_holds_byte_for_byte() {
    let place = Place::migrated();
    let out = place.migrate_ok(&["--abort", "--yes"]);
    assert!(!place.dst().exists(), "{}", text(&out));
    assert_has_the_files(&place.src(), "--abort");
}

/// Item 6: a file replaced by a folder at the source, and a name the copy gained while the
/// source made a folder of it, never leave the sync stuck.
#[test]
fn file_and_folder_swaps_never_leave_a_sync_stuck() {
    let place = Place::migrated();
    fs::remove_file(place.src().join("top.txt")).unwrap();
    write(&place.src().join("top.txt/inner.txt"), b"inner\n");
    place.migrate_ok(&["--sync", "--yes"]);
    assert_eq!(
        fs::read(place.dst().join("top.txt/inner.txt")).unwrap(),
        b"inner\n"
    );

    // The copy gains `x` while the source adds `x/y`.
    write(&place.dst().join("x"), b"the copy's x\n");
    write(&place.src().join("x/y"), b"the source's y\n");
    let out = place.migrate(&["--sync", "--yes"]);
    out.ok();
    assert_eq!(fs::read(place.dst().join("x")).unwrap(), b"the copy's x\n");
    let everywhere: Vec<Vec<u8>> = files(&place.src())
        .into_values()
        .chain(files(&place.dst()).into_values())
        .collect();
    assert!(everywhere.iter().any(|c| c == b"the source's y\n"));
    // Run again: still not stuck, and --abort is not refused for a sync left half done.
    place.migrate_ok(&["--sync", "--yes"]);
    let staging = place.tmp.path().join("dst/.r.wsl-place-sync");
    assert!(!staging.exists(), "a sync staging folder was left");
}

/// Item 8: a folder of the copy replaced by a link to somewhere else is never written through.
#[test]
fn sync_never_writes_through_a_link_at_the_destination() {
    let place = Place::migrated();
    let elsewhere = place.outside().join("x");
    fs::rename(place.dst().join("docs"), &elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, place.dst().join("docs")).unwrap();
    let before = files(&place.outside());
    write(&place.src().join("docs/d1.md"), b"# one, edited late\n");
    write(&place.src().join("docs/new.md"), b"# new\n");
    let out = place.migrate(&["--sync", "--yes"]);
    assert_eq!(before, files(&place.outside()), "{}", text(&out));
    assert_eq!(
        fs::read(place.src().join("docs/d1.md")).unwrap(),
        b"# one, edited late\n"
    );
}

/// Item 8: the copy moved away and another repository put at its recorded place.
#[test]
fn sync_never_writes_into_another_repository_at_the_destination() {
    let place = Place::migrated();
    let moved = place.tmp.path().join("dst/r-moved");
    fs::rename(place.dst(), &moved).unwrap();
    write(&place.dst().join("theirs.txt"), b"another project\n");
    init_and_commit_all(&place.dst(), "theirs");
    let before = files(&place.dst());
    write(&place.src().join("top.txt"), b"top, late\n");
    write(&place.src().join("late.txt"), b"late\n");
    let out = place.migrate(&["--sync", "--yes"]);
    out.fails_somehow();
    assert_eq!(before, files(&place.dst()), "{}", text(&out));
    let said = support::stderr(&out);
    assert!(said.contains("not the copy"), "{}", text(&out));
    // Nor does --abort remove it, nor --remove-source take the source's files on its word.
    let out = place.migrate(&["--abort", "--yes"]);
    out.fails_somehow();
    assert_eq!(before, files(&place.dst()));
    let before = files(&place.src());
    let out = place.migrate(&["--remove-source", "--yes"]);
    out.fails_somehow();
    assert_eq!(
        before,
        files(&place.src()),
        "--remove-source into another repository"
    );
}

/// Item 10: a folder replaced by a file at the source replaces the copy's unchanged folder.
#[test]
fn a_folder_replaced_by_a_file_at_the_source_is_no_conflict() {
    let place = Place::migrated();
    fs::remove_dir_all(place.src().join("docs")).unwrap();
    write(&place.src().join("docs"), b"docs, now a file\n");
    let out = place.migrate_ok(&["--sync", "--yes", "--format", "json"]);
    let report = json_of(&out);
    assert_eq!(
        report["sync"]["conflicts"],
        serde_json::json!([]),
        "{report}"
    );
    assert_eq!(
        fs::read(place.dst().join("docs")).unwrap(),
        b"docs, now a file\n",
        "{report}"
    );
}

/// Item 10: hard links in the copy stay hard links after a sync.
#[test]
fn a_sync_keeps_hard_links() {
    let place = Place::local();
    fs::hard_link(
        place.src().join("top.txt"),
        place.src().join("top-link.txt"),
    )
    .unwrap();
    git(&place.src(), &["add", "-A"]);
    git(&place.src(), &["commit", "-q", "-m", "link"]);
    place.migrate_ok(&["--yes"]);
    let ino = |p: &Path| fs::metadata(p).unwrap().ino();
    assert_eq!(
        ino(&place.dst().join("top.txt")),
        ino(&place.dst().join("top-link.txt")),
        "the first copy keeps hard links"
    );
    fs::write(place.src().join("top.txt"), b"top, late\n").unwrap();
    place.migrate_ok(&["--sync", "--yes"]);
    assert_eq!(
        fs::read(place.dst().join("top-link.txt")).unwrap(),
        b"top, late\n"
    );
    assert_eq!(
        ino(&place.dst().join("top.txt")),
        ino(&place.dst().join("top-link.txt")),
        "the sync split a hard link"
    );
}

/// Item 10: a sync's counts are its plan's, and the totals are the tree's.
#[test]
fn a_syncs_counts_match_its_plan_and_the_tree() {
    let place = Place::migrated();
    write(&place.src().join("late/a.txt"), b"a\n");
    write(&place.src().join("late/b.txt"), b"b\n");
    write(&place.src().join("top.txt"), b"top, late\n");
    fs::remove_file(place.src().join("docs/d3.md")).unwrap();
    // Changed at both places: the source's is saved beside the copy's, one more file there.
    write(&place.src().join("docs/d2.md"), b"# two, at the source\n");
    write(&place.dst().join("docs/d2.md"), b"# two, at the copy\n");
    let dry = place
        .migrate(&["--sync", "--dry-run", "--format", "json"])
        .ok_json();
    let done = place
        .migrate(&["--sync", "--yes", "--format", "json"])
        .ok_json();
    for key in ["added", "changed", "removed", "bytes"] {
        assert_eq!(dry["sync"][key], done["sync"][key], "{key}: {dry}\n{done}");
    }
    let (files_now, dirs_now) = counts(&place.dst());
    assert_eq!(done["files"], files_now, "{done}");
    assert_eq!(done["dirs"], dirs_now, "{done}");
}

/// Files and folders below `root` (itself not counted), never following a link.
fn counts(root: &Path) -> (u64, u64) {
    let (mut files, mut dirs) = (0, 0);
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).unwrap().flatten() {
            let meta = fs::symlink_metadata(entry.path()).unwrap();
            if meta.is_dir() {
                dirs += 1;
                stack.push(entry.path());
            } else if meta.is_file() {
                files += 1;
            }
        }
    }
    (files, dirs)
}

/// Item 13: a sealed sync that could not be applied says to finish it with `--sync`, never
/// to give it up with `--abort` (which refuses a sealed sync).
#[test]
#[ignore = "needs root (chattr +i on the destination)"]
fn a_sealed_sync_that_stopped_says_to_finish_it_with_sync() {
    if !support::require_root("chattr +i") {
        return;
    }
    let place = Place::migrated();
    write(&place.src().join("docs/d1.md"), b"# one, late\n");
    let docs = place.dst().join("docs");
    let chattr = |flag: &str| {
        Command::new("chattr")
            .arg(flag)
            .arg(&docs)
            .status()
            .is_ok_and(|s| s.success())
    };
    if !chattr("+i") {
        support::skip("chattr +i is not supported on this file system");
        return;
    }
    let out = place.migrate(&["--sync", "--yes"]);
    chattr("-i");
    out.fails_somehow();
    let said = support::stderr(&out);
    assert!(
        said.contains("--sync`") && !said.contains("--abort`"),
        "{}",
        text(&out)
    );
    place.migrate_ok(&["--sync", "--yes"]);
    assert_eq!(fs::read(docs.join("d1.md")).unwrap(), b"# one, late\n");
}

/// Item 13: `--skip-unreadable` names what it left out and does not claim every edit is in.
#[test]
#[ignore = "needs FUSE (/dev/fuse and fusermount3)"]
fn a_sync_that_skips_a_file_names_it() {
    let tmp = tempfile::tempdir().unwrap();
    let backing = tmp.path().join("backing");
    fs::create_dir_all(&backing).unwrap();
    let Some(slow) = SlowFs::mount(
        &backing,
        &tmp.path().join("mnt"),
        &["--profile", "none", "--eio-path-prefix", "src/bad"],
    ) else {
        return;
    };
    let place = Place {
        tmp,
        slow: Some(slow),
    };
    place.make_repo();
    place.migrate_ok(&["--yes"]);
    write(&place.src().join("late/good.txt"), b"good\n");
    // Written behind the mount, so no page cache answers the read that must fail.
    write(&place.tmp.path().join("backing/src/bad/late.txt"), b"bad\n");
    let out = place.migrate(&["--sync", "--yes", "--skip-unreadable"]);
    out.ok();
    let said =
        String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("bad/late.txt"), "{}", text(&out));
    assert!(
        !said.contains("the late edits are in the copy"),
        "{}",
        text(&out)
    );
}

/// Item 13: the copy renamed away; the old place still knows it moved, and `--sync` says the
/// copy is missing instead of advising a second migration.
#[test]
fn a_renamed_copy_is_not_forgotten_at_the_old_place() {
    let place = Place::migrated();
    fs::rename(place.dst(), place.tmp.path().join("dst/renamed")).unwrap();
    let report = place
        .run(&support::CHECK_JSON)
        .arg(place.src())
        .run()
        .json();
    assert!(
        report["moved"]["destination"]
            .as_str()
            .is_some_and(|d| d.ends_with("dst/r")),
        "{report}"
    );
    let out = place.migrate(&["--sync", "--yes"]);
    out.fails_somehow();
    let said = support::stderr(&out);
    assert!(
        !said.contains("without --sync to migrate it first") && said.contains("no longer"),
        "{}",
        text(&out)
    );
}
