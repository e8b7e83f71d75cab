//! Issue 39, migrate's screens: the plan in plain words (how many files are copied at once,
//! what the space figure holds), a dry run that ends saying nothing changed in every format,
//! the time taken against the plan's, `--remove-source` saying what it removed (its folder
//! count the plan's) and where the shell should go, and `--abort` of a finished migration
//! asking first and, when it refuses, saying how to go on. Through the binary, on local
//! folders and on slowfs.

use crate::support;
use crate::support::{Exit, Outcome, Run};

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;
use support::gitrepo::{repo_with_files, write};
use support::{Sandbox, SlowFs, text};

const DRY_RUN_LINE: &str = "Dry run: nothing was copied or changed.";

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn run(home: &Path, source: &Path, dest: &Path, args: &[&str]) -> Outcome {
    Sandbox::at(home)
        .migrate(source, dest)
        .args(args)
        .env("NO_COLOR", "1")
        .run()
}

/// A committed repository of `n` files in four folders at `home/win/NAME`, and where it goes.
fn repository(home: &Path, name: &str, n: usize) -> (PathBuf, PathBuf) {
    let source = home.join("win").join(name);
    repo_with_files(&source, n);
    (source, home.join("linux").join(name))
}

/// The number before `words` in `text` ("then 7 emptied folders" -> 7).
fn number_before(text: &str, words: &str) -> u64 {
    let at = text
        .find(words)
        .unwrap_or_else(|| panic!("no {words:?} in:\n{text}"));
    let digits: String = text[..at]
        .trim_end()
        .chars()
        .rev()
        .take_while(|c| c.is_ascii_digit() || *c == ',')
        .filter(char::is_ascii_digit)
        .collect();
    digits.chars().rev().collect::<String>().parse().unwrap()
}

#[test]
fn the_plan_speaks_plain_words_and_every_dry_run_ends_saying_nothing_changed() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let (source, dest) = repository(home, "app", 40);
    write(&source.join("big.bin"), &vec![7u8; 10_000]);

    let human = run(home, &source, &dest, &["--dry-run"]);
    human.ok();
    let shown = stdout(&human);
    let json = run(home, &source, &dest, &["--dry-run", "--format", "json"]).ok_json();
    let threads = json["copy_threads"].as_u64().expect("copy_threads");
    let time = shown
        .lines()
        .find(|l| l.trim_start().starts_with("time"))
        .unwrap_or_else(|| panic!("no time row:\n{shown}"));
    // Each run chooses its thread count from what it measures: each says its own.
    assert!(number_before(time, "files at a time") >= 1, "{time}");
    assert!(
        json["prediction_basis"]
            .as_str()
            .is_some_and(|b| b.starts_with(&format!("copying {threads} files at a time"))),
        "{json}"
    );
    assert!(
        time.contains(" files at a time")
            && !time.contains("lstat")
            && !time.contains("overlap")
            && !time.contains("modelled"),
        "{shown}"
    );
    // The space figure says what it holds, and its parts add up to it.
    let space = shown
        .lines()
        .find(|l| l.trim_start().starts_with("space"))
        .unwrap_or_else(|| panic!("no space row:\n{shown}"));
    assert!(
        space.contains("on the Linux disk")
            && space.contains("of files, each rounded up to whole 4 KiB blocks")
            && space.contains("a 4 KiB block for each of"),
        "{space}"
    );
    let (needed, files, others) = (
        json["needed_bytes"].as_u64().unwrap(),
        json["needed_file_bytes"].as_u64().unwrap(),
        json["needed_other_entries"].as_u64().unwrap(),
    );
    assert_eq!(files, json["bytes"].as_u64().unwrap(), "{json}");
    assert_eq!(
        others,
        json["dirs"].as_u64().unwrap() + json["symlinks"].as_u64().unwrap()
    );
    assert!(
        needed >= files + others * 4096 && needed % 4096 == 0,
        "{json}"
    );
    assert_eq!(json["dry_run"], true, "{json}");
    assert_eq!(shown.lines().last(), Some(DRY_RUN_LINE), "{shown}");

    let markdown = stdout(&run(
        home,
        &source,
        &dest,
        &["--dry-run", "--format", "markdown"],
    ));
    assert!(
        markdown.ends_with(&format!("\n\n*{DRY_RUN_LINE}*\n")),
        "{markdown}"
    );
    assert!(markdown.contains(" files at a time"), "{markdown}");
    assert!(!dest.exists(), "a dry run made the destination");

    // After the move: a dry run of --remove-source reports and still says it changed nothing.
    let moved = run(home, &source, &dest, &["--yes", "-q"]);
    moved.ok();
    let again = run(home, &source, &dest, &["--dry-run", "--remove-source"]);
    again.ok();
    assert!(
        stdout(&again).starts_with(&format!("Would remove the source {}", source.display())),
        "{}",
        text(&again)
    );
    assert_eq!(
        stdout(&again).lines().last(),
        Some(DRY_RUN_LINE),
        "{}",
        text(&again)
    );
    let report = run(
        home,
        &source,
        &dest,
        &["--dry-run", "--remove-source", "--format", "json"],
    )
    .ok_json();
    assert_eq!(report["dry_run"], true, "{report}");
    assert!(source.join("big.bin").is_file(), "a dry run removed a file");
}

#[test]
fn the_result_says_the_time_taken_against_the_plans() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let (source, dest) = repository(home, "timed", 60);
    let out = run(home, &source, &dest, &["--yes", "--format", "json"]);
    let report = out.ok_json();
    let took = report["copy_ms"].as_u64().expect("copy_ms");
    let planned = report["planned_ms"].as_u64().expect("planned_ms");
    assert!(planned > 0 && took > 0, "{report}");

    let (source, dest) = repository(home, "shown", 60);
    let out = run(home, &source, &dest, &["--yes"]);
    out.ok();
    let shown = stdout(&out);
    let line = shown
        .lines()
        .find(|l| l.contains("took "))
        .unwrap_or_else(|| panic!("no time taken:\n{shown}"));
    assert!(
        line.contains("to copy, verify and fix up; the plan said ") && line.ends_with("%)"),
        "{line}"
    );

    let (source, dest) = repository(home, "markdown", 60);
    let markdown = stdout(&run(
        home,
        &source,
        &dest,
        &["--yes", "--format", "markdown"],
    ));
    assert!(
        markdown
            .lines()
            .any(|l| l.starts_with("| time | took ") && l.contains("the plan said")),
        "{markdown}"
    );
    // A run that copied nothing took no copy to compare.
    let again = stdout(&run(home, &source, &dest, &["--yes"]));
    assert!(!again.contains("took "), "{again}");
}

#[test]
fn remove_source_says_what_it_removed_with_the_plans_folder_count_and_where_to_cd() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let (source, dest) = repository(home, "gone", 24);
    let moved = run(home, &source, &dest, &["--yes", "-q"]);
    moved.ok();

    // Run from a folder inside the source, as a person whose shell is there.
    let out = Sandbox::at(home)
        .migrate(&source, &dest)
        .args(["--remove-source", "--yes"])
        .env("NO_COLOR", "1")
        .current_dir(source.join("d1"))
        .run();
    out.ok();
    let shown = stdout(&out);
    assert!(!source.exists(), "the source is still there:\n{shown}");
    let itself = format!(" and {} itself", source.display());
    let planned = number_before(&shown, "emptied folders");
    let plan_line = shown.lines().find(|l| l.contains("deletes")).unwrap();
    assert!(plan_line.contains(&itself), "{shown}");
    let result_line = shown
        .lines()
        .find(|l| l.trim_start().starts_with("source") && l.contains("removed "))
        .unwrap_or_else(|| panic!("no removal row:\n{shown}"));
    assert_eq!(
        number_before(result_line, "emptied folders"),
        planned,
        "the plan and the result count folders differently:\n{shown}"
    );
    // d0..d3 (the repository's own folder counted apart, by name; `.git` goes whole, apart).
    assert!(planned >= 4, "{shown}");
    assert!(
        shown.contains("history  .git: every branch, tag and staged change there is in the copy"),
        "{shown}"
    );
    assert!(result_line.contains(&itself), "{shown}");
    let headline = format!(
        "Removed the source: {} is the repository now",
        dest.display()
    );
    assert!(
        shown.contains(&headline) && !shown.contains("Already migrated"),
        "{shown}"
    );
    assert!(
        shown.contains("your shell is still in the removed folder; run:")
            && shown.contains(&format!("cd {}", dest.join("d1").display())),
        "{shown}"
    );

    // JSON, with an edit kept at the source: its folders stay, and both counts say so.
    let (source, dest) = repository(home, "kept", 24);
    let moved = run(home, &source, &dest, &["--yes", "-q"]);
    moved.ok();
    fs::write(source.join("d2/f2.txt"), b"edited after the move").unwrap();
    let out = Sandbox::at(home)
        .migrate(&source, &dest)
        .args(["--remove-source", "--yes", "--format", "json"])
        .current_dir(&source)
        .run();
    let report = out.ok_json();
    let plan = support::stderr(&out);
    let removal = &report["removal"];
    assert_eq!(
        removal["removed_dirs"].as_u64().unwrap(),
        number_before(&plan, "emptied folders"),
        "{plan}\n{removal}"
    );
    assert!(!plan.contains(" itself"), "{plan}");
    assert_eq!(removal["removed_source_folder"], false, "{removal}");
    assert_eq!(removal["shell_folder_removed"], false, "{removal}");
    assert_eq!(removal["cd"], format!("cd {}", dest.display()), "{removal}");
    assert!(source.join("d2/f2.txt").is_file());
    assert!(!source.join("d1").exists(), "an emptied folder was kept");
}

#[test]
fn abort_of_a_finished_migration_asks_first_and_a_refusal_says_how_to_go_on() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let (source, dest) = repository(home, "undo", 1_001);
    let moved = run(home, &source, &dest, &["--yes", "-q"]);
    moved.ok();

    // No terminal to ask, no --yes: refused before any work (it would delete the copy unasked:
    // the would-lose-data code), in one sentence naming --yes.
    let out = run(home, &source, &dest, &["--abort"]);
    out.fails(Exit::WouldLoseData);
    let sentence = support::stderr(&out);
    assert!(support::is_one_sentence(sentence.trim()), "{sentence}");
    assert!(
        sentence.contains("rerun with --yes") && sentence.contains(&dest.display().to_string()),
        "{sentence}"
    );
    assert!(dest.join(".git").is_dir(), "the copy was removed unasked");

    // Every file changed at the copy: refused, counts formatted, and the ways on named.
    for i in 0..1_001 {
        fs::write(dest.join(format!("d{}/f{i}.txt", i % 4)), b"y").unwrap();
    }
    let out = run(home, &source, &dest, &["--abort", "--yes"]);
    // Refused to keep the copy's edits: the code of its own, not the usage code.
    out.fails(Exit::WouldLoseData);
    let sentence = support::stderr(&out);
    assert!(support::is_one_sentence(sentence.trim()), "{sentence}");
    assert!(
        sentence.contains("1,001 files: 0 added, 1,001 changed, 0 removed"),
        "{sentence}"
    );
    let shown = stdout(&out);
    let rm = format!("rm -rf -- {}", dest.display());
    let forget = format!(
        "wsl-place migrate {} --to {} --abort",
        source.display(),
        dest.display()
    );
    assert!(
        shown.contains("keep working in the copy")
            && shown.contains(&rm)
            && shown.contains(&forget),
        "{shown}"
    );
    assert!(dest.join(".git").is_dir(), "a changed copy was removed");

    // The way on, followed: the copy deleted by hand, then the printed --abort forgets it.
    let manifest = Sandbox::at(home).manifest_of(&dest);
    fs::remove_dir_all(&dest).unwrap();
    let out = run(home, &source, &dest, &["--abort"]);
    out.ok();
    assert!(
        stdout(&out).contains("forgot the migration"),
        "{}",
        text(&out)
    );
    assert!(!manifest.exists(), "the manifest outlived the copy");
    let check = Sandbox::at(home).check_json(&source, &[]);
    assert!(check["moved"].is_null(), "{check}");

    // --yes confirms: an unchanged copy goes.
    let moved = run(home, &source, &dest, &["--yes", "-q"]);
    moved.ok();
    let out = run(home, &source, &dest, &["--abort", "--yes"]);
    out.ok();
    assert!(!dest.exists(), "--yes did not remove the copy");
    assert!(
        source.join("d0/f0.txt").is_file(),
        "--abort touched the source"
    );
}

/// On a slow mount (slowfs, every open 2 ms), the plan names the copy's files at a time as the
/// JSON's thread count, and the result reads the time taken against the plan's.
#[test]
#[ignore = "needs FUSE (slowfs)"]
fn on_slowfs_the_plan_and_the_result_speak_of_files_at_a_time_and_time_taken() {
    let tmp = tempfile::tempdir().unwrap();
    let backing = tmp.path().join("backing");
    repo_with_files(&backing.join("app"), 200);
    let Some(fs) = SlowFs::mount(
        &backing,
        &tmp.path().join("mnt"),
        &["--profile", "none", "--latency", "open=2"],
    ) else {
        return;
    };
    let home = tmp.path();
    let source = fs.mountpoint().join("app");
    let dest = home.join("linux/app");
    // The thread count is chosen from what the source measures in each run: the plan and its
    // JSON say the same one, whatever it is this time.
    let plan = run(home, &source, &dest, &["--dry-run", "--format", "json"]).ok_json();
    let threads = plan["copy_threads"].as_u64().expect("copy_threads");
    assert!(
        plan["prediction_basis"]
            .as_str()
            .is_some_and(|b| b.starts_with(&format!("copying {threads} files at a time"))),
        "{plan}"
    );
    let out = run(home, &source, &dest, &["--yes"]);
    out.ok();
    let shown = stdout(&out);
    let time = shown
        .lines()
        .find(|l| l.trim_start().starts_with("time") && l.contains("about "))
        .unwrap_or_else(|| panic!("no time row in the plan:\n{shown}"));
    assert!(number_before(time, "files at a time") >= 1, "{time}");
    let took = shown
        .lines()
        .find(|l| l.contains("took "))
        .unwrap_or_else(|| panic!("{shown}"));
    assert!(took.contains("the plan said"), "{took}");
}
