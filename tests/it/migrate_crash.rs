//! SIGKILL at 20 random points of a migration: each time the source is untouched, and running
//! the same command again ends with a verified destination identical to the source.

use crate::support;

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use support::gitrepo::write;
use support::tree::*;
use support::{Mount, is_root, kill, migrate_command};

const KILLS: usize = 20;

fn build_tree(root: &Path) {
    for i in 0..6000u64 {
        write(
            &root.join(format!("pkg{}/sub{}/file{i}.txt", i % 13, i % 5)),
            &bytes(i, (i as usize * 131) % 6000),
        );
    }
    for i in 0..4u64 {
        write(
            &root.join(format!("blobs/blob{i}.bin")),
            &bytes(1000 + i, 4 * 1024 * 1024),
        );
    }
    std::fs::create_dir_all(root.join("empty/dir")).unwrap();
    std::os::unix::fs::symlink("../pkg1", root.join("blobs/link")).unwrap();
}

fn migrate(source: &Path, dest: &Path) -> std::process::Command {
    let mut cmd = migrate_command(source, dest);
    cmd.arg("--yes").env("HOME", source.parent().unwrap());
    cmd
}

fn clean(dest: &Path) {
    let _ = std::fs::remove_dir_all(dest);
    if let Some(manifest) = support::manifest_in(&support::state_home(), dest) {
        let _ = std::fs::remove_file(manifest);
    }
}

#[test]
fn sigkill_at_random_points_then_resume() {
    let tmp = tempfile::tempdir().unwrap();
    // tmpfs keeps the 20 rounds quick; a plain directory works too, only slower.
    let mount = is_root().then(|| {
        Mount::try_tmpfs_at(&tmp.path().join("fs"), "512m").unwrap_or_else(|e| panic!("{e}"))
    });
    let base = match &mount {
        Some(mount) => mount.point().to_path_buf(),
        None => tmp.path().to_path_buf(),
    };
    let source = base.join("src/app");
    build_tree(&source);
    let before = snapshot(&source);
    let dest = base.join("dst/app");
    let staging = base.join("dst/.app.wsl-place-staging");

    // One uninterrupted run, to know how long a migration takes here.
    let started = Instant::now();
    let out = migrate(&source, &dest).output().unwrap();
    let full = started.elapsed();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_same_tree(&source, &dest, &[]);
    clean(&dest);

    let mut seed = std::env::var("WSL_PLACE_CRASH_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
                | 1
        });
    eprintln!("crash test: full run {full:?}, seed {seed} (WSL_PLACE_CRASH_SEED)");
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };

    let mut kills = 0;
    let mut resumed_rounds = 0;
    let mut attempts = 0;
    while kills < KILLS {
        attempts += 1;
        assert!(
            attempts < KILLS * 5,
            "the migration kept finishing before the kill"
        );
        let window = full.as_micros() as u64 * 11 / 10;
        let delay = Duration::from_micros(next() % window.max(1));
        let mut child = migrate(&source, &dest)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(delay);
        if child.try_wait().unwrap().is_some() {
            // Finished before the kill: not a crash point; start again.
            clean(&dest);
            continue;
        }
        kill(&mut child);
        kills += 1;
        assert_eq!(
            before,
            snapshot(&source),
            "kill {kills} at {delay:?}: the source changed"
        );

        if dest.exists() && !staging.exists() {
            // Killed while printing the result: the migration had already finished.
            assert!(support::manifest_of(&dest).is_file());
            assert_same_tree(&source, &dest, &[]);
            clean(&dest);
            continue;
        }
        let out = migrate(&source, &dest).output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "kill {kills} at {delay:?}: resume failed\n{stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        if stdout.contains("already copied and verified") {
            resumed_rounds += 1;
        }
        assert_same_tree(&source, &dest, &[]);
        assert!(
            !staging.exists(),
            "kill {kills}: staging left behind after the resume"
        );
        assert!(support::manifest_of(&dest).is_file());
        assert_eq!(before, snapshot(&source));
        clean(&dest);
    }
    eprintln!(
        "crash test: {kills} kills, {resumed_rounds} resumed verified files from the journal"
    );
    assert!(
        resumed_rounds > 0,
        "no kill landed after a file was journaled; resume untested"
    );
}
