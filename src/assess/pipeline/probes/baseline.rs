//! Which baseline is fair for a repository: `$HOME` (or `--baseline`) when it is a readable
//! folder on a local disk; the repository's own figures when both are on one mount; none, with
//! the reason, on memory, on a mount that is no local disk, or without a usable folder.

use crate::assess::pipeline::Settings;
use crate::base::error::{Failure, Result};
use crate::host::HostEnv;
use crate::host::location::{self, MountTable};
use crate::host::mounts::{MountEntry, MountKind};
use std::path::{Path, PathBuf};

/// Where the Linux-disk side of the comparison is measured, or why it is not.
pub enum Baseline<'a> {
    Probe(PathBuf, &'a MountEntry),
    Same(PathBuf, String),
    None(String),
}

/// `dir`, canonical, when it is a readable directory; otherwise why not, as the end of a sentence
/// that starts with its name.
fn usable_dir(dir: &Path) -> std::result::Result<PathBuf, String> {
    let canonical = std::fs::canonicalize(dir).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => "does not exist".to_string(),
        _ => format!("cannot be resolved ({e})"),
    })?;
    if !canonical.is_dir() {
        return Err("is not a directory".into());
    }
    std::fs::read_dir(&canonical).map_err(|e| format!("cannot be read ({e})"))?;
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
        return Ok(Baseline::None(format!(
            "No baseline: no mount contains {}; the mount table looks incomplete.",
            dir.display()
        )));
    };
    let shown = crate::base::pathtext::display(&dir);
    // `/proc`, `/sys`, `/dev`: no disk under them, so no Linux-disk figure to compare with.
    if crate::host::mounts::is_kernel_interface(&mount.fstype) {
        let why = format!(
            "is on {}, a kernel file system with no disk under it",
            mount.fstype
        );
        return match &settings.baseline {
            Some(_) => Err(Failure::input(format!(
                "the baseline {shown} {why}; pass --baseline a directory on the Linux disk."
            ))),
            None => Ok(Baseline::None(format!(
                "No baseline: $HOME ({shown}) {why}; pass --baseline DIR on the Linux disk to compare against."
            ))),
        };
    }
    Ok(baseline_on(dir, mount, current, &shown))
}

/// The folder the baseline is measured in: `--baseline`'s (an error when it is unusable) or
/// `$HOME`'s; Ok(Err) says why there is no baseline when `$HOME` is unset or unusable.
fn baseline_dir(
    env: &HostEnv,
    settings: &Settings,
) -> Result<std::result::Result<PathBuf, String>> {
    Ok(match (&settings.baseline, env.home()) {
        (Some(dir), _) => Ok(usable_dir(dir).map_err(|why| {
            Failure::input(format!(
                "the baseline {} {why}; pass --baseline a directory on the Linux disk.",
                dir.display()
            ))
        })?),
        (None, Some(home)) => usable_dir(&home).map_err(|why| {
            format!(
                "No baseline: $HOME ({}) {why}; pass --baseline DIR on the Linux disk to compare against.",
                home.display()
            )
        }),
        (None, None) => Err(
            "No baseline: $HOME is not set; pass --baseline DIR on the Linux disk to compare against.".into(),
        ),
    })
}

/// The baseline `dir` (`shown` as written) gives on its `mount`: probed on a local disk, the
/// same as the repository's on its own mount, none on memory or a mount that is no local disk.
fn baseline_on<'a>(
    dir: PathBuf,
    mount: &'a MountEntry,
    current: &MountEntry,
    shown: &str,
) -> Baseline<'a> {
    match mount.kind() {
        _ if mount.is_same_mount(current) => Baseline::Same(
            dir,
            format!(
                "The baseline {shown} is on the same mount as the repository ({} {}), so both sides are the same disk: there is nothing faster to move to here (pass --baseline DIR to compare with another disk).",
                mount.mount_point.display(),
                mount.fstype
            ),
        ),
        MountKind::Tmpfs => Baseline::None(format!(
            "The baseline {shown} is on tmpfs, which is memory rather than a disk and would flatter the move; pass --baseline DIR on the Linux disk (ext4) for a fair comparison."
        )),
        MountKind::Local | MountKind::Overlay | MountKind::Wsl1Lxfs | MountKind::Other => {
            Baseline::Probe(dir, mount)
        }
        kind => Baseline::None(format!(
            "The baseline {shown} is not on a local disk ({}, {}), so comparing against it would mislead; pass --baseline DIR on the Linux disk (ext4).",
            kind.as_str(),
            mount.fstype
        )),
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
