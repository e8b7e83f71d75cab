//! The global config file Windows' git reads, chosen as git.exe chooses it: the file
//! `GIT_CONFIG_GLOBAL` names, else `.gitconfig` in `HOME`; with `HOME` unset Git for Windows
//! sets it to `%HOMEDRIVE%%HOMEPATH%` where that folder exists, else to `%USERPROFILE%`
//! (git-for-windows/git `compat/mingw.c`, `setup_windows_environment`). A home on a share WSL
//! cannot reach (`\\server\share`, a drive letter WSL has not mounted) is named, and left to
//! git.exe itself: nothing here writes to a file that may not be the one it reads.

use crate::host::HostEnv;
use crate::host::location::MountTable;
use crate::host::windows::linux_path;
use crate::host::windows_env::WindowsEnv;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// Windows' global git config, as each side names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GlobalConfig {
    /// As Windows names it (`C:\Users\me\.gitconfig`); None when Windows was not asked.
    pub windows: Option<String>,
    /// As WSL reaches it; None when WSL cannot reach it.
    #[serde(skip)]
    pub linux: Option<PathBuf>,
    /// The same, as JSON shows paths.
    #[serde(rename = "path")]
    pub linux_shown: Option<String>,
    /// What chose it: `GIT_CONFIG_GLOBAL`, `HOME`, `HOMEDRIVE+HOMEPATH`, `USERPROFILE`, or
    /// `profile` (the profile folder, found without Windows' answer).
    pub chosen_by: &'static str,
}

impl GlobalConfig {
    fn new(windows: Option<String>, linux: Option<PathBuf>, chosen_by: &'static str) -> Self {
        Self {
            windows,
            linux_shown: linux.as_deref().map(crate::base::pathtext::escape_path),
            linux,
            chosen_by,
        }
    }

    /// How a sentence names it: the Linux path where WSL reaches it, else Windows' name.
    pub fn shown(&self) -> String {
        match (&self.linux, &self.windows) {
            (Some(path), _) => crate::base::pathtext::display(path),
            (None, Some(windows)) => windows.clone(),
            (None, None) => "Windows' global git config".to_string(),
        }
    }
}

/// Where WSL finds a Windows path.
enum Reach {
    At(PathBuf),
    Unreachable,
}

/// The global config git.exe reads, for Windows' answer `asked` and the profile folder found.
pub fn global_config(
    env: &HostEnv,
    table: &MountTable,
    asked: &WindowsEnv,
    profile: &Path,
) -> GlobalConfig {
    let reached = |windows: String, chosen_by| match reach(env, table, &windows) {
        Reach::At(path) => GlobalConfig::new(Some(windows), Some(path), chosen_by),
        Reach::Unreachable => GlobalConfig::new(Some(windows), None, chosen_by),
    };
    if let Some(file) = asked.var("GIT_CONFIG_GLOBAL") {
        return reached(file.to_string(), "GIT_CONFIG_GLOBAL");
    }
    if let Some(home) = asked.var("HOME") {
        return reached(in_folder(home), "HOME");
    }
    if let (Some(drive), Some(path)) = (asked.var("HOMEDRIVE"), asked.var("HOMEPATH")) {
        let folder = format!("{drive}{path}");
        match reach(env, table, &folder) {
            // git.exe takes it where it is a folder for Windows, which WSL cannot see.
            Reach::Unreachable => {
                return GlobalConfig::new(Some(in_folder(&folder)), None, "HOMEDRIVE+HOMEPATH");
            }
            Reach::At(found) if found.is_dir() => {
                return GlobalConfig::new(
                    Some(in_folder(&folder)),
                    Some(found.join(".gitconfig")),
                    "HOMEDRIVE+HOMEPATH",
                );
            }
            Reach::At(_) => {}
        }
    }
    if let Some(profile) = asked.var("USERPROFILE") {
        return reached(in_folder(profile), "USERPROFILE");
    }
    GlobalConfig::new(None, Some(profile.join(".gitconfig")), "profile")
}

/// `.gitconfig` in the Windows folder `folder`.
fn in_folder(folder: &str) -> String {
    format!("{}\\.gitconfig", folder.trim_end_matches(['\\', '/']))
}

/// A Windows path as WSL reaches it: on a drive WSL has mounted (a share, or a letter with no
/// drive mount, is out of its reach).
fn reach(env: &HostEnv, table: &MountTable, windows: &str) -> Reach {
    let bytes = windows.as_bytes();
    let letter = match bytes {
        [l, b':', b'\\' | b'/', ..] | [l, b':'] if l.is_ascii_alphabetic() => {
            char::from(l.to_ascii_uppercase())
        }
        _ => return Reach::Unreachable,
    };
    let root = format!("{letter}:\\");
    let mounted = table
        .entries
        .iter()
        .any(|entry| entry.root == "/" && entry.windows_root().as_deref() == Some(root.as_str()));
    match linux_path(env, windows) {
        Some(path) if mounted => Reach::At(path),
        _ => Reach::Unreachable,
    }
}
