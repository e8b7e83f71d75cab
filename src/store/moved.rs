//! What a finished migration leaves for later runs, out of both trees: its manifest (in the
//! state folder's `manifests/`, keyed by the destination) and a record of where each source went
//! (its `moved/`, keyed by the source's canonical path; [`Store`] keeps the layout).
//!
//! The source is never written, so the old place learns that it moved from here: `check`, the
//! hook, `survey` and the shell nudge ask [`migrated`]. The destination is the user's repository,
//! so nothing of wsl-place's sits in it or beside it either (earlier versions kept the manifest
//! beside it; such a manifest is still read, and moved here by the next run).

use super::Store;
use crate::base::clock::now_unix;
use crate::host::HostEnv;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Where a source went: written when a migration finishes, updated by a sync or a removal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Moved {
    #[serde(with = "crate::base::pathtext::json")]
    pub source: PathBuf,
    #[serde(with = "crate::base::pathtext::json")]
    pub destination: PathBuf,
    #[serde(with = "crate::base::pathtext::json")]
    pub manifest: PathBuf,
    /// When the migration finished, seconds since 1970.
    pub finished_unix: u64,
    /// When late edits were last synced to the destination, if ever.
    #[serde(default)]
    pub synced_unix: Option<u64>,
    /// `--remove-source` ran: what it proved copied is gone from the source.
    #[serde(default)]
    pub source_removed: bool,
    /// The copied files `--remove-source` kept at the source (changed since the copy), as
    /// escaped paths: any other file there later was made again after it.
    #[serde(default)]
    pub kept_at_removal: Vec<String>,
    /// The copy's folder as the migration left it: what is at the destination later is the
    /// copy only while it is this folder (None in records of versions that kept none).
    #[serde(default)]
    pub copy_folder: Option<Folder>,
    /// The source's folder when the migration finished: a folder made in its place since is
    /// another folder, whatever it holds.
    #[serde(default)]
    pub source_folder: Option<Folder>,
    /// What changed at the source since, as last counted (by the migration, a sync, `check`,
    /// the hook or `survey`): what the shell nudge, which cannot walk the source, says.
    #[serde(default)]
    pub since: Option<Counted>,
    /// The `safe.directory` entries the migration added to Windows' global git config, for
    /// `--abort` to take out again.
    #[serde(default)]
    pub windows_git: Option<WindowsGitRecord>,
    /// Copies made earlier to other destinations, oldest first (a second `migrate --to`, which
    /// asks): the fields above are the newest copy's, which a sync and `check` use.
    #[serde(default)]
    pub other_copies: Vec<OtherCopy>,
    /// When `--remove-source` ran (seconds since 1970): the old place's story from then on is
    /// "removed by wsl-place on that day", and what it removed is no change made here (None
    /// before it ran, and in records of versions that kept no date).
    #[serde(default)]
    pub source_removed_unix: Option<u64>,
    /// The commit the copy's HEAD named when the migration finished or a sync brought the old
    /// place's history: the old place's commits since are counted from it (None in records of
    /// versions that kept none, and outside git).
    #[serde(default)]
    pub copy_head: Option<String>,
    /// An operation on this migration that started and has not finished (`--sync`, `--abort`,
    /// `--remove-source`): written to disk before its first change, cleared after its last, so
    /// a Ctrl-C or a kill in between is never read as the person's edits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unfinished: Option<Unfinished>,
}

/// An operation after the move, begun and not yet ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unfinished {
    pub operation: Operation,
    /// When it began, seconds since 1970.
    pub started_unix: u64,
    /// The copy it works with.
    #[serde(with = "crate::base::pathtext::json")]
    pub destination: PathBuf,
}

/// The operations after the move that change a place.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Operation {
    Sync,
    Abort,
    RemoveSource,
}

impl Operation {
    /// The flag that starts it, and resumes it after an interrupt.
    pub fn flag(self) -> &'static str {
        match self {
            Operation::Sync => "--sync",
            Operation::Abort => "--abort",
            Operation::RemoveSource => "--remove-source",
        }
    }
}

/// An earlier copy of the same source elsewhere: what `--abort` of it, or of the newest copy,
/// needs to find and remove it, or to make it the record's copy again.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OtherCopy {
    #[serde(with = "crate::base::pathtext::json")]
    pub destination: PathBuf,
    #[serde(with = "crate::base::pathtext::json")]
    pub manifest: PathBuf,
    pub finished_unix: u64,
    #[serde(default)]
    pub synced_unix: Option<u64>,
    #[serde(default)]
    pub copy_folder: Option<Folder>,
    #[serde(default)]
    pub windows_git: Option<WindowsGitRecord>,
}

/// What was appended to Windows' global git config: the file, the entries and the exact text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WindowsGitRecord {
    #[serde(with = "crate::base::pathtext::json")]
    pub file: PathBuf,
    pub entries: Vec<String>,
    /// The bytes appended, as they were appended.
    pub block: String,
    /// The file did not exist before.
    pub created: bool,
}

/// The old place's changes against the manifest, counted at `unix`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counted {
    pub added: u64,
    pub changed: u64,
    pub removed: u64,
    pub bytes: u64,
    pub unix: u64,
    /// Commits here that the copy does not have (None when git could not tell, and in counts
    /// of versions that kept none).
    #[serde(default)]
    pub commits: Option<u64>,
}

impl Counted {
    /// Nothing changed, as of now: a migration or a sync just made the copy match the source.
    pub fn nothing_now() -> Self {
        Self {
            unix: now_unix(),
            commits: Some(0),
            ..Self::default()
        }
    }
}

/// One folder by its device and inode, never by a link to it: the same folder under its
/// path, moved or not, and no other.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Folder {
    pub dev: u64,
    pub ino: u64,
}

impl Folder {
    /// The folder at `path` now; None when it is missing, a link or not a folder.
    pub fn at(path: &Path) -> Option<Folder> {
        let meta = crate::base::dirfd::lstat(path).ok()?;
        meta.is_dir().then(|| Folder {
            dev: meta.dev(),
            ino: meta.ino(),
        })
    }
}

impl Moved {
    pub fn new(source: &Path, destination: &Path, manifest: &Path) -> Self {
        Self {
            source: source.to_path_buf(),
            destination: destination.to_path_buf(),
            manifest: manifest.to_path_buf(),
            finished_unix: now_unix(),
            synced_unix: None,
            source_removed: false,
            kept_at_removal: Vec::new(),
            copy_folder: Folder::at(destination),
            source_folder: Folder::at(source),
            windows_git: None,
            since: Some(Counted::nothing_now()),
            other_copies: Vec::new(),
            source_removed_unix: None,
            copy_head: None,
            unfinished: None,
        }
    }

    /// A `--remove-source` began and has not finished: what is missing at the source may be
    /// its work, never an edit of the person's.
    pub fn removal_unfinished(&self) -> bool {
        self.unfinished
            .as_ref()
            .is_some_and(|u| u.operation == Operation::RemoveSource)
    }

    /// The source's files that are gone were taken by wsl-place (a removal finished or begun),
    /// so none of them is a deletion to carry to the copy.
    pub fn removal_began(&self) -> bool {
        self.source_removed || self.removal_unfinished()
    }

    /// The record after this migration to `destination` made a new copy: the copies `earlier`
    /// (the source's record before it) knew elsewhere are kept, its own among them.
    pub fn after(mut self, earlier: Option<Moved>) -> Self {
        let Some(earlier) = earlier else {
            return self;
        };
        let newest = (earlier.destination != self.destination).then(|| earlier.as_other());
        self.other_copies = earlier
            .other_copies
            .into_iter()
            .chain(newest)
            .filter(|other| other.destination != self.destination)
            .collect();
        self
    }

    fn as_other(&self) -> OtherCopy {
        OtherCopy {
            destination: self.destination.clone(),
            manifest: self.manifest.clone(),
            finished_unix: self.finished_unix,
            synced_unix: self.synced_unix,
            copy_folder: self.copy_folder,
            windows_git: self.windows_git.clone(),
        }
    }

    /// The record as it reads for the copy at `destination`, the newest or an earlier one
    /// (then with that copy's manifest, day and identity); None when it made no copy there.
    pub fn for_copy(&self, destination: &Path) -> Option<Moved> {
        if self.destination == destination {
            return Some(self.clone());
        }
        let other = self
            .other_copies
            .iter()
            .find(|o| o.destination == destination)?;
        Some(Moved {
            destination: other.destination.clone(),
            manifest: other.manifest.clone(),
            finished_unix: other.finished_unix,
            synced_unix: other.synced_unix,
            copy_folder: other.copy_folder,
            windows_git: other.windows_git.clone(),
            // What changed here was counted against the newest copy's manifest and HEAD.
            since: None,
            copy_head: None,
            other_copies: Vec::new(),
            ..self.clone()
        })
    }

    /// The record once the copy at `destination` is gone (`--abort`): the newest of the others
    /// takes the removed newest copy's place; None when no copy is left.
    pub fn without_copy(mut self, destination: &Path) -> Option<Moved> {
        if self.destination != destination {
            self.other_copies.retain(|o| o.destination != destination);
            return Some(self);
        }
        let newest = self.other_copies.pop()?;
        Some(Moved {
            destination: newest.destination,
            manifest: newest.manifest,
            finished_unix: newest.finished_unix,
            synced_unix: newest.synced_unix,
            copy_folder: newest.copy_folder,
            windows_git: newest.windows_git,
            since: None,
            copy_head: None,
            ..self
        })
    }

    /// The day it finished, `2026-12-03` (UTC), for the old place's message.
    pub fn finished_day(&self) -> String {
        day(self.finished_unix)
    }

    /// The day `--remove-source` ran, when the record kept it.
    pub fn removed_day(&self) -> Option<String> {
        self.source_removed_unix.map(day)
    }
}

/// `YYYY-MM-DD` of a Unix time, in UTC (the civil-from-days algorithm: no time zone database).
pub fn day(unix: u64) -> String {
    let days = (unix / 86_400) as i64 + 719_468;
    let era = days.div_euclid(146_097);
    let doe = days.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

/// Where the manifest of a migration to `destination` is kept: under the state folder, or None
/// when there is none (no HOME, or one that does not exist): then beside the destination.
pub fn manifest_path(env: &HostEnv, destination: &Path) -> Option<PathBuf> {
    Store::of(env).manifest_of(destination)
}

/// Where the destination's own stat at the end of the migration (and of each sync) is kept:
/// what `--abort` and a sync compare the destination with to tell what changed there since.
/// Beside the manifest, under the state folder; None without one.
pub fn snapshot_path(env: &HostEnv, destination: &Path) -> Option<PathBuf> {
    Store::of(env).snapshot_of(destination)
}

/// `<destination>.wsl-place-manifest`, beside the destination, where earlier versions kept
/// it; read, and moved to [`manifest_path`] by the next run.
pub fn legacy_manifest_path(destination: &Path) -> PathBuf {
    let mut name = destination.file_name().unwrap_or_default().to_os_string();
    name.push(".wsl-place-manifest");
    destination.with_file_name(name)
}

fn record_path(env: &HostEnv, source: &Path) -> Option<PathBuf> {
    Store::of(env).record_of_move(source)
}

/// Remembers where `moved.source` went. Best effort: without it the old place only forgets.
pub fn remember(env: &HostEnv, moved: &Moved) {
    if let Some(file) = record_path(env, &moved.source) {
        crate::base::input::write_json_atomically(&file, moved);
    }
}

/// A first migration that began (its staging folder made) and has not finished: where it is
/// going, so the old place's advice resumes it there rather than starting another copy.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Started {
    #[serde(with = "crate::base::pathtext::json")]
    pub source: PathBuf,
    #[serde(with = "crate::base::pathtext::json")]
    pub destination: PathBuf,
    pub started_unix: u64,
}

/// Records that the first migration of `source` to `destination` begins. Best effort: without
/// it the advice after an interrupt names no `--to`.
pub fn start(env: &HostEnv, source: &Path, destination: &Path) {
    if let Some(file) = Store::of(env).start_of_move(source) {
        let started = Started {
            source: source.to_path_buf(),
            destination: destination.to_path_buf(),
            started_unix: now_unix(),
        };
        let _ = crate::base::input::write_json_durably(&file, &started);
    }
}

/// The first migration of `source` finished or was given up: nothing is left to resume.
pub fn start_ended(env: &HostEnv, source: &Path) {
    if let Some(file) = Store::of(env).start_of_move(source) {
        let _ = std::fs::remove_file(file);
    }
}

/// The unfinished first migration of `source` (a canonical path), while no copy is in place at
/// its destination yet.
pub fn started(env: &HostEnv, source: &Path) -> Option<Started> {
    let file = Store::of(env).start_of_move(source)?;
    let bytes = crate::base::input::read_cache(&file, "unfinished migration record")?;
    let started: Started = serde_json::from_slice(&bytes).ok()?;
    (started.source == source && !started.destination.exists()).then_some(started)
}

/// Records, durably, that `operation` on the migration of `source` to `destination` begins:
/// called before its first change. Err when the record cannot be read or written, and then the
/// operation must not begin (nothing could tell its changes from the person's).
pub fn begin(
    env: &HostEnv,
    source: &Path,
    destination: &Path,
    operation: Operation,
) -> std::io::Result<()> {
    let file = record_path(env, source).ok_or_else(|| {
        std::io::Error::new(std::io::ErrorKind::NotFound, "there is no state folder")
    })?;
    let mut record = recorded(env, source).ok_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::NotFound,
            "the migration's record is missing or unreadable",
        )
    })?;
    record.unfinished = Some(Unfinished {
        operation,
        started_unix: now_unix(),
        destination: destination.to_path_buf(),
    });
    crate::base::input::write_json_durably(&file, &record)
}

/// `record`, with `operation` ended, written durably. A record of another operation keeps it.
pub fn end(env: &HostEnv, mut record: Moved, operation: Operation) {
    if record
        .unfinished
        .as_ref()
        .is_some_and(|u| u.operation == operation)
    {
        record.unfinished = None;
    }
    if let Some(file) = record_path(env, &record.source) {
        let _ = crate::base::input::write_json_durably(&file, &record);
    }
}

/// The copy's history now holds the old place's up to `head` (a sync fetched it): kept at
/// once, so a sync killed before it applies its files does not count those commits again.
pub fn copy_head_moved_on(env: &HostEnv, source: &Path, head: &str) {
    if let Some(mut record) = recorded(env, source) {
        record.copy_head = Some(head.to_string());
        if let Some(file) = record_path(env, source) {
            let _ = crate::base::input::write_json_durably(&file, &record);
        }
    }
}

/// Keeps `counted` as what changed at `moved.source` since, when the record still says what
/// `moved` says (a sync or a removal that wrote it since is not undone).
pub fn remember_count(env: &HostEnv, moved: &Moved, counted: Counted) {
    let Some(mut now) = recorded(env, &moved.source) else {
        return;
    };
    if now.finished_unix != moved.finished_unix || now.synced_unix != moved.synced_unix {
        return;
    }
    now.since = Some(counted);
    remember(env, &now);
}

/// Forgets where `source` went (the copy was removed by `--abort`): the old place is a
/// repository like any other again.
pub fn forget(env: &HostEnv, source: &Path) -> std::io::Result<()> {
    let Some(file) = record_path(env, source) else {
        return Ok(());
    };
    match std::fs::remove_file(&file) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// The record for exactly `source` (a canonical path), while its destination still exists.
pub fn lookup(env: &HostEnv, source: &Path) -> Option<Moved> {
    recorded(env, source).filter(|moved| moved.destination.is_dir())
}

/// The record of the migration that made `copy` (a canonical path), found through the copy's
/// manifest, which names its source: `migrate` run in the copy is told what the folder is.
pub fn copy_of(env: &HostEnv, copy: &Path) -> Option<Moved> {
    let source = super::manifest::source_named(&manifest_path(env, copy)?)?;
    recorded(env, &source)?.for_copy(copy)
}

/// The record for exactly `source`, whether or not its copy is still where it was made.
pub fn recorded(env: &HostEnv, source: &Path) -> Option<Moved> {
    let file = record_path(env, source)?;
    let bytes = crate::base::input::read_cache(&file, "migration record")?;
    let moved: Moved = serde_json::from_slice(&bytes).ok()?;
    (moved.source == source).then_some(moved)
}

/// Every migration recorded whose source was `dir` or below it and was removed by
/// `--remove-source`: their old places hold no repository any more, so a search for
/// repositories does not find them (`survey` names them from here).
pub fn removed_below(env: &HostEnv, dir: &Path) -> Vec<Moved> {
    let Some(folder) = super::Store::of(env).records_of_moves() else {
        return Vec::new();
    };
    let Ok(entries) = std::fs::read_dir(folder) else {
        return Vec::new();
    };
    let mut removed: Vec<Moved> = entries
        .filter_map(|entry| {
            let path = entry.ok()?.path();
            (path.extension()? == "json").then_some(())?;
            let bytes = crate::base::input::read_cache(&path, "migration record")?;
            serde_json::from_slice::<Moved>(&bytes).ok()
        })
        .filter(|moved| moved.source_removed && moved.source.starts_with(dir))
        .collect();
    removed.sort_by(|a, b| a.source.cmp(&b.source));
    removed
}

/// Was `path` (or a folder it is in) migrated, where to and when: the question the old place
/// asks (`check`, the hook, `survey`, the shell nudge). `path` is made canonical first; a path
/// that no longer exists (the source was removed) is looked up as given.
pub fn migrated(env: &HostEnv, path: &Path) -> Option<Moved> {
    let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    path.ancestors().find_map(|dir| lookup(env, dir))
}

/// [`migrated`] for a `dir` that is canonical already (the shell's working directory): the
/// record files are looked up on the local disk, the mount `dir` is on is never asked.
pub fn migrated_above(env: &HostEnv, dir: &Path) -> Option<Moved> {
    dir.ancestors().find_map(|a| lookup(env, a))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_are_civil_dates() {
        assert_eq!(day(0), "1970-01-01");
        assert_eq!(day(951_782_400), "2000-02-29");
        assert_eq!(day(1_796_256_000), "2026-12-03");
    }

    #[test]
    fn a_second_copy_keeps_the_first_and_removing_either_keeps_the_other() {
        let (source, x, y) = (Path::new("/s/app"), Path::new("/l/x"), Path::new("/l/y"));
        let mut first = Moved::new(source, x, Path::new("/state/x.manifest"));
        first.synced_unix = Some(7);
        let second = Moved::new(source, y, Path::new("/state/y.manifest")).after(Some(first));
        assert_eq!(second.destination, y);
        assert_eq!(second.other_copies.len(), 1);
        let older = second.for_copy(x).unwrap();
        assert_eq!(
            (older.destination.as_path(), older.synced_unix),
            (x, Some(7))
        );
        assert_eq!(older.manifest, Path::new("/state/x.manifest"));
        assert_eq!(second.for_copy(Path::new("/l/z")), None);
        // The same destination again (a finish run twice) keeps the others, not itself.
        let again =
            Moved::new(source, y, Path::new("/state/y.manifest")).after(Some(second.clone()));
        assert_eq!(again.other_copies, second.other_copies);
        // The newest removed: the older is the record's copy again; then nothing is left.
        let left = second.clone().without_copy(y).unwrap();
        assert_eq!(
            (left.destination.as_path(), left.other_copies.len()),
            (x, 0)
        );
        assert_eq!(left.without_copy(x), None);
        // The older removed: only it leaves the record.
        let left = second.without_copy(x).unwrap();
        assert_eq!(
            (left.destination.as_path(), left.other_copies.len()),
            (y, 0)
        );
    }

    #[test]
    fn a_record_without_other_copies_reads_as_having_none() {
        let tmp = tempfile::tempdir().unwrap();
        let moved = Moved::new(tmp.path(), tmp.path(), tmp.path());
        let mut json = serde_json::to_value(&moved).unwrap();
        json.as_object_mut().unwrap().remove("other_copies");
        let read: Moved = serde_json::from_value(json).unwrap();
        assert_eq!(read, moved);
    }

    #[test]
    fn a_record_is_found_from_inside_the_source_and_forgotten_with_the_destination() {
        let tmp = tempfile::tempdir().unwrap();
        let state = tmp.path().join("state");
        let env = HostEnv::from_pairs(&[("XDG_STATE_HOME", state.to_str().unwrap())]);
        let source = tmp.path().join("win/app");
        let destination = tmp.path().join("linux/app");
        std::fs::create_dir_all(source.join("sub")).unwrap();
        std::fs::create_dir_all(&destination).unwrap();
        let manifest = manifest_path(&env, &destination).unwrap();
        assert!(manifest.starts_with(state.join("wsl-place/manifests")));
        let source = std::fs::canonicalize(&source).unwrap();
        let moved = Moved::new(&source, &destination, &manifest);
        remember(&env, &moved);
        assert_eq!(migrated(&env, &source.join("sub")), Some(moved.clone()));
        assert_eq!(migrated(&env, tmp.path()), None);
        std::fs::remove_dir(&destination).unwrap();
        assert_eq!(migrated(&env, &source), None);
        // No usable home: nothing is kept, and the manifest goes beside the destination.
        let homeless = HostEnv::from_pairs(&[("HOME", "/nonexistent-home/x")]);
        assert_eq!(manifest_path(&homeless, &destination), None);
    }
}
