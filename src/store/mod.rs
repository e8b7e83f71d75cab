//! Everything the tool keeps on disk between runs, in one room (uv's `uv-state` and `uv-cache`
//! as the model): a [`Store`] is made from the host's folders (`HOME`, `XDG_STATE_HOME`,
//! `XDG_CACHE_HOME`, read through [`HostEnv`] so tests point them at fixtures), decides once
//! whether a folder may be made, and hands out each file by what it is for. Nothing else in the
//! crate names these folders.
//!
//! The state folder (`$XDG_STATE_HOME/wsl-place` or `~/.local/state/wsl-place`) holds what
//! outlives a run: `manifests/<key>.manifest` (what a migration copied, [`manifest`]),
//! `destinations/<key>.snapshot` (the destination as the migration left it, [`snapshot`]),
//! `moved/<key>.json` (where each source went, [`moved`]), `started/<key>.json` (where a first
//! migration that has not finished is going, [`moved::Started`]) and `accuracy.json` (verified
//! predictions, [`accuracy`]). The cache folder holds what only saves time ([`CacheFile`]).
//! A sync's list of operations ([`sync_ops`]) lives in its staging folder, beside the copy.

pub mod accuracy;
mod cache;
pub mod manifest;
pub mod moved;
pub mod snapshot;
pub mod sync_ops;

pub use cache::CacheFile;

use crate::host::HostEnv;
use std::path::{Path, PathBuf};

/// The tool's folders on this host, as its environment names them.
#[derive(Debug, Clone)]
pub struct Store {
    home: Option<PathBuf>,
    /// `$XDG_STATE_HOME/wsl-place` or `~/.local/state/wsl-place`.
    state: Option<PathBuf>,
    /// The folder that must exist for the state folder to be made below it: the parent of
    /// `XDG_STATE_HOME`, or the home.
    state_anchor: Option<PathBuf>,
    /// `$XDG_CACHE_HOME/wsl-place` or `~/.cache/wsl-place`.
    cache: Option<PathBuf>,
    /// The cache folder comes from `XDG_CACHE_HOME`, not from the home.
    cache_from_xdg: bool,
}

impl Store {
    /// The folders `env` names. Nothing is read or made yet: each file is asked for when needed.
    pub fn of(env: &HostEnv) -> Self {
        let home = env.home();
        let xdg_state = env.var("XDG_STATE_HOME").map(PathBuf::from);
        // A relative XDG_CACHE_HOME is ignored, as the XDG specification says: it would put the
        // cache in whatever folder a command runs in.
        let xdg_cache = env
            .var("XDG_CACHE_HOME")
            .map(PathBuf::from)
            .filter(|p| p.is_absolute());
        Self {
            state: xdg_state
                .clone()
                .or_else(|| home.as_ref().map(|h| h.join(".local").join("state")))
                .map(|base| base.join("wsl-place")),
            state_anchor: match &xdg_state {
                Some(xdg) => xdg.parent().map(Path::to_path_buf),
                None => home.clone(),
            },
            cache_from_xdg: xdg_cache.is_some(),
            cache: xdg_cache
                .or_else(|| home.as_ref().map(|h| h.join(".cache")))
                .map(|base| base.join("wsl-place")),
            home,
        }
    }

    /// The state folder, when it exists or may be made: `HOME=/nonexistent` (service accounts,
    /// sandboxes) means no home, and nothing is made under a folder that does not exist. The
    /// one rule for every state file, read or written.
    fn state(&self) -> Option<&Path> {
        let state = self.state.as_deref()?;
        let anchored = self.state_anchor.as_deref().is_some_and(Path::is_dir);
        (state.exists() || anchored).then_some(state)
    }

    /// The record folder, as [`Store::state`] allows it, and the cache folder this environment
    /// names, whether it exists yet or not: for `doctor` to name them.
    pub fn record_and_cache_folders(&self) -> (Option<&Path>, Option<&Path>) {
        (self.state(), self.cache.as_deref())
    }

    fn state_file(&self, folder: &str, key: &Path, extension: &str) -> Option<PathBuf> {
        let name = format!("{}.{extension}", crate::base::pathtext::file_key(key));
        Some(self.state()?.join(folder).join(name))
    }

    /// Where the manifest of a migration to `destination` is kept; None without a state
    /// folder (then it goes beside the destination, [`moved::legacy_manifest_path`]).
    pub fn manifest_of(&self, destination: &Path) -> Option<PathBuf> {
        self.state_file("manifests", destination, "manifest")
    }

    /// Where the destination's own stat at the end of the migration (and of each sync) is kept,
    /// beside the manifest; None without a state folder.
    pub fn snapshot_of(&self, destination: &Path) -> Option<PathBuf> {
        self.state_file("destinations", destination, "snapshot")
    }

    /// Where the record of where `source` went is kept; None without a state folder.
    /// The folder of every migration's record; None without a state folder.
    pub fn records_of_moves(&self) -> Option<PathBuf> {
        Some(self.state()?.join("moved"))
    }

    pub fn record_of_move(&self, source: &Path) -> Option<PathBuf> {
        self.state_file("moved", source, "json")
    }

    /// Where a first migration of `source` that began and has not finished names its
    /// destination; None without a state folder.
    pub fn start_of_move(&self, source: &Path) -> Option<PathBuf> {
        self.state_file("started", source, "json")
    }

    /// The record of verified predictions; None without a state folder.
    pub fn accuracy_record(&self) -> Option<PathBuf> {
        Some(self.state()?.join("accuracy.json"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The layout earlier releases wrote: a record or cache file they left is read again.
    #[test]
    fn every_file_is_where_earlier_releases_kept_it() {
        let tmp = tempfile::tempdir().unwrap();
        let (state, cache) = (tmp.path().join("state"), tmp.path().join("cache"));
        let env = HostEnv::from_pairs(&[
            ("XDG_STATE_HOME", state.to_str().unwrap()),
            ("XDG_CACHE_HOME", cache.to_str().unwrap()),
        ]);
        let store = Store::of(&env);
        let (state, cache) = (state.join("wsl-place"), cache.join("wsl-place"));
        let app = Path::new("/home/u/app");
        let key = crate::base::pathtext::file_key(app);
        assert_eq!(
            store.manifest_of(app),
            Some(state.join(format!("manifests/{key}.manifest")))
        );
        assert_eq!(
            store.snapshot_of(app),
            Some(state.join(format!("destinations/{key}.snapshot")))
        );
        assert_eq!(
            store.record_of_move(app),
            Some(state.join(format!("moved/{key}.json")))
        );
        assert_eq!(store.accuracy_record(), Some(state.join("accuracy.json")));
        let crc = |bytes: &[u8]| format!("{:08x}", crc32fast::hash(bytes));
        let files = [
            (
                CacheFile::MountProbe("k"),
                format!("mounts/{}.json", crc(b"k")),
            ),
            (CacheFile::GitFacts, "git.json".to_string()),
            (
                CacheFile::Dependencies(app),
                format!(
                    "dependencies/{}.json",
                    crc(app.as_os_str().as_encoded_bytes())
                ),
            ),
            (CacheFile::Advisory(app), format!("advisory/{key}.json")),
            (
                CacheFile::ManagerVersion("npm"),
                "manager/version-npm.json".into(),
            ),
            (
                CacheFile::ManagerTiming {
                    manager: "npm",
                    version: "11.0/beta",
                },
                "manager/npm-11.0_beta.json".into(),
            ),
            (
                CacheFile::UnsampledNote {
                    manager: "npm",
                    version: "11/x",
                    root: app,
                },
                format!("manager/unsampled/npm-11_x-{key}"),
            ),
            (CacheFile::NudgeState, "nudge.json".into()),
            (CacheFile::NudgeLock, "nudge.lock".into()),
        ];
        for (file, relative) in files {
            assert_eq!(store.cache_file(file), Some(cache.join(relative)));
        }
    }

    /// `HOME=/nonexistent`: no state folder and no cache is made, though both have a name.
    #[test]
    fn nothing_is_made_under_a_home_that_does_not_exist() {
        let env = HostEnv::from_pairs(&[("HOME", "/nonexistent-home/u")]);
        let store = Store::of(&env);
        assert_eq!(store.record_of_move(Path::new("/a")), None);
        assert_eq!(store.accuracy_record(), None);
        assert!(store.cache_file(CacheFile::GitFacts).is_some());
        assert!(!store.may_write_cache_quietly());
        // A relative XDG_CACHE_HOME is no cache folder at all.
        let env = HostEnv::from_pairs(&[("XDG_CACHE_HOME", "cache")]);
        assert_eq!(Store::of(&env).cache_file(CacheFile::GitFacts), None);
    }

    #[test]
    fn the_cache_folder_is_made_for_the_user_alone() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("home");
        std::fs::create_dir(&home).unwrap();
        let env = HostEnv::from_pairs(&[("HOME", home.to_str().unwrap())]);
        let store = Store::of(&env);
        store.keep(CacheFile::GitFacts, &1);
        let folder = home.join(".cache/wsl-place");
        let mode = std::fs::metadata(&folder).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
        assert_eq!(store.load::<u32>(CacheFile::GitFacts, "test file"), Some(1));
        // The state folder is made by its first record, below an existing home.
        assert_eq!(
            store.accuracy_record(),
            Some(home.join(".local/state/wsl-place/accuracy.json"))
        );
    }
}
