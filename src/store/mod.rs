//! Everything the tool keeps on disk between runs, in one room (uv's `uv-state` and `uv-cache`
//! as the model): a [`Store`] is made from the host's folders (`HOME`, `XDG_STATE_HOME`,
//! `XDG_CACHE_HOME`, read through [`HostEnv`] so tests point them at fixtures), decides once
//! whether a folder may be made, and hands out each file by what it is for. Nothing else in the
//! crate names these folders.
//!
//! The state folder (`$XDG_STATE_HOME/wsl-place` or `~/.local/state/wsl-place`) holds what
//! outlives a run: `manifests/<key>.manifest` (what a migration copied, [`manifest`]),
//! `destinations/<key>.snapshot` (the destination as the migration left it, [`snapshot`]),
//! `moved/<key>.json` (where each source went, [`moved`]) and `accuracy.json` (verified
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
    pub fn record_of_move(&self, source: &Path) -> Option<PathBuf> {
        self.state_file("moved", source, "json")
    }

    /// The record of verified predictions; None without a state folder.
    pub fn accuracy_record(&self) -> Option<PathBuf> {
        Some(self.state()?.join("accuracy.json"))
    }
}
