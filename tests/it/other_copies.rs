//! A migration knows its other copies (issue 50): a second destination asks, and without a
//! terminal or `--yes` is refused with exit 5; `--yes` makes it and the record keeps both (the
//! sync goes to the newest, `check` and the result name the other); a copy moved away stops
//! `--remove-source`; `--abort` without `--to` finds the copy by the record. And a record the
//! previous release wrote (`tests/fixtures/records/`) still syncs, aborts and removes.

use crate::support;
use crate::support::{Exit, Outcome, Run};

use serde_json::Value;
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use support::gitrepo::{init_and_commit_all, write};
use support::tree::snapshot;
use support::{Sandbox, is_one_sentence, stderr, text};

/// A sandbox with a committed repository `app` in it.
fn scene() -> (Sandbox, PathBuf) {
    let sandbox = Sandbox::new();
    let app = sandbox.path("app");
    write(&app.join("README.md"), b"hello\n");
    write(&app.join("lib/one.txt"), b"one\n");
    init_and_commit_all(&app, "first");
    (sandbox, app)
}

/// `migrate APP EXTRA`, no colour, no terminal.
fn migrate(sandbox: &Sandbox, app: &Path, extra: &[&str]) -> Outcome {
    let mut cmd = sandbox.cmd();
    cmd.arg("migrate").arg(app).args(extra).env("NO_COLOR", "1");
    cmd.run()
}

fn migrate_to(sandbox: &Sandbox, app: &Path, to: &Path, extra: &[&str]) -> Outcome {
    let mut args = vec!["--to", to.to_str().unwrap()];
    args.extend_from_slice(extra);
    migrate(sandbox, app, &args)
}

/// The one sentence a run refused with to keep data: exit 5.
fn refused_to_lose_data(out: &Outcome) -> String {
    out.fails(Exit::WouldLoseData);
    let sentence = stderr(out);
    assert!(is_one_sentence(sentence.trim()), "{sentence}");
    sentence
}

/// The record of where the source went (one per source under the state folder).
fn record_file(sandbox: &Sandbox) -> Option<PathBuf> {
    let dir = sandbox.state().join("wsl-place/moved");
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .collect();
    assert!(files.len() <= 1, "{files:?}");
    files.pop()
}

fn record(sandbox: &Sandbox) -> Value {
    let file = record_file(sandbox).expect("a record of the migration");
    serde_json::from_slice(&fs::read(&file).unwrap()).unwrap()
}

#[test]
fn a_second_destination_asks_refuses_without_a_terminal_and_keeps_both_with_yes() {
    let (sandbox, app) = scene();
    let (x, y) = (sandbox.path("x"), sandbox.path("y"));
    let first = migrate_to(&sandbox, &app, &x, &["--yes"]);
    assert!(first.status.success(), "{}", text(&first));
    let before = record(&sandbox);

    // No terminal, no --yes: refused before any work, naming both folders and the flag.
    let sentence = refused_to_lose_data(&migrate_to(&sandbox, &app, &y, &[]));
    for needed in [x.to_str().unwrap(), y.to_str().unwrap(), "--yes"] {
        assert!(sentence.contains(needed), "{needed}: {sentence}");
    }
    assert!(!y.exists() && record(&sandbox) == before);
    // A dry run says what a real run asks.
    let dry = migrate_to(&sandbox, &app, &y, &["--dry-run"]);
    assert!(dry.status.success(), "{}", text(&dry));
    let said = String::from_utf8_lossy(&dry.stdout);
    assert!(said.contains("make a second copy at"), "{said}");
    assert!(!y.exists());

    // --yes: the second copy, and the record keeps the first.
    let second = migrate_to(&sandbox, &app, &y, &["--yes"]);
    assert!(second.status.success(), "{}", text(&second));
    let shown = String::from_utf8_lossy(&second.stdout);
    assert!(
        shown.contains(&format!("other copy       {}", x.display())),
        "{shown}"
    );
    let now = record(&sandbox);
    assert_eq!(now["destination"], y.to_str().unwrap(), "{now}");
    assert_eq!(now["other_copies"][0]["destination"], x.to_str().unwrap());
    let check = sandbox.check_json(&app, &[]);
    assert_eq!(
        check["moved"]["destination"],
        y.to_str().unwrap(),
        "{check}"
    );
    assert_eq!(check["moved"]["other_copies"][0], x.to_str().unwrap());

    // The sync goes to the newest copy; the older one is left as it was, and named.
    write(&app.join("README.md"), b"hello, later\n");
    let x_before = snapshot(&x);
    let sync = migrate(&sandbox, &app, &["--sync", "--yes", "--format", "json"]);
    let report = support::json_of(&sync);
    assert!(sync.status.success(), "{}", text(&sync));
    assert_eq!(report["destination"], y.to_str().unwrap(), "{report}");
    assert_eq!(report["other_copies"][0], x.to_str().unwrap(), "{report}");
    assert_eq!(fs::read(y.join("README.md")).unwrap(), b"hello, later\n");
    assert_eq!(snapshot(&x), x_before);
    let older = migrate_to(&sandbox, &app, &x, &["--sync", "--yes"]);
    older.fails(Exit::Input);

    // --abort without --to removes the newest copy; the record then names the first. That one
    // holds a README the source no longer has, so it is kept (exit 5) until the source has it
    // again; then it goes too, and the migration is forgotten.
    let abort = migrate(&sandbox, &app, &["--abort", "--yes"]);
    assert!(abort.status.success(), "{}", text(&abort));
    assert!(!y.exists() && x.is_dir());
    assert!(stderr(&abort).is_empty(), "{}", text(&abort));
    let left = record(&sandbox);
    assert_eq!(left["destination"], x.to_str().unwrap(), "{left}");
    assert_eq!(left["other_copies"], serde_json::json!([]), "{left}");
    let kept = migrate(&sandbox, &app, &["--abort", "--yes"]);
    assert!(refused_to_lose_data(&kept).contains(x.to_str().unwrap()));
    assert!(x.is_dir() && record(&sandbox) == left);
    write(&app.join("README.md"), b"hello\n");
    let abort = migrate(&sandbox, &app, &["--abort", "--yes"]);
    assert!(abort.status.success(), "{}", text(&abort));
    assert!(!x.exists() && app.join("README.md").is_file());
    assert_eq!(record_file(&sandbox), None);
}

#[test]
fn a_copy_moved_away_stops_remove_source_and_nothing_is_copied_again() {
    let (sandbox, app) = scene();
    // The default destination, so a run without --to would make a copy right there again.
    let copy = sandbox.path("src/app");
    let first = migrate(&sandbox, &app, &["--yes"]);
    assert!(first.status.success() && copy.is_dir(), "{}", text(&first));
    let moved_away = sandbox.path("elsewhere");
    fs::rename(&copy, &moved_away).unwrap();
    let before = snapshot(&app);
    for extra in [
        &["--remove-source", "--yes"][..],
        &["--remove-source", "--yes", "--to", copy.to_str().unwrap()][..],
    ] {
        let out = migrate(&sandbox, &app, extra);
        let sentence = refused_to_lose_data(&out);
        assert!(
            sentence.contains(copy.to_str().unwrap()) && sentence.contains("--remove-source"),
            "{sentence}"
        );
        assert_eq!(snapshot(&app), before, "{extra:?} touched the source");
        assert!(!copy.exists(), "{extra:?} migrated again");
    }
    // Moved back, the removal goes on as asked.
    fs::rename(&moved_away, &copy).unwrap();
    let out = migrate(&sandbox, &app, &["--remove-source", "--yes"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(!app.exists() && copy.join("lib/one.txt").is_file());
}

#[test]
fn abort_without_to_finds_a_copy_made_with_to_by_its_record() {
    let (sandbox, app) = scene();
    let copy = sandbox.path("elsewhere/app-copy");
    let first = migrate_to(&sandbox, &app, &copy, &["--yes"]);
    assert!(first.status.success(), "{}", text(&first));
    // Removed by hand, the way a refusal names: --abort forgets the migration.
    fs::remove_dir_all(&copy).unwrap();
    let abort = migrate(&sandbox, &app, &["--abort", "--yes"]);
    assert!(abort.status.success(), "{}", text(&abort));
    let said = String::from_utf8_lossy(&abort.stdout);
    assert!(said.contains(copy.to_str().unwrap()), "{said}");
    assert_eq!(record_file(&sandbox), None, "{said}");
    assert!(sandbox.check_json(&app, &[])["moved"].is_null());
}

#[test]
fn refusals_that_keep_data_exit_5() {
    let (sandbox, app) = scene();
    let copy = sandbox.path("copy");
    let first = migrate_to(&sandbox, &app, &copy, &["--yes"]);
    assert!(first.status.success(), "{}", text(&first));
    // --abort of a copy that changed since: kept, exit 5.
    write(&copy.join("made-there.txt"), b"work at the copy\n");
    let abort = migrate(&sandbox, &app, &["--abort", "--yes"]);
    let sentence = refused_to_lose_data(&abort);
    assert!(sentence.contains(copy.to_str().unwrap()), "{sentence}");
    assert!(copy.join("made-there.txt").is_file());
    // --remove-source when the copy's name is another folder now: exit 5, nothing deleted.
    let moved = sandbox.path("moved");
    fs::rename(&copy, &moved).unwrap();
    fs::create_dir(&copy).unwrap();
    let before = snapshot(&app);
    let remove = migrate(&sandbox, &app, &["--remove-source", "--yes"]);
    refused_to_lose_data(&remove);
    assert_eq!(snapshot(&app), before);
}

/// The record `wsl-place` 0.1.0 (commit f0c2ad5, before other copies were recorded) wrote,
/// put in place of the one this binary wrote for `app` migrated to `copy`: its paths and the
/// folders' identities are this test's, every other field as that release wrote it.
fn put_previous_release_record(sandbox: &Sandbox, app: &Path, copy: &Path) {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/records/moved-0.1.0-f0c2ad5.json");
    let mut old: Value = serde_json::from_slice(&fs::read(fixture).unwrap()).unwrap();
    let keys: Vec<&String> = old.as_object().unwrap().keys().collect();
    assert!(!keys.iter().any(|k| *k == "other_copies"), "{keys:?}");
    let file = record_file(sandbox).expect("this binary's record");
    let written: Value = serde_json::from_slice(&fs::read(&file).unwrap()).unwrap();
    let folder = |path: &Path| {
        let meta = fs::symlink_metadata(path).unwrap();
        serde_json::json!({"dev": meta.dev(), "ino": meta.ino()})
    };
    old["source"] = app.to_str().unwrap().into();
    old["destination"] = copy.to_str().unwrap().into();
    old["manifest"] = written["manifest"].clone();
    old["copy_folder"] = folder(copy);
    old["source_folder"] = folder(app);
    fs::write(&file, serde_json::to_vec_pretty(&old).unwrap()).unwrap();
}

fn migrated_with_a_previous_release_record() -> (Sandbox, PathBuf, PathBuf) {
    let (sandbox, app) = scene();
    let copy = sandbox.path("copy");
    let first = migrate_to(&sandbox, &app, &copy, &["--yes"]);
    assert!(first.status.success(), "{}", text(&first));
    put_previous_release_record(&sandbox, &app, &copy);
    (sandbox, app, copy)
}

#[test]
fn a_previous_release_record_still_syncs() {
    let (sandbox, app, copy) = migrated_with_a_previous_release_record();
    write(&app.join("lib/one.txt"), b"one, edited at the old place\n");
    let out = migrate(&sandbox, &app, &["--sync", "--yes", "--format", "json"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(support::json_of(&out)["sync"]["done"], true);
    assert_eq!(
        fs::read(copy.join("lib/one.txt")).unwrap(),
        b"one, edited at the old place\n"
    );
    assert!(record(&sandbox)["synced_unix"].is_u64());
}

#[test]
fn a_previous_release_record_still_aborts() {
    let (sandbox, app, copy) = migrated_with_a_previous_release_record();
    let out = migrate(&sandbox, &app, &["--abort", "--yes"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(!copy.exists() && app.join("lib/one.txt").is_file());
    assert_eq!(record_file(&sandbox), None);
}

#[test]
fn a_previous_release_record_still_removes_the_source() {
    let (sandbox, app, copy) = migrated_with_a_previous_release_record();
    let out = migrate(&sandbox, &app, &["--remove-source", "--yes"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(!app.exists(), "{}", text(&out));
    assert_eq!(fs::read(copy.join("lib/one.txt")).unwrap(), b"one\n");
    assert_eq!(record(&sandbox)["source_removed"], true);
}
