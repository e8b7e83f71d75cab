//! The `slowfs` example mounted for the duration of a test.
//!
//! ```ignore
//! #[test]
//! #[ignore = "needs FUSE (/dev/fuse and fusermount3)"]
//! fn on_slowfs() {
//! let Some(fs) = support::SlowFs::mount(backing.path(), mnt.path(), &["--scale", "0.02"]) else {
//!     return; // FUSE unavailable here; SKIP was printed
//! };
//! std::fs::write(fs.mountpoint().join("f"), b"x").unwrap();
//! // dropped: unmounted and the child reaped, even if the test panicked
//! }
//! ```

use super::{Signal, assert_marked_ignored, is_mounted, skip};
use std::fs::OpenOptions;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, Once};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime};

const MOUNT_TIMEOUT: Duration = Duration::from_secs(20);
const EXIT_TIMEOUT: Duration = Duration::from_secs(10);

pub struct SlowFs {
    child: Option<Child>,
    mountpoint: PathBuf,
    backing: PathBuf,
    stderr: Arc<Mutex<String>>,
    stderr_reader: Option<JoinHandle<()>>,
}

impl SlowFs {
    /// Mounts `backing` at `mountpoint` (created if missing) with the extra slowfs
    /// `args`, and waits until the mount is live.
    ///
    /// Returns None after a [`skip`] when FUSE is unavailable (a failure under
    /// WSL_PLACE_REQUIRE_FUSE=1). A mount that should work but fails always panics,
    /// with the child's stderr. The calling test must be marked `#[ignore = "needs FUSE
    /// ..."]` (see [`assert_marked_ignored`]).
    pub fn mount(backing: &Path, mountpoint: &Path, args: &[&str]) -> Option<SlowFs> {
        if let Err(reason) = fuse_available() {
            skip(&reason);
            return None;
        }
        assert_marked_ignored("FUSE");
        std::fs::create_dir_all(mountpoint)
            .unwrap_or_else(|e| panic!("creating mount point {}: {e}", mountpoint.display()));
        let mountpoint = mountpoint
            .canonicalize()
            .unwrap_or_else(|e| panic!("mount point {}: {e}", mountpoint.display()));
        let backing = backing
            .canonicalize()
            .unwrap_or_else(|e| panic!("backing dir {}: {e}", backing.display()));

        // Waiting for the mount to appear would otherwise succeed at once.
        assert!(
            !is_mounted(&mountpoint),
            "{} is already a mount point",
            mountpoint.display()
        );
        let bin = slowfs_binary();
        let mut child = Command::new(&bin)
            .args(args)
            .arg(&backing)
            .arg(&mountpoint)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("spawning {}: {e}", bin.display()));

        // Drained on a thread: a child blocked on a full stderr pipe would hang the
        // very mount we are waiting for.
        let stderr = Arc::new(Mutex::new(String::new()));
        let stderr_reader = child.stderr.take().map(|mut pipe| {
            let sink = Arc::clone(&stderr);
            std::thread::spawn(move || {
                let mut buf = [0u8; 4096];
                while let Ok(n) = pipe.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    let text = String::from_utf8_lossy(&buf[..n]);
                    sink.lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .push_str(&text);
                }
            })
        });

        let mut fs = SlowFs {
            child: Some(child),
            mountpoint,
            backing,
            stderr,
            stderr_reader,
        };
        fs.wait_mounted();
        Some(fs)
    }

    pub fn mountpoint(&self) -> &Path {
        &self.mountpoint
    }

    pub fn backing(&self) -> &Path {
        &self.backing
    }

    /// Everything slowfs printed to stderr so far.
    pub fn stderr(&self) -> String {
        self.stderr
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Holds every request on the mount until [`SlowFs::release`] (slowfs lets each go after
    /// 30 s at most): what touches the mount meanwhile cannot end before the release.
    pub fn hold(&self) {
        self.toggle_hold("requests held");
    }

    pub fn release(&self) {
        self.toggle_hold("requests released");
    }

    fn toggle_hold(&self, said: &str) {
        self.signal_until_said(Signal::USR2, said);
    }

    /// The requests slowfs served since the last call (`lookup=3 getattr=5`), which resets them.
    pub fn take_stats(&self) -> String {
        let line = self.signal_until_said(Signal::USR1, "slowfs: stats:");
        line.trim_start_matches("slowfs: stats:").trim().to_string()
    }

    /// Sends `signal` and waits for slowfs to print one more line containing `said`: that line.
    fn signal_until_said(&self, signal: Signal, said: &str) -> String {
        let lines = |text: String| -> Vec<String> {
            text.lines()
                .filter(|l| l.contains(said))
                .map(str::to_string)
                .collect()
        };
        let before = lines(self.stderr()).len();
        let child = self.child.as_ref().expect("slowfs is running");
        super::send(child, signal);
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(line) = lines(self.stderr()).get(before) {
                return line.clone();
            }
            assert!(Instant::now() < deadline, "slowfs never said {said}");
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    pub fn is_mounted(&self) -> bool {
        is_mounted(&self.mountpoint)
    }

    /// Sends `signal` to slowfs and waits for it to exit; returns its exit status
    /// and stderr. The guard is spent afterwards (Drop only checks the mount).
    pub fn signal_and_wait(&mut self, signal: Signal) -> (std::process::ExitStatus, String) {
        let mut child = self.child.take().expect("slowfs already reaped");
        super::send(&child, signal);
        let status = wait_timeout(&mut child, EXIT_TIMEOUT).unwrap_or_else(|| {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "slowfs did not exit within {EXIT_TIMEOUT:?} of {signal:?}; stderr:\n{}",
                self.stderr()
            );
        });
        if let Some(h) = self.stderr_reader.take() {
            let _ = h.join();
        }
        (status, self.stderr())
    }

    fn wait_mounted(&mut self) {
        let start = Instant::now();
        loop {
            if is_mounted(&self.mountpoint) {
                return;
            }
            if let Some(child) = self.child.as_mut()
                && let Ok(Some(status)) = child.try_wait()
            {
                if let Some(h) = self.stderr_reader.take() {
                    let _ = h.join();
                }
                panic!(
                    "slowfs exited ({status}) before mounting {}; stderr:\n{}",
                    self.mountpoint.display(),
                    self.stderr()
                );
            }
            if start.elapsed() > MOUNT_TIMEOUT {
                panic!(
                    "slowfs did not mount {} within {MOUNT_TIMEOUT:?}; stderr:\n{}",
                    self.mountpoint.display(),
                    self.stderr()
                );
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for SlowFs {
    fn drop(&mut self) {
        if is_mounted(&self.mountpoint) {
            let ok = fusermount(&["-u"], &self.mountpoint);
            // Busy (a leaked fd or cwd in the mount): detach so the test dir can go.
            if !ok || is_mounted(&self.mountpoint) {
                fusermount(&["-u", "-z"], &self.mountpoint);
            }
        }
        if let Some(mut child) = self.child.take()
            && wait_timeout(&mut child, EXIT_TIMEOUT).is_none()
        {
            let _ = child.kill();
            let _ = child.wait();
        }
        if let Some(h) = self.stderr_reader.take() {
            let _ = h.join();
        }
        if std::thread::panicking() {
            eprintln!(
                "slowfs stderr ({}):\n{}",
                self.mountpoint.display(),
                self.stderr()
            );
        }
    }
}

fn fusermount(args: &[&str], mountpoint: &Path) -> bool {
    Command::new("fusermount3")
        .args(args)
        .arg("--")
        .arg(mountpoint)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn wait_timeout(child: &mut Child, timeout: Duration) -> Option<std::process::ExitStatus> {
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status),
            Ok(None) if start.elapsed() < timeout => std::thread::sleep(Duration::from_millis(10)),
            _ => return None,
        }
    }
}

/// Why FUSE cannot be used here, if it cannot.
pub fn fuse_available() -> Result<(), String> {
    if let Err(e) = OpenOptions::new().read(true).write(true).open("/dev/fuse") {
        return Err(format!("/dev/fuse cannot be opened: {e}"));
    }
    let found = std::env::var_os("PATH").is_some_and(|paths| {
        std::env::split_paths(&paths).any(|d| d.join("fusermount3").is_file())
    });
    if !found {
        return Err("fusermount3 is not on PATH (install fuse3)".into());
    }
    Ok(())
}

/// The slowfs example binary for the profile this test was built with.
///
/// `cargo test` builds examples next to the test binaries (target/<profile>/examples),
/// but `cargo test --test NAME` does not, and a binary older than the example's
/// sources would test stale code, so build it then (once per test process).
pub fn slowfs_binary() -> PathBuf {
    static BUILD: Once = Once::new();
    let exe = std::env::current_exe().expect("current_exe");
    // target/<profile>/deps/<test-binary>
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("test binary lives in target/<profile>/deps")
        .to_path_buf();
    let bin = profile_dir.join("examples").join("slowfs");
    BUILD.call_once(|| {
        if !needs_build(&bin) {
            return;
        }
        let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let mut cmd = Command::new(cargo);
        cmd.current_dir(manifest_dir)
            .args(["build", "--example", "slowfs"]);
        match profile_dir.file_name().and_then(|n| n.to_str()) {
            Some("debug") => {}
            Some("release") => {
                cmd.arg("--release");
            }
            Some(other) => {
                cmd.args(["--profile", other]);
            }
            None => {}
        }
        if let Some(target_dir) = profile_dir.parent() {
            cmd.env("CARGO_TARGET_DIR", target_dir);
        }
        let status = cmd.status().expect("running cargo build --example slowfs");
        assert!(status.success(), "cargo build --example slowfs failed");
    });
    assert!(bin.is_file(), "slowfs binary missing at {}", bin.display());
    bin
}

fn needs_build(bin: &Path) -> bool {
    let Ok(built) = std::fs::metadata(bin).and_then(|m| m.modified()) else {
        return true;
    };
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut sources = vec![manifest_dir.join("examples/slowfs.rs")];
    if let Ok(dir) = std::fs::read_dir(manifest_dir.join("examples/slowfs")) {
        sources.extend(dir.filter_map(Result::ok).map(|e| e.path()));
    }
    sources.iter().any(|src| {
        std::fs::metadata(src)
            .and_then(|m| m.modified())
            .is_ok_and(|t: SystemTime| t > built)
    })
}
