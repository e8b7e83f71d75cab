//! Advice that knows the ecosystem: the smaller steps, each only where it applies.

use crate::base::reason::{Keyed, Said};
use crate::decide::observations::Observations;
use crate::host::git::version::GitVersion;
use crate::host::mounts::MountKind;
use crate::measure::gitsettings::{self, GitSettings};
use serde::Serialize;
use std::path::PathBuf;

/// A stable identifier for scripts; in JSON the kebab-case name (`many-files`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum AdviceId {
    Migrate,
    Wsl2,
    Virtiofs,
    WindowsTools,
    FileWatching,
    UntrackedCache,
    ManyFiles,
    PreloadIndex,
    Fsmonitor,
    FsmonitorUnsupported,
    Survey,
    /// A virtualenv on the slow mount.
    Virtualenv,
    /// Cargo's `target/` on the slow mount.
    CargoTargetDir,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Advice {
    pub id: AdviceId,
    /// What to do and why, typed; `report/text/advice.rs` words it.
    #[serde(flatten)]
    pub message: Said<Advised>,
    /// A command that applies it, when there is one.
    pub command: Option<String>,
}

/// What a piece of advice says, with its data: in JSON `advice[].message_kind` beside the
/// sentence in `message`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Advised {
    /// A folder holding repositories, not in one: `survey` judges each.
    SurveyTheRepositories {
        repositories: usize,
        at_least: bool,
    },
    /// Move the repository to the Linux disk.
    Migrate,
    /// Finish the move that was interrupted, to where it was going.
    FinishMove {
        #[serde(with = "crate::base::pathtext::json")]
        to: PathBuf,
    },
    /// Turn on virtiofs where the files must stay on Windows.
    Virtiofs,
    /// Windows tools use the repository: how they reach the copy, or keeping it on Windows.
    WindowsTools {
        tools: Vec<String>,
    },
    /// File watchers that inotify cannot serve on a Windows drive.
    FileWatching {
        watchers: Vec<String>,
    },
    /// A virtualenv on the slow mount (`folder` relative to the repository).
    Virtualenv {
        #[serde(with = "crate::base::pathtext::json")]
        folder: PathBuf,
        files: u64,
    },
    /// Cargo's `target/` on the slow mount.
    CargoTargetDir {
        #[serde(with = "crate::base::pathtext::json")]
        folder: PathBuf,
        files: u64,
    },
    /// WSL 1: converting to WSL 2 is the fix, not moving.
    ConvertToWsl2,
    /// WSL 1, yet its Linux disk measured this much faster for `git status`.
    MigrateOnWsl1 {
        speedup: f64,
    },
    /// `core.fsmonitor` is set on a mount git's daemon cannot watch.
    FsmonitorCannotWatch {
        mount_kind: MountKind,
    },
    /// git's fsmonitor daemon on the Linux disk, with this many tracked files.
    Fsmonitor {
        git_version: String,
        tracked: u64,
    },
    ManyFiles {
        tracked: u64,
    },
    UntrackedCache {
        dirs: u64,
    },
    PreloadIndexOff,
    /// At the old place: an operation there did not finish; finish it first.
    FinishInterrupted,
    /// At the old place: the copy is no longer where it was made.
    PutTheCopyBack,
    /// At the old place: nothing here the copy lacks.
    WorkInTheCopy,
    /// At the old place: edits here since, counted.
    SyncTheEdits,
    /// At the old place: edits here since were not counted.
    SyncAnyEdits,
}

impl Keyed for Advised {
    const KEY: &'static str = "message";
    const KIND_KEY: &'static str = "message_kind";
}

impl Advice {
    pub fn new(id: AdviceId, advised: Advised, command: Option<String>) -> Self {
        Advice {
            id,
            message: Said(advised),
            command,
        }
    }
}

/// Repositories with at least this many tracked files are what `feature.manyFiles` is for.
const MANY_FILES: u64 = 10_000;
/// Below this many directories the untracked-file scan is cheap even on a slow mount.
const MANY_DIRECTORIES: u64 = 100;

fn is_true(value: Option<&str>) -> bool {
    value.is_some_and(gitsettings::is_true)
}

fn is_false(value: Option<&str>) -> bool {
    value.is_some_and(gitsettings::is_false)
}

/// What the policy decided that the advice depends on, as plain values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Judgement {
    /// The verdict is `advise` or `move`: moving is on the table.
    pub judged: bool,
    /// The policy's `advise_speedup`: a measured gain worth mentioning.
    pub advise_speedup: f64,
    /// The policy's `git.fsmonitor_min_tracked`.
    pub fsmonitor_min_tracked: u64,
}

/// What to tell someone: moving and what moving changes when the verdict put moving on the
/// table; git's own tuning whatever the verdict.
pub fn for_observations(observations: &Observations, judgement: Judgement) -> Vec<Advice> {
    if let Some(n) = observations.context.repositories_below {
        // A folder of repositories is not one repository to move: each gets its own verdict.
        return vec![Advice::new(
            AdviceId::Survey,
            Advised::SurveyTheRepositories {
                repositories: n,
                at_least: observations.context.repositories_below_partial,
            },
            Some(format!(
                "wsl-place survey {}",
                crate::base::pathtext::shell_quote(&observations.path)
            )),
        )];
    }
    let mut advice = Vec::new();
    if judgement.judged {
        advice.extend(moving(observations, judgement.advise_speedup));
        if let Some(git) = &observations.git {
            advice.extend(git_advice(git, observations.tracked, observations.dirs));
        }
    }
    if let Some(git) = &observations.git {
        advice.extend(fsmonitor(
            observations,
            git,
            judgement.fsmonitor_min_tracked,
        ));
    }
    advice
}

fn migrate_command(observations: &Observations) -> String {
    let to = observations
        .context
        .unfinished_move_to
        .as_ref()
        .map(|dest| format!(" --to {}", crate::base::pathtext::shell_quote(dest)))
        .unwrap_or_default();
    format!(
        "wsl-place migrate {}{to}",
        crate::base::pathtext::shell_quote(&observations.path)
    )
}

/// The move itself: a new one, or the one that was interrupted, where it was going.
fn migrate(observations: &Observations) -> Advice {
    let advised = match &observations.context.unfinished_move_to {
        Some(dest) => Advised::FinishMove { to: dest.clone() },
        None => Advised::Migrate,
    };
    Advice::new(
        AdviceId::Migrate,
        advised,
        Some(migrate_command(observations)),
    )
}

/// Moving, and the one-sentence consequences of moving that apply here.
fn moving(observations: &Observations, advise_speedup: f64) -> Vec<Advice> {
    let context = &observations.context;
    let kind = observations.mount_kind;
    let mut advice = Vec::new();
    if context.wsl_version == Some(1) {
        advice.extend(wsl1(observations, advise_speedup));
    } else {
        advice.push(migrate(observations));
    }
    if observations.wsl && kind == MountKind::WslDrvfs9p {
        advice.push(Advice::new(AdviceId::Virtiofs, Advised::Virtiofs, None));
    }
    let on_windows = kind.is_windows_drive() || observations.wsl && kind == MountKind::Network;
    if on_windows && !context.usage.windows_tools.is_empty() {
        advice.push(Advice::new(
            AdviceId::WindowsTools,
            Advised::WindowsTools {
                tools: context.usage.windows_tools.clone(),
            },
            Some("code .".to_string()),
        ));
    }
    advice.extend(build_trees(observations));
    if kind.is_windows_drive() && !context.usage.watchers.is_empty() {
        advice.push(Advice::new(
            AdviceId::FileWatching,
            Advised::FileWatching {
                watchers: context.usage.watchers.clone(),
            },
            Some(migrate_command(observations)),
        ));
    }
    advice
}

/// A virtualenv or a Cargo `target/` on the slow mount is slow on its own: every `import`
/// reads the one, every build writes the other. Moving the repository fixes both; where it must
/// stay, each can live on the Linux disk by itself.
fn build_trees(observations: &Observations) -> Vec<Advice> {
    use crate::measure::scan::DependencyKind;
    let name = observations
        .path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "repo".into());
    let quoted = crate::base::pathtext::shell_quote(std::path::Path::new(&name));
    observations
        .context
        .build_trees
        .iter()
        .map(|(path, kind, files)| {
            let (folder, files) = (path.clone(), *files);
            match kind {
                DependencyKind::Venv => Advice::new(
                    AdviceId::Virtualenv,
                    Advised::Virtualenv { folder, files },
                    Some(format!(
                        "UV_PROJECT_ENVIRONMENT=\"$HOME/.venvs/\"{quoted} uv sync"
                    )),
                ),
                _ => Advice::new(
                    AdviceId::CargoTargetDir,
                    Advised::CargoTargetDir { folder, files },
                    Some(format!(
                        "export CARGO_TARGET_DIR=\"$HOME/.cache/cargo-target/\"{quoted}"
                    )),
                ),
            }
        })
        .collect()
}

/// WSL 1 keeps its Linux files in NTFS too, so the fix is WSL 2; moving to the WSL 1 Linux
/// disk is mentioned only when the measurements show it pays.
fn wsl1(observations: &Observations, advise_speedup: f64) -> Vec<Advice> {
    let distro = observations
        .context
        .distro
        .clone()
        .unwrap_or_else(|| "<distro>".to_string());
    let convert = format!(
        "wsl --set-version {} 2",
        crate::base::pathtext::shell_quote(std::path::Path::new(&distro))
    );
    let mut advice = vec![Advice::new(
        AdviceId::Wsl2,
        Advised::ConvertToWsl2,
        Some(convert),
    )];
    let measured_gain = observations
        .git_status_ms
        .filter(|_| observations.baseline_problem.is_none())
        .and_then(|predicted| predicted.speedup)
        .filter(|&speedup| speedup >= advise_speedup);
    if let Some(speedup) = measured_gain {
        advice.push(Advice::new(
            AdviceId::Migrate,
            Advised::MigrateOnWsl1 { speedup },
            Some(migrate_command(observations)),
        ));
    }
    advice
}

fn is_set(value: Option<&str>) -> bool {
    value.is_some_and(|v| !is_false(Some(v)) && !v.is_empty())
}

/// Git's fsmonitor daemon: advised on the Linux disk from git 2.55 with enough tracked files;
/// explained away where the user has set it on a mount it cannot watch.
fn fsmonitor(observations: &Observations, git: &GitSettings, min_tracked: u64) -> Option<Advice> {
    let kind = observations.mount_kind;
    let set = is_set(git.fsmonitor.as_deref());
    let cannot_watch = matches!(
        kind,
        MountKind::WslDrvfs9p
            | MountKind::WslDrvfsVirtiofs
            | MountKind::Wsl1Drvfs
            | MountKind::Network
            | MountKind::Fuse
    );
    if cannot_watch {
        return set.then(|| {
            Advice::new(
                AdviceId::FsmonitorUnsupported,
                Advised::FsmonitorCannotWatch { mount_kind: kind },
                Some("git config --unset core.fsmonitor".to_string()),
            )
        });
    }
    let linux_disk = matches!(
        kind,
        MountKind::Local | MountKind::Tmpfs | MountKind::Overlay
    );
    let version = observations.context.git_version?;
    let tracked = observations.tracked.unwrap_or(0);
    let wanted = linux_disk
        && version >= GitVersion::FSMONITOR_ON_LINUX
        && tracked >= min_tracked
        && !(set && is_true(git.untracked_cache.as_deref()));
    wanted.then(|| {
        Advice::new(
            AdviceId::Fsmonitor,
            Advised::Fsmonitor {
                git_version: version.to_string(),
                tracked,
            },
            Some(
                "git config core.fsmonitor true && git config core.untrackedCache true".to_string(),
            ),
        )
    })
}

/// Git settings that make `git status` cheaper where the files cannot move. Git's fsmonitor
/// daemon is not among them: it cannot watch a Windows drive or a network mount ([`fsmonitor`]).
fn git_advice(git: &GitSettings, tracked: Option<u64>, dirs: u64) -> Vec<Advice> {
    let mut advice = Vec::new();
    let many_files_on = is_true(git.many_files.as_deref());
    if tracked.is_some_and(|n| n >= MANY_FILES) && git.many_files.is_none() {
        advice.push(Advice::new(
            AdviceId::ManyFiles,
            Advised::ManyFiles {
                tracked: tracked.unwrap_or_default(),
            },
            Some("git config feature.manyFiles true".to_string()),
        ));
    } else if dirs >= MANY_DIRECTORIES && git.untracked_cache.is_none() && !many_files_on {
        advice.push(Advice::new(
            AdviceId::UntrackedCache,
            Advised::UntrackedCache { dirs },
            Some("git config core.untrackedCache true".to_string()),
        ));
    }
    if is_false(git.preload_index.as_deref()) {
        advice.push(Advice::new(
            AdviceId::PreloadIndex,
            Advised::PreloadIndexOff,
            Some("git config core.preloadIndex true".to_string()),
        ));
    }
    advice
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decide::observations::Context;
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
            context: Context::default(),
        }
    }

    fn judgement(judged: bool) -> Judgement {
        Judgement {
            judged,
            advise_speedup: 4.0,
            fsmonitor_min_tracked: 10_000,
        }
    }

    /// The advice for a repository whose verdict put moving on the table.
    fn moved(observations: &Observations) -> Vec<Advice> {
        for_observations(observations, judgement(true))
    }

    fn ids(advice: &[Advice]) -> Vec<AdviceId> {
        advice.iter().map(|a| a.id).collect()
    }

    #[test]
    fn nine_p_on_wsl_gets_virtiofs_and_untracked_cache() {
        let advice = moved(&observations(
            MountKind::WslDrvfs9p,
            true,
            1000,
            300,
            GitSettings::default(),
        ));
        assert_eq!(
            ids(&advice),
            vec![
                AdviceId::Migrate,
                AdviceId::Virtiofs,
                AdviceId::UntrackedCache
            ]
        );
        assert_eq!(
            advice[0].command.as_deref(),
            Some("wsl-place migrate '/mnt/c/My Projects/app'")
        );
    }

    #[test]
    fn virtiofs_is_not_advised_off_9p_or_off_wsl() {
        let settings = GitSettings::default();
        let advice = moved(&observations(
            MountKind::WslDrvfsVirtiofs,
            true,
            10,
            5,
            settings.clone(),
        ));
        assert_eq!(ids(&advice), vec![AdviceId::Migrate]);
        let advice = moved(&observations(MountKind::WslDrvfs9p, false, 10, 5, settings));
        assert_eq!(ids(&advice), vec![AdviceId::Migrate]);
    }

    #[test]
    fn many_files_replaces_untracked_cache_for_big_indexes() {
        let advice = moved(&observations(
            MountKind::Network,
            false,
            50_000,
            4_000,
            GitSettings::default(),
        ));
        assert_eq!(ids(&advice), vec![AdviceId::Migrate, AdviceId::ManyFiles]);
    }

    #[test]
    fn settings_already_made_are_not_advised_again() {
        let set = GitSettings {
            untracked_cache: Some("true".into()),
            many_files: Some("true".into()),
            preload_index: Some("true".into()),
            ..GitSettings::default()
        };
        let advice = moved(&observations(
            MountKind::WslDrvfs9p,
            true,
            50_000,
            4_000,
            set,
        ));
        assert_eq!(ids(&advice), vec![AdviceId::Migrate, AdviceId::Virtiofs]);
    }

    #[test]
    fn preload_index_only_when_turned_off() {
        let off = GitSettings {
            preload_index: Some("false".into()),
            ..GitSettings::default()
        };
        let advice = moved(&observations(MountKind::Fuse, false, 10, 5, off));
        assert_eq!(
            ids(&advice),
            vec![AdviceId::Migrate, AdviceId::PreloadIndex]
        );
    }

    fn with_context(mut observations: Observations, context: Context) -> Observations {
        observations.context = context;
        observations
    }

    fn git(version: &str) -> Context {
        Context {
            git_version: crate::host::git::version::GitVersion::parse(version),
            ..Context::default()
        }
    }

    #[test]
    fn fsmonitor_is_advised_on_the_linux_disk_from_git_2_55_and_the_policy_size() {
        let local = |tracked, version| {
            let obs = observations(
                MountKind::Local,
                true,
                tracked,
                2_000,
                GitSettings::default(),
            );
            for_observations(&with_context(obs, git(version)), judgement(false))
        };
        let advice = local(10_000, "git version 2.55.0");
        assert_eq!(ids(&advice), vec![AdviceId::Fsmonitor]);
        assert_eq!(
            advice[0].command.as_deref(),
            Some("git config core.fsmonitor true && git config core.untrackedCache true")
        );
        assert!(local(9_999, "git version 2.55.0").is_empty());
        assert!(local(50_000, "git version 2.54.9").is_empty());
        // Already on: nothing to say.
        let set = GitSettings {
            fsmonitor: Some("true".into()),
            untracked_cache: Some("true".into()),
            ..GitSettings::default()
        };
        let obs = observations(MountKind::Local, true, 50_000, 2_000, set);
        let obs = with_context(obs, git("git version 2.55.0"));
        assert!(for_observations(&obs, judgement(false)).is_empty());
    }

    #[test]
    fn fsmonitor_is_never_advised_where_it_cannot_watch() {
        for kind in [
            MountKind::WslDrvfs9p,
            MountKind::WslDrvfsVirtiofs,
            MountKind::Wsl1Drvfs,
            MountKind::Network,
            MountKind::Fuse,
        ] {
            let obs = observations(kind, true, 100_000, 10_000, GitSettings::default());
            let advice = moved(&with_context(obs, git("git version 2.55.0")));
            assert!(
                advice.iter().all(|a| {
                    !matches!(a.message.0, Advised::Fsmonitor { .. })
                        && !a
                            .command
                            .as_deref()
                            .unwrap_or_default()
                            .contains("fsmonitor")
                }),
                "{kind}: {advice:?}"
            );
        }
    }

    #[test]
    fn fsmonitor_set_where_it_cannot_watch_is_explained() {
        let set = GitSettings {
            fsmonitor: Some("true".into()),
            ..GitSettings::default()
        };
        let advice = for_observations(
            &observations(MountKind::WslDrvfs9p, true, 10, 5, set.clone()),
            judgement(false),
        );
        assert_eq!(ids(&advice), vec![AdviceId::FsmonitorUnsupported]);
        assert_eq!(
            advice[0].message.0,
            Advised::FsmonitorCannotWatch {
                mount_kind: MountKind::WslDrvfs9p
            }
        );
        let advice = moved(&observations(MountKind::Network, false, 10, 5, set));
        let unsupported = advice
            .iter()
            .find(|a| a.id == AdviceId::FsmonitorUnsupported)
            .unwrap();
        assert_eq!(
            unsupported.message.0,
            Advised::FsmonitorCannotWatch {
                mount_kind: MountKind::Network
            }
        );
        assert_eq!(
            unsupported.command.as_deref(),
            Some("git config --unset core.fsmonitor")
        );
    }

    #[test]
    fn wsl1_is_told_to_convert_not_to_move() {
        let context = Context {
            wsl_version: Some(1),
            distro: Some("Ubuntu".into()),
            ..Context::default()
        };
        let obs = observations(MountKind::Wsl1Drvfs, true, 10, 5, GitSettings::default());
        let advice = moved(&with_context(obs.clone(), context.clone()));
        assert_eq!(ids(&advice), vec![AdviceId::Wsl2]);
        assert_eq!(
            advice[0].command.as_deref(),
            Some("wsl --set-version Ubuntu 2")
        );
        assert_eq!(advice[0].message.0, Advised::ConvertToWsl2);
        // Measured much faster on the WSL 1 Linux disk: moving is mentioned after converting.
        let measured = Observations {
            git_status_ms: Some(crate::model::Compared::exact(900.0, 90.0)),
            ..with_context(obs, context)
        };
        assert_eq!(
            ids(&moved(&measured)),
            vec![AdviceId::Wsl2, AdviceId::Migrate]
        );
    }

    #[test]
    fn a_virtualenv_or_target_on_the_slow_mount_gets_its_own_way_out() {
        use crate::measure::scan::DependencyKind;
        let context = Context {
            build_trees: vec![
                (".venv".into(), DependencyKind::Venv, 4_915),
                ("target".into(), DependencyKind::Target, 1),
            ],
            ..Context::default()
        };
        let obs = observations(MountKind::Fuse, false, 10, 5, GitSettings::default());
        let advice = moved(&with_context(obs.clone(), context));
        assert_eq!(
            ids(&advice),
            vec![
                AdviceId::Migrate,
                AdviceId::Virtualenv,
                AdviceId::CargoTargetDir
            ]
        );
        assert_eq!(
            advice[1].message.0,
            Advised::Virtualenv {
                folder: ".venv".into(),
                files: 4_915
            }
        );
        let command = advice[2].command.as_deref().unwrap();
        assert!(command.starts_with("export CARGO_TARGET_DIR=\"$HOME/.cache/cargo-target/\""));
        assert_eq!(
            advice[2].message.0,
            Advised::CargoTargetDir {
                folder: "target".into(),
                files: 1
            }
        );
        // Without such trees, nothing is said of them.
        assert_eq!(ids(&moved(&obs)), vec![AdviceId::Migrate]);
    }

    #[test]
    fn windows_side_trade_offs_only_where_they_apply() {
        let context = Context {
            usage: crate::measure::usage::Usage {
                windows_tools: vec!["a Visual Studio solution (.sln)".into()],
                watchers: vec!["vite".into(), "nodemon".into()],
            },
            ..Context::default()
        };
        let obs = observations(MountKind::WslDrvfs9p, true, 10, 5, GitSettings::default());
        let advice = moved(&with_context(obs, context.clone()));
        assert_eq!(
            ids(&advice),
            vec![
                AdviceId::Migrate,
                AdviceId::Virtiofs,
                AdviceId::WindowsTools,
                AdviceId::FileWatching
            ]
        );
        assert!(
            matches!(&advice[2].message.0, Advised::WindowsTools { tools } if tools.len() == 1)
        );
        assert_eq!(advice[2].command.as_deref(), Some("code ."));
        assert_eq!(
            advice[3].message.0,
            Advised::FileWatching {
                watchers: vec!["vite".into(), "nodemon".into()]
            }
        );
        // On a FUSE mount off WSL neither applies.
        let obs = observations(MountKind::Fuse, false, 10, 5, GitSettings::default());
        assert_eq!(
            ids(&moved(&with_context(obs, context))),
            vec![AdviceId::Migrate]
        );
    }
}
