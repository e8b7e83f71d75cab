//! The staging folder, `<parent>/.<name>.wsl-place-staging`, beside the destination so the final
//! rename stays on one file system: made for one source, filled by the copy, sealed when
//! verified, and removed when the copy is in place or the migration is abandoned.
//!
//! Inside: `source` (whose migration this is), `journal` (verified files), `tree/` (the copy),
//! and once sealed `manifest`, `node_modules.json` (what the next steps reinstall) and
//! `finalising`.
//!
//! A run holds an advisory lock (`flock`) on the folder from before it reads anything in it until
//! it exits. The kernel drops the lock when the process ends, however it ends, so a killed run
//! never blocks its own resume, while a second run of the same move is refused at once.

use crate::base::error::{Failure, Result};
use crate::base::pathtext::shell_quote;
use crate::store::manifest;
use std::ffi::OsString;
use std::fs::{File, TryLockError};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// Records which source the staging folder belongs to.
const SOURCE_FILE: &str = "source";
/// Present once the copy is verified and complete.
const MARKER: &str = "finalising";
/// `.<destination name>` + this is the staging folder's name.
const SUFFIX: &str = ".wsl-place-staging";
/// The staging folder of a sync (late edits copied to a finished migration's destination).
const SYNC_SUFFIX: &str = ".wsl-place-sync";

/// Inodes a staging folder takes besides the copy's tree: itself, `source`, `journal`,
/// `manifest`, `node_modules.json` and `finalising`.
pub const OWN_FILES: u64 = 6;

/// The staging folder's lock, held until dropped (or the process ends).
#[derive(Debug)]
pub struct Lock {
    _dir: File,
}

/// An interrupted migration of the same source to another destination, found beside this one's.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Elsewhere {
    #[serde(with = "crate::base::pathtext::json")]
    pub staging: PathBuf,
    #[serde(with = "crate::base::pathtext::json")]
    pub destination: PathBuf,
    /// The command that removes it.
    pub abort: String,
}

/// The staging folder of one migration.
#[derive(Debug, Clone)]
pub struct Staging {
    dir: PathBuf,
    source: PathBuf,
    /// The migration whose command resumes this one (a worktree moves with its repository).
    command: (PathBuf, PathBuf),
    /// What the command needs besides: ` --sync` for a sync's staging.
    flag: &'static str,
}

impl Staging {
    /// The staging folder for moving `source` to `destination`.
    pub fn new(source: &Path, destination: &Path) -> Self {
        Self {
            dir: beside(destination, SUFFIX),
            source: source.to_path_buf(),
            command: (source.to_path_buf(), destination.to_path_buf()),
            flag: "",
        }
    }

    /// The staging folder of a sync of `source` to its finished migration at `destination`:
    /// `.<name>.wsl-place-sync`, beside it, so each staged file is renamed into place.
    pub fn for_sync(source: &Path, destination: &Path) -> Self {
        Self {
            dir: beside(destination, SYNC_SUFFIX),
            flag: " --sync",
            ..Self::new(source, destination)
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

    /// The plan's node_modules, kept with the sealed copy: a run that only finishes it does not
    /// walk the source again, yet owes the same reinstall steps.
    pub fn node_modules(&self) -> PathBuf {
        self.dir.join("node_modules.json")
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
        let (source, destination) = (&self.command.0, &self.command.1);
        let how = match self.flag {
            "" => how_to_continue(source, destination, &self.dir),
            // Sealed: part of it may be in place already, and --abort refuses to give it up.
            flag if self.is_sealed() => format!(
                "the verified sync is kept in {} and only applying it is left: finish it with `{}`.",
                self.dir.display(),
                command(source, destination, flag)
            ),
            flag => format!(
                "the sync so far is kept in {}: resume with `{}`, or give it up with `{}`.",
                self.dir.display(),
                command(source, destination, flag),
                command(source, destination, " --abort")
            ),
        };
        Failure {
            code: failure.code,
            message: format!("{}; {how}", failure.message.trim_end_matches('.')),
        }
    }

    /// Refuses a staging folder that belongs to a different source, or was not made by us.
    pub fn check_owner(&self) -> Result<()> {
        let Ok(listing) = std::fs::read_dir(&self.dir) else {
            return Ok(());
        };
        match recorded_owner(&self.dir.join(SOURCE_FILE)) {
            Some(owner) if owner == self.source => Ok(()),
            // Going on would write over another run's verified work, or a folder not ours.
            Some(owner) => Err(Failure::would_lose_data(format!(
                "{} holds an interrupted migration of {}, not of {}; finish it or run `wsl-place migrate {} --to <same destination> --abort`, or choose another --to.",
                self.dir.display(),
                owner.display(),
                self.source.display(),
                owner.display()
            ))),
            // Killed between creating it and recording the source: nothing else in it yet.
            None if listing.flatten().all(|e| {
                let name = e.file_name();
                let name = name.to_string_lossy();
                // The record, or its temporary left by a run killed while writing it
                // (`source.tmp` from older versions).
                name == SOURCE_FILE
                    || name == "source.tmp"
                    || name.starts_with(".source.wsl-place-")
            }) =>
            {
                Ok(())
            }
            None => Err(Failure::would_lose_data(format!(
                "{} exists but was not made by wsl-place; move it away and run again.",
                self.dir.display()
            ))),
        }
    }

    /// Makes the folder (or keeps an interrupted run's), locks it unless `held` is its lock
    /// already, and records the source in it.
    pub fn create(&self, held: Option<Lock>) -> Result<Lock> {
        if let Some(parent) = self.dir.parent() {
            std::fs::create_dir_all(parent).map_err(|e| Failure::io("create", parent, &e))?;
        }
        let lock = match held {
            Some(lock) => lock,
            None => loop {
                match std::fs::create_dir(&self.dir) {
                    Ok(()) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                    Err(e) => {
                        return Err(Failure::io("create the staging directory", &self.dir, &e));
                    }
                }
                // None: a run that just finished removed it between our mkdir and our open.
                if let Some(lock) = self.lock_existing()? {
                    break lock;
                }
            },
        };
        let owner = self.dir.join(SOURCE_FILE);
        if recorded_owner(&owner).is_none() {
            crate::base::input::replace_whole(
                &owner,
                manifest::owner_text(&self.source).as_bytes(),
                None,
            )
            .map_err(|e| Failure::io("write", &owner, &e))?;
        }
        Ok(lock)
    }

    /// Locks the folder if there is one; None when there is none. Fails with exit code 4
    /// (`Busy`) while another run holds it.
    /// The lock on the staging folder if it exists, unless the run only reads: a dry run must
    /// not hold off a real one.
    pub fn lock_unless(&self, only_reads: bool) -> Result<Option<Lock>> {
        match only_reads {
            true => Ok(None),
            false => self.lock_existing(),
        }
    }

    pub fn lock_existing(&self) -> Result<Option<Lock>> {
        loop {
            let dir = match File::open(&self.dir) {
                Ok(dir) => dir,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
                Err(e) => return Err(Failure::io("open the staging directory", &self.dir, &e)),
            };
            match dir.try_lock() {
                Ok(()) => {}
                Err(TryLockError::WouldBlock) => return Err(self.busy()),
                // A file system without locks (some network mounts): go on unlocked, as
                // before locks existed, rather than refuse every migration there.
                Err(TryLockError::Error(_)) => return Ok(Some(Lock { _dir: dir })),
            }
            // Locked, but maybe a folder that a finishing run removed after we opened it: the
            // lock is only ours if the name still leads to what we locked.
            let current = std::fs::symlink_metadata(&self.dir).ok();
            let locked = dir.metadata().ok();
            match (current, locked) {
                (Some(c), Some(l)) if c.dev() == l.dev() && c.ino() == l.ino() => {
                    return Ok(Some(Lock { _dir: dir }));
                }
                (None, _) => return Ok(None),
                _ => continue,
            }
        }
    }

    /// Another run holds the folder: named by the source its staging records, which is another
    /// repository when that run moves a different one to the same destination.
    fn busy(&self) -> Failure {
        let holder = recorded_owner(&self.dir.join(SOURCE_FILE));
        match holder {
            Some(holder) if holder != self.source => Failure::busy(format!(
                "another wsl-place migration, of {}, is running and holds {}, where {} would be staged; wait for it to finish, or choose another --to.",
                holder.display(),
                self.dir.display(),
                self.source.display()
            )),
            _ => Failure::busy(format!(
                "another wsl-place migration of {} is running and holds {}; wait for it to finish (or stop it) and run the same command again.",
                self.source.display(),
                self.dir.display()
            )),
        }
    }

    /// Removes the folder and all in it (however deep); a folder already gone is fine.
    pub fn remove(&self) -> Result<()> {
        // The record of the source goes last: a run killed half-way through the removal leaves
        // a folder that still says whose it is, which the next run takes up (`check_owner`),
        // instead of one it must refuse as not made by wsl-place.
        let failed = |e| Failure::io("remove the staging directory", &self.dir, &e);
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(failed(e)),
        };
        for entry in entries.flatten() {
            if entry.file_name() != SOURCE_FILE {
                match crate::base::dirfd::remove_all(&entry.path()) {
                    Ok(()) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                    Err(e) => return Err(failed(e)),
                }
            }
        }
        match crate::base::dirfd::remove_all(&self.dir) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(failed(e)),
        }
    }

    /// `--abort`: removes an interrupted migration's folder, read-only copies included. Returns
    /// false when there was none.
    pub fn abort(&self) -> Result<bool> {
        if std::fs::symlink_metadata(&self.dir).is_err() {
            return Ok(false);
        }
        // Another migration's work, or a folder not wsl-place's: removing it would lose data.
        self.check_owner()
            .map_err(|refused| Failure::would_lose_data(refused.message))?;
        make_writable(&self.dir);
        self.remove()?;
        Ok(true)
    }
}

/// `.<destination name><suffix>`, beside the destination.
pub fn beside(destination: &Path, suffix: &str) -> PathBuf {
    let mut name = std::ffi::OsString::from(".");
    name.push(destination.file_name().unwrap_or_default());
    name.push(suffix);
    destination.with_file_name(name)
}

/// Interrupted migrations of `source` whose staging folders sit in `dirs` (the destination's
/// parent, the default root), other than `this` one: a run killed with `--to k1` and run again
/// with `--to k2` would otherwise leave `.k1.wsl-place-staging` behind without a word.
pub fn interrupted_elsewhere(source: &Path, this: &Path, dirs: &[&Path]) -> Vec<Elsewhere> {
    let mut found = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for dir in dirs {
        let Ok(listing) = std::fs::read_dir(dir) else {
            continue;
        };
        for item in listing.flatten() {
            let name = item.file_name();
            let Some(destination_name) = name
                .as_bytes()
                .strip_prefix(b".")
                .and_then(|n| n.strip_suffix(SUFFIX.as_bytes()))
                .filter(|n| !n.is_empty())
            else {
                continue;
            };
            let staging = item.path();
            if staging == this || !item.file_type().is_ok_and(|t| t.is_dir()) {
                continue;
            }
            if recorded_owner(&staging.join(SOURCE_FILE)).as_deref() != Some(source)
                || !seen.insert(staging.clone())
            {
                continue;
            }
            let destination = dir.join(OsString::from_vec(destination_name.to_vec()));
            let abort = format!(
                "wsl-place migrate {} --to {} --abort",
                crate::base::pathtext::shell_quote(source),
                crate::base::pathtext::shell_quote(&destination)
            );
            found.push(Elsewhere {
                staging,
                destination,
                abort,
            });
        }
    }
    found.sort_by(|a, b| a.staging.cmp(&b.staging));
    found
}

impl Elsewhere {
    /// One sentence for the person: where it is, and how to resume or remove it.
    pub fn sentence(&self, source: &Path) -> String {
        format!(
            "an interrupted migration of {} to {} is kept in {}; resume it with `wsl-place migrate {} --to {}`, or remove it with `{}`.",
            source.display(),
            self.destination.display(),
            self.staging.display(),
            crate::base::pathtext::shell_quote(source),
            crate::base::pathtext::shell_quote(&self.destination),
            self.abort
        )
    }
}

fn recorded_owner(owner: &Path) -> Option<PathBuf> {
    let text = std::fs::read_to_string(owner).ok()?;
    manifest::parse_owner(&text)
}

/// Read-only directories copied from the source would stop an unprivileged removal.
pub fn make_writable(dir: &Path) {
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
/// One sentence with the exact commands that resume or abandon the migration kept in `staging`.
pub fn how_to_continue(source: &Path, destination: &Path, staging: &Path) -> String {
    format!(
        "the copy so far is kept in {}: resume with `{}`, or remove it with `{}`.",
        staging.display(),
        command(source, destination, ""),
        command(source, destination, " --abort")
    )
}

pub fn command(source: &Path, destination: &Path, extra: &str) -> String {
    format!(
        "wsl-place migrate {} --to {}{extra}",
        shell_quote(source),
        shell_quote(destination)
    )
}
/// Staging folders of this source left by runs with another `--to`, beside this destination or
/// in the default root.
pub fn elsewhere_than(
    staging: &Staging,
    destination: &Path,
    default_root: Option<&Path>,
) -> Vec<Elsewhere> {
    let dirs: Vec<&Path> = destination
        .parent()
        .into_iter()
        .chain(default_root)
        .collect();
    interrupted_elsewhere(staging.source(), staging.path(), &dirs)
}
