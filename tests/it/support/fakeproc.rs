//! Fixture `/proc` roots for the binary (`WSL_PLACE_PROC_ROOT`), shared by integration tests.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use tempfile::TempDir;

pub const WSL2_VERSION: &str = include_str!("../../fixtures/mountinfo/wsl2.proc-version");
pub const PLAIN_VERSION: &str = "Linux version 6.1.0-18-amd64 (debian-kernel@lists.debian.org)\n";

/// The kernel's escaping of a mount point in mountinfo.
pub fn escape(path: &Path) -> String {
    let mut out = String::new();
    for c in path.to_str().expect("test paths are UTF-8").chars() {
        match c {
            ' ' => out.push_str("\\040"),
            '\t' => out.push_str("\\011"),
            '\n' => out.push_str("\\012"),
            '\\' => out.push_str("\\134"),
            c => out.push(c),
        }
    }
    out
}

pub struct FakeProc {
    pub dir: TempDir,
}

impl FakeProc {
    pub fn new(version: &str, mountinfo: &str, wsl_interop: bool) -> Self {
        let dir = tempfile::tempdir().unwrap();
        write_proc(dir.path(), version, mountinfo, wsl_interop);
        Self { dir }
    }

    /// The host facts the library reads from this fixture, for tests that call it directly.
    pub fn host_env(&self) -> wsl_place::facade::host::HostEnv {
        let root = self.dir.path().display().to_string();
        let vars = [("WSL_PLACE_PROC_ROOT".to_string(), root)];
        wsl_place::facade::host::HostEnv::from_vars(vars.into_iter().collect())
    }

    /// The fixture's mount table, for tests that rewrite it between runs.
    pub fn mountinfo(&self) -> PathBuf {
        self.dir.path().join("self/mountinfo")
    }

    /// Each fixture host has its own cache, so advisory results never leak between tests.
    pub fn cache_dir(&self) -> PathBuf {
        self.dir.path().join("cache")
    }

    pub fn command(&self, distro: Option<&str>) -> Command {
        let mut cmd = super::wsl_place();
        cmd.env("WSL_PLACE_PROC_ROOT", self.dir.path())
            .env_remove("WSL_DISTRO_NAME")
            .env_remove("WSL_INTEROP")
            .env("NO_COLOR", "1")
            .env("XDG_CACHE_HOME", self.cache_dir());
        if let Some(distro) = distro {
            cmd.env("WSL_DISTRO_NAME", distro)
                .env("WSL_INTEROP", "/run/WSL/1_interop");
        }
        cmd
    }
}

/// A fixture `/proc` root at `dir`: the kernel string, the mount table and, when `wsl_interop`,
/// WSL's binfmt entry.
fn write_proc(dir: &Path, version: &str, mountinfo: &str, wsl_interop: bool) {
    fs::create_dir_all(dir.join("self")).unwrap();
    fs::create_dir_all(dir.join("sys/fs/binfmt_misc")).unwrap();
    fs::write(dir.join("version"), version).unwrap();
    fs::write(dir.join("self/mountinfo"), mountinfo).unwrap();
    if wsl_interop {
        fs::write(
            dir.join("sys/fs/binfmt_misc/WSLInterop"),
            "enabled\ninterpreter /init\n",
        )
        .unwrap();
    }
}

/// A temporary "drive" whose mount point contains a space, so the escape path is exercised.
pub fn drive_tree() -> (TempDir, PathBuf, PathBuf) {
    let base = tempfile::tempdir().unwrap();
    let drive = base.path().join("mnt c");
    let project = drive.join("Users/me/app");
    fs::create_dir_all(&project).unwrap();
    let drive = fs::canonicalize(drive).unwrap();
    let project = fs::canonicalize(project).unwrap();
    (base, drive, project)
}

pub fn wsl_9p_mountinfo(drive: &Path) -> String {
    format!(
        "61 66 8:48 / / rw,relatime - ext4 /dev/sdd rw,discard,errors=remount-ro,data=ordered\n\
         63 61 0:72 / /usr/lib/wsl/drivers ro,nosuid,nodev,noatime - 9p none ro,dirsync,aname=drivers;fmask=222;dmask=222,mmap,access=client,msize=65536,trans=fd,rfd=7,wfd=7\n\
         66 61 0:63 / {} rw,noatime - 9p C:\\134 rw,aname=drvfs;path=C:\\134;uid=1000;gid=1000;symlinkroot=/mnt/,cache=0x5,access=client,msize=65536,trans=fd,rfd=6,wfd=6\n",
        escape(drive)
    )
}

/// A fixture WSL host laid out as a real one: `DIR/proc` (the `/proc` root the binary is
/// pointed at) with `DIR/run/wsl/virtiofs/<tag>` beside it, WSL's links from each virtiofs tag
/// to its Windows folder, made from a `.tags` file of tests/fixtures/mountinfo/. Each mount
/// point asked for is replaced by a real folder (with a space in its name) standing in for it.
pub struct FixtureHost {
    pub dir: TempDir,
    points: Vec<(String, PathBuf)>,
}

impl FixtureHost {
    /// The fixture `NAME.mountinfo` with `points` stood in for, and the links of the fixture
    /// `TAGS.tags` when given. WSL's binfmt entry is registered.
    pub fn new(name: &str, tags: Option<&str>, points: &[&str]) -> Self {
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mountinfo");
        let dir = tempfile::tempdir().unwrap();
        let base = fs::canonicalize(dir.path()).unwrap();
        let mut mountinfo = fs::read_to_string(fixtures.join(format!("{name}.mountinfo"))).unwrap();
        let mut stood_in = Vec::new();
        for point in points {
            let folder = base.join(format!("drive {}", point.rsplit('/').next().unwrap()));
            fs::create_dir_all(&folder).unwrap();
            let replaced =
                mountinfo.replace(&format!(" {point} "), &format!(" {} ", escape(&folder)));
            assert_ne!(replaced, mountinfo, "{point} is in {name}.mountinfo");
            mountinfo = replaced;
            stood_in.push((point.to_string(), folder));
        }
        write_proc(&base.join("proc"), WSL2_VERSION, &mountinfo, true);
        if let Some(tags) = tags {
            let links = base.join("run/wsl/virtiofs");
            fs::create_dir_all(&links).unwrap();
            let text = fs::read_to_string(fixtures.join(format!("{tags}.tags"))).unwrap();
            for (tag, target) in text.lines().filter_map(|l| l.split_once(" -> ")) {
                std::os::unix::fs::symlink(target, links.join(tag)).unwrap();
            }
        }
        Self {
            dir,
            points: stood_in,
        }
    }

    /// The folder standing in for the fixture's mount point `point`.
    pub fn point(&self, point: &str) -> &Path {
        let found = self.points.iter().find(|(p, _)| p == point);
        &found
            .unwrap_or_else(|| panic!("{point} was not stood in for"))
            .1
    }

    /// The `/proc` root to point the binary at (`WSL_PLACE_PROC_ROOT`).
    pub fn proc_root(&self) -> PathBuf {
        self.dir.path().join("proc")
    }

    /// The binary on this host: WSL 2 with distro `distro` and interop (`WSL_INTEROP`) when
    /// given, neither otherwise.
    pub fn command(&self, distro: Option<&str>) -> Command {
        let mut cmd = super::wsl_place();
        self.apply(&mut cmd, distro);
        cmd
    }

    /// Puts `cmd` (the binary, or a script that runs it) on this host, as [`FixtureHost::command`].
    pub fn apply<'c>(&self, cmd: &'c mut Command, distro: Option<&str>) -> &'c mut Command {
        cmd.env("WSL_PLACE_PROC_ROOT", self.proc_root())
            .env_remove("WSL_DISTRO_NAME")
            .env_remove("WSL_INTEROP")
            .env("NO_COLOR", "1")
            .env("COLUMNS", "1000")
            .env("XDG_CACHE_HOME", self.dir.path().join("cache"));
        if let Some(distro) = distro {
            cmd.env("WSL_DISTRO_NAME", distro)
                .env("WSL_INTEROP", "/run/WSL/1_interop");
        }
        cmd
    }
}

/// A `/proc` root that is this machine's (its mount table, kernel, boot and name, so that the
/// cache's key is the same run to run) but for its load average, which reads `load` per core.
pub fn proc_with_load(load_per_core: f64) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for file in [
        "self/mountinfo",
        "version",
        "sys/kernel/random/boot_id",
        "sys/kernel/hostname",
    ] {
        let to = dir.path().join(file);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        let text = std::fs::read_to_string(Path::new("/proc").join(file)).unwrap_or_default();
        std::fs::write(to, text).unwrap();
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as f64;
    let one_minute = load_per_core * cores;
    std::fs::write(
        dir.path().join("loadavg"),
        format!("{one_minute:.2} {one_minute:.2} {one_minute:.2} 9/999 12345\n"),
    )
    .unwrap();
    dir
}
