//! Integration tests of the slowfs example: real file operations through a real
//! FUSE mount, its latency, its faults, and its shutdown.

use crate::support;

use std::fs;
use std::io::{ErrorKind, Read, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant, SystemTime};

use rustix::io::Errno;
use support::gitrepo::{commit_all, git};
use support::{Signal, SlowFs};
use tempfile::TempDir;

/// A backing dir and a mount point side by side, so neither contains the other.
fn dirs() -> (TempDir, std::path::PathBuf, std::path::PathBuf) {
    let root = tempfile::tempdir().expect("tempdir");
    let backing = root.path().join("backing");
    let mnt = root.path().join("mnt");
    fs::create_dir(&backing).expect("mkdir backing");
    fs::create_dir(&mnt).expect("mkdir mnt");
    (root, backing, mnt)
}

fn pattern(len: usize, seed: u8) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
        .collect()
}

#[test]
#[ignore = "needs FUSE (/dev/fuse and fusermount3)"]
fn content_sizes_and_renames_pass_through() {
    let (_root, backing, mnt) = dirs();
    fs::write(backing.join("preexisting.txt"), b"from the backing dir").expect("seed");
    let Some(sfs) = SlowFs::mount(
        &backing,
        &mnt,
        &["--profile", "drvfs-9p", "--scale", "0.01"],
    ) else {
        return;
    };
    let m = sfs.mountpoint();

    assert_eq!(
        fs::read(m.join("preexisting.txt")).expect("read seeded file"),
        b"from the backing dir"
    );

    // Sizes around page and request boundaries, and one bigger than a FUSE write.
    for (i, len) in [0usize, 1, 4095, 4096, 4097, 131_072 + 17, 3 << 20]
        .into_iter()
        .enumerate()
    {
        let data = pattern(len, i as u8);
        let name = format!("f{len}");
        fs::write(m.join(&name), &data).expect("write through mount");
        assert_eq!(fs::metadata(m.join(&name)).expect("stat").len(), len as u64);
        assert_eq!(fs::read(m.join(&name)).expect("read back"), data, "{name}");
        assert_eq!(
            fs::read(backing.join(&name)).expect("backing"),
            data,
            "{name}"
        );
    }

    // Overwrite in the middle, append at the end.
    {
        let mut f = fs::OpenOptions::new()
            .write(true)
            .open(m.join("f4096"))
            .expect("open rw");
        use std::io::{Seek, SeekFrom};
        f.seek(SeekFrom::Start(100)).expect("seek");
        f.write_all(b"MIDDLE").expect("overwrite");
    }
    {
        let mut f = fs::OpenOptions::new()
            .append(true)
            .open(m.join("f4096"))
            .expect("open append");
        f.write_all(b"TAIL").expect("append");
    }
    let got = fs::read(backing.join("f4096")).expect("backing after edits");
    assert_eq!(got.len(), 4100);
    assert_eq!(&got[100..106], b"MIDDLE");
    assert_eq!(&got[4096..], b"TAIL");

    // Rename a file, a directory with children (their paths must follow), and
    // onto an existing name.
    fs::create_dir_all(m.join("a/b/c")).expect("mkdir -p");
    fs::write(m.join("a/b/c/deep.txt"), b"deep").expect("deep file");
    fs::rename(m.join("f1"), m.join("a/one")).expect("rename file");
    assert!(!m.join("f1").exists());
    assert_eq!(fs::read(m.join("a/one")).expect("renamed file").len(), 1);
    fs::rename(m.join("a/b"), m.join("moved")).expect("rename dir");
    assert_eq!(
        fs::read(m.join("moved/c/deep.txt")).expect("child of moved dir"),
        b"deep"
    );
    assert!(backing.join("moved/c/deep.txt").is_file());
    assert!(!m.join("a/b").exists());
    fs::write(m.join("moved/c/deep.txt"), b"rewritten").expect("write via new path");
    assert_eq!(
        fs::read(backing.join("moved/c/deep.txt")).expect("backing"),
        b"rewritten"
    );
    fs::rename(m.join("f0"), m.join("preexisting.txt")).expect("rename over");
    assert_eq!(
        fs::metadata(m.join("preexisting.txt")).expect("stat").len(),
        0
    );

    // A directory listing long enough to need several readdir calls.
    fs::create_dir(m.join("many")).expect("mkdir many");
    for i in 0..300 {
        fs::write(
            m.join(format!("many/entry-with-a-longish-name-{i:04}")),
            b"x",
        )
        .expect("entry");
    }
    let mut listed: Vec<String> = fs::read_dir(m.join("many"))
        .expect("readdir")
        .map(|e| e.expect("entry").file_name().into_string().expect("utf-8"))
        .collect();
    listed.sort();
    let expected: Vec<String> = (0..300)
        .map(|i| format!("entry-with-a-longish-name-{i:04}"))
        .collect();
    assert_eq!(listed, expected);

    // Metadata the migration copies: mode and mtime, plus truncate.
    let p = m.join("f4097");
    fs::set_permissions(&p, fs::Permissions::from_mode(0o640)).expect("chmod");
    let mtime = SystemTime::UNIX_EPOCH + Duration::new(1_234_567_890, 123_456_789);
    fs::File::options()
        .write(true)
        .open(&p)
        .and_then(|f| f.set_modified(mtime))
        .expect("utimens");
    let md = fs::metadata(backing.join("f4097")).expect("backing stat");
    assert_eq!(md.permissions().mode() & 0o7777, 0o640);
    assert_eq!((md.mtime(), md.mtime_nsec()), (1_234_567_890, 123_456_789));
    let md = fs::metadata(&p).expect("mount stat");
    assert_eq!(md.permissions().mode() & 0o7777, 0o640);
    assert_eq!(md.modified().expect("mtime"), mtime);
    fs::File::options()
        .write(true)
        .open(&p)
        .and_then(|f| f.set_len(10))
        .expect("truncate");
    assert_eq!(fs::metadata(&p).expect("stat").len(), 10);
    assert_eq!(
        fs::read(backing.join("f4097")).expect("backing"),
        pattern(10, 4)
    );

    // Links.
    std::os::unix::fs::symlink("f4095", m.join("link")).expect("symlink");
    assert_eq!(
        fs::read_link(m.join("link")).expect("readlink"),
        Path::new("f4095")
    );
    assert_eq!(fs::read(m.join("link")).expect("through link").len(), 4095);
    fs::hard_link(m.join("f4095"), m.join("hard")).expect("hard link");
    assert_eq!(fs::metadata(m.join("hard")).expect("stat").nlink(), 2);

    // Deletion, and an open file outliving its name.
    let mut open = fs::File::open(m.join("hard")).expect("open");
    fs::remove_file(m.join("hard")).expect("unlink");
    let mut buf = Vec::new();
    open.read_to_end(&mut buf).expect("read unlinked");
    assert_eq!(buf.len(), 4095);
    assert_eq!(fs::metadata(m.join("f4095")).expect("stat").nlink(), 1);
    fs::remove_dir_all(m.join("many")).expect("rm -r");
    assert!(!backing.join("many").exists());
    assert_eq!(
        fs::metadata(m.join("no-such-file"))
            .map_err(|e| e.kind())
            .err(),
        Some(ErrorKind::NotFound)
    );
}

#[test]
#[ignore = "needs FUSE (/dev/fuse and fusermount3)"]
fn git_init_commit_and_status_inside_the_mount() {
    let (_root, backing, mnt) = dirs();
    let Some(sfs) = SlowFs::mount(
        &backing,
        &mnt,
        &["--profile", "drvfs-9p", "--scale", "0.01"],
    ) else {
        return;
    };
    let repo = sfs.mountpoint().join("repo");
    fs::create_dir(&repo).expect("mkdir repo");
    git(&repo, &["init", "-q"]);
    for i in 0..50 {
        let dir = repo.join(format!("d{}", i % 5));
        fs::create_dir_all(&dir).expect("mkdir");
        fs::write(dir.join(format!("file{i}.txt")), format!("line {i}\n")).expect("write");
    }
    commit_all(&repo, "initial");
    assert_eq!(git(&repo, &["status", "--porcelain"]), "");
    assert_eq!(git(&repo, &["ls-files"]).lines().count(), 50);

    fs::write(repo.join("d3/file8.txt"), "changed\n").expect("modify");
    fs::write(repo.join("untracked.txt"), "new\n").expect("untracked");
    fs::rename(repo.join("d0/file0.txt"), repo.join("d0/renamed.txt")).expect("rename");
    let status = git(&repo, &["status", "--porcelain"]);
    let mut lines: Vec<&str> = status.lines().collect();
    lines.sort();
    assert_eq!(
        lines,
        [
            " D d0/file0.txt",
            " M d3/file8.txt",
            "?? d0/renamed.txt",
            "?? untracked.txt"
        ]
    );

    // The repository is a real one on the backing side too.
    assert!(backing.join("repo/.git/HEAD").is_file());
    let log = git(&backing.join("repo"), &["log", "--format=%s"]);
    assert_eq!(log.trim(), "initial");
    git(&backing.join("repo"), &["fsck", "--no-progress"]);
}

/// The count of `op` in a stats line of slowfs (`lookup=3 getattr=5`).
fn count(stats: &str, op: &str) -> u64 {
    let key = format!("{op}=");
    stats
        .split_whitespace()
        .find_map(|t| t.strip_prefix(key.as_str()))
        .map_or(0, |n| n.parse().expect("a count"))
}

/// Every request waits at slowfs's latency gate: a stat through a held mount ends only after
/// the release, and each stat is a lookup and a getattr there (zero TTLs, as 9p revalidates).
/// How long the gate sleeps is measured by `bench/slowfs-calibrate.sh`, not here.
#[test]
#[ignore = "needs FUSE (/dev/fuse and fusermount3)"]
fn every_request_passes_the_latency_gate() {
    let (_root, backing, mnt) = dirs();
    const N: u64 = 20;
    for i in 0..N {
        fs::write(backing.join(format!("s{i}")), b"x").expect("seed");
    }
    let Some(sfs) = SlowFs::mount(&backing, &mnt, &["--profile", "drvfs-9p", "--scale", "0.1"])
    else {
        return;
    };
    let m = sfs.mountpoint().to_path_buf();
    sfs.take_stats();
    for i in 0..N {
        fs::symlink_metadata(m.join(format!("s{i}"))).expect("stat");
    }
    let stats = sfs.take_stats();
    assert_eq!(count(&stats, "lookup"), N, "{stats}");
    assert!(count(&stats, "getattr") >= N, "{stats}");

    sfs.hold();
    let (sender, ended) = std::sync::mpsc::channel();
    let held = m.join("s0");
    std::thread::spawn(move || {
        let _ = sender.send(fs::symlink_metadata(held).is_ok());
    });
    // The stat reached the gate (counted) and waits there.
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut reached = 0;
    while reached == 0 {
        assert!(Instant::now() < deadline, "the stat never reached slowfs");
        reached += count(&sfs.take_stats(), "lookup");
    }
    assert!(ended.try_recv().is_err(), "a held request was answered");
    sfs.release();
    assert_eq!(ended.recv_timeout(Duration::from_secs(30)), Ok(true));
}

/// Concurrent requests are served at once, as over a real transport (git's preload-index relies
/// on it): eight stats from eight threads are all inside slowfs, held, at the same time.
#[test]
#[ignore = "needs FUSE (/dev/fuse and fusermount3)"]
fn slow_requests_overlap_instead_of_queueing() {
    let (_root, backing, mnt) = dirs();
    const THREADS: u64 = 8;
    for i in 0..THREADS {
        fs::write(backing.join(format!("s{i}")), b"x").expect("seed");
    }
    let Some(sfs) = SlowFs::mount(
        &backing,
        &mnt,
        &["--profile", "none", "--latency", "lookup=20"],
    ) else {
        return;
    };
    let m = sfs.mountpoint().to_path_buf();
    sfs.take_stats();
    sfs.hold();
    let stats: Vec<_> = (0..THREADS)
        .map(|t| {
            let file = m.join(format!("s{t}"));
            std::thread::spawn(move || fs::symlink_metadata(file).is_ok())
        })
        .collect();
    // Served one at a time, only one would reach the held gate; the rest would queue in the
    // kernel until the release.
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut inside = 0;
    while inside < THREADS {
        assert!(
            Instant::now() < deadline,
            "only {inside} of {THREADS} stats reached slowfs at once"
        );
        inside += count(&sfs.take_stats(), "lookup");
        std::thread::sleep(Duration::from_millis(20));
    }
    sfs.release();
    for stat in stats {
        assert!(stat.join().unwrap());
    }
}

#[test]
#[ignore = "needs FUSE (/dev/fuse and fusermount3)"]
fn writes_fail_with_enospc_after_the_byte_budget() {
    let (_root, backing, mnt) = dirs();
    let Some(sfs) = SlowFs::mount(
        &backing,
        &mnt,
        &["--profile", "none", "--enospc-after-bytes", "10000"],
    ) else {
        return;
    };
    let m = sfs.mountpoint();
    fs::write(m.join("a"), [1u8; 4096]).expect("first 4 KiB fits");
    fs::write(m.join("b"), [2u8; 4096]).expect("second 4 KiB fits");
    let err = fs::write(m.join("c"), [3u8; 4096]).expect_err("third 4 KiB must not fit");
    assert_eq!(
        err.raw_os_error(),
        Some(Errno::NOSPC.raw_os_error()),
        "{err}"
    );
    // The disk took what fitted, like a real full disk.
    assert_eq!(
        fs::metadata(backing.join("c")).expect("c").len(),
        10000 - 8192
    );
    let err = fs::write(m.join("d"), b"x").expect_err("budget is spent");
    assert_eq!(
        err.raw_os_error(),
        Some(Errno::NOSPC.raw_os_error()),
        "{err}"
    );
    // Metadata operations and reads still work on a full disk.
    assert_eq!(fs::read(m.join("a")).expect("read").len(), 4096);
    fs::rename(m.join("a"), m.join("a2")).expect("rename on full disk");
    fs::remove_file(m.join("b")).expect("unlink on full disk");
}

#[test]
#[ignore = "needs FUSE (/dev/fuse and fusermount3)"]
fn reads_under_the_eio_prefix_fail() {
    let (_root, backing, mnt) = dirs();
    for p in ["bad/dir/f", "bad/dir/sub/g", "bad/dirx/f", "good/f"] {
        let p = backing.join(p);
        fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        fs::write(&p, b"payload").expect("seed");
    }
    let Some(sfs) = SlowFs::mount(
        &backing,
        &mnt,
        &["--profile", "none", "--eio-path-prefix", "bad/dir"],
    ) else {
        return;
    };
    let m = sfs.mountpoint();
    for p in ["bad/dir/f", "bad/dir/sub/g"] {
        let err = fs::read(m.join(p)).expect_err(p);
        assert_eq!(
            err.raw_os_error(),
            Some(Errno::IO.raw_os_error()),
            "{p}: {err}"
        );
        // Only reads fail: the file is still there to stat and list.
        assert_eq!(fs::metadata(m.join(p)).expect("stat").len(), 7);
    }
    assert_eq!(fs::read_dir(m.join("bad/dir")).expect("readdir").count(), 2);
    // Whole components: bad/dirx is not under bad/dir.
    assert_eq!(
        fs::read(m.join("bad/dirx/f")).expect("bad/dirx"),
        b"payload"
    );
    assert_eq!(fs::read(m.join("good/f")).expect("good"), b"payload");
    // A file moved into the failing subtree fails from then on.
    fs::rename(m.join("good/f"), m.join("bad/dir/moved")).expect("rename");
    let err = fs::read(m.join("bad/dir/moved")).expect_err("moved into prefix");
    assert_eq!(err.raw_os_error(), Some(Errno::IO.raw_os_error()));
}

#[test]
#[ignore = "needs FUSE (/dev/fuse and fusermount3)"]
fn sigterm_and_sigint_unmount_cleanly() {
    for signal in [Signal::TERM, Signal::INT] {
        let (_root, backing, mnt) = dirs();
        let Some(mut sfs) = SlowFs::mount(&backing, &mnt, &["--profile", "none"]) else {
            return;
        };
        fs::write(sfs.mountpoint().join("kept"), b"data").expect("write");
        assert!(sfs.is_mounted());
        let (status, stderr) = sfs.signal_and_wait(signal);
        assert!(status.success(), "{signal:?}: {status}; stderr:\n{stderr}");
        assert!(!sfs.is_mounted(), "still mounted after {signal:?}");
        assert!(stderr.contains("slowfs: unmounted"), "{stderr}");
        assert_eq!(fs::read(backing.join("kept")).expect("backing"), b"data");
        assert_eq!(fs::read_dir(&mnt).expect("empty mount point").count(), 0);
    }
}

#[test]
#[ignore = "needs FUSE (/dev/fuse and fusermount3)"]
fn guard_unmounts_when_the_test_panics() {
    let (_root, backing, mnt) = dirs();
    if let Err(reason) = support::slowfs::fuse_available() {
        support::skip(&reason);
        return;
    }
    let mountpoint = mnt.canonicalize().expect("canonical");
    let pid = std::sync::Mutex::new(None);
    let res = std::panic::catch_unwind(|| {
        let sfs = SlowFs::mount(&backing, &mnt, &["--profile", "none"]).expect("mounted");
        *pid.lock().expect("pid") = sfs.pid();
        assert!(support::is_mounted(&mountpoint));
        panic!("deliberate failure inside a mounted test");
    });
    // The deliberate panic, not a failure to mount before it.
    let payload = res.expect_err("the closure panics");
    assert_eq!(
        payload.downcast_ref::<&str>(),
        Some(&"deliberate failure inside a mounted test")
    );
    assert!(
        !support::is_mounted(&mountpoint),
        "guard left the mount behind"
    );
    let pid = pid.into_inner().expect("pid").expect("child pid");
    // Reaped: no zombie left under our pid.
    let status = fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    assert!(
        !status.contains("State:\tZ"),
        "slowfs child left as a zombie"
    );
}

#[test]
fn cli_rejects_bad_options_before_mounting() {
    let (_root, backing, mnt) = dirs();
    let bin = support::slowfs::slowfs_binary();
    for bad in [
        &["--latency", "lokup=1"][..],
        &["--latency", "lookup=-1"],
        &["--scale", "fast"],
        &["--profile", "ntfs"],
    ] {
        let out = Command::new(&bin)
            .args(bad)
            .arg(&backing)
            .arg(&mnt)
            .output()
            .expect("run slowfs");
        assert!(!out.status.success(), "{bad:?} accepted");
        assert!(!out.stderr.is_empty(), "{bad:?}: no error message");
    }
    let out = Command::new(&bin)
        .args(["--latency", "lokup=1"])
        .arg(&backing)
        .arg(&mnt)
        .output()
        .expect("run slowfs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("known: lookup"), "{err}");
    // Mounting the backing dir inside itself would recurse.
    let out = Command::new(&bin)
        .arg(&backing)
        .arg(backing.join("."))
        .output()
        .expect("run slowfs");
    assert!(!out.status.success());
    assert!(!support::is_mounted(&backing));
}
