//! The Windows side of a WSL host, as seen from Linux: the user's Windows profile folder
//! (`C:\Users\<name>` at `/mnt/c/Users/<name>`) and the global git config Windows' git reads
//! (`windows_git`).
//!
//! The profile is asked in this order: `WSL_PLACE_WINDOWS_PROFILE` (a fixture profile folder for
//! tests), Windows itself through interop (`USERPROFILE` from `windows_env`, turned into a Linux
//! path by `wslpath -u`), then the one profile folder under the `C:` drive mount's `Users`.
//! Nothing here is asked off WSL: the callers look only when the host is WSL.

use crate::host::HostEnv;
use crate::host::location::MountTable;
use crate::host::windows_env::WindowsEnv;
use std::path::{Path, PathBuf};

/// Where the Windows profile was found, and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Profile {
    /// The profile folder, as a Linux path.
    pub path: PathBuf,
    /// `interop`, `users folder` or `WSL_PLACE_WINDOWS_PROFILE`.
    pub found_by: &'static str,
}

/// Folders under `Users` that belong to no person.
const NOT_A_PERSON: &[&str] = &[
    "public",
    "default",
    "default user",
    "all users",
    "defaultuser0",
    "wdagutilityaccount",
];

/// Windows' environment, asked once (`windows_env`): a reading of its answer is judged by
/// whether the folders it names exist as WSL sees them.
pub fn ask(env: &HostEnv, table: &MountTable) -> WindowsEnv {
    crate::host::windows_env::ask(env, &c_drive(env, table), |windows| {
        linux_path(env, windows).is_some_and(|path| path.exists())
    })
}

/// Why the Windows profile folder cannot be told: what interop said, and what the users folder
/// holds. `report/text/windows.rs` words it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ProfileUnknown {
    pub interop: InteropSaid,
    #[serde(with = "crate::base::pathtext::json")]
    pub users: PathBuf,
    /// The profile folders there, none of them chosen.
    pub candidates: Vec<String>,
    pub linux_user: Option<String>,
}

impl crate::base::reason::Keyed for ProfileUnknown {
    const KEY: &'static str = "note";
    const KIND_KEY: &'static str = "note_kind";
}

/// What Windows' interop gave for the profile.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum InteropSaid {
    /// `WSL_INTEROP` is not set.
    Off,
    /// Windows did not answer; `problem` is how the call failed.
    NoAnswer { problem: String },
    /// It answered with no `USERPROFILE` WSL can see.
    NoProfileNamed,
}

/// The Windows profile folder, or why it cannot be told.
pub fn profile(
    env: &HostEnv,
    table: &MountTable,
    asked: &WindowsEnv,
) -> Result<Profile, ProfileUnknown> {
    if let Some(fixture) = env.var("WSL_PLACE_WINDOWS_PROFILE") {
        return Ok(Profile {
            path: PathBuf::from(fixture),
            found_by: "WSL_PLACE_WINDOWS_PROFILE",
        });
    }
    if let Some(path) = asked
        .var("USERPROFILE")
        .and_then(|windows| linux_path(env, windows))
        .filter(|path| path.is_dir())
    {
        return Ok(Profile {
            path,
            found_by: "interop",
        });
    }
    let interop = match &asked.interop {
        None => InteropSaid::Off,
        Some(answer) => match &answer.problem {
            Some(problem) => InteropSaid::NoAnswer {
                problem: problem.clone(),
            },
            None => InteropSaid::NoProfileNamed,
        },
    };
    let users = c_drive(env, table).join("Users");
    let candidates = people_in(&users);
    let user = linux_user(env);
    let chosen = match candidates.as_slice() {
        [one] => Some(one.clone()),
        _ => candidates
            .iter()
            .find(|name| {
                user.as_deref()
                    .is_some_and(|u| name.eq_ignore_ascii_case(u))
            })
            .cloned(),
    };
    match chosen {
        Some(name) => Ok(Profile {
            path: users.join(name),
            found_by: "users folder",
        }),
        None => Err(ProfileUnknown {
            interop,
            users,
            candidates,
            linux_user: user,
        }),
    }
}

/// A Windows path (`C:\Users\me`) as WSL sees it, by `wslpath -u` (no interop needed).
pub fn linux_path(env: &HostEnv, windows: &str) -> Option<PathBuf> {
    let out = env.ask_wsl("wslpath", &["-u", windows])?;
    let path = PathBuf::from(out.lines().next().unwrap_or_default().trim());
    path.is_absolute().then_some(path)
}

/// The mount point of `C:`: a drvfs mount whose Windows root is `C:\`, else `<automount root>c`.
pub fn c_drive(env: &HostEnv, table: &MountTable) -> PathBuf {
    table
        .entries
        .iter()
        // Not filtered on a root of `/`: the aggregate virtiofs form mounts each drive from
        // `/<GUID>`, and a bind of a sub-folder already has a longer Windows root.
        .find(|entry| entry.windows_root().as_deref() == Some("C:\\"))
        .map(|entry| entry.mount_point.clone())
        .unwrap_or_else(|| env.automount_root().join("c"))
}

/// The people's folders below `users`, sorted: folders only (no links: `All Users` is a
/// junction), without Windows' own.
fn people_in(users: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(users) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| !NOT_A_PERSON.contains(&name.to_ascii_lowercase().as_str()))
        .collect();
    names.sort();
    names
}

fn linux_user(env: &HostEnv) -> Option<String> {
    env.var("USER").map(str::to_string).or_else(|| {
        env.home()
            .and_then(|h| h.file_name().map(|n| n.to_string_lossy().into_owned()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn people_are_the_folders_under_users_without_windows_own() {
        let dir = tempfile::tempdir().unwrap();
        for name in [
            "Public",
            "Default",
            "All Users",
            "me",
            "Default User",
            "ann",
        ] {
            std::fs::create_dir(dir.path().join(name)).unwrap();
        }
        std::fs::write(dir.path().join("desktop.ini"), "").unwrap();
        assert_eq!(people_in(dir.path()), vec!["ann", "me"]);
    }
}
