//! SIGKILL at 20 random points of a migration: each time the source is untouched, and running
//! the same command again ends with a verified destination identical to the source.

use crate::support;

use std::path::Path;
use std::time::Instant;
use support::crash::{KillPoints, PackageTree, killed_after};
use support::gitrepo::write;
use support::tree::*;
use support::{Mount, Sandbox, is_root};

const KILLS: usize = 20;

fn build_tree(root: &Path) {
    PackageTree {
        files: 6000,
        packages: 13,
        subs: 5,
        size_step: 131,
        max_size: 6000,
    }
    .build(root);
    for i in 0..4u64 {
        write(
            &root.join(format!("blobs/blob{i}.bin")),
            &bytes(1000 + i, 4 * 1024 * 1024),
        );
    }
    std::fs::create_dir_all(root.join("empty/dir")).unwrap();
    std::os::unix::fs::symlink("../pkg1", root.join("blobs/link")).unwrap();
}

/// The runs' HOME, cache and state: the source's parent folder.
fn sandbox(source: &Path) -> Sandbox {
    Sandbox::at(source.parent().unwrap())
}

fn migrate(source: &Path, dest: &Path) -> std::process::Command {
    let mut cmd = sandbox(source).migrate(source, dest);
    cmd.arg("--yes");
    cmd
}

fn clean(source: &Path, dest: &Path) {
    let _ = std::fs::remove_dir_all(dest);
    if let Some(manifest) = support::manifest_in(&sandbox(source).state(), dest) {
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
    clean(&source, &dest);

    let mut points = KillPoints::new();
    eprintln!(
        "crash test: full run {full:?}, seed {} (WSL_PLACE_CRASH_SEED)",
        points.seed()
    );

    let mut kills = 0;
    let mut resumed_rounds = 0;
    let mut attempts = 0;
    while kills < KILLS {
        attempts += 1;
        assert!(
            attempts < KILLS * 5,
            "the migration kept finishing before the kill"
        );
        let delay = points.next_within(full);
        if !killed_after(&mut migrate(&source, &dest), delay) {
            // Finished before the kill: not a crash point; start again.
            clean(&source, &dest);
            continue;
        }
        kills += 1;
        assert_eq!(
            before,
            snapshot(&source),
            "kill {kills} at {delay:?}: the source changed"
        );

        if dest.exists() && !staging.exists() {
            // Killed while printing the result: the migration had already finished.
            assert!(sandbox(&source).manifest_of(&dest).is_file());
            assert_same_tree(&source, &dest, &[]);
            clean(&source, &dest);
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
        assert!(sandbox(&source).manifest_of(&dest).is_file());
        assert_eq!(before, snapshot(&source));
        clean(&source, &dest);
    }
    eprintln!(
        "crash test: {kills} kills, {resumed_rounds} resumed verified files from the journal"
    );
    assert!(
        resumed_rounds > 0,
        "no kill landed after a file was journaled; resume untested"
    );
}
