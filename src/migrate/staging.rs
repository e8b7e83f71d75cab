//! The staging folder, `<parent>/.<name>.wsl-place-staging`, beside the destination so the final
//! rename stays on one file system: made for one source, filled by the copy, sealed when
//! verified, and removed when the copy is in place or the migration is abandoned.
//!
//! Inside: `source` (whose migration this is), `journal` (verified files), `tree/` (the copy),
//! and once sealed `manifest` and `finalising`.

use super::journal;
use crate::error::{Failure, Result};
use std::path::{Path, PathBuf};

/// Records which source the staging folder belongs to.
const SOURCE_FILE: &str = "source";
/// Present once the copy is verified and complete.
const MARKER: &str = "finalising";

/// The staging folder of one migration.
#[derive(Debug, Clone)]
pub struct Staging {
    dir: PathBuf,
    source: PathBuf,
    /// The migration whose command resumes this one (a worktree moves with its repository).
    command: (PathBuf, PathBuf),
}

impl Staging {
    /// The staging folder for moving `source` to `destination`.
    pub fn new(source: &Path, destination: &Path) -> Self {
        let name = destination.file_name().unwrap_or_default();
        let mut staged = std::ffi::OsString::from(".");
        staged.push(name);
        staged.push(".wsl-place-staging");
        Self {
            dir: destination.with_file_name(staged),
            source: source.to_path_buf(),
            command: (source.to_path_buf(), destination.to_path_buf()),
        }
    }

    /// The same staging, resumed by migrating `source` to `destination` (a worktree's, by its
    /// repository's command).
    pub fn resumed_by(mut self, source: &Path, destination: &Path) -> Self {
        self.command = (source.to_path_buf(), destination.to_path_buf());
        self
    }

    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// The repository being moved.
    pub fn source(&self) -> &Path {
        &self.source
    }

    /// Where the copy is built.
    pub fn tree(&self) -> PathBuf {
        self.dir.join("tree")
    }

    pub fn journal(&self) -> PathBuf {
        self.dir.join("journal")
    }

    pub fn manifest(&self) -> PathBuf {
        self.dir.join("manifest")
    }

    pub fn marker(&self) -> PathBuf {
        self.dir.join(MARKER)
    }

    /// The copy is verified and complete: only finalising is left.
    pub fn is_sealed(&self) -> bool {
        self.marker().is_file()
    }

    /// `failure`, which stopped the copy, saying the work so far is kept; its exit code stays.
    pub fn kept(&self, failure: &Failure) -> Failure {
        Failure {
            code: failure.code,
            message: format!(
                "{}; {}",
                failure.message.trim_end_matches('.'),
                super::questions::how_to_continue(&self.command.0, &self.command.1, &self.dir)
            ),
        }
    }

    /// Refuses a staging folder that belongs to a different source, or was not made by us.
    pub fn check_owner(&self) -> Result<()> {
        let Ok(listing) = std::fs::read_dir(&self.dir) else {
            return Ok(());
        };
        match recorded_owner(&self.dir.join(SOURCE_FILE)) {
            Some(owner) if owner == self.source => Ok(()),
            Some(owner) => Err(Failure::input(format!(
                "{} holds an interrupted migration of {}, not of {}; finish it or run `wsl-place migrate {} --to <same destination> --abort`, or choose another --to.",
                self.dir.display(),
                owner.display(),
                self.source.display(),
                owner.display()
            ))),
            // Killed between creating it and recording the source: nothing else in it yet.
            None if listing
                .flatten()
                .all(|e| e.file_name() == SOURCE_FILE || e.file_name() == "source.tmp") =>
            {
                Ok(())
            }
            None => Err(Failure::input(format!(
                "{} exists but was not made by wsl-place; move it away and run again.",
                self.dir.display()
            ))),
        }
    }

    /// Makes the folder (or keeps an interrupted run's) and records the source in it.
    pub fn create(&self) -> Result<()> {
        if let Some(parent) = self.dir.parent() {
            std::fs::create_dir_all(parent).map_err(|e| Failure::io("create", parent, &e))?;
        }
        match std::fs::create_dir(&self.dir) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(Failure::io("create the staging directory", &self.dir, &e)),
        }
        let owner = self.dir.join(SOURCE_FILE);
        if recorded_owner(&owner).is_none() {
            let tmp = self.dir.join("source.tmp");
            std::fs::write(&tmp, format!("{}\n", journal::escape_path(&self.source)))
                .and_then(|_| std::fs::rename(&tmp, &owner))
                .map_err(|e| Failure::io("write", &owner, &e))?;
        }
        Ok(())
    }

    /// Removes the folder and all in it (however deep); a folder already gone is fine.
    pub fn remove(&self) -> Result<()> {
        match crate::dirfd::remove_all(&self.dir) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(Failure::io("remove the staging directory", &self.dir, &e)),
        }
    }

    /// `--abort`: removes an interrupted migration's folder, read-only copies included. Returns
    /// false when there was none.
    pub fn abort(&self) -> Result<bool> {
        if std::fs::symlink_metadata(&self.dir).is_err() {
            return Ok(false);
        }
        self.check_owner()?;
        make_writable(&self.dir);
        self.remove()?;
        Ok(true)
    }
}

fn recorded_owner(owner: &Path) -> Option<PathBuf> {
    let text = std::fs::read_to_string(owner).ok()?;
    journal::unescape_path(text.strip_suffix('\n')?)
}

/// Read-only directories copied from the source would stop an unprivileged removal.
fn make_writable(dir: &Path) {
    use std::os::unix::fs::PermissionsExt;
    for item in walkdir::WalkDir::new(dir)
        .follow_links(false)
        .into_iter()
        .flatten()
    {
        if item.file_type().is_dir()
            && let Ok(meta) = item.metadata()
        {
            let mode = meta.permissions().mode();
            if mode & 0o700 != 0o700 {
                let _ = std::fs::set_permissions(
                    item.path(),
                    std::fs::Permissions::from_mode(mode | 0o700),
                );
            }
        }
    }
}
