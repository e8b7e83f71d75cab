//! Advice that knows the ecosystem: the smaller steps, each only where it applies.

use crate::gitsettings::GitSettings;
use crate::mounts::MountKind;
use crate::observations::Observations;
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Advice {
    /// A stable identifier: `migrate`, `virtiofs`, `untracked-cache`, `many-files`, `preload-index`.
    pub id: &'static str,
    pub message: String,
    /// A command that applies it, when there is one.
    pub command: Option<String>,
}

/// Repositories with at least this many tracked files are what `feature.manyFiles` is for.
const MANY_FILES: u64 = 10_000;
/// Below this many directories the untracked-file scan is cheap even on a slow mount.
const MANY_DIRECTORIES: u64 = 100;

fn is_true(value: Option<&str>) -> bool {
    matches!(
        value.map(str::to_ascii_lowercase).as_deref(),
        Some("true" | "yes" | "on" | "1")
    )
}

fn is_false(value: Option<&str>) -> bool {
    matches!(
        value.map(str::to_ascii_lowercase).as_deref(),
        Some("false" | "no" | "off" | "0")
    )
}

/// What to tell someone whose repository earned `advise` or `move`.
pub fn for_observations(observations: &Observations) -> Vec<Advice> {
    let mut advice = vec![Advice {
        id: "migrate",
        message: "move the repository to the Linux disk, verified, with `wsl-place migrate`"
            .to_string(),
        command: Some(format!(
            "wsl-place migrate {}",
            shell_quote(&observations.path.to_string_lossy())
        )),
    }];
    if observations.wsl && observations.mount_kind == MountKind::WslDrvfs9p {
        advice.push(Advice {
            id: "virtiofs",
            message: "if the files must stay on Windows, set `virtiofs=true` in %UserProfile%\\.wslconfig \
                      and run `wsl --shutdown`: published figures show virtiofs 2-4x faster than 9p, \
                      though still far slower than ext4"
                .to_string(),
            command: None,
        });
    }
    if let Some(git) = &observations.git {
        advice.extend(git_advice(git, observations.tracked, observations.dirs));
    }
    advice
}

/// Git settings that make `git status` cheaper where the files cannot move. Git's fsmonitor
/// daemon is deliberately absent: it exists only on Windows and macOS, not for Linux git in WSL.
fn git_advice(git: &GitSettings, tracked: Option<u64>, dirs: u64) -> Vec<Advice> {
    let mut advice = Vec::new();
    let many_files_on = is_true(git.many_files.as_deref());
    if tracked.is_some_and(|n| n >= MANY_FILES) && git.many_files.is_none() {
        advice.push(Advice {
            id: "many-files",
            message: format!(
                "{} tracked files: `feature.manyFiles` turns on index version 4, the skip-hash index \
                 and the untracked cache",
                tracked.unwrap_or_default()
            ),
            command: Some("git config feature.manyFiles true".to_string()),
        });
    } else if dirs >= MANY_DIRECTORIES && git.untracked_cache.is_none() && !many_files_on {
        advice.push(Advice {
            id: "untracked-cache",
            message: format!(
                "{dirs} directories: `core.untrackedCache` lets git skip reading directories that \
                 did not change when it looks for untracked files"
            ),
            command: Some("git config core.untrackedCache true".to_string()),
        });
    }
    if is_false(git.preload_index.as_deref()) {
        advice.push(Advice {
            id: "preload-index",
            message:
                "`core.preloadIndex` is off: on a high-latency mount git's parallel lstat calls \
                      are what keeps `git status` bearable"
                    .to_string(),
            command: Some("git config core.preloadIndex true".to_string()),
        });
    }
    advice
}

fn shell_quote(text: &str) -> String {
    if text
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+~:@".contains(c))
    {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn observations(
        kind: MountKind,
        wsl: bool,
        tracked: u64,
        dirs: u64,
        git: GitSettings,
    ) -> Observations {
        Observations {
            path: PathBuf::from("/mnt/c/My Projects/app"),
            home: None,
            mount_kind: kind,
            wsl,
            git_status_ms: None,
            install_ms: None,
            tracked: Some(tracked),
            dirs,
            git: Some(git),
            baseline_problem: None,
        }
    }

    fn ids(advice: &[Advice]) -> Vec<&'static str> {
        advice.iter().map(|a| a.id).collect()
    }

    #[test]
    fn nine_p_on_wsl_gets_virtiofs_and_untracked_cache() {
        let advice = for_observations(&observations(
            MountKind::WslDrvfs9p,
            true,
            1000,
            300,
            GitSettings::default(),
        ));
        assert_eq!(ids(&advice), vec!["migrate", "virtiofs", "untracked-cache"]);
        assert_eq!(
            advice[0].command.as_deref(),
            Some("wsl-place migrate '/mnt/c/My Projects/app'")
        );
    }

    #[test]
    fn virtiofs_is_not_advised_off_9p_or_off_wsl() {
        let settings = GitSettings::default();
        let advice = for_observations(&observations(
            MountKind::WslDrvfsVirtiofs,
            true,
            10,
            5,
            settings.clone(),
        ));
        assert_eq!(ids(&advice), vec!["migrate"]);
        let advice = for_observations(&observations(MountKind::WslDrvfs9p, false, 10, 5, settings));
        assert_eq!(ids(&advice), vec!["migrate"]);
    }

    #[test]
    fn many_files_replaces_untracked_cache_for_big_indexes() {
        let advice = for_observations(&observations(
            MountKind::Network,
            false,
            50_000,
            4_000,
            GitSettings::default(),
        ));
        assert_eq!(ids(&advice), vec!["migrate", "many-files"]);
    }

    #[test]
    fn settings_already_made_are_not_advised_again() {
        let set = GitSettings {
            untracked_cache: Some("true".into()),
            many_files: Some("true".into()),
            preload_index: Some("true".into()),
            index_version: None,
        };
        let advice = for_observations(&observations(
            MountKind::WslDrvfs9p,
            true,
            50_000,
            4_000,
            set,
        ));
        assert_eq!(ids(&advice), vec!["migrate", "virtiofs"]);
    }

    #[test]
    fn preload_index_only_when_turned_off() {
        let off = GitSettings {
            preload_index: Some("false".into()),
            ..GitSettings::default()
        };
        let advice = for_observations(&observations(MountKind::Fuse, false, 10, 5, off));
        assert_eq!(ids(&advice), vec!["migrate", "preload-index"]);
    }

    #[test]
    fn fsmonitor_is_never_advised() {
        for kind in [MountKind::WslDrvfs9p, MountKind::Network, MountKind::Fuse] {
            let advice = for_observations(&observations(
                kind,
                true,
                100_000,
                10_000,
                GitSettings::default(),
            ));
            assert!(advice.iter().all(|a| {
                !a.message.contains("fsmonitor")
                    && !a
                        .command
                        .as_deref()
                        .unwrap_or_default()
                        .contains("fsmonitor")
            }));
        }
    }
}
