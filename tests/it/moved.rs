//! After the move (issue 25): the old place says where the repository went and what changed
//! there since. On slowfs.

use crate::support;
use crate::support::{Outcome, Run};

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use support::gitrepo::write;
use support::{SlowFs, text};

/// A small git repository served by slowfs (a few milliseconds an `open`), a destination on the
/// local disk and a private home.
pub struct OldPlace {
    pub tmp: tempfile::TempDir,
    pub fs: SlowFs,
}

impl OldPlace {
    pub fn new(files: usize) -> Option<Self> {
        let tmp = tempfile::tempdir().unwrap();
        let backing = tmp.path().join("backing");
        support::gitrepo::repo_with_files(&backing.join("app"), files);
        fs::create_dir_all(tmp.path().join("home")).unwrap();
        let fs = SlowFs::mount(
            &backing,
            &tmp.path().join("mnt"),
            &["--profile", "none", "--latency", "open=2"],
        )?;
        Some(Self { tmp, fs })
    }

    pub fn source(&self) -> PathBuf {
        self.fs.mountpoint().join("app")
    }

    pub fn dest(&self) -> PathBuf {
        self.tmp.path().join("linux/app")
    }

    /// Where every run lives: HOME beside the mount.
    pub fn sandbox(&self) -> support::Sandbox {
        support::Sandbox::at(self.tmp.path().join("home"))
    }

    /// `wsl-place ARGS` in the sandbox.
    pub fn run(&self, args: &[&str]) -> Command {
        let mut cmd = self.sandbox().cmd();
        cmd.args(args).env("NO_COLOR", "1");
        cmd
    }

    /// `wsl-place migrate SOURCE --to DEST ARGS`.
    pub fn migrate(&self, args: &[&str]) -> Outcome {
        let mut cmd = self.run(&["migrate"]);
        cmd.arg(self.source())
            .arg("--to")
            .arg(self.dest())
            .args(args);
        cmd.run()
    }

    /// `COMMAND --format json PATH` in this old place's sandbox, with probes: its JSON, the run
    /// having succeeded.
    pub fn json(&self, command: &str, path: &Path) -> serde_json::Value {
        self.run(&[command, "--format", "json"])
            .arg(path)
            .run()
            .ok_json()
    }
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn append(path: &Path, more: &[u8]) {
    let mut content = fs::read(path).unwrap();
    content.extend_from_slice(more);
    fs::write(path, content).unwrap();
}

#[test]
#[ignore = "needs FUSE (/dev/fuse and fusermount3)"]
fn the_old_place_says_where_it_went_and_what_changed_since() {
    let Some(old) = OldPlace::new(20) else {
        return;
    };
    let first = old.migrate(&["--yes"]);
    first.ok();

    let report = old.sandbox().check_json(&old.source(), &[]);
    let moved = &report["moved"];
    assert_eq!(
        moved["destination"],
        old.dest().display().to_string(),
        "{report}"
    );
    assert_eq!(
        (&moved["added"], &moved["changed"], &moved["removed"]),
        (&0.into(), &0.into(), &0.into()),
        "{report}"
    );
    let day = moved["finished_day"].as_str().unwrap().to_string();
    assert_eq!(day.len(), 10, "{report}");
    assert_eq!(report["verdict"]["advice"][0]["id"], "migrate", "{report}");
    // Nothing changed here: the command that follows is the `cd` to the copy (never the
    // `--remove-source` of the pre-move report).
    assert_eq!(report["verdict"]["level"], "moved", "{report}");
    let next = report["verdict"]["advice"][0]["command"].as_str().unwrap();
    assert_eq!(next, format!("cd {}", old.dest().display()), "{report}");
    assert_eq!(moved["next"], next, "{report}");

    // The hook's line, from the record alone.
    let mut hook = old.run(&["check", "--advisory"]);
    let hook = hook.arg(old.source()).run();
    hook.ok();
    let line = stdout(&hook);
    assert!(
        line.starts_with("wsl-place: moved (to ")
            && line.contains(&old.dest().display().to_string())
            && line.contains(&format!(" on {day}"))
            && line.lines().count() == 1,
        "{}",
        text(&hook)
    );

    // Edits made at the old place after the move: one changed, one added, one removed.
    append(&old.source().join("d0/f0.txt"), b"a late line\n");
    write(
        &old.source().join("late/new.txt"),
        b"written after the move\n",
    );
    fs::remove_file(old.source().join("d1/f1.txt")).unwrap();
    let report = old.sandbox().check_json(&old.source(), &[]);
    let moved = &report["moved"];
    assert_eq!(
        (&moved["added"], &moved["changed"], &moved["removed"]),
        (&1.into(), &1.into(), &1.into()),
        "{report}"
    );
    // The same migrate again says the two copies differ.
    let again = old.migrate(&[]);
    again.ok();
    let said = stdout(&again)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        said.contains("Already migrated")
            && said.contains("3 files changed at")
            && said.contains("(1 added, 1 changed, 1 removed)"),
        "{}",
        text(&again)
    );
    // While the two differ, the command is the sync that copies those three over.
    let sync = report["verdict"]["advice"][0]["command"].as_str().unwrap();
    assert!(
        sync.ends_with("--sync") && sync == moved["sync"],
        "{report}"
    );
    assert!(said.contains("--sync` copies them"), "{}", text(&again));
    let mut human = old.run(&["check", "--no-probe"]);
    let human = human.arg(old.source()).run();
    // Wrapped to the terminal's width: compared word by word.
    let words = stdout(&human)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let expected = format!(
        "Moved to {} on {day}; 3 files changed here since, not in the copy",
        old.dest().display()
    );
    assert!(words.starts_with(&expected), "{}", text(&human));
}
