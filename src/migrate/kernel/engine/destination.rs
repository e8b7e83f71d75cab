//! Where the copy goes: the destination folder (`--to`, or the policy's root plus the
//! repository's name), the manifest beside it, and the room its file system has: bytes, inodes
//! and the length of a name.

use crate::base::error::{Failure, Result};
use crate::host::HostEnv;
use crate::host::location;
use crate::store::moved;
use std::path::{Path, PathBuf};

/// `~/src/<name>` unless `--to` says otherwise; `default_root` is where the policy would put it.
pub fn destination(
    source: &Path,
    to: Option<&Path>,
    default_root: Option<&Path>,
) -> Result<PathBuf> {
    let chosen = match to {
        Some(to) => to.to_path_buf(),
        None => {
            let root = default_root.ok_or_else(|| {
                Failure::input(
                    "HOME is not set, so there is no default destination; pass --to DIR.",
                )
            })?;
            let name = source.file_name().ok_or_else(|| {
                Failure::input(format!(
                    "{} has no folder name to reuse; pass --to DIR.",
                    source.display()
                ))
            })?;
            root.join(name)
        }
    };
    let absolute = if chosen.is_absolute() {
        chosen
    } else {
        std::env::current_dir()
            .map_err(|e| Failure::io("find", Path::new("the current directory"), &e))?
            .join(chosen)
    };
    let destination = resolve_existing_prefix(&crate::host::mounts::lexical_normalise(&absolute));
    if destination.file_name().is_none() {
        return Err(Failure::input(format!(
            "{} cannot be a destination; pass --to with a new folder's path.",
            destination.display()
        )));
    }
    fits_beside(&destination)?;
    if let Some(blocker) = destination
        .ancestors()
        .skip(1)
        .find(|a| std::fs::symlink_metadata(a).is_ok())
        .filter(|a| !a.is_dir())
    {
        return Err(Failure::input(format!(
            "{} is a file, so the destination {} cannot be made inside it; choose another folder with --to.",
            blocker.display(),
            destination.display()
        )));
    }
    if destination.starts_with(source) {
        return Err(Failure::input(format!(
            "the destination {} is inside the source {}; choose a folder outside it with --to.",
            destination.display(),
            source.display()
        )));
    }
    Ok(destination)
}

/// Bytes the longest name wsl-place makes beside a destination adds to the destination's own:
/// `.<name>.wsl-place-staging`, and `<name>.wsl-place-manifest` where there is no state folder.
pub const NAME_OVERHEAD: usize = 19;

/// The longest destination name whose staging folder and manifest the file system holding
/// `destination` can name (255 bytes per name on Linux file systems, or what it reports).
pub fn longest_name(destination: &Path) -> usize {
    let name_max = statvfs_nearest(destination)
        .map(|s| s.f_namemax as usize)
        .filter(|n| *n > 0)
        .unwrap_or(255);
    name_max.saturating_sub(NAME_OVERHEAD)
}

/// Refuses a destination whose name leaves no room for the staging folder and the manifest
/// beside it, before anything is made (the staging folder's mkdir would fail mid-way).
fn fits_beside(destination: &Path) -> Result<()> {
    let name = destination.file_name().unwrap_or_default().len();
    let longest = longest_name(destination);
    if name <= longest {
        return Ok(());
    }
    Err(Failure::input(format!(
        "the destination's folder name is {name} bytes, but the staging folder and manifest wsl-place makes beside it add {NAME_OVERHEAD} bytes to it and the file system allows {} per name; choose a name of at most {longest} bytes with --to.",
        longest + NAME_OVERHEAD
    )))
}

/// Canonicalises the longest existing ancestor (symlinked home folders) and keeps the rest.
fn resolve_existing_prefix(path: &Path) -> PathBuf {
    let mut tail = Vec::new();
    let mut head = path.to_path_buf();
    loop {
        if let Ok(real) = std::fs::canonicalize(&head) {
            let mut out = real;
            out.extend(tail.iter().rev());
            return out;
        }
        match (head.file_name().map(|n| n.to_os_string()), head.parent()) {
            (Some(name), Some(parent)) => {
                tail.push(name);
                head = parent.to_path_buf();
            }
            _ => return path.to_path_buf(),
        }
    }
}

/// Free space for unprivileged writes on the file system of the nearest existing ancestor.
pub fn free_bytes(path: &Path) -> Option<u64> {
    let stat = statvfs_nearest(path)?;
    Some(stat.f_bavail.saturating_mul(stat.f_frsize))
}

/// Free inodes for unprivileged use on the file system of the nearest existing ancestor; None
/// where the number is not fixed (btrfs and others report no inode total).
pub fn free_inodes(path: &Path) -> Option<u64> {
    let stat = statvfs_nearest(path)?;
    (stat.f_files > 0).then_some(stat.f_favail)
}

fn statvfs_nearest(path: &Path) -> Option<rustix::fs::StatVfs> {
    rustix::fs::statvfs(nearest_existing(path)?).ok()
}

/// `path` if it exists, else its nearest ancestor that does: where the destination's files
/// would be made, which the space and writability checks ask about.
fn nearest_existing(path: &Path) -> Option<&Path> {
    path.ancestors().find(|a| a.exists())
}

/// The destination's nearest existing folder takes new files: a read-only file system or a
/// folder the person cannot write is refused before anything is walked or made (it was exit 3,
/// "cannot create the staging directory", after the walk; and a dry run promised the run).
pub fn refuse_unwritable(destination: &Path) -> Result<()> {
    let Some(folder) = destination.parent().and_then(nearest_existing) else {
        return Ok(());
    };
    let why = match rustix::fs::access(folder, rustix::fs::Access::WRITE_OK) {
        Ok(()) => return Ok(()),
        Err(rustix::io::Errno::ROFS) => "is on a read-only file system",
        Err(rustix::io::Errno::ACCESS | rustix::io::Errno::PERM) => "is not writable by you",
        // Anything else the copy's own creation will say, with its cause.
        Err(_) => return Ok(()),
    };
    Err(Failure::input(format!(
        "the destination {} cannot be made: {} {why}; choose another --to (or make it writable). Nothing was copied.",
        crate::base::pathtext::display(destination),
        crate::base::pathtext::display(folder)
    )))
}

/// The first of `NAME-2` .. `NAME-9` beside `destination` that nothing occupies.
pub fn free_name(destination: &Path) -> Option<PathBuf> {
    let name = destination.file_name()?.to_string_lossy().into_owned();
    (2..10)
        .map(|n| destination.with_file_name(format!("{name}-{n}")))
        .find(|candidate| std::fs::symlink_metadata(candidate).is_err())
}

/// `--to`, else where an earlier run moved this source (run again at the old place: its record
/// says where, whether the copy is still there or not), else the policy's root plus the
/// repository's name.
pub fn chosen(
    env: &HostEnv,
    to: Option<&Path>,
    source: &Path,
    default_root: Option<&Path>,
) -> Result<PathBuf> {
    let recorded = moved::recorded(env, source).map(|m| m.destination);
    destination(source, to.or(recorded.as_deref()), default_root)
}

/// `/proc`, `/sys` and their kin hold no repository, and their files change size while read.
pub fn refuse_kernel_interface(env: &HostEnv, source: &Path) -> Result<()> {
    let table = location::MountTable::read(env)?;
    match table.mount_for(source) {
        Some(mount) if crate::host::mounts::is_kernel_interface(&mount.fstype) => {
            Err(Failure::input(format!(
                "{} is on {}, a kernel file system whose files are made up when read, not a repository; nothing was copied.",
                source.display(),
                mount.fstype
            )))
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn destination_rules() {
        let src = Path::new("/work/src/app");
        assert_eq!(
            destination(src, None, Some(Path::new("/nonexistent-h/src"))).unwrap(),
            PathBuf::from("/nonexistent-h/src/app")
        );
        let err = destination(src, Some(Path::new("/work/src/app/sub")), None).unwrap_err();
        assert!(err.message.contains("inside the source"), "{err}");
        assert!(destination(src, None, None).is_err());
        assert_eq!(
            super::super::staging::Staging::new(src, Path::new("/h/src/app")).path(),
            Path::new("/h/src/.app.wsl-place-staging")
        );
        assert_eq!(
            crate::store::moved::legacy_manifest_path(Path::new("/h/src/app")),
            PathBuf::from("/h/src/app.wsl-place-manifest")
        );
    }
}
