//! What the move means for the Windows tools on a WSL host: one line per tool found, and, where
//! Git for Windows is installed, the offer to add the copy's `safe.directory` entries to
//! Windows' global git config (`safe_directory.rs` edits it). Nothing of this off WSL.

use super::safe_directory;
use crate::decide::windows::{self, ToolLine};
use crate::host::HostEnv;
use crate::host::location::{self, MountTable};
use crate::measure::windows_tools::{self, ToolId};
use crate::store::moved::WindowsGitRecord;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// The Windows side as the plan shows it.
#[derive(Debug, Clone, Serialize)]
pub struct WindowsPlan {
    /// The Windows profile folder (as a Linux path), when it was found.
    pub profile: Option<String>,
    /// Why the profile could not be found.
    pub note: Option<String>,
    pub tools: Vec<ToolLine>,
    /// Where Git for Windows is installed and the distro is known: the entries to add.
    pub safe_directory: Option<SafeDirectoryPlan>,
}

/// The `safe.directory` entries the copy needs in Windows' global git config.
#[derive(Debug, Clone, Serialize)]
pub struct SafeDirectoryPlan {
    /// Windows' global git config, as a Linux path.
    #[serde(with = "crate::base::pathtext::json")]
    pub config: PathBuf,
    /// Both spellings, `%(prefix)///wsl.localhost/...` and `%(prefix)///wsl$/...`.
    pub entries: Vec<String>,
    /// Those the file does not hold yet: what a yes adds.
    pub missing: Vec<String>,
    /// The commands that add them by hand.
    pub commands: Vec<String>,
    /// Why none is added (a value no config line can carry); then `missing` and `commands`
    /// are empty: a broken value is never offered.
    pub refused: Option<String>,
}

/// The Windows side as the result shows it.
#[derive(Debug, Clone, Serialize)]
pub struct WindowsOutcome {
    pub tools: Vec<ToolLine>,
    pub safe_directory: Option<SafeDirectoryOutcome>,
}

/// What became of the offer.
#[derive(Debug, Clone, Serialize)]
pub struct SafeDirectoryOutcome {
    #[serde(with = "crate::base::pathtext::json")]
    pub config: PathBuf,
    /// The entries this run added (none when they were there already, or the answer was no).
    pub added: Vec<String>,
    /// The answer was no (or the file could not be written): `commands` do it by hand.
    pub declined: bool,
    /// Why the file could not be written, when it could not.
    pub problem: Option<String>,
    pub commands: Vec<String>,
    /// Why none was offered (the plan's `refused`).
    pub refused: Option<String>,
    /// What `--abort` takes out again.
    #[serde(skip)]
    pub record: Option<WindowsGitRecord>,
}

/// The Windows side of moving to `destination`; None off WSL or when the mount table cannot be
/// read (then no Windows tool is in question).
pub fn plan(env: &HostEnv, destination: &Path) -> Option<WindowsPlan> {
    let table = MountTable::read(env).ok()?;
    let host = location::host(env, &table);
    if !host.wsl {
        return None;
    }
    let side = windows_tools::find(env, &table);
    let shown = crate::base::pathtext::display(destination);
    let unc = match host.distro.as_deref() {
        Some(distro) => crate::host::mounts::wsl_unc_paths(distro, destination).0,
        None => format!("the \\\\wsl.localhost path of {shown}"),
    };
    let quoted = crate::base::pathtext::shell_quote(destination);
    let safe_directory = match (&side.profile, host.distro.as_deref()) {
        (Some(profile), Some(distro)) if side.has(ToolId::GitForWindows) => {
            let config = crate::host::windows::git_global_config(env, profile);
            let entries = safe_directory::entries(distro, destination);
            let refused = safe_directory::refused(&entries, &config);
            let missing = match std::fs::read(&config) {
                _ if refused.is_some() => Vec::new(),
                Ok(text) => safe_directory::missing(&text, &entries),
                Err(_) => entries.clone(),
            };
            Some(SafeDirectoryPlan {
                config,
                commands: match refused {
                    Some(_) => Vec::new(),
                    None => safe_directory::commands(&entries),
                },
                entries,
                missing,
                refused,
            })
        }
        _ => None,
    };
    Some(WindowsPlan {
        profile: side.profile_shown.clone(),
        note: side.note.clone(),
        tools: windows::after_move(&side.tools, &unc, &quoted),
        safe_directory,
    })
}

/// The offer carried out (`yes`) or not, once the copy is in place.
pub fn carry_out(plan: &WindowsPlan, yes: bool) -> WindowsOutcome {
    let safe_directory = plan.safe_directory.as_ref().map(|offer| {
        let mut outcome = SafeDirectoryOutcome {
            config: offer.config.clone(),
            added: Vec::new(),
            declined: !yes && !offer.missing.is_empty(),
            problem: None,
            commands: offer.commands.clone(),
            refused: offer.refused.clone(),
            record: None,
        };
        if yes && !offer.missing.is_empty() {
            match safe_directory::add(&offer.config, &offer.entries) {
                Ok(record) => {
                    outcome.added = record
                        .as_ref()
                        .map(|r| r.entries.clone())
                        .unwrap_or_default();
                    outcome.record = record;
                }
                Err(e) => {
                    outcome.declined = true;
                    // A file git cannot read is left as it is; the error says which line.
                    outcome.problem = Some(match e.kind() {
                        std::io::ErrorKind::InvalidData => e.to_string(),
                        _ => format!(
                            "cannot write {} ({e})",
                            crate::base::pathtext::display(&offer.config)
                        ),
                    });
                }
            }
        }
        outcome
    });
    WindowsOutcome {
        tools: plan.tools.clone(),
        safe_directory,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_no_writes_nothing_and_keeps_the_commands() {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join(".gitconfig");
        std::fs::write(&config, b"[user]\r\n\tname = Me\r\n").unwrap();
        let entries = safe_directory::entries("U", Path::new("/home/me/app"));
        let plan = WindowsPlan {
            profile: None,
            note: None,
            tools: Vec::new(),
            safe_directory: Some(SafeDirectoryPlan {
                config: config.clone(),
                commands: safe_directory::commands(&entries),
                missing: entries.clone(),
                entries,
                refused: None,
            }),
        };
        let outcome = carry_out(&plan, false).safe_directory.unwrap();
        assert!(outcome.declined && outcome.added.is_empty() && outcome.record.is_none());
        assert_eq!(
            outcome.commands[1],
            "git.exe config --global --add safe.directory '%(prefix)///wsl$/U/home/me/app'"
        );
        assert_eq!(
            std::fs::read(&config).unwrap(),
            b"[user]\r\n\tname = Me\r\n"
        );
        let outcome = carry_out(&plan, true).safe_directory.unwrap();
        assert_eq!(outcome.added.len(), 2);
    }
}
