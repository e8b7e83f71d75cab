//! Where a path really lives: the host, the mount under it, and the paths Windows tools use.

use crate::base::error::{Failure, Result};
use crate::base::input;
use crate::host::mounts::{self, MountEntry, MountKind};
use crate::host::{self, Host, HostEnv, virtiofs};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

#[derive(Debug, Clone, Serialize)]
pub struct MountInfo {
    pub kind: MountKind,
    pub fstype: String,
    #[serde(with = "crate::base::pathtext::json")]
    pub mount_point: PathBuf,
    pub source: String,
    /// The directory of the source file system mounted there (not `/` for bind mounts).
    pub root: String,
    pub options: String,
    pub description: &'static str,
    /// Why this Windows drive's letter is unknown (a virtiofs tag WSL has no record of); absent
    /// otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl MountInfo {
    fn from_entry(entry: &MountEntry) -> Self {
        Self {
            kind: entry.kind(),
            fstype: entry.fstype.clone(),
            mount_point: entry.mount_point.clone(),
            source: entry.source.clone(),
            root: entry.root.clone(),
            options: entry.super_options.clone(),
            description: entry.kind().describe(),
            note: entry.unknown_drive_note(),
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Paths {
    /// The canonical Linux path.
    #[serde(with = "crate::base::pathtext::json")]
    pub linux: PathBuf,
    /// `C:\...` on a drive mount, `\\wsl.localhost\<distro>\...` for a Linux path on WSL.
    pub windows: Option<String>,
    /// `\\wsl$\<distro>\...`, for Windows 10 builds that reject `\\wsl.localhost`.
    pub windows_legacy: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Location {
    pub host: Host,
    pub mount: MountInfo,
    pub paths: Paths,
}

/// The host's mount table, read once through the host-facts door.
pub struct MountTable {
    pub entries: Vec<MountEntry>,
    /// Asks Windows which drive letters are mapped network drives, when one is looked at.
    env: HostEnv,
    /// The entries with mapped network drives filled in, made the first time a drive-letter
    /// mount is looked up.
    with_mapped_shares: OnceLock<Vec<MountEntry>>,
}

impl MountTable {
    pub fn read(env: &HostEnv) -> Result<Self> {
        let path = env.mountinfo_path();
        let text = input::read_regular(&path, input::MOUNTINFO_LIMIT, "mountinfo file")?;
        let mut entries = mounts::parse_bytes(&text).map_err(|e| {
            Failure::input(format!(
                "cannot parse {} at line {}: {}; is WSL_PLACE_PROC_ROOT pointing at a real mountinfo?",
                path.display(),
                e.line,
                e.reason
            ))
        })?;
        if entries.is_empty() {
            return Err(Failure::input(format!(
                "{} lists no mounts; is WSL_PLACE_PROC_ROOT pointing at a real mountinfo?",
                path.display()
            )));
        }
        if virtiofs::any(&entries) {
            let on_wsl = env.read_facts().name_wsl();
            virtiofs::resolve(&mut entries, &env.virtiofs_tags(), on_wsl);
        }
        Ok(Self {
            entries,
            env: env.clone(),
            with_mapped_shares: OnceLock::new(),
        })
    }

    /// Any Windows folder reached through drvfs (drive or network share): WSL's own mounts.
    pub fn has_drive_mount(&self) -> bool {
        self.entries.iter().any(MountEntry::is_drvfs)
    }

    /// The mount holding `path`. A drvfs mount of a drive letter may be a network share that
    /// Windows mapped to that letter, which mountinfo cannot show: only then, and once per run,
    /// the host facts ask Windows, and such a mount comes back with its share.
    pub fn mount_for(&self, path: &Path) -> Option<&MountEntry> {
        let found = mounts::mount_for(&self.entries, path)?;
        if found.drive_letter().is_none() {
            return Some(found);
        }
        let resolved = self.with_mapped_shares.get_or_init(|| {
            let mapped = self.env.mapped_drives();
            let mut entries = self.entries.clone();
            for entry in &mut entries {
                entry.mapped_share = entry
                    .drive_letter()
                    .and_then(|letter| mapped.share_of(letter))
                    .map(str::to_string);
            }
            entries
        });
        mounts::mount_for(resolved, path)
    }
}

/// Canonicalises a user-given directory, with one clear sentence for each way it can be wrong.
pub fn canonical_dir(path: &Path) -> Result<PathBuf> {
    let canonical = std::fs::canonicalize(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => Failure::input(format!(
            "{} does not exist; pass the path of a repository or directory.",
            path.display()
        )),
        _ => Failure::io("resolve", path, &e),
    })?;
    if !canonical.is_dir() {
        return Err(Failure::input(format!(
            "{} is not a directory; pass the repository's folder, not a file in it.",
            path.display()
        )));
    }
    std::fs::read_dir(&canonical).map_err(|e| Failure::io("read the directory", path, &e))?;
    Ok(canonical)
}

pub fn host(env: &HostEnv, table: &MountTable) -> Host {
    let root_kind = table.mount_for(Path::new("/")).map(MountEntry::kind);
    let mounts = host::MountFacts {
        drvfs: table.has_drive_mount(),
        wsl1_root: root_kind == Some(MountKind::Wsl1Lxfs),
    };
    host::detect(&env.read_facts(), mounts)
}

/// Locates an already canonical directory.
pub fn locate_in(host: &Host, table: &MountTable, canonical: &Path) -> Result<Location> {
    let entry = table.mount_for(canonical).ok_or_else(|| {
        Failure::input(format!(
            "no mount in the mount table contains {}; the mountinfo looks incomplete.",
            canonical.display()
        ))
    })?;
    let mount = MountInfo::from_entry(entry);
    let (windows, windows_legacy) = if entry.is_drvfs() {
        (mounts::windows_path_on_drive(entry, canonical), None)
    } else if let (true, Some(distro)) = (host.wsl, host.distro.as_deref()) {
        let (new, legacy) = mounts::wsl_unc_paths(distro, canonical);
        (Some(new), Some(legacy))
    } else {
        (None, None)
    };
    Ok(Location {
        host: host.clone(),
        mount,
        paths: Paths {
            linux: canonical.to_path_buf(),
            windows,
            windows_legacy,
        },
    })
}

/// Reads host facts and locates `path`, which must be a readable directory.
pub fn locate(env: &HostEnv, path: &Path) -> Result<Location> {
    let canonical = canonical_dir(path)?;
    let table = MountTable::read(env)?;
    let host = host(env, &table);
    locate_in(&host, &table, &canonical)
}
