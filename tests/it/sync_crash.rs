//! SIGKILL at random points of `migrate --sync` (issue 25): each time the source is untouched,
//! and running the same command again ends with the copy holding exactly what the source holds,
//! except that a file changed at both places keeps the destination's version and has the
//! source's saved beside it.

use crate::support;

use std::path::{Path, PathBuf};
use std::time::Instant;
use support::Sandbox;
use support::crash::{KillPoints, PackageTree, killed_after};
use support::gitrepo::write;
use support::tree::*;

const KILLS: usize = 8;

const TREE: PackageTree = PackageTree {
    files: 3000,
    packages: 7,
    subs: 3,
    size_step: 97,
    max_size: 3000,
};

fn build_tree(root: &Path) {
    TREE.build(root);
    write(&root.join("blobs/blob.bin"), &bytes(7, 2 * 1024 * 1024));
}

fn sync(source: &Path, dest: &Path) -> std::process::Command {
    let mut cmd = Sandbox::at(source.parent().unwrap()).migrate(source, dest);
    cmd.args(["--sync", "--yes"]);
    cmd
}

/// Late edits for round `round`: 1,000 files rewritten, 100 added in a new folder, 20 removed,
/// the blob rewritten, and one file changed at both places (returned).
fn edit(source: &Path, dest: &Path, round: u64) -> PathBuf {
    for i in (0..TREE.files).filter(|i| i % 3 == round % 3) {
        let file = TREE.file(source, i);
        if file.exists() {
            write(&file, &bytes(i * 31 + round, (i as usize * 13) % 2000 + 1));
        }
    }
    for i in 0..100u64 {
        write(
            &source.join(format!("late{round}/new{i}.txt")),
            &bytes(round * 1000 + i, 500),
        );
    }
    for i in (0..TREE.files).filter(|i| i % 150 == round) {
        let _ = std::fs::remove_file(TREE.file(source, i));
    }
    write(
        &source.join("blobs/blob.bin"),
        &bytes(round, 2 * 1024 * 1024),
    );
    let both = PathBuf::from(format!("both/conflict{round}.txt"));
    if round == 0 {
        for r in 0..KILLS as u64 * 3 {
            write(
                &source.join(format!("both/conflict{r}.txt")),
                b"as migrated\n",
            );
        }
    } else {
        write(&dest.join(&both), b"the destination's edit\n");
        write(&source.join(&both), b"the source's edit\n");
    }
    both
}

#[test]
fn sigkill_during_a_sync_then_resume() {
    let tmp = tempfile::tempdir().unwrap();
    let source = tmp.path().join("src/app");
    let dest = tmp.path().join("dst/app");
    build_tree(&source);
    edit(&source, &dest, 0);
    let first = Sandbox::at(tmp.path().join("src"))
        .migrate(&source, &dest)
        .arg("--yes")
        .output()
        .unwrap();
    assert!(first.status.success(), "{}", support::text(&first));

    // One uninterrupted sync, to know how long one takes here.
    let mut conflicts = vec![edit(&source, &dest, 1)];
    let started = Instant::now();
    let out = sync(&source, &dest).output().unwrap();
    let mut full = started.elapsed();
    assert!(out.status.success(), "{}", support::text(&out));
    check(&source, &dest, &conflicts);

    let mut points = KillPoints::new();
    eprintln!(
        "sync crash test: full sync {full:?}, seed {} (WSL_PLACE_CRASH_SEED)",
        points.seed()
    );
    let (mut kills, mut copying, mut applying) = (0, 0, 0);
    let mut round = 2;
    while kills < KILLS {
        assert!(
            round < KILLS as u64 * 3,
            "the sync kept finishing before the kill"
        );
        conflicts.push(edit(&source, &dest, round));
        round += 1;
        let before = snapshot(&source);
        let delay = points.next_within(full);
        let killed = killed_after(&mut sync(&source, &dest), delay);
        if !killed {
            // The first sync was timed on a busier machine than this one: kill within what a
            // sync takes now, which is less than this delay.
            full = delay * 9 / 11;
        }
        if killed {
            kills += 1;
            let staging = dest.with_file_name(".app.wsl-place-sync");
            match staging.join("finalising").exists() {
                true => applying += 1,
                false if staging.exists() => copying += 1,
                false => {}
            }
        }
        assert_eq!(
            before,
            snapshot(&source),
            "kill at {delay:?}: the source changed"
        );
        let out = sync(&source, &dest).output().unwrap();
        assert!(
            out.status.success(),
            "kill at {delay:?}: the resumed sync failed: {}",
            support::text(&out)
        );
        assert_eq!(
            before,
            snapshot(&source),
            "the resumed sync changed the source"
        );
        check(&source, &dest, &conflicts);
    }
    eprintln!("sync crash test: {kills} kills, {copying} while copying, {applying} while applying");
}

/// The copy holds what the source holds, but for the conflicts: the destination's edit kept,
/// the source's saved beside it; nothing of the sync's is left beside the copy.
fn check(source: &Path, dest: &Path, conflicts: &[PathBuf]) {
    let mut except: Vec<String> = Vec::new();
    for both in conflicts {
        assert_eq!(
            std::fs::read(dest.join(both)).unwrap(),
            b"the destination's edit\n"
        );
        let name = both.file_name().unwrap().to_string_lossy().into_owned();
        let saved: Vec<PathBuf> = std::fs::read_dir(dest.join(both).parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| {
                p.file_name()
                    .unwrap()
                    .to_string_lossy()
                    .starts_with(&format!("{name}.from-source-"))
            })
            .collect();
        assert_eq!(saved.len(), 1, "{}: {saved:?}", both.display());
        assert_eq!(std::fs::read(&saved[0]).unwrap(), b"the source's edit\n");
        except.push(both.display().to_string());
        except.push(saved[0].strip_prefix(dest).unwrap().display().to_string());
    }
    // The folder holding the conflicts differs by the saved files: its times are not compared.
    except.push("both".into());
    let except: Vec<&str> = except.iter().map(String::as_str).collect();
    assert_same_tree(source, dest, &except);
    let beside: Vec<_> = std::fs::read_dir(dest.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(beside, ["app"], "left beside the copy");
}
