//! What the integration tests need from the machine, in one place: a [`Sandbox`] for every run
//! of the binary (its own HOME, cache, config and state), root, skips, mounts (tmpfs, loop ext4,
//! the slowfs FUSE emulator), fixture `/proc` roots, real git repositories and tree snapshots.
//!
//! ```ignore
//! use crate::support;
//! #[test]
//! #[ignore = "needs root (mounts a loop ext4)"]
//! fn on_ext4() {
//!     let Some(disk) = support::Mount::ext4("128M") else { return }; // SKIP printed
//! }
//! ```
//!
//! A test that needs root or FUSE is marked `#[ignore = "needs ..."]`: a plain `cargo test`
//! lists it as ignored instead of passing it unrun, and `cargo test -- --include-ignored` (as
//! `.ci/run` does) runs it. Asking for root or FUSE from a test that is not so marked fails it
//! (see [`require_root`]), wherever they are available, so CI finds a missing mark.
//!
//! A test that cannot run here (not root, no FUSE, no loop device, a tool missing) calls
//! [`skip`]: it prints "SKIP: reason" to the process's stderr and the test returns. Under
//! `WSL_PLACE_REQUIRE_FUSE=1` (as `.ci/run` sets) a skip is a failure instead, so CI never
//! reports a test that did not run as passed.

#![allow(dead_code)]

pub mod crash;
pub mod fakeproc;
pub mod gitrepo;
pub mod payloads;
pub mod registry;
pub mod run;
pub mod sandbox;
pub mod slowfs;
pub mod tree;

pub use run::{CHECK_JSON, Exit, Outcome, Run};
pub use rustix::process::Signal;
pub use sandbox::Sandbox;
#[allow(unused_imports)] // not every test crate mounts slowfs
pub use slowfs::SlowFs;

use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};
use tempfile::TempDir;

/// `program` on PATH answers `--version` (asked from `/`, never a repository); else a skip,
/// which is a failure in CI.
pub fn have_program(program: &str) -> bool {
    let found = Command::new(program)
        .arg("--version")
        .current_dir("/")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        skip(&format!("{program} is not installed (.ci/run installs it)"));
    }
    found
}

/// The first `program` on PATH, as the shell would run it.
pub fn which(program: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(program))
        .find(|file| {
            std::fs::metadata(file)
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

/// Set to "1" in CI: every test must run, so a skip fails.
pub const REQUIRE_ENV: &str = "WSL_PLACE_REQUIRE_FUSE";

pub fn skips_are_failures() -> bool {
    std::env::var(REQUIRE_ENV).as_deref() == Ok("1")
}

/// Skips the calling test with `reason`, or fails it under `WSL_PLACE_REQUIRE_FUSE=1`.
/// The caller returns right after.
pub fn skip(reason: &str) {
    if skips_are_failures() {
        panic!("required test could not run ({REQUIRE_ENV}=1): {reason}");
    }
    // libtest names each test's thread after the test (except with one test thread).
    let thread = std::thread::current();
    let test = thread.name().filter(|name| *name != "main");
    // Straight to the process's stderr: libtest captures eprintln! of passing tests, and a
    // skip nobody sees looks like a pass.
    let _ = match test {
        Some(test) => writeln!(std::io::stderr(), "SKIP: {test}: {reason}"),
        None => writeln!(std::io::stderr(), "SKIP: {reason}"),
    };
}

/// False (after printing SKIP) when `shell` is not installed and not required.
pub fn have_shell(shell: &str) -> bool {
    // In a sandbox: fish makes its config and history folders below HOME as it starts.
    let found = Sandbox::shared()
        .program(shell)
        .arg("-c")
        .arg("exit 0")
        .status()
        .is_ok_and(|s| s.success());
    if !found {
        skip(&format!("{shell} is not installed"));
    }
    found
}

pub fn is_root() -> bool {
    rustix::process::geteuid().is_root()
}

/// True when root; otherwise skips (see [`skip`]) saying that `what` needs root. The calling
/// test must be marked `#[ignore = "needs root ..."]` (see [`assert_marked_ignored`]).
pub fn require_root(what: &str) -> bool {
    if is_root() {
        assert_marked_ignored(&format!("root ({what})"));
        return true;
    }
    skip(&format!("{what} needs root"));
    false
}

/// Fails the calling test unless it is marked `#[ignore]`: it needs `need`, and a plain
/// `cargo test` on a machine without it must list it as ignored, not pass it unrun. Checked
/// where the need is met (in CI), from the test's name, which libtest gives its thread; with
/// one test thread there is no name and no check.
pub fn assert_marked_ignored(need: &str) {
    let thread = std::thread::current();
    let Some(test) = thread.name().filter(|name| *name != "main") else {
        return;
    };
    assert!(
        ignored_tests().contains(test),
        "{test} needs {need} but is not marked #[ignore = \"needs ...\"]: without the mark, \
         a plain `cargo test` where it is missing passes it without running it"
    );
}

/// The tests of this binary marked `#[ignore]`, from its own `--list --ignored`.
fn ignored_tests() -> &'static BTreeSet<String> {
    static IGNORED: OnceLock<BTreeSet<String>> = OnceLock::new();
    IGNORED.get_or_init(|| {
        let exe = std::env::current_exe().expect("current_exe");
        let out = Command::new(&exe)
            .args(["--list", "--ignored", "--format", "terse"])
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("{} --list: {e}", exe.display()));
        assert!(
            out.status.success(),
            "{} --list: {}",
            exe.display(),
            text(&out)
        );
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|line| line.strip_suffix(": test"))
            .map(str::to_string)
            .collect()
    })
}

/// Whether `path` (canonical) is a mount point, from /proc/self/mountinfo, read with the
/// library's own unescaping so the test and the tool agree on what a mount point is.
pub fn is_mounted(path: &Path) -> bool {
    let Ok(info) = std::fs::read_to_string("/proc/self/mountinfo") else {
        return false;
    };
    info.lines()
        .filter_map(|line| line.split(' ').nth(4))
        .any(|field| Path::new(&wsl_place::facade::host::mounts::unescape(field)) == path)
}

/// Where cargo built the binary, for tests that start it through another program (`script`,
/// `sh -c` with a ulimit, a copy on PATH).
pub fn binary_path() -> PathBuf {
    PathBuf::from(assert_cmd::cargo::cargo_bin!("wsl-place"))
}

/// The built binary in the test binary's shared [`Sandbox`]: a `HOME`, cache, config and state
/// of the tests' own, never the user's, no fixture `/proc` root inherited and no terminal on
/// stdin. A test that reads or writes any of those folders makes its own [`Sandbox`].
pub fn wsl_place() -> Command {
    Sandbox::shared().cmd()
}

/// `$XDG_STATE_HOME` of the runs [`wsl_place`] starts: one for the whole test binary; every
/// migration in it has its own destination, so they never meet.
pub fn state_home() -> PathBuf {
    Sandbox::shared().state()
}

/// The manifest of the finished migration to `destination`, wherever it is kept: under
/// `state` (an `XDG_STATE_HOME`), found by its `# destination` line.
pub fn manifest_in(state: &Path, destination: &Path) -> Option<PathBuf> {
    let wanted = format!(
        "# destination\t{}",
        wsl_place::facade::base::pathtext::escape_path(destination)
    );
    std::fs::read_dir(state.join("wsl-place/manifests"))
        .ok()?
        .flatten()
        .map(|e| e.path())
        .find(|path| {
            std::fs::read_to_string(path)
                .is_ok_and(|text| text.lines().take(4).any(|line| line == wanted))
        })
}

/// The manifest of the finished migration to `destination`, run by [`wsl_place`].
pub fn manifest_of(destination: &Path) -> PathBuf {
    Sandbox::shared().manifest_of(destination)
}

/// `wsl-place migrate SOURCE --to DEST` in the shared sandbox, for the caller to add flags to.
pub fn migrate_command(source: &Path, dest: &Path) -> Command {
    Sandbox::shared().migrate(source, dest)
}

/// Exit status, stdout and stderr of a run, for an assertion's message.
pub fn text(out: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The JSON a run printed, whatever its exit status; output that is not JSON fails the test
/// with the whole run (see [`text`]).
pub fn json_of(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(out)))
}

pub fn is_one_sentence(message: &str) -> bool {
    !message.contains('\n') && (message.ends_with('.') || message.ends_with('?'))
}

/// SIGKILL, then reap, so a killed run leaves no zombie behind.
pub fn kill(child: &mut Child) {
    child.kill().expect("SIGKILL the child");
    child.wait().expect("reap the killed child");
}

/// Whether process `pid` holds a `flock` on `path`, from /proc/locks: a point a run reaches
/// that the test can see without timing it (a migration locks its staging folder before it
/// reads anything in it, and holds the lock to its end).
pub fn holds_flock(pid: u32, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    let Ok(inode) = std::fs::metadata(path).map(|m| m.ino()) else {
        return false;
    };
    let locks = std::fs::read_to_string("/proc/locks").expect("/proc/locks");
    // "1: FLOCK  ADVISORY  WRITE 4242 00:2f:1311 0 EOF": the pid, then maj:min:inode.
    locks.lines().any(|line| {
        let fields: Vec<&str> = line.split_whitespace().collect();
        fields.get(1) == Some(&"FLOCK")
            && fields.get(4) == Some(&pid.to_string().as_str())
            && fields
                .get(5)
                .and_then(|id| id.rsplit(':').next())
                .is_some_and(|ino| ino == inode.to_string())
    })
}

/// Whether process `pid` has a folder strictly below `top` open (it is listing it), from
/// /proc/PID/fd: a walk of `top` under way, seen without timing it.
pub fn lists_below(pid: u32, top: &Path) -> bool {
    open_below(pid, top).iter().any(|open| open.is_dir())
}

/// Whether process `pid` has a folder strictly below `top` open that is not in `top`'s git
/// directory: a walk of the work tree, not git's own reads of `.git/` before it.
pub fn lists_work_tree_below(pid: u32, top: &Path) -> bool {
    open_below(pid, top)
        .iter()
        .any(|open| open.is_dir() && !open.starts_with(top.join(".git")))
}

/// Whether process `pid` has a file or folder strictly below `top` open, from /proc/PID/fd.
pub fn reads_below(pid: u32, top: &Path) -> bool {
    !open_below(pid, top).is_empty()
}

fn open_below(pid: u32, top: &Path) -> Vec<PathBuf> {
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return Vec::new();
    };
    fds.flatten()
        .filter_map(|fd| std::fs::read_link(fd.path()).ok())
        .filter(|open| open.starts_with(top) && open != top)
        .collect()
}

/// Sends `signal` to `child`, which must not be reaped yet (its pid cannot be reused before).
pub fn send(child: &Child, signal: Signal) {
    rustix::process::kill_process(rustix::process::Pid::from_child(child), signal)
        .unwrap_or_else(|e| panic!("sending {signal:?} to {}: {e}", child.id()));
}

/// Waits up to `within` for `started` to hold (the run reached `waiting_for`, where the test
/// interrupts it), fails the test if it never does, lets the run go on for `settle`, then sends
/// `signal` and waits for the run to end: its output, and how long it took to end after the
/// signal.
pub fn signal_once(
    child: Child,
    signal: Signal,
    waiting_for: &str,
    started: impl Fn() -> bool,
    within: Duration,
    settle: Duration,
) -> (Outcome, Duration) {
    let deadline = Instant::now() + within;
    while !started() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(started(), "{waiting_for} never happened within {within:?}");
    std::thread::sleep(settle);
    let signalled = Instant::now();
    send(&child, signal);
    let output = child
        .wait_with_output()
        .expect("wait for the signalled run");
    let what = format!("the run sent {signal:?} after {waiting_for}");
    (Outcome::named(what, output), signalled.elapsed())
}

/// Runs `cmd` to the end, or kills it after `limit` and fails the test: for runs where a hang
/// is the bug being tested. Its output is read while it runs, so a run that prints more than
/// a pipe holds (64 KiB) is not taken for a hang.
pub fn bounded(mut cmd: Command, limit: Duration) -> Outcome {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{cmd:?} did not start: {e}"));
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("poll the run") {
            break status;
        }
        if start.elapsed() > limit {
            kill(&mut child);
            panic!("{cmd:?} did not finish within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let output = Output {
        status,
        stdout: stdout.join().expect("the stdout reader"),
        stderr: stderr.join().expect("the stderr reader"),
    };
    Outcome::of(&cmd, output)
}

/// Everything `pipe` gives until it closes, read on a thread of its own.
fn drain(pipe: Option<impl Read + Send + 'static>) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut all = Vec::new();
        if let Some(mut pipe) = pipe {
            let _ = pipe.read_to_end(&mut all);
        }
        all
    })
}

/// Writes an executable script, as a stand-in for a program found on PATH (`git`, `net.exe`).
pub fn write_executable(path: &Path, script: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, script).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// The advice ids of a `check` report, in order.
pub fn advice_ids(report: &serde_json::Value) -> Vec<String> {
    report["verdict"]["advice"]
        .as_array()
        .expect("verdict.advice is a list")
        .iter()
        .map(|a| a["id"].as_str().expect("advice id is a string").to_string())
        .collect()
}

/// A tmpfs or loop-mounted ext4 made for one test, unmounted when dropped.
pub struct Mount {
    point: PathBuf,
    // Removed after the unmount in Drop: holds the mount point and the ext4 image.
    owner: Option<TempDir>,
}

impl Mount {
    /// A tmpfs of `size` (mount's syntax: "1m", "256m") at a fresh temporary directory.
    /// None after a skip when not root or the mount is refused.
    pub fn tmpfs(size: &str) -> Option<Mount> {
        let dir = Self::fresh_dir("tmpfs")?;
        let point = dir.path().join("mnt");
        Self::owned(mount_tmpfs(&point, size), point, dir)
    }

    /// The mount at `point`, removed with `dir` after its unmount; None after a skip that
    /// names why it could not be made.
    fn owned(made: Result<(), String>, point: PathBuf, dir: TempDir) -> Option<Mount> {
        match made {
            Ok(()) => Some(Mount {
                point,
                owner: Some(dir),
            }),
            Err(reason) => {
                skip(&reason);
                None
            }
        }
    }

    /// A tmpfs of `size` at `point` (created if missing), or why it could not be mounted.
    pub fn try_tmpfs_at(point: &Path, size: &str) -> Result<Mount, String> {
        mount_tmpfs(point, size)?;
        Ok(Mount {
            point: point.to_path_buf(),
            owner: None,
        })
    }

    /// An ext4 file system of `size` (truncate's syntax: "128M") on a loop device. None after
    /// a skip when not root, or mkfs.ext4 or a loop device is missing.
    pub fn ext4(size: &str) -> Option<Mount> {
        let dir = Self::fresh_dir("loop ext4")?;
        let image = dir.path().join("fs.img");
        let point = dir.path().join("mnt");
        let made = std::fs::create_dir(&point)
            .map_err(|e| format!("mkdir {}: {e}", point.display()))
            .and_then(|()| run(Command::new("truncate").args(["-s", size]).arg(&image)))
            .and_then(|()| run(Command::new("mkfs.ext4").args(["-q", "-F"]).arg(&image)))
            .and_then(|()| {
                run(Command::new("mount")
                    .args(["-o", "loop"])
                    .arg(&image)
                    .arg(&point))
            });
        Self::owned(made, point, dir)
    }

    pub fn point(&self) -> &Path {
        &self.point
    }

    /// Makes the mount read-only in place; a failure fails the test.
    pub fn remount_read_only(&self) {
        run(Command::new("mount")
            .args(["-o", "remount,ro"])
            .arg(&self.point))
        .unwrap_or_else(|e| panic!("{e}"));
    }

    fn fresh_dir(what: &str) -> Option<TempDir> {
        if !require_root(&format!("mounting {what}")) {
            return None;
        }
        Some(tempfile::tempdir().expect("tempdir"))
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        let unmounted = Command::new("umount")
            .arg(&self.point)
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        // Busy (a leaked fd or cwd inside): detach, so the temporary directory can go.
        if !unmounted {
            let _ = Command::new("umount").arg("-l").arg(&self.point).status();
        }
    }
}

fn mount_tmpfs(point: &Path, size: &str) -> Result<(), String> {
    std::fs::create_dir_all(point).map_err(|e| format!("mkdir {}: {e}", point.display()))?;
    run(Command::new("mount")
        .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
        .arg(point))
}

/// Runs `cmd`; a failure is one line naming the command and what it printed.
fn run(cmd: &mut Command) -> Result<(), String> {
    let out = cmd
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("{cmd:?} did not start: {e}"))?;
    if out.status.success() {
        return Ok(());
    }
    Err(format!(
        "{cmd:?} failed ({}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr).trim()
    ))
}
