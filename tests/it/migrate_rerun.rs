//! `migrate` run again: after it finished (issue 12: "already migrated", `--remove-source`
//! proving the source unchanged by its stat), after a SIGKILL with a source file rewritten
//! behind its mtime's back (issue 14 case 4), two at once (case 5, the staging lock), after a
//! kill with another `--to` (case 14), and with a probe's stale scratch folder (case 3).

use crate::support;
use crate::support::{Exit, Outcome, Run};

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant, SystemTime};
use support::gitrepo::write;
use support::tree::{bytes, mkfifo, snapshot};
use support::{SlowFs, json_of, kill, text};

fn migrate(source: &Path, dest: &Path, home: &Path, extra: &[&str]) -> Command {
    let mut cmd = support::Sandbox::at(home).migrate(source, dest);
    cmd.args(extra).env("NO_COLOR", "1");
    cmd
}

fn output(mut cmd: Command) -> Outcome {
    cmd.run()
}

/// A file's content changed behind the tool's back: same size, mtime put back (`touch -d`).
fn rewrite_keeping_size_and_mtime(path: &Path) -> Vec<u8> {
    let meta = fs::metadata(path).unwrap();
    let mut content = fs::read(path).unwrap();
    assert!(!content.is_empty(), "{}", path.display());
    for b in &mut content {
        *b = !*b;
    }
    fs::write(path, &content).unwrap();
    let mtime = meta.modified().unwrap();
    fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_times(fs::FileTimes::new().set_modified(mtime))
        .unwrap();
    let after = fs::metadata(path).unwrap();
    assert_eq!(
        (after.len(), after.modified().unwrap()),
        (meta.len(), mtime)
    );
    assert_ne!(
        (after.ctime(), after.ctime_nsec()),
        (meta.ctime(), meta.ctime_nsec())
    );
    content
}

/// The manifest's `file` line for `rel`: (size, crc32).
fn manifest_file(manifest: &Path, rel: &str) -> (u64, u32) {
    let text = fs::read_to_string(manifest).unwrap();
    let line = text
        .lines()
        .find(|l| l.starts_with("file\t") && l.ends_with(&format!("\t{rel}")))
        .unwrap_or_else(|| panic!("{rel} not in {text}"));
    let fields: Vec<&str> = line.split('\t').collect();
    let crc = u32::from_str_radix(fields[fields.len() - 2], 16).unwrap();
    (fields[1].parse().unwrap(), crc)
}

fn crc(data: &[u8]) -> u32 {
    let mut h = crc32fast::Hasher::new();
    h.update(data);
    h.finalize()
}

// Issue 12: the same `migrate` after it finished says so from the manifest, exits 0 and offers
// what is left; `--remove-source` then removes what its stat proves unchanged since the copy,
// re-reads what was touched, keeps what differs, and says what it kept and why.
#[test]
fn rerun_after_finishing_then_remove_source() {
    let tmp = tempfile::tempdir().unwrap();
    // Made, so the manifest goes to the state folder below it.
    let home = tmp.path().join("home");
    fs::create_dir_all(&home).unwrap();
    let source = tmp.path().join("win/app");
    for i in 0..30u64 {
        write(
            &source.join(format!("src/m{}/f{i}.rs", i % 3)),
            &bytes(i, 3000),
        );
    }
    write(
        &source.join("node_modules/left/index.js"),
        b"module.exports = 1;\n",
    );
    write(&source.join("package-lock.json"), b"{}\n");
    mkfifo(&source.join("pipe"));
    // A scratch folder a SIGKILLed probe left (issue 14 case 3): never copied.
    let scratch = source.join(".wsl-place-probe-4194999-0badf00d");
    write(&scratch.join("d/f0"), &bytes(1, 4096));
    let dest = tmp.path().join("linux/app");
    let manifest_of = || support::Sandbox::at(&home).manifest_of(&dest);

    let plan = output(migrate(
        &source,
        &dest,
        &home,
        &["--dry-run", "--format", "json", "--skip-node-modules"],
    ));
    plan.ok();
    // 30 sources and the lockfile; the scratch folder's file is not counted.
    assert_eq!(json_of(&plan)["files"], 31, "{}", text(&plan));

    let first = output(migrate(
        &source,
        &dest,
        &home,
        &["--yes", "--skip-node-modules"],
    ));
    first.ok();
    assert!(!dest.join(".wsl-place-probe-4194999-0badf00d").exists());
    let before = snapshot(&dest);
    // The manifest is out of sight: nothing but the copy in the destination's folder. One an
    // earlier version left beside the destination is read, and moved out of sight.
    let beside = || {
        let names = fs::read_dir(tmp.path().join("linux")).unwrap();
        let mut names: Vec<_> = names.map(|e| e.unwrap().file_name()).collect();
        names.sort();
        names
    };
    assert_eq!(beside(), ["app"]);
    let legacy = tmp.path().join("linux/app.wsl-place-manifest");
    fs::rename(manifest_of(), &legacy).unwrap();

    // Run again, as a person would, without --yes and without a terminal: nothing to ask.
    let again = output(migrate(&source, &dest, &home, &[]));
    again.ok();
    assert_eq!(
        beside(),
        ["app"],
        "the old manifest was left beside the copy"
    );
    assert!(manifest_of().is_file());
    let stdout = String::from_utf8_lossy(&again.stdout);
    assert!(stdout.contains("Already migrated"), "{}", text(&again));
    assert!(stdout.contains("--remove-source"), "{}", text(&again));
    assert_eq!(before, snapshot(&dest), "the rerun changed the destination");
    let again = output(migrate(&source, &dest, &home, &["--format", "json"]));
    again.ok();
    let report = json_of(&again);
    assert_eq!(report["already_migrated"], true, "{report}");
    assert_eq!(report["copied_files"], 0, "{report}");
    assert_eq!(report["files"], 31, "{report}");

    // After the copy: one file rewritten with its size and mtime put back (content differs),
    // one touched (mtime moved, content the same).
    let changed = rewrite_keeping_size_and_mtime(&source.join("src/m0/f0.rs"));
    let touched = source.join("src/m1/f1.rs");
    fs::File::options()
        .write(true)
        .open(&touched)
        .unwrap()
        .set_times(fs::FileTimes::new().set_modified(SystemTime::now()))
        .unwrap();

    let removed = output(migrate(
        &source,
        &dest,
        &home,
        &["--remove-source", "--yes", "--format", "json"],
    ));
    removed.ok();
    let removal = &json_of(&removed)["removal"];
    assert_eq!(removal["removed_files"], 30, "{removal}");
    assert_eq!(removal["proven_by_stat"], 29, "{removal}");
    assert_eq!(removal["proven_by_reading"], 1, "{removal}");
    let kept: Vec<&str> = removal["kept"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k.as_str().unwrap())
        .collect();
    let has = |prefix: &str, why: &str| {
        kept.iter()
            .any(|k| k.starts_with(prefix) && k.contains(why))
    };
    assert!(has("src/m0/f0.rs (", "content differs"), "{kept:?}");
    assert!(has("node_modules (", "left behind"), "{kept:?}");
    assert!(has("pipe (", "FIFO"), "{kept:?}");
    assert!(
        has(".wsl-place-probe-4194999-0badf00d (", "probe"),
        "{kept:?}"
    );
    assert_eq!(removal["kept_count"], 4, "{removal}");
    assert_eq!(fs::read(source.join("src/m0/f0.rs")).unwrap(), changed);
    assert!(!touched.exists() && !source.join("package-lock.json").exists());
    assert!(source.join("node_modules/left/index.js").is_file());
    assert!(
        !source.join("src/m2").exists(),
        "an emptied folder was kept"
    );
    assert_eq!(
        before,
        snapshot(&dest),
        "--remove-source changed the destination"
    );
    assert!(manifest_of().is_file());

    // And said for a person, with the reasons.
    let human = output(migrate(
        &source,
        &dest,
        &home,
        &["--remove-source", "--yes"],
    ));
    human.ok();
    let stdout = String::from_utf8_lossy(&human.stdout);
    // Issue 39: the headline says what this run did, removing from the source, not "already
    // migrated ... nothing was copied now".
    assert!(
        stdout.starts_with("Removing the source")
            && stdout
                .contains("Removed from the source what was proven copied (4 entries kept there")
            && !stdout.contains("Already migrated")
            && stdout.contains("content differs"),
        "{}",
        text(&human)
    );
}

/// A source on slowfs whose every `open` costs `open_ms`, so a migration lasts long enough to
/// be killed, or raced, in the middle of its copy.
struct SlowSource {
    tmp: tempfile::TempDir,
    fs: SlowFs,
}

impl SlowSource {
    fn new(files: u64, open_ms: u32) -> Option<Self> {
        let tmp = tempfile::tempdir().unwrap();
        let backing = tmp.path().join("backing");
        for i in 0..files {
            write(
                &backing.join(format!("app/d{}/f{i}.txt", i % 7)),
                &bytes(i, 200 + (i as usize * 37) % 3000),
            );
        }
        let open = format!("open={open_ms}");
        let fs = SlowFs::mount(
            &backing,
            &tmp.path().join("mnt"),
            &["--profile", "none", "--latency", &open],
        )?;
        Some(Self { tmp, fs })
    }

    fn source(&self) -> PathBuf {
        self.fs.mountpoint().join("app")
    }

    /// The same tree without the latency, to compare copies with.
    fn backing(&self) -> PathBuf {
        self.fs.backing().join("app")
    }

    fn home(&self) -> PathBuf {
        self.tmp.path().to_path_buf()
    }

    fn dest(&self, name: &str) -> PathBuf {
        self.tmp.path().join("linux").join(name)
    }

    fn staging(&self, name: &str) -> PathBuf {
        self.tmp
            .path()
            .join("linux")
            .join(format!(".{name}.wsl-place-staging"))
    }

    fn start(&self, dest: &str) -> Child {
        migrate(&self.source(), &self.dest(dest), &self.home(), &["--yes"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    }
}

/// Journalled files so far (the journal's `F` lines), waiting up to 60 s for the journal to
/// exist (the copy has begun) with at least `n` of them.
fn journalled(journal: &Path, n: usize, child: &mut Child) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let Ok(text) = fs::read_to_string(journal) else {
            if let Some(status) = child.try_wait().unwrap() {
                panic!("the migration ended ({status}) before its copy began");
            }
            assert!(Instant::now() < deadline, "no journal in 60 s");
            std::thread::sleep(Duration::from_millis(5));
            continue;
        };
        let files: Vec<String> = text
            .lines()
            .filter(|l| l.starts_with("F\t"))
            .filter_map(|l| l.rsplit('\t').next().map(str::to_string))
            .collect();
        if files.len() >= n {
            return files;
        }
        if let Some(status) = child.try_wait().unwrap() {
            panic!("the migration ended ({status}) before {n} files were journalled");
        }
        assert!(Instant::now() < deadline, "no journal lines in 60 s");
        std::thread::sleep(Duration::from_millis(5));
    }
}

// Issue 14 case 4: kill a migration after some journal lines, rewrite a journalled source file
// with the same size and its mtime put back, run again: the ctime gives it away, so the
// destination and the manifest hold the new content. The killed run's lock does not block the
// resume.
#[test]
#[ignore = "needs FUSE (/dev/fuse and fusermount3)"]
fn resume_recopies_a_file_rewritten_behind_its_mtime() {
    let Some(slow) = SlowSource::new(1500, 8) else {
        return;
    };
    let mut child = slow.start("app");
    let journal = slow.staging("app").join("journal");
    let files = journalled(&journal, 1, &mut child);
    kill(&mut child);
    let rel = &files[0];
    let new = rewrite_keeping_size_and_mtime(&slow.source().join(rel));

    let out = output(migrate(
        &slow.source(),
        &slow.dest("app"),
        &slow.home(),
        &["--yes"],
    ));
    out.ok();
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("already copied and verified"),
        "the rerun did not resume: {}",
        text(&out)
    );
    assert_eq!(fs::read(slow.dest("app").join(rel)).unwrap(), new, "{rel}");
    let manifest = support::Sandbox::at(slow.home()).manifest_of(&slow.dest("app"));
    assert_eq!(manifest_file(&manifest, rel), (new.len() as u64, crc(&new)));
    support::tree::assert_same_tree(&slow.backing(), &slow.dest("app"), &[]);
}

// Issue 14 case 5: two migrations of one source to one destination. Started together, or the
// second while the first copies: the second says another one is running, naming the staging
// folder, and exits 4; the first finishes, and no second staging folder is left.
#[test]
#[ignore = "needs FUSE (/dev/fuse and fusermount3)"]
fn a_second_migration_of_the_same_move_is_refused() {
    let Some(slow) = SlowSource::new(1200, 15) else {
        return;
    };
    let busy = |out: &Outcome| {
        let stderr = String::from_utf8_lossy(&out.stderr);
        out.status.code() == Some(4)
            && stderr.contains("another wsl-place migration")
            && stderr.contains(&slow.staging("app").display().to_string())
            && stderr.lines().count() == 1
    };

    // Together. Should the machine start the second only after the first finished, it finds
    // the move done, which is right too; what must never happen is a second copy or exit 3.
    let (a, b) = (slow.start("app"), slow.start("app"));
    let (a, b) = (support::run::wait(a), support::run::wait(b));
    let found_done = |out: &Outcome| {
        out.status.code() == Some(0)
            && String::from_utf8_lossy(&out.stdout).contains("Already migrated")
    };
    let (winner, loser) = if busy(&a) || found_done(&a) {
        (b, a)
    } else {
        (a, b)
    };
    winner.ok();
    assert!(!found_done(&winner), "{}", text(&winner));
    assert!(busy(&loser) || found_done(&loser), "{}", text(&loser));
    support::tree::assert_same_tree(&slow.backing(), &slow.dest("app"), &[]);
    assert!(!slow.staging("app").exists());
    fs::remove_dir_all(slow.dest("app")).unwrap();
    fs::remove_file(support::Sandbox::at(slow.home()).manifest_of(&slow.dest("app"))).unwrap();

    // The second one while the first is copying.
    let mut first = slow.start("app");
    journalled(&slow.staging("app").join("journal"), 0, &mut first);
    let second = output(migrate(
        &slow.source(),
        &slow.dest("app"),
        &slow.home(),
        &["--yes"],
    ));
    assert!(busy(&second), "{}", text(&second));
    // --abort must not pull the staging folder from under the running copy either.
    let abort = output(migrate(
        &slow.source(),
        &slow.dest("app"),
        &slow.home(),
        &["--abort"],
    ));
    assert!(busy(&abort), "{}", text(&abort));
    let first = support::run::wait(first);
    first.ok();
    support::tree::assert_same_tree(&slow.backing(), &slow.dest("app"), &[]);
    let leftovers: Vec<_> = fs::read_dir(slow.tmp.path().join("linux"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    // The copy alone: no second staging folder, and the manifest is out of sight.
    assert_eq!(leftovers.len(), 1, "{leftovers:?}");
}

// Issue 14 case 14: a run killed with `--to k1`, then run with `--to k2`: the plan and the
// result say `.k1.wsl-place-staging` is left, with the command that removes it, which works.
#[test]
#[ignore = "needs FUSE (/dev/fuse and fusermount3)"]
fn staging_left_by_another_destination_is_named_with_its_abort() {
    let Some(slow) = SlowSource::new(800, 8) else {
        return;
    };
    let mut child = slow.start("k1");
    journalled(&slow.staging("k1").join("journal"), 0, &mut child);
    kill(&mut child);
    let k1 = slow.staging("k1");
    assert!(k1.is_dir());

    let plan = output(migrate(
        &slow.source(),
        &slow.dest("k2"),
        &slow.home(),
        &["--dry-run", "--format", "json"],
    ));
    plan.ok();
    let elsewhere = &json_of(&plan)["interrupted_elsewhere"];
    assert_eq!(
        elsewhere[0]["staging"],
        k1.display().to_string(),
        "{elsewhere}"
    );
    let abort = elsewhere[0]["abort"].as_str().unwrap().to_string();
    assert!(abort.ends_with("--abort"), "{abort}");

    let out = output(migrate(
        &slow.source(),
        &slow.dest("k2"),
        &slow.home(),
        &["--yes"],
    ));
    out.ok();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(".k1.wsl-place-staging") && stdout.contains("--abort"),
        "{}",
        text(&out)
    );

    // The offered command, as the user would paste it.
    let words: Vec<&str> = abort.split(' ').collect();
    assert_eq!(words[0], "wsl-place", "{abort}");
    let mut cmd = support::Sandbox::at(slow.home()).cmd();
    cmd.args(&words[1..]);
    let out = output(cmd);
    out.ok();
    assert!(!k1.exists(), "{}", text(&out));
    assert!(slow.dest("k2").is_dir());
}

// A run stopped after it sealed its verified copy (here the destination appeared before the
// rename) is finished by the next run without walking the source again; that run owes the same
// next steps, the reinstall of the node_modules the first run left behind included.
#[test]
#[ignore = "needs FUSE (/dev/fuse and fusermount3)"]
fn finishing_a_sealed_copy_gives_the_same_next_steps_as_a_whole_run() {
    let Some(slow) = SlowSource::new(1000, 10) else {
        return;
    };
    write(&slow.backing().join("package-lock.json"), b"{}\n");
    write(&slow.backing().join("node_modules/dep/index.js"), b"1\n");
    let (source, home) = (slow.source(), slow.home());
    let dest = slow.dest("app");
    let journal = slow.staging("app").join("journal");
    let start = || {
        migrate(&source, &dest, &home, &["--yes", "--skip-node-modules"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    // A one-pass run (no staging folder yet) journals while it walks, before the plan's last
    // look at the destination; killed, it leaves a staging folder, so the next run plans first
    // and journals only once its copy is past that look.
    let mut first = start();
    let killed = journalled(&journal, 1, &mut first).len();
    kill(&mut first);
    let mut child = start();
    journalled(&journal, killed + 1, &mut child);
    fs::create_dir_all(&dest).unwrap();
    let stopped = support::run::wait(child);
    stopped.fails(Exit::WouldLoseData);
    assert!(
        support::stderr(&stopped).contains("appeared while the migration ran"),
        "{}",
        text(&stopped)
    );
    assert!(slow.staging("app").join("finalising").is_file());
    fs::remove_dir(&dest).unwrap();

    let resumed = output(migrate(
        &source,
        &dest,
        &home,
        &["--yes", "--format", "json"],
    ));
    resumed.ok();
    assert!(
        support::stderr(&resumed).contains("A verified copy of"),
        "not the sealed copy's resume: {}",
        text(&resumed)
    );
    let whole = output(migrate(
        &source,
        &slow.dest("whole"),
        &home,
        &["--yes", "--skip-node-modules", "--format", "json"],
    ));
    whole.ok();
    // Past the `cd` line, which names each run's own destination.
    let after_cd = |out: &Output| {
        let steps = json_of(out)["next_steps"].as_array().unwrap().clone();
        steps[1..].to_vec()
    };
    assert_eq!(after_cd(&resumed), after_cd(&whole), "{}", text(&resumed));
    assert!(
        after_cd(&resumed)
            .iter()
            .any(|s| s["command"] == "npm ci" && s["why"] == "node_modules was left behind"),
        "{}",
        text(&resumed)
    );
}

// Issue 22 item 13: while one repository's migration copies, another repository sent to the same
// destination is refused with exit 4 naming the repository being moved, not itself.
#[test]
#[ignore = "needs FUSE (/dev/fuse and fusermount3)"]
fn busy_names_the_repository_whose_migration_holds_the_staging() {
    let Some(slow) = SlowSource::new(1200, 15) else {
        return;
    };
    let other = slow.tmp.path().join("other");
    write(&other.join("b.txt"), b"b");
    let mut first = slow.start("app");
    journalled(&slow.staging("app").join("journal"), 0, &mut first);
    let second = output(migrate(&other, &slow.dest("app"), &slow.home(), &["--yes"]));
    let stderr = String::from_utf8_lossy(&second.stderr);
    second.fails(Exit::Busy);
    assert!(
        stderr.contains(&format!("migration, of {},", slow.source().display()))
            && !stderr.contains(&format!("migration of {}", other.display()))
            && stderr.lines().count() == 1,
        "{}",
        text(&second)
    );
    let first = support::run::wait(first);
    first.ok();
    assert_eq!(fs::read(other.join("b.txt")).unwrap(), b"b");
}

// Issue 22 item 4: a run stops after its journal's sync mark (here: an unreadable file blocks
// finalising), a staged file is then rewritten with its size and mtime put back; the resume
// reads every journalled copy back, so it copies that file again instead of calling it verified,
// and the manifest's CRC32 is the file's.
#[test]
#[ignore = "needs FUSE (/dev/fuse and fusermount3)"]
fn a_staged_file_changed_between_runs_is_copied_again() {
    let tmp = tempfile::tempdir().unwrap();
    let backing = tmp.path().join("backing");
    for i in 0..20u64 {
        write(
            &backing.join(format!("app/d{}/f{i}.txt", i % 3)),
            &bytes(i, 3000),
        );
    }
    write(&backing.join("app/bad/broken.bin"), b"unreadable");
    let Some(fs) = SlowFs::mount(
        &backing,
        &tmp.path().join("mnt"),
        &["--profile", "none", "--eio-path-prefix", "app/bad"],
    ) else {
        return;
    };
    let source = fs.mountpoint().join("app");
    let dest = tmp.path().join("linux/app");
    let staging = tmp.path().join("linux/.app.wsl-place-staging");
    let out = output(migrate(&source, &dest, tmp.path(), &["--yes"]));
    out.fails(Exit::Internal);
    let journal = fs::read_to_string(staging.join("journal")).unwrap();
    assert!(journal.ends_with("S\n"), "{journal}");
    let rel = "d1/f4.txt";
    rewrite_keeping_size_and_mtime(&staging.join("tree").join(rel));

    let out = output(migrate(
        &source,
        &dest,
        tmp.path(),
        &["--yes", "--skip-unreadable"],
    ));
    out.ok();
    let original = fs::read(backing.join("app").join(rel)).unwrap();
    assert!(
        fs::read(dest.join(rel)).unwrap() == original,
        "{rel} at the destination is not the source's"
    );
    let manifest = support::Sandbox::at(tmp.path()).manifest_of(&dest);
    assert_eq!(
        manifest_file(&manifest, rel),
        (original.len() as u64, crc(&original))
    );
    drop(fs);
}

/// A run killed while it removed its staging folder (the copy renamed into place, the manifest
/// kept, the seal already gone, the folder's owner record removed last) leaves the folder
/// behind: the next run says the migration finished and ends that removal, as the random
/// SIGKILL test once caught in CI.
#[test]
fn a_staging_folder_a_kill_left_half_removed_goes_with_the_next_run() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    fs::create_dir_all(&home).unwrap();
    let source = tmp.path().join("win/app");
    write(&source.join("a.txt"), b"a\n");
    let source = source.canonicalize().unwrap();
    let dest = tmp.path().canonicalize().unwrap().join("linux/app");
    let out = output(migrate(&source, &dest, &home, &["--yes"]));
    out.ok();
    let staging = dest.with_file_name(".app.wsl-place-staging");
    assert!(!staging.exists());
    fs::create_dir_all(&staging).unwrap();
    fs::write(staging.join("source"), format!("{}\n", source.display())).unwrap();
    fs::write(staging.join("journal"), b"").unwrap();

    let dry = output(migrate(&source, &dest, &home, &["--dry-run"]));
    dry.ok();
    assert!(staging.exists(), "a dry run changes nothing");
    let again = output(migrate(&source, &dest, &home, &["--yes"]));
    again.ok();
    assert!(
        text(&again).contains("Already migrated"),
        "{}",
        text(&again)
    );
    assert!(!staging.exists(), "staging left behind:\n{}", text(&again));
    assert_eq!(fs::read(dest.join("a.txt")).unwrap(), b"a\n");
}

/// `migrate` run in the finished copy (issue 55) says whose copy it is, that it is on the Linux
/// disk already and what is left at the old place, with exit 0, not "inside the source".
#[test]
fn migrate_run_in_the_copy_names_the_old_place_and_what_is_left_there() {
    let tmp = tempfile::tempdir().unwrap();
    let source = tmp.path().join("win/app");
    support::gitrepo::repo_with_files(&source, 5);
    let home = tmp.path().join("home");
    fs::create_dir_all(&home).unwrap();
    let sandbox = support::Sandbox::at(&home);
    sandbox
        .cmd()
        .args(["migrate", "--yes"])
        .arg(&source)
        .run()
        .ok();
    let copy = home.join("src/app");
    let source = fs::canonicalize(&source).unwrap();

    let mut here = sandbox.cmd();
    here.arg("migrate").current_dir(&copy).env("NO_COLOR", "1");
    let out = here.run();
    out.ok();
    let said = out
        .stdout()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        said.contains(&format!(
            "This repository is the copy of {} and is on the Linux disk already",
            source.display()
        )) && said.contains("--remove-source"),
        "{}",
        text(&out)
    );
    assert!(!said.contains("inside the source"), "{}", text(&out));

    let mut json = sandbox.cmd();
    json.args(["migrate", "--format", "json"])
        .current_dir(&copy);
    let report = json.run().ok_json();
    assert_eq!(report["already_migrated"], true, "{report}");
    assert_eq!(report["source"], source.display().to_string(), "{report}");
    assert_eq!(report["run_in_copy"]["source_removed"], false, "{report}");
    let remove = report["run_in_copy"]["remove_source"].as_str().unwrap();
    assert!(remove.ends_with("--remove-source"), "{report}");
}

// Issue 54: `--yes` with no staging folder copies while it walks (one pass). Killed half-way
// through that copy, the next run resumes from the journal the walk's copy wrote: it reuses
// what was verified, copies the rest, and the result is the source exactly.
#[test]
#[ignore = "needs FUSE (/dev/fuse and fusermount3)"]
fn a_one_pass_copy_killed_half_way_resumes_exactly() {
    let Some(slow) = SlowSource::new(1200, 6) else {
        return;
    };
    let mut child = slow.start("app");
    let journal = slow.staging("app").join("journal");
    let before = journalled(&journal, 200, &mut child);
    kill(&mut child);
    assert!(before.len() < 1200, "the run finished before the kill");

    let out = output(migrate(
        &slow.source(),
        &slow.dest("app"),
        &slow.home(),
        &["--yes", "--format", "json"],
    ));
    let report = json_of(&out);
    out.ok();
    let copied = report["copied_files"].as_u64().unwrap();
    assert!(
        copied < 1200 && copied + before.len() as u64 >= 1200,
        "the rerun copied {copied} of 1200 after {} were journalled: {report}",
        before.len()
    );
    support::tree::assert_same_tree(&slow.backing(), &slow.dest("app"), &[]);
    assert!(!slow.staging("app").exists());
}

// Issue 54: a one-pass run (`--yes`, no staging folder yet) makes its staging folder and copies
// into it while it walks. When the destination appears meanwhile, the run refuses as before,
// and takes the staging folder it made with it: nothing is left that the refusal does not name.
#[test]
#[ignore = "needs FUSE (/dev/fuse and fusermount3)"]
fn a_destination_appearing_during_a_one_pass_walk_leaves_no_staging_folder() {
    let Some(slow) = SlowSource::new(1200, 6) else {
        return;
    };
    let mut child = slow.start("app");
    journalled(&slow.staging("app").join("journal"), 1, &mut child);
    fs::create_dir_all(slow.dest("app")).unwrap();
    let refused = support::run::wait(child);
    refused
        .fails(Exit::Input)
        .stderr_has("appeared while the plan was made");
    assert!(!slow.staging("app").exists(), "{refused}");
    assert_eq!(fs::read_dir(slow.dest("app")).unwrap().count(), 0);
}
