//! The cache folder (`$XDG_CACHE_HOME/wsl-place` or `~/.cache/wsl-place`): what only saves time,
//! safe to delete. Each file by what it keeps ([`CacheFile`]); what an entry holds and when it
//! is still fresh is its owner's business, where it lives and whether the folder may be made is
//! this file's.

use super::Store;
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::path::{Path, PathBuf};

/// One file of the cache, by what it keeps.
#[derive(Debug, Clone, Copy)]
pub enum CacheFile<'a> {
    /// A mount's measured costs (`assess::pipeline::mount_cache`), by a key naming the
    /// machine, boot, kernel and mount: `mounts/<crc32 of the key>.json`.
    MountProbe(&'a str),
    /// What git said of itself (`assess::pipeline::git_cache`): `git.json`.
    GitFacts,
    /// A repository's `node_modules` figures (`assess::pipeline::dependency_cache`):
    /// `dependencies/<crc32 of the repository's path>.json`.
    Dependencies(&'a Path),
    /// The hook's last answer for a repository (`assess::advisory`): `advisory/<key>.json`.
    Advisory(&'a Path),
    /// What a package manager's build said its version is: `manager/version-<manager>.json`.
    ManagerVersion(&'a str),
    /// A package manager's own work, timed on this machine:
    /// `manager/<manager>-<version>.json`.
    ManagerTiming { manager: &'a str, version: &'a str },
    /// A manager's timing on one project's sample, too small or odd to stand for others
    /// (`measure::deps::timing_cache`): `manager/project/<manager>-<version>-<key>.json`.
    ProjectManagerTiming {
        manager: &'a str,
        version: &'a str,
        root: &'a Path,
    },
    /// Why a sample of a project's packages failed with a manager version (plain text):
    /// `manager/unsampled/<manager>-<version>-<key>`.
    UnsampledNote {
        manager: &'a str,
        version: &'a str,
        root: &'a Path,
    },
    /// The shell nudge's state (`assess::nudge`): `nudge.json`.
    NudgeState,
    /// The lock a prompt and a learner take to change the nudge's state: `nudge.lock`.
    NudgeLock,
}

impl CacheFile<'_> {
    /// Its path below the cache folder.
    fn relative(self) -> PathBuf {
        let key = crate::base::pathtext::file_key;
        match self {
            Self::MountProbe(key) => PathBuf::from(format!(
                "mounts/{:08x}.json",
                crc32fast::hash(key.as_bytes())
            )),
            Self::GitFacts => PathBuf::from("git.json"),
            Self::Dependencies(root) => {
                let hash = crc32fast::hash(root.as_os_str().as_encoded_bytes());
                PathBuf::from(format!("dependencies/{hash:08x}.json"))
            }
            Self::Advisory(repository) => {
                PathBuf::from(format!("advisory/{}.json", key(repository)))
            }
            Self::ManagerVersion(manager) => {
                PathBuf::from(format!("manager/version-{manager}.json"))
            }
            Self::ManagerTiming { manager, version } => {
                PathBuf::from(format!("manager/{manager}-{}.json", file_safe(version)))
            }
            Self::ProjectManagerTiming {
                manager,
                version,
                root,
            } => PathBuf::from(format!(
                "manager/project/{manager}-{}-{}.json",
                file_safe(version),
                key(root)
            )),
            Self::UnsampledNote {
                manager,
                version,
                root,
            } => {
                let version = version.replace(['/', '\\'], "_");
                PathBuf::from(format!(
                    "manager/unsampled/{manager}-{version}-{}",
                    key(root)
                ))
            }
            Self::NudgeState => PathBuf::from("nudge.json"),
            Self::NudgeLock => PathBuf::from("nudge.lock"),
        }
    }
}

/// A version as a file name: letters, digits and dots, at most 40 of them.
fn file_safe(version: &str) -> String {
    version
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' {
                c
            } else {
                '_'
            }
        })
        .take(40)
        .collect()
}

impl Store {
    /// Where `file` is, to read; None without a cache folder (no home, no `XDG_CACHE_HOME`).
    pub fn cache_file(&self, file: CacheFile) -> Option<PathBuf> {
        Some(self.cache.as_ref()?.join(file.relative()))
    }

    /// The entry in `file` (`what` names it in a warning about a file that is not one); None
    /// when there is none, or it does not parse (the next run writes it again).
    pub fn load<T: DeserializeOwned>(&self, file: CacheFile, what: &str) -> Option<T> {
        let bytes = crate::base::input::read_cache(&self.cache_file(file)?, what)?;
        serde_json::from_slice(&bytes).ok()
    }

    /// Keeps `value` in `file` when the cache folder may be written ([`Store::may_write_cache`]);
    /// a failure to write only costs the next run the work the cache saves.
    pub fn keep<T: Serialize>(&self, file: CacheFile, value: &T) {
        if self.may_write_cache()
            && let Some(path) = self.cache_file(file)
        {
            crate::base::input::write_json_atomically(&path, value);
        }
    }

    /// Whether a cache may be written: the cache folder is made when missing (as the XDG
    /// specification asks, with every missing parent, readable by the user alone), always below
    /// `$XDG_CACHE_HOME`, and below the home only when it exists (`HOME=/nonexistent`, as
    /// service accounts and sandboxes have, means "no home", and a run as root must not make
    /// one). When it cannot be made (a file in the way), one line says so, once per run.
    pub fn may_write_cache(&self) -> bool {
        self.make_cache()
            .map_err(|problem| {
                static SAID: std::sync::Once = std::sync::Once::new();
                SAID.call_once(|| crate::base::input::warn(&problem));
            })
            .is_ok_and(|made| made)
    }

    /// As [`Store::may_write_cache`], saying nothing: for the shell's prompt.
    pub fn may_write_cache_quietly(&self) -> bool {
        self.make_cache().is_ok_and(|made| made)
    }

    fn make_cache(&self) -> Result<bool, String> {
        let Some(dir) = &self.cache else {
            return Ok(false);
        };
        let home_exists = self.home.as_ref().is_some_and(|home| home.is_dir());
        // An XDG_CACHE_HOME below a home that does not exist would make that home.
        let makes_home = !home_exists && self.home.as_ref().is_some_and(|h| dir.starts_with(h));
        if (!self.cache_from_xdg && !home_exists) || makes_home {
            return Ok(false);
        }
        use std::os::unix::fs::DirBuilderExt;
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map(|()| true)
            .map_err(|e| {
                format!(
                    "cannot make the cache folder {} ({e}), so nothing is cached; set XDG_CACHE_HOME to a folder, or move what is in the way.",
                    crate::base::pathtext::display(dir)
                )
            })
    }
}
