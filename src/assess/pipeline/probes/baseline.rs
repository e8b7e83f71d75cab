//! Which baseline is fair for a repository: `$HOME` (or `--baseline`) when it is a readable
//! folder on a local disk; the repository's own figures when both are on one mount; none, with
//! the reason, on memory, on a mount that is no local disk, or without a usable folder.

use crate::assess::pipeline::Settings;
use crate::base::error::{Failure, Result};
use crate::base::reason::Worded;
use crate::host::HostEnv;
use crate::host::location::{self, MountTable};
use crate::host::mounts::{MountEntry, MountKind};
use crate::measure::probe::{FolderProblem, NoBaseline};
use std::path::{Path, PathBuf};

/// Where the Linux-disk side of the comparison is measured, or why it is not.
pub enum Baseline<'a> {
    Probe(PathBuf, &'a MountEntry),
    Same(PathBuf, NoBaseline),
    None(NoBaseline),
}

/// `dir`, canonical, when it is a readable directory; otherwise why not.
fn usable_dir(dir: &Path) -> std::result::Result<PathBuf, FolderProblem> {
    let canonical = std::fs::canonicalize(dir).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => FolderProblem::Missing,
        _ => FolderProblem::Unresolvable {
            error: e.to_string(),
        },
    })?;
    if !canonical.is_dir() {
        return Err(FolderProblem::NotAFolder);
    }
    std::fs::read_dir(&canonical).map_err(|e| FolderProblem::Unreadable {
        error: e.to_string(),
    })?;
    Ok(canonical)
}

/// The fair baseline for a repository on `current`: `$HOME` (or `--baseline`) on a local disk.
pub fn choose_baseline<'a>(
    env: &HostEnv,
    settings: &Settings,
    table: &'a MountTable,
    current: &MountEntry,
) -> Result<Baseline<'a>> {
    let dir = match baseline_dir(env, settings)? {
        Ok(dir) => dir,
        Err(none) => return Ok(Baseline::None(none)),
    };
    let Some(mount) = table.mount_for(&dir) else {
        return Ok(Baseline::None(NoBaseline::NoMount { folder: dir }));
    };
    // `/proc`, `/sys`, `/dev`: no disk under them, so no Linux-disk figure to compare with.
    if crate::host::mounts::is_kernel_interface(&mount.fstype) {
        return match &settings.baseline {
            Some(_) => Err(Failure::input(format!(
                "the baseline {} is on {}, a kernel file system with no disk under it; pass --baseline a directory on the Linux disk.",
                crate::base::pathtext::display(&dir),
                mount.fstype
            ))),
            None => Ok(Baseline::None(NoBaseline::KernelFileSystem {
                folder: dir,
                fstype: mount.fstype.clone(),
            })),
        };
    }
    Ok(baseline_on(dir, mount, current))
}

/// The folder the baseline is measured in: `--baseline`'s (an error when it is unusable) or
/// `$HOME`'s; Ok(Err) says why there is no baseline when `$HOME` is unset or unusable.
fn baseline_dir(
    env: &HostEnv,
    settings: &Settings,
) -> Result<std::result::Result<PathBuf, NoBaseline>> {
    Ok(match (&settings.baseline, env.home()) {
        (Some(dir), _) => Ok(usable_dir(dir).map_err(|problem| {
            Failure::input(format!(
                "the baseline {} {}; pass --baseline a directory on the Linux disk.",
                dir.display(),
                problem.sentence()
            ))
        })?),
        (None, Some(home)) => {
            usable_dir(&home).map_err(|problem| NoBaseline::HomeUnusable { home, problem })
        }
        (None, None) => Err(NoBaseline::HomeUnset),
    })
}

/// The baseline `dir` gives on its `mount`: probed on a local disk, the same as the
/// repository's on its own mount, none on memory or a mount that is no local disk.
fn baseline_on<'a>(dir: PathBuf, mount: &'a MountEntry, current: &MountEntry) -> Baseline<'a> {
    match mount.kind() {
        _ if mount.is_same_mount(current) => {
            let why = NoBaseline::SameMount {
                folder: dir.clone(),
                mount_point: mount.mount_point.clone(),
                fstype: mount.fstype.clone(),
            };
            Baseline::Same(dir, why)
        }
        MountKind::Tmpfs => Baseline::None(NoBaseline::Memory { folder: dir }),
        MountKind::Local | MountKind::Overlay | MountKind::Wsl1Lxfs | MountKind::Other => {
            Baseline::Probe(dir, mount)
        }
        mount_kind => Baseline::None(NoBaseline::NotLocalDisk {
            folder: dir,
            mount_kind,
            fstype: mount.fstype.clone(),
        }),
    }
}

pub(super) fn label_for(
    env: &HostEnv,
    settings: &Settings,
    dir: &Path,
    repo: &Path,
    move_to: &str,
) -> String {
    let name = repo
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "repo".into());
    match (&settings.baseline, env.home()) {
        (None, Some(home))
            if home == dir || location::canonical_dir(&home).ok().as_deref() == Some(dir) =>
        {
            format!("{}/{name}", move_to.trim_end_matches('/'))
        }
        _ => dir.display().to_string(),
    }
}
