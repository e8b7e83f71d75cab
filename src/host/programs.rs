//! The programs the tool starts by name (git, the package managers), found as a shell finds
//! them, and told apart when the file found is Windows'.
//!
//! WSL appends Windows' `PATH` to the distribution's by default (`appendWindowsPath`), so a
//! person with Node.js on Windows only has Node.js's `npm` (a shell script it ships for Git
//! Bash) at `/mnt/c/Program Files/nodejs/npm`, and npm's shims for `pnpm` and `yarn` under
//! `AppData/Roaming/npm`. Started from here they run through interop, on Windows, against
//! Windows' cache: timing one as the Linux manager would price the wrong machine, so a program
//! whose file lies on a Windows drive (any drvfs mount: 9p, virtiofs, WSL 1) is never started.

use crate::host::HostEnv;
use crate::host::location::MountTable;
use crate::host::mounts::{self, MountEntry};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// A program found on `PATH` whose file lies on a Windows drive.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WindowsProgram {
    /// Where `PATH` finds it (`/mnt/c/Program Files/nodejs/npm`).
    pub path: PathBuf,
    /// The same file as Windows names it (`C:\Program Files\nodejs\npm`), when the drive's
    /// letter or share is known.
    pub windows: Option<String>,
}

/// What running `name` from here would start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OnPath {
    /// A Linux program: the first executable `name` on `PATH`.
    Linux(PathBuf),
    /// The first executable `name` on `PATH` is Windows'.
    Windows(WindowsProgram),
    Missing,
}

/// The program a shell would start for `name`.
pub fn find(env: &HostEnv, name: &str) -> OnPath {
    let Some(path) = env.executables_on_path(name).next() else {
        return OnPath::Missing;
    };
    match windows_side(&mount_table(env), &path) {
        Some(windows) => OnPath::Windows(windows),
        None => OnPath::Linux(path),
    }
}

/// The first executable `name` on `PATH` that is not Windows': for git, which the tool needs
/// for its own work, so a Linux git later on `PATH` serves where a Windows one comes first.
pub fn first_linux(env: &HostEnv, name: &str) -> Option<PathBuf> {
    let table = mount_table(env);
    env.executables_on_path(name)
        .find(|path| windows_side(&table, path).is_none())
}

/// The host's mounts (none where the mount table cannot be read: then nothing is taken for
/// Windows', as without WSL).
fn mount_table(env: &HostEnv) -> Vec<MountEntry> {
    MountTable::read(env)
        .map(|table| table.entries)
        .unwrap_or_default()
}

/// `path` as a Windows program, when the file it leads to (links followed: a link in
/// `/usr/local/bin` to a Windows drive is still Windows' program) lies on a drvfs mount.
fn windows_side(mounts: &[MountEntry], path: &Path) -> Option<WindowsProgram> {
    if !mounts.iter().any(MountEntry::is_drvfs) {
        return None;
    }
    let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let mount = mounts::mount_for(mounts, &real).filter(|m| m.is_drvfs())?;
    Some(WindowsProgram {
        path: path.to_path_buf(),
        windows: mounts::windows_path_on_drive(mount, &real),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_program_on_a_drive_mount_is_windows_and_named_as_windows_names_it() {
        let table = "61 66 8:48 / / rw,relatime - ext4 /dev/sdd rw\n\
                     66 61 0:63 / /mnt/c rw,noatime - 9p C:\\134 rw,aname=drvfs;path=C:\\134;uid=1000\n";
        let drives = mounts::parse(table).unwrap();
        let npm = Path::new("/mnt/c/Program Files/nodejs/npm");
        assert_eq!(
            windows_side(&drives, npm),
            Some(WindowsProgram {
                path: npm.to_path_buf(),
                windows: Some(r"C:\Program Files\nodejs\npm".into()),
            })
        );
        assert_eq!(windows_side(&drives, Path::new("/usr/bin/npm")), None);
        assert_eq!(windows_side(&drives[..1], npm), None);
    }
}
