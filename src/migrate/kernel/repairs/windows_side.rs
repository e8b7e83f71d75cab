//! What the move means for the Windows tools on a WSL host: one line per tool found, and,
//! where a Windows git that reads Windows' global git config is installed (Git for Windows,
//! GitHub Desktop, Fork, SourceTree, TortoiseGit), the offer to add the copy's
//! `safe.directory` entries to that file (`safe_directory.rs` edits it), or the commands where
//! WSL cannot reach it; and the line-ending warning where that file sets `core.autocrlf=true`.
//! Nothing of this off WSL.

use super::safe_directory;
use crate::decide::windows::{self, ToolLine};
use crate::host::HostEnv;
use crate::host::location::{self, MountTable};
use crate::host::windows_git::GlobalConfig;
use crate::measure::windows_tools::{self, ToolId, WindowsSide};
use crate::store::moved::WindowsGitRecord;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// The Windows side as the plan shows it.
#[derive(Debug, Clone, Serialize)]
pub struct WindowsPlan {
    /// The Windows profile folder (as a Linux path), when it was found.
    pub profile: Option<String>,
    /// Why the profile could not be found (`note` in JSON, its kind `note_kind`).
    #[serde(flatten)]
    pub note: crate::base::reason::Noted<crate::host::windows::ProfileUnknown>,
    pub tools: Vec<ToolLine>,
    /// Where a Windows git is installed and the distro is known: the entries to add.
    pub safe_directory: Option<SafeDirectoryPlan>,
    /// Where Windows' git would show every line of the copy changed (`core.autocrlf=true`).
    pub line_endings: Option<LineEndings>,
}

/// The `safe.directory` entries the copy needs in Windows' global git config.
#[derive(Debug, Clone, Serialize)]
pub struct SafeDirectoryPlan {
    /// Windows' global git config, as a Linux path; None when WSL cannot reach it (a home on a
    /// share): then nothing is asked and the commands are the way, as git.exe finds the file.
    #[serde(skip)]
    pub config: Option<PathBuf>,
    /// The same, as JSON shows paths.
    #[serde(rename = "config")]
    pub config_shown: Option<String>,
    /// The file as Windows names it, and what chose it.
    pub git_config: GlobalConfig,
    /// The Windows gits found that read it (Git for Windows, GitHub Desktop, Fork...).
    pub clients: Vec<ToolId>,
    /// Both spellings, `%(prefix)///wsl.localhost/...` and `%(prefix)///wsl$/...`.
    pub entries: Vec<String>,
    /// Those the file does not hold yet: what a yes adds.
    pub missing: Vec<String>,
    /// The commands that add them by hand.
    pub commands: Vec<String>,
    /// Why none is added (a value no config line can carry); then `missing` and `commands`
    /// are empty: a broken value is never offered.
    pub refused: Option<String>,
    /// The file holds `safe.directory = *` already: every folder is trusted, nothing is added.
    pub trusts_all: bool,
}

/// Windows' global git config sets `core.autocrlf=true` and the repository does not override
/// it: git.exe on the copy shows every line changed.
#[derive(Debug, Clone, Serialize)]
pub struct LineEndings {
    /// The file that sets it, as a sentence names it.
    pub config: String,
    /// The fixes, for the copy: its own `core.autocrlf`, or a `.gitattributes` line.
    pub fix: Vec<String>,
}

/// The Windows side as the result shows it.
#[derive(Debug, Clone, Serialize)]
pub struct WindowsOutcome {
    pub tools: Vec<ToolLine>,
    pub safe_directory: Option<SafeDirectoryOutcome>,
    pub line_endings: Option<LineEndings>,
}

/// What became of the offer.
#[derive(Debug, Clone, Serialize)]
pub struct SafeDirectoryOutcome {
    /// As in the plan: None when WSL cannot reach the file (the commands are the way).
    #[serde(skip)]
    pub config: Option<PathBuf>,
    #[serde(rename = "config")]
    pub config_shown: Option<String>,
    pub git_config: GlobalConfig,
    pub clients: Vec<ToolId>,
    /// The entries this run added (none when they were there already, or the answer was no).
    pub added: Vec<String>,
    /// The answer was no (or the file could not be written): `commands` do it by hand.
    pub declined: bool,
    /// Why the file could not be written, when it could not.
    pub problem: Option<String>,
    pub commands: Vec<String>,
    /// Why none was offered (the plan's `refused`).
    pub refused: Option<String>,
    pub trusts_all: bool,
    /// What `--abort` takes out again.
    #[serde(skip)]
    pub record: Option<WindowsGitRecord>,
}

/// The Windows side of moving `source` to `destination`; None off WSL or when the mount table
/// cannot be read (then no Windows tool is in question).
pub fn plan(env: &HostEnv, source: &Path, destination: &Path) -> Option<WindowsPlan> {
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
    let clients: Vec<ToolId> = side.windows_gits().iter().map(|t| t.id).collect();
    let safe_directory = match (&side.git_config, host.distro.as_deref()) {
        (Some(config), Some(distro)) if !clients.is_empty() => {
            Some(offer(config, clients, distro, destination))
        }
        _ => None,
    };
    Some(WindowsPlan {
        profile: side.profile_shown.clone(),
        note: side.note.clone(),
        tools: windows::after_move(&side.tools, &unc, &quoted),
        safe_directory,
        line_endings: line_endings(&side, source),
    })
}

/// The entries for the copy at `destination`, against what `config` holds now.
fn offer(
    config: &GlobalConfig,
    clients: Vec<ToolId>,
    distro: &str,
    destination: &Path,
) -> SafeDirectoryPlan {
    let entries = safe_directory::entries(distro, destination);
    let refused = safe_directory::refused(&entries, &config.shown());
    let text = config.linux.as_deref().map(std::fs::read);
    let trusts_all = matches!(&text, Some(Ok(bytes)) if safe_directory::trusts_all(bytes));
    let missing = match text {
        _ if refused.is_some() || trusts_all => Vec::new(),
        Some(Ok(bytes)) => safe_directory::missing(&bytes, &entries),
        _ => entries.clone(),
    };
    SafeDirectoryPlan {
        config: config.linux.clone(),
        config_shown: config.linux_shown.clone(),
        git_config: config.clone(),
        clients,
        commands: match refused {
            _ if trusts_all => Vec::new(),
            Some(_) => Vec::new(),
            None => safe_directory::commands(&entries),
        },
        entries,
        missing,
        refused,
        trusts_all,
    }
}

/// The warning where Windows' global config sets `core.autocrlf=true` (Git for Windows'
/// installer default) and neither the repository's own config nor its `.gitattributes` says
/// how its line endings go.
fn line_endings(side: &WindowsSide, source: &Path) -> Option<LineEndings> {
    side.windows_gits().first()?;
    let config = side.git_config.as_ref()?;
    let text = std::fs::read(config.linux.as_deref()?).ok()?;
    if !safe_directory::autocrlf_true(&text) || repository_says_line_endings(source) {
        return None;
    }
    Some(LineEndings {
        config: config.shown(),
        fix: vec![
            "git config core.autocrlf input".to_string(),
            "printf '* text=auto eol=lf\\n' >> .gitattributes".to_string(),
        ],
    })
}

/// The repository sets `core.autocrlf` in its own config, or its `.gitattributes` gives every
/// file an `eol` (or none is text).
fn repository_says_line_endings(source: &Path) -> bool {
    let limit = crate::base::repo_file::MANIFEST_LIMIT;
    let own = crate::base::repo_file::read(source, Path::new(".git/config"), limit)
        .is_ok_and(|text| safe_directory::sets_autocrlf(&text));
    let attributes =
        crate::base::repo_file::manifest(source, ".gitattributes").is_some_and(|text| {
            text.lines().any(|line| {
                let mut words = line.split_whitespace();
                words.next() == Some("*") && words.any(|w| w.starts_with("eol=") || w == "-text")
            })
        });
    own || attributes
}

/// The offer carried out (`yes`) or not, once the copy is in place.
pub fn carry_out(plan: &WindowsPlan, yes: bool) -> WindowsOutcome {
    let safe_directory = plan.safe_directory.as_ref().map(|offer| {
        let mut outcome = SafeDirectoryOutcome {
            config: offer.config.clone(),
            config_shown: offer.config_shown.clone(),
            git_config: offer.git_config.clone(),
            clients: offer.clients.clone(),
            added: Vec::new(),
            declined: !yes && !offer.missing.is_empty(),
            problem: None,
            commands: offer.commands.clone(),
            refused: offer.refused.clone(),
            trusts_all: offer.trusts_all,
            record: None,
        };
        let Some(config) = offer.config.as_deref() else {
            // Out of WSL's reach: the commands are the way, as git.exe finds the file.
            outcome.declined = !offer.missing.is_empty();
            return outcome;
        };
        if yes && !offer.missing.is_empty() {
            match safe_directory::add(config, &offer.entries) {
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
                            crate::base::pathtext::display(config)
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
        line_endings: plan.line_endings.clone(),
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
            note: Default::default(),
            tools: Vec::new(),
            safe_directory: Some(SafeDirectoryPlan {
                config: Some(config.clone()),
                config_shown: None,
                git_config: GlobalConfig {
                    windows: None,
                    linux: Some(config.clone()),
                    linux_shown: None,
                    chosen_by: "profile",
                },
                clients: vec![ToolId::Fork],
                commands: safe_directory::commands(&entries),
                missing: entries.clone(),
                entries,
                refused: None,
                trusts_all: false,
            }),
            line_endings: None,
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
