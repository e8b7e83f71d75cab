//! The store pnpm reads for a project, worked out by pnpm's own rule without starting pnpm in
//! the project (its `.npmrc` and `packageManager` are the repository's to choose).
//!
//! pnpm (`@pnpm/store-path`) takes a configured absolute `store-dir` as it is. Otherwise the
//! store is `<pnpm home>/store` (or `~/<dir>` for a `store-dir` of `~/<dir>`) when the project
//! can hard-link into that home, that is when both are on one file system; else it is
//! `<the project's file system's top>/.pnpm-store`. So asking
//! pnpm for its store from `/` answers for `/`'s file system, not the project's: on a machine
//! whose home is on another file system it says `/.pnpm-store`. Only the person's `store-dir`
//! is asked of pnpm (from the neutral folder, once per run); the rest follows here.

use super::super::asked::version_like_output;
use super::super::managers::Manager;
use crate::host::HostEnv;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The person's `store-dir`, as pnpm reads their configuration (`pnpm config get store-dir`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoreSetting {
    /// None when they set none: pnpm's home then holds the store.
    pub configured: Option<String>,
}

/// [`StoreSetting`] as pnpm answers it, asked once per run; None when pnpm does not answer.
pub fn asked_setting() -> Option<StoreSetting> {
    static ASKED: OnceLock<Option<StoreSetting>> = OnceLock::new();
    ASKED
        .get_or_init(|| {
            let said = version_like_output(Manager::Pnpm.name(), &["config", "get", "store-dir"])?;
            let value = said.lines().next().unwrap_or("").trim().to_string();
            let unset = value.is_empty() || value == "undefined" || value == "null";
            Some(StoreSetting {
                configured: (!unset).then_some(value),
            })
        })
        .clone()
}

/// The store pnpm reads for the project at `root`, without its format folder (`v3`, `v10`),
/// which pnpm adds; None when no home is known to put it in.
pub fn store_for(setting: &StoreSetting, env: &HostEnv, root: &Path) -> Option<PathBuf> {
    match setting.configured.as_deref() {
        Some(home_relative) if home_relative.starts_with("~/") => {
            let home = env.home()?;
            let store = home.join(&home_relative[2..]);
            Some(by_file_system(root, store, &home))
        }
        Some(dir) => Some(without_format_folder(&root.join(dir))),
        None => {
            let pnpm_home = pnpm_home(env)?;
            Some(by_file_system(root, pnpm_home.join("store"), &pnpm_home))
        }
    }
}

/// The store pnpm reads for the project at `root` and whether it copies from it ([`copies`]),
/// from the person's `store-dir` as the timing kept it. Without one (an estimated timing, an
/// older cache) pnpm's default is taken: starting pnpm to ask costs more than most people's
/// setting changes.
pub fn for_project(
    kept: Option<&StoreSetting>,
    env: &HostEnv,
    root: &Path,
) -> (Option<PathBuf>, bool) {
    let default = StoreSetting { configured: None };
    let setting = kept.unwrap_or(&default);
    (store_for(setting, env, root), copies(setting, env, root))
}

/// Whether pnpm copies every file of `root`'s install instead of hard-linking it from the store:
/// the store it reads is on another file system than the project (a configured one; pnpm's own
/// choice never is). False when no store is known or it is not there yet.
pub fn copies(setting: &StoreSetting, env: &HostEnv, root: &Path) -> bool {
    store_for(setting, env, root).is_some_and(|store| store.exists() && !same_fs(&store, root))
}

/// How a store files its packages' indexes, as far as it is read here.
pub enum Layout {
    /// No store there yet: it holds nothing.
    Empty,
    /// pnpm 10's (`v10/index/`) or pnpm 7 to 9's (`v3/files/`), the versioned folder given.
    Indexed { versioned: PathBuf, v10: bool },
}

impl Layout {
    /// The layout of the store at `store` (without its format folder); None for a store in a
    /// layout not read here (a later pnpm's format folder), whose contents cannot be told.
    pub fn of(store: &Path) -> Option<Layout> {
        if !store.exists() {
            return Some(Layout::Empty);
        }
        let (v10, v3) = (store.join("v10"), store.join("v3"));
        if v10.join("index").is_dir() {
            Some(Layout::Indexed {
                versioned: v10,
                v10: true,
            })
        } else if v3.join("files").is_dir() {
            Some(Layout::Indexed {
                versioned: v3,
                v10: false,
            })
        } else {
            None
        }
    }

    /// Whether the store indexes `name@version`, whose lock integrity is `integrity`. Only a
    /// name is looked up, nothing read: pnpm installs offline what its store indexes.
    pub fn holds(&self, name: &str, version: &str, integrity: &str) -> bool {
        let Layout::Indexed { versioned, v10 } = self else {
            return false;
        };
        let Some(hex) = sha512_hex(integrity) else {
            return false;
        };
        let key = format!("{}@{version}", name.replace('/', "+"));
        index_path(versioned, *v10, &key, &hex).exists()
    }
}

/// A package's index file in the store folder `versioned` (`.../v10` when `v10`, else `.../v3`):
/// `index/<2 hex>/<62 hex>-<key>.json`, or `files/<2 hex>/<126 hex>-index.json`, the hex the
/// integrity's digest, `key` the package as `name@version` with a scope's `/` as `+`.
pub fn index_path(versioned: &Path, v10: bool, key: &str, hex: &str) -> PathBuf {
    if v10 {
        let named = format!("{}-{key}.json", &hex[2..64]);
        versioned.join("index").join(&hex[..2]).join(named)
    } else {
        let named = format!("{}-index.json", &hex[2..]);
        versioned.join("files").join(&hex[..2]).join(named)
    }
}

/// The hex digest of a `sha512-<base64>` integrity, as the store names its index files.
pub fn sha512_hex(integrity: &str) -> Option<String> {
    let digest = crate::base::digest::base64_decode(integrity.strip_prefix("sha512-")?)?;
    (digest.len() == 64).then(|| crate::base::digest::hex(&digest))
}

/// pnpm's home on Linux: `$PNPM_HOME`, else `$XDG_DATA_HOME/pnpm`, else `~/.local/share/pnpm`.
fn pnpm_home(env: &HostEnv) -> Option<PathBuf> {
    let set = |key: &str| env.var(key).filter(|v| !v.is_empty()).map(PathBuf::from);
    set("PNPM_HOME")
        .or_else(|| set("XDG_DATA_HOME").map(|data| data.join("pnpm")))
        .or_else(|| Some(env.home()?.join(".local/share/pnpm")))
}

/// `store` when the project can hard-link into `home`; else the project's file system's own.
fn by_file_system(root: &Path, store: PathBuf, home: &Path) -> PathBuf {
    if same_fs(root, nearest_existing(home)) {
        return store;
    }
    // A project at the file system's very top too: pnpm 9 and 10 both said
    // `<top>/.pnpm-store` there (a tmpfs mounted for the project).
    mount_root(root).map_or(store, |top| top.join(".pnpm-store"))
}

/// `path`, or its nearest ancestor that exists (a home folder not made yet).
fn nearest_existing(path: &Path) -> &Path {
    path.ancestors()
        .find(|p| p.exists())
        .unwrap_or(Path::new("/"))
}

fn same_fs(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev(),
        _ => false,
    }
}

fn without_format_folder(dir: &Path) -> PathBuf {
    let versioned = dir.file_name().map(|n| n.to_string_lossy().into_owned());
    let format_folder = versioned.is_some_and(|n| {
        n.strip_prefix('v')
            .is_some_and(|d| !d.is_empty() && d.chars().all(|c| c.is_ascii_digit()))
    });
    match dir.parent() {
        Some(parent) if format_folder => parent.to_path_buf(),
        _ => dir.to_path_buf(),
    }
}

/// The top folder of the file system `path` is on: the last ancestor on the same device.
fn mount_root(path: &Path) -> Option<PathBuf> {
    use std::os::unix::fs::MetadataExt;
    let dev = std::fs::metadata(path).ok()?.dev();
    let mut top = path.to_path_buf();
    for ancestor in path.ancestors().skip(1) {
        match std::fs::metadata(ancestor) {
            Ok(meta) if meta.dev() == dev => top = ancestor.to_path_buf(),
            _ => break,
        }
    }
    Some(top)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setting(configured: Option<&str>) -> StoreSetting {
        StoreSetting {
            configured: configured.map(str::to_string),
        }
    }

    #[test]
    fn on_the_homes_file_system_the_store_is_pnpms_home_or_the_persons() {
        let tmp = tempfile::tempdir().unwrap();
        let (home, project) = (tmp.path().join("home"), tmp.path().join("app"));
        std::fs::create_dir_all(&project).unwrap();
        let home_text = home.to_str().unwrap();
        let env = HostEnv::from_pairs(&[("HOME", home_text)]);
        let default = store_for(&setting(None), &env, &project);
        assert_eq!(default, Some(home.join(".local/share/pnpm/store")));
        let xdg = HostEnv::from_pairs(&[("HOME", home_text), ("XDG_DATA_HOME", "/x/data")]);
        // The data folder is not there: its nearest existing ancestor is on the project's disk.
        assert_eq!(
            store_for(&setting(None), &xdg, &project),
            Some(PathBuf::from("/x/data/pnpm/store"))
        );
        let pnpm_home = HostEnv::from_pairs(&[("HOME", home_text), ("PNPM_HOME", "/p")]);
        assert_eq!(
            store_for(&setting(None), &pnpm_home, &project),
            Some(PathBuf::from("/p/store"))
        );
        assert_eq!(
            store_for(&setting(Some("~/stores/pnpm")), &env, &project),
            Some(home.join("stores/pnpm"))
        );
        assert_eq!(
            store_for(&setting(Some("/big/pnpm-store/v10")), &env, &project),
            Some(PathBuf::from("/big/pnpm-store"))
        );
    }
}
