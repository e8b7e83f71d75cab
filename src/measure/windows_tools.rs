//! The Windows git clients and editors installed for the user, told from the folders they
//! install into or keep their settings in: the profile's `AppData` and the drive's
//! `Program Files`. Only where the host is WSL and the profile was found (`host::windows`).

use crate::host::HostEnv;
use crate::host::location::MountTable;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// A Windows tool, by a stable identifier (kebab-case in JSON).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ToolId {
    GitForWindows,
    GithubDesktop,
    GitExtensions,
    Fork,
    Sourcetree,
    Gitkraken,
    Tortoisegit,
    VsCode,
    Jetbrains,
    VisualStudio,
}

impl ToolId {
    /// Runs a git that reads Windows' global git config, so refuses a copy on
    /// `\\wsl.localhost` without its `safe.directory` entries there: Git for Windows, and the
    /// clients that bundle it (GitHub Desktop, Fork, SourceTree) or call it and libgit2
    /// (TortoiseGit; libgit2 reads `%(prefix)/` entries since 1.6.1). GitKraken embeds its own;
    /// Git Extensions runs WSL's git for `\\wsl$` paths (gitextensions#13112, 2026-06), and
    /// needs Git for Windows installed, which is then listed for its entries.
    pub fn reads_windows_git_config(self) -> bool {
        matches!(
            self,
            ToolId::GitForWindows
                | ToolId::GithubDesktop
                | ToolId::Fork
                | ToolId::Sourcetree
                | ToolId::Tortoisegit
        )
    }

    pub fn name(self) -> &'static str {
        match self {
            ToolId::GitForWindows => "Git for Windows",
            ToolId::GithubDesktop => "GitHub Desktop",
            ToolId::GitExtensions => "Git Extensions",
            ToolId::Fork => "Fork",
            ToolId::Sourcetree => "SourceTree",
            ToolId::Gitkraken => "GitKraken",
            ToolId::Tortoisegit => "TortoiseGit",
            ToolId::VsCode => "VS Code",
            ToolId::Jetbrains => "JetBrains IDEs",
            ToolId::VisualStudio => "Visual Studio",
        }
    }
}

/// The tools' names, for a sentence: `Fork, GitHub Desktop`.
pub fn names(ids: &[ToolId]) -> String {
    ids.iter()
        .map(|id| id.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Where each tool installs or keeps its settings: below the profile (`~`) or below a Program
/// Files folder (`%`, both `Program Files` and `Program Files (x86)`). The first that exists
/// is the one shown.
const SIGNS: &[(ToolId, &[&str])] = &[
    (
        ToolId::GitForWindows,
        &[
            "%/Git/cmd/git.exe",
            "~/AppData/Local/Programs/Git/cmd/git.exe",
        ],
    ),
    (ToolId::GithubDesktop, &["~/AppData/Local/GitHubDesktop"]),
    (
        ToolId::GitExtensions,
        &["%/GitExtensions", "~/AppData/Roaming/GitExtensions"],
    ),
    (ToolId::Fork, &["~/AppData/Local/Fork"]),
    (
        ToolId::Sourcetree,
        &[
            "~/AppData/Local/SourceTree",
            "~/AppData/Local/Atlassian/SourceTree",
        ],
    ),
    (ToolId::Gitkraken, &["~/AppData/Local/gitkraken"]),
    (ToolId::Tortoisegit, &["%/TortoiseGit"]),
    (
        ToolId::VsCode,
        &[
            "~/AppData/Local/Programs/Microsoft VS Code",
            "%/Microsoft VS Code",
        ],
    ),
    (
        ToolId::Jetbrains,
        &["~/AppData/Local/JetBrains", "~/AppData/Roaming/JetBrains"],
    ),
    (ToolId::VisualStudio, &["%/Microsoft Visual Studio"]),
];

/// One tool found, and where.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Tool {
    pub id: ToolId,
    pub name: &'static str,
    #[serde(with = "crate::base::pathtext::json")]
    pub found_at: PathBuf,
}

/// What the Windows side holds: the profile and the tools, or why the profile is unknown.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct WindowsSide {
    /// The Windows profile folder, as a Linux path (None when it was not found).
    #[serde(skip)]
    pub profile: Option<PathBuf>,
    /// The same, as JSON shows paths (escaped where not UTF-8).
    #[serde(rename = "profile")]
    pub profile_shown: Option<String>,
    /// How the profile was found: `interop`, `users folder`, `WSL_PLACE_WINDOWS_PROFILE`.
    pub found_by: Option<&'static str>,
    /// Why the profile could not be found (interop off, several candidates); `note` in JSON,
    /// its kind `note_kind`.
    #[serde(flatten)]
    pub note: crate::base::reason::Noted<crate::host::windows::ProfileUnknown>,
    pub tools: Vec<Tool>,
    /// How Windows answered through interop (`cmd.exe`); None when it was not asked.
    pub interop: Option<crate::host::windows_env::Interop>,
    /// The global config Windows' git reads; None without a profile.
    pub git_config: Option<crate::host::windows_git::GlobalConfig>,
    /// Windows' environment as it answered, for the global config's later readers.
    #[serde(skip)]
    pub asked: crate::host::windows_env::WindowsEnv,
}

impl WindowsSide {
    pub fn has(&self, id: ToolId) -> bool {
        self.tools.iter().any(|t| t.id == id)
    }

    /// The tools found whose git reads Windows' global git config.
    pub fn windows_gits(&self) -> Vec<&Tool> {
        self.tools
            .iter()
            .filter(|t| t.id.reads_windows_git_config())
            .collect()
    }
}

/// The Windows side of this WSL host (call it only on WSL): Windows asked once.
pub fn find(env: &HostEnv, table: &MountTable) -> WindowsSide {
    let asked = crate::host::windows::ask(env, table);
    let interop = asked.interop.clone();
    match crate::host::windows::profile(env, table, &asked) {
        Ok(found) => WindowsSide {
            tools: tools_in(&found.path),
            profile_shown: Some(crate::base::pathtext::escape_path(&found.path)),
            git_config: Some(crate::host::windows_git::global_config(
                env,
                table,
                &asked,
                &found.path,
            )),
            profile: Some(found.path),
            found_by: Some(found.found_by),
            note: Default::default(),
            interop,
            asked,
        },
        Err(note) => WindowsSide {
            note: crate::base::reason::Noted(Some(note)),
            interop,
            asked,
            ..WindowsSide::default()
        },
    }
}

/// The tools whose folders exist for the profile at `profile` (`<drive>/Users/<name>`, so the
/// drive's Program Files folders are two levels up).
pub fn tools_in(profile: &Path) -> Vec<Tool> {
    let drive = profile.parent().and_then(Path::parent);
    let program_files: Vec<PathBuf> = drive
        .map(|d| vec![d.join("Program Files"), d.join("Program Files (x86)")])
        .unwrap_or_default();
    SIGNS
        .iter()
        .filter_map(|(id, places)| {
            let found_at = places.iter().find_map(|place| {
                let candidates: Vec<PathBuf> = match place.split_at(2) {
                    ("~/", rest) => vec![profile.join(rest)],
                    (_, rest) => program_files.iter().map(|p| p.join(rest)).collect(),
                };
                candidates.into_iter().find(|c| c.exists())
            })?;
            Some(Tool {
                id: *id,
                name: id.name(),
                found_at,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tools_are_told_from_their_folders() {
        let dir = tempfile::tempdir().unwrap();
        let profile = dir.path().join("c/Users/me");
        for folder in [
            "AppData/Local/Fork",
            "AppData/Roaming/JetBrains",
            "../../Program Files (x86)/Microsoft Visual Studio",
            "../../Program Files/Git/cmd",
        ] {
            std::fs::create_dir_all(profile.join(folder)).unwrap();
        }
        let ids = |profile: &Path| tools_in(profile).iter().map(|t| t.id).collect::<Vec<_>>();
        assert_eq!(
            ids(&profile),
            vec![ToolId::Fork, ToolId::Jetbrains, ToolId::VisualStudio]
        );
        std::fs::write(profile.join("../../Program Files/Git/cmd/git.exe"), "").unwrap();
        assert_eq!(ids(&profile)[0], ToolId::GitForWindows);
    }
}
