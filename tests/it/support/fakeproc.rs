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
        fs::create_dir_all(dir.path().join("self")).unwrap();
        fs::create_dir_all(dir.path().join("sys/fs/binfmt_misc")).unwrap();
        fs::write(dir.path().join("version"), version).unwrap();
        fs::write(dir.path().join("self/mountinfo"), mountinfo).unwrap();
        if wsl_interop {
            fs::write(
                dir.path().join("sys/fs/binfmt_misc/WSLInterop"),
                "enabled\ninterpreter /init\n",
            )
            .unwrap();
        }
        Self { dir }
    }

    /// The host facts the library reads from this fixture, for tests that call it directly.
    pub fn host_env(&self) -> wsl_place::host::HostEnv {
        let root = self.dir.path().display().to_string();
        let vars = [("WSL_PLACE_PROC_ROOT".to_string(), root)];
        wsl_place::host::HostEnv::from_vars(vars.into_iter().collect())
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
