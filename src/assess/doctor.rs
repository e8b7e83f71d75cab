//! `wsl-place doctor`: what the tool sees on this host, for a person to read and a bug report to
//! carry. Every fact comes from the places `check` reads (the host facts, the mount table, the
//! programs on `PATH`, the Windows side through the one documented interop call), each under a
//! time cap; no Windows program is started but that call, and no program on a Windows drive.

use crate::assess::pipeline::git_cache;
use crate::host::location::{self, MountTable};
use crate::host::mounts::{MountEntry, MountKind};
use crate::host::programs::{self, OnPath, WindowsProgram};
use crate::host::{Host, HostEnv};
use crate::measure::deps::managers::{self, Manager};
use crate::measure::windows_tools::{self, WindowsSide};
use crate::store::Store;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// The managers whose installs `check` times, in the order the report lists them.
fn sampled_managers() -> impl Iterator<Item = Manager> {
    Manager::ALL
        .into_iter()
        .filter(|&manager| managers::of(manager).sampled())
}

/// Everything `doctor` reports.
#[derive(Debug, Clone, Serialize)]
pub struct DoctorReport {
    /// As in `check`: WSL or not, its version, the distribution, the evidence.
    pub host: Host,
    /// Every Windows drive or share WSL mounts (drvfs: 9p, virtiofs, WSL 1), as classified.
    pub drives: Vec<Drive>,
    /// The file system of the home folder, where `migrate` copies to.
    pub linux_disk: Option<Disk>,
    pub git: Program,
    pub managers: Vec<Program>,
    /// On WSL: the Windows profile and the git clients and editors installed there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub windows: Option<WindowsSide>,
    pub folders: Folders,
    /// What the tool could not tell, and why, one sentence each.
    pub unknown: Vec<String>,
}

/// One Windows drive or share as mounted here.
#[derive(Debug, Clone, Serialize)]
pub struct Drive {
    pub mount_point: PathBuf,
    pub fstype: String,
    pub kind: MountKind,
    pub source: String,
    /// The Windows folder it shows (`C:\`), when known.
    pub windows: Option<String>,
    /// Why its letter is unknown, when it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// The Linux disk: the home folder's mount.
#[derive(Debug, Clone, Serialize)]
pub struct Disk {
    pub home: PathBuf,
    pub mount_point: PathBuf,
    pub fstype: String,
    pub kind: MountKind,
}

/// git or a package manager as `PATH` finds it.
#[derive(Debug, Clone, Serialize)]
pub struct Program {
    pub name: String,
    /// `linux`, `windows` (never started) or `missing`.
    pub found: Found,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<PathBuf>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Windows' program first on `PATH`: where, as both sides name it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub windows_program: Option<WindowsProgram>,
    /// npm only: its cache folder and whether it holds an index a sample can be served from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache: Option<Cache>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Found {
    Linux,
    Windows,
    Missing,
}

#[derive(Debug, Clone, Serialize)]
pub struct Cache {
    pub dir: PathBuf,
    pub has_index: bool,
}

/// Where the tool keeps its record (migrations, accuracy) and its cache.
#[derive(Debug, Clone, Serialize)]
pub struct Folders {
    pub state: Option<PathBuf>,
    pub cache: Option<PathBuf>,
}

/// The fields of a record that hold user names and paths, for the line shown before it is
/// written.
pub const PERSONAL_FIELDS: &str = "host.distro, host.kernel, drives[].mount_point and .windows, linux_disk.home, git.path, managers[].path and .cache, windows.profile and its tools' found_at, folders";

/// Looks at this host.
pub fn look(env: &HostEnv) -> DoctorReport {
    let mut unknown = Vec::new();
    let table = MountTable::read(env)
        .map_err(|e| unknown.push(format!("the mount table could not be read: {e}")))
        .ok();
    let host = match &table {
        Some(table) => location::host(env, table),
        None => crate::host::detect(&env.read_facts(), Default::default()),
    };
    let drives = table.as_ref().map_or_else(Vec::new, |t| drives(&t.entries));
    let linux_disk = table
        .as_ref()
        .and_then(|t| disk(env, &t.entries, &mut unknown));
    let windows = match (&table, host.wsl) {
        (Some(table), true) => Some(windows_tools::find(env, table)),
        _ => None,
    };
    let git = git(env);
    if git.found == Found::Missing {
        unknown.push(
            "no Linux git on PATH: git status is predicted, never run; install git inside WSL"
                .to_string(),
        );
    }
    DoctorReport {
        host,
        drives,
        linux_disk,
        git,
        managers: sampled_managers().map(|m| manager(env, m)).collect(),
        windows,
        folders: folders(env),
        unknown,
    }
}

fn drives(entries: &[MountEntry]) -> Vec<Drive> {
    entries
        .iter()
        .filter(|e| e.is_drvfs())
        .map(|e| Drive {
            mount_point: e.mount_point.clone(),
            fstype: e.fstype.clone(),
            kind: e.kind(),
            source: e.source.clone(),
            windows: e.windows_root(),
            note: e.unknown_drive_note(),
        })
        .collect()
}

fn disk(env: &HostEnv, entries: &[MountEntry], unknown: &mut Vec<String>) -> Option<Disk> {
    let Some(home) = env.home().filter(|h| h.is_dir()) else {
        unknown.push("no home folder (HOME unset or missing): no Linux disk to name".into());
        return None;
    };
    let real = std::fs::canonicalize(&home).unwrap_or_else(|_| home.clone());
    let mount = crate::host::mounts::mount_for(entries, &real)?;
    Some(Disk {
        home,
        mount_point: mount.mount_point.clone(),
        fstype: mount.fstype.clone(),
        kind: mount.kind(),
    })
}

/// The git a shell finds first, and the one the tool starts (the first Linux one), with its
/// version as `check` reads it (cached per boot and build).
fn git(env: &HostEnv) -> Program {
    let mut program = on_path(env, "git");
    if let Some(linux) = crate::host::git::linux_git() {
        program.found = Found::Linux;
        program.path = Some(linux.to_path_buf());
        program.version = git_cache::facts(env, true).version.map(|v| v.to_string());
    }
    program
}

fn manager(env: &HostEnv, manager: Manager) -> Program {
    let mut program = on_path(env, manager.name());
    if program.found == Found::Linux {
        // As `check` asks it: once per build, kept in the cache, under the question's limit.
        program.version = crate::measure::deps::manager::version(env, manager)
            .ok()
            .flatten();
    }
    if manager == Manager::Npm {
        program.cache =
            crate::measure::deps::samplers::npm_cache::NpmCache::of(env).map(|c| Cache {
                dir: c.dir().to_path_buf(),
                has_index: c.dir().join("_cacache/index-v5").is_dir(),
            });
    }
    program
}

fn on_path(env: &HostEnv, name: &str) -> Program {
    let (found, path, windows_program) = match programs::find(env, name) {
        OnPath::Linux(path) => (Found::Linux, Some(path), None),
        OnPath::Windows(program) => (Found::Windows, Some(program.path.clone()), Some(program)),
        OnPath::Missing => (Found::Missing, None, None),
    };
    Program {
        name: name.to_string(),
        found,
        path,
        version: None,
        windows_program,
        cache: None,
    }
}

fn folders(env: &HostEnv) -> Folders {
    let store = Store::of(env);
    let (record, cache) = store.record_and_cache_folders();
    Folders {
        state: record.map(Path::to_path_buf),
        cache: cache.map(Path::to_path_buf),
    }
}
