//! What a finished migration reports: the documented JSON schema of `migrate`.

use super::engine::plan::{self, Problem};
use super::engine::staging;
use super::repairs::fixups::{FixupAdvice, FixupReport};
use super::repairs::next_steps::{self, NextStep};
use super::repairs::worktrees;
use crate::base::counts::TreeCounts;
use crate::base::error::{Failure, Result};
use crate::base::pathtext::RelPath;
use crate::base::progress::Drawn;
use crate::host::HostEnv;
use crate::host::location;
use rustix::fs::FileType;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// What a finished migration did; its JSON form is the documented schema.
#[derive(Debug, Clone, Default, Serialize)]
pub struct MigrationReport {
    #[serde(with = "crate::base::pathtext::json")]
    pub source: PathBuf,
    #[serde(with = "crate::base::pathtext::json")]
    pub destination: PathBuf,
    #[serde(with = "crate::base::pathtext::json")]
    pub manifest: PathBuf,
    pub windows_path: Option<String>,
    pub windows_legacy_path: Option<String>,
    #[serde(flatten)]
    pub totals: TreeCounts,
    /// Files copied by this run (the rest were verified by an interrupted earlier run).
    pub copied_files: u64,
    /// Milliseconds from accepting the plan to this report: copy with read-back, count, flush,
    /// fix-ups; what the plan's `predicted_copy_ms` predicts.
    pub copy_ms: u64,
    /// The model's time for what this run copied (the plan's `predicted_copy_ms`, priced again
    /// after its answers, node_modules left behind or not), for `copy_ms` to be read against;
    /// None when this run copied nothing or nothing could be measured.
    pub planned_ms: Option<u64>,
    /// What the answers left behind that the plan's first figure counted: `planned_ms` is the
    /// figure the last question was asked with, without it.
    #[serde(skip)]
    pub planned_without: Vec<&'static str>,
    /// Source files left out with --skip-unreadable, and special files.
    pub not_copied: Vec<Problem>,
    pub fixups: FixupReport,
    /// Lines of the copy's settings files (`.vscode/*.json`, `.env`, `*.pth`, ...) that still
    /// name the old place, in its Linux or Windows spelling, each with what to write instead;
    /// they are the person's, so they are listed, not rewritten (`old_paths.rs`).
    pub still_points_to_old_place: Vec<super::repairs::old_paths::StillPointing>,
    pub removal: Option<Removal>,
    /// `--sync`: the late edits copied to the destination (or, with `--dry-run`, planned).
    pub sync: Option<SyncReport>,
    /// True when this run found the migration already finished (the manifest beside the
    /// destination records this source) and copied nothing.
    pub already_migrated: bool,
    /// `migrate` was run in the copy, not at the old place (`source`): what is left to do there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run_in_copy: Option<InCopy>,
    /// `--dry-run`: this report is all the run did; nothing was copied or changed.
    pub dry_run: bool,
    /// What to type next: `cd`, reinstalls, the editor, the Windows file manager on WSL.
    pub next_steps: Vec<NextStep>,
    /// On WSL: what each Windows tool found does with the copy, and the safe.directory entries.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub windows: Option<super::repairs::windows_side::WindowsOutcome>,
    /// The first `git status` at the copy (its index refresh, part of the finish), timed against
    /// the plan's prediction; None when nothing was refreshed or the plan had no prediction.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_status: Option<crate::assess::accuracy::FirstStatus>,
    /// The source's other copies, made by migrations to other destinations (oldest first).
    #[serde(
        skip_serializing_if = "Vec::is_empty",
        serialize_with = "crate::base::pathtext::json::list"
    )]
    pub other_copies: Vec<PathBuf>,
}

/// What `migrate` run in the copy says of the old place: removed already, or what to run there.
#[derive(Debug, Clone, Default, Serialize)]
pub struct InCopy {
    /// `--remove-source` ran, or the old place is gone: nothing is left to do there.
    pub source_removed: bool,
    /// The command that removes what the manifest proves copied, while the old place stays.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remove_source: Option<String>,
    /// `--abort` was asked in the copy: the command that runs it, naming the old place (it
    /// deletes this copy, so it is never run from inside it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub abort: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Removal {
    pub removed_files: u64,
    pub removed_symlinks: u64,
    pub removed_dirs: u64,
    /// Files removed on their stat alone (size, mtime, ctime and inode as when copied).
    pub proven_by_stat: u64,
    /// Files whose stat had changed, read again and found identical to the copy, then removed.
    pub proven_by_reading: u64,
    /// Copies at the destination read back and found to match the manifest before their
    /// source file was removed.
    pub copies_read_back: u64,
    /// What is still in the source, and why: files that differ from the copy, folders replaced
    /// by links or files, and what was never copied (a `node_modules` left behind, special
    /// files, files made since). A folder nothing of which was copied is one item. Every entry
    /// is listed.
    pub kept: Vec<Kept>,
    pub kept_count: u64,
    /// The source folder itself was removed too (everything in it was proven copied); not
    /// counted in `removed_dirs`, which counts the folders inside it as the plan does.
    pub removed_source_folder: bool,
    /// The shell that started this run is in the source (the run's working folder was there):
    /// the command that takes it to the same place in the copy.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cd: Option<String>,
    /// That working folder no longer exists: the shell is in a removed folder.
    pub shell_folder_removed: bool,
    /// Each repository's `.git` in the source, removed or kept whole as the plan said.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub git: Vec<GitFolder>,
    /// The source folder stays, holding only what was kept, and is no repository any more: the
    /// command that removes it once those files are not wanted (`rm -r -- 'SRC'`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plain_folder: Option<String>,
    /// Advanced by one for each entry visited (the plan's bar with the time left).
    #[serde(skip)]
    pub bar: Option<Drawn>,
}

/// A repository's `.git` folder in the source: removed whole once git shows its history is in
/// the copy, else kept whole with why; never file by file.
#[derive(Debug, Clone, Default, Serialize)]
pub struct GitFolder {
    pub path: RelPath,
    /// Files in it, as the plan's walk counted them.
    pub files: u64,
    /// Why it stays whole; None: it goes whole.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kept: Option<String>,
}

impl Removal {
    pub fn tick(&self) {
        if let Some(bar) = &self.bar {
            bar.inc(1);
        }
    }

    pub fn keep(&mut self, rel: &Path, why: KeptWhy) {
        self.kept_count += 1;
        self.kept.push(Kept::new(rel, why));
    }
}

/// An entry `--remove-source` leaves in the source, and why. Worded in report/text/removal.rs,
/// which also writes it to JSON, as `path (why)`.
#[derive(Debug, Clone)]
pub struct Kept {
    /// Relative to the source.
    pub path: PathBuf,
    pub why: KeptWhy,
}

impl Kept {
    pub fn new(path: &Path, why: KeptWhy) -> Kept {
        Kept {
            path: path.to_path_buf(),
            why,
        }
    }
}

/// Why the removal keeps an entry. `what_now` is what is there instead of what was copied.
#[derive(Debug, Clone)]
pub enum KeptWhy {
    /// A repository's `.git` git does not show to be in the copy (why, in git's terms).
    KeptWhole(String),
    /// A repository's `.git` that could not be removed whole (the sentence `GitFolder` keeps).
    GitNotRemoved(String),
    /// A folder below which no descriptor was left to open.
    OutOfDescriptors,
    /// The folder, or with `copy` its copy at the destination, cannot be opened.
    CannotOpen {
        copy: bool,
        error: String,
    },
    /// The folder, or with `copy` its copy, is something else now: never followed.
    NotAFolderNow {
        copy: bool,
        what_now: FileType,
    },
    /// The folder's copy at the destination is gone.
    CopyFolderGone,
    CannotExamine(String),
    ChangedKind(FileType),
    SizeDiffers,
    ContentDiffers,
    CannotCompare(String),
    /// The plan's word for a file or link whose stat moved since the copy.
    ChangedSinceCopy,
    MadeAfterCopy,
    CopyGone,
    CopyUnreadable(String),
    /// The copy at the destination is the source's file itself (the same inode).
    CopyIsSource,
    /// The copy changed since the move: the source holds the only copy of what was copied.
    CopyChanged,
    /// The file or link could not be removed (the error).
    NotRemoved(String),
    PointsElsewhere,
    LinkCopyGone,
    /// A `node_modules` left behind, as the plan counts it.
    NodeModulesLeftBehind,
    /// A `node_modules` left behind, found after the removal: reinstalled at the destination.
    NodeModulesNeverCopied,
    /// A scratch folder a killed probe left.
    ProbeScratch,
    /// The plan's special file: neither a file, a link nor a folder.
    SpecialFile,
    /// A FIFO, socket or device the manifest never listed.
    NeverCopied(FileType),
    /// Not in the manifest: made after the copy, or not copied (`folder`: a folder).
    NotInManifest {
        folder: bool,
    },
}

/// What `--remove-source` will delete and keep.
#[derive(Debug, Clone, Default)]
pub struct RemovalPlan {
    /// What it deletes: `dirs` the folders it empties.
    pub totals: TreeCounts,
    /// Changed since the copy, made after it, never copied; listed as the plan shows them
    /// (report/ sorts them by their text).
    pub kept: Vec<Kept>,
    /// The model's time for the removal; None when the source could not be timed.
    pub predicted_ms: Option<f64>,
    /// Nothing stays in the source, so its folder goes too (not counted in `dirs`).
    pub source_emptied: bool,
    /// Each repository's `.git`, handled whole (not in the counts above).
    pub git: Vec<GitFolder>,
}

impl RemovalPlan {
    /// Entries the bar counts: each file, link and folder the removal visits.
    pub fn entries(&self) -> u64 {
        self.totals.files + self.totals.symlinks + self.totals.dirs + self.git.len() as u64
    }
}

/// `--remove-source`'s plan as it is shown: what it removes from where, and the day an earlier
/// run verified the copy (None when this run did).
pub struct RemovalShown<'a> {
    pub plan: &'a RemovalPlan,
    pub source: &'a Path,
    pub destination: &'a Path,
    pub verified: Option<&'a str>,
    /// `--dry-run`: shown, and nothing removed.
    pub dry_run: bool,
}

/// A path changed at both places (or changed at one and removed at the other).
#[derive(Debug, Clone, Serialize)]
pub struct Conflict {
    pub path: RelPath,
    pub why: String,
    /// Where the source's version was saved at the destination; None when there is none to
    /// save (removed at the source, changed at the destination: the destination's stays).
    pub saved_as: Option<RelPath>,
    /// Run in the copy: shows how the saved version differs from the copy's
    /// (`git diff --no-index`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
    /// Run in the copy: merges the saved version into the copy's file, conflict markers where
    /// both changed the same lines (`git merge-file`); None for a link.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub merge: Option<String>,
}

impl Conflict {
    /// A conflict whose source version was saved at `saved` beside the copy's `rel`; `file`
    /// false for a link (nothing to merge).
    pub fn saved(rel: &std::path::Path, why: &str, saved: &std::path::Path, file: bool) -> Self {
        let quote = crate::base::pathtext::shell_quote;
        let (ours, theirs) = (quote(rel), quote(saved));
        Self {
            path: RelPath::from(rel),
            why: why.to_string(),
            saved_as: Some(RelPath::from(saved)),
            diff: file.then(|| format!("git diff --no-index {ours} {theirs}")),
            merge: file.then(|| {
                format!("git merge-file -L copy -L base -L source {ours} /dev/null {theirs}")
            }),
        }
    }
}

/// What a sync did (or, not `done`, would do): the JSON `sync` of `migrate`'s result.
#[derive(Debug, Clone, Default, Serialize)]
pub struct SyncReport {
    /// Files and links added, changed and removed at the source since, applied at the
    /// destination (conflicts apart).
    pub added: u64,
    pub changed: u64,
    pub removed: u64,
    /// Bytes of the files copied (the saved versions of conflicts included).
    pub bytes: u64,
    /// Of `bytes`, those of the source's versions saved beside the copy's (conflicts).
    pub saved_bytes: u64,
    pub conflicts: Vec<Conflict>,
    /// The copy's git exclude file that keeps the saved versions out of `git add .` (each
    /// listed until it is gone); None when none was written.
    /// (A path's escaped text, as `RelPath` writes any path.)
    #[serde(skip_serializing_if = "Option::is_none")]
    pub excluded_in: Option<RelPath>,
    /// Files and links changed at the destination since and not touched by the sync.
    pub changed_at_destination: u64,
    /// The model's time for the copy, and what it was made from.
    pub predicted_ms: Option<u64>,
    pub prediction_basis: String,
    /// Files this run copied and verified (an interrupted sync's were verified before).
    pub copied_files: u64,
    /// Files left out with --skip-unreadable, each `path: why`: still only at the source.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_copied: Vec<String>,
    /// Milliseconds from accepting the plan to applying it.
    pub sync_ms: u64,
    /// Applied: false for `--dry-run`, or when the plan was not accepted.
    pub done: bool,
    /// What the sync does with the old place's commits, branches and tags (None when the two
    /// places are not both a repository whose `.git` is a folder).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history: Option<HistorySync>,
    /// What the copy holds once the sync is applied, counted there (None when it could not
    /// be): the result's totals, which the manifest's would not give.
    #[serde(skip)]
    pub copy_holds: Option<TreeCounts>,
}

impl SyncReport {
    /// Anything for the sync to do at the copy, files or history.
    pub fn has_work(&self) -> bool {
        self.added + self.changed + self.removed + self.conflicts.len() as u64 > 0
            || self.history.as_ref().is_some_and(|h| !h.refs.is_empty())
    }
}

/// The old place's history in the copy: fetched, never copied as files (`.git/` is the copy's
/// own), each branch and tag the old place moved listed with what the sync does about it.
#[derive(Debug, Clone, Default, Serialize)]
pub struct HistorySync {
    /// The old place's branches and tags were fetched into the copy, under
    /// `refs/wsl-place/old-place/heads/` and `tags/` (false for a dry run).
    pub fetched: bool,
    pub refs: Vec<RefSync>,
    /// Files changed at the old place since that its commits hold as they are: they come with
    /// its history, not as files.
    pub committed_files: u64,
    /// Why the history was not synced (one sentence); the files still were.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed: Option<String>,
    /// Refs made under `refs/wsl-place/old-place-earlier/` for the old place's earlier tips: the
    /// fetch moved their ref (the old place moved its branch away from them) and no other ref
    /// of the copy reached them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub kept_earlier: Vec<String>,
}

/// One branch or tag of the old place that differs from the copy's.
#[derive(Debug, Clone, Serialize)]
pub struct RefSync {
    /// Its short name (`main`, `v1.0`).
    pub name: String,
    pub kind: RefKind,
    pub action: RefAction,
    /// Commits on the old place's side only, and on the copy's only (0 when not counted).
    pub old_place_commits: u64,
    pub here_commits: u64,
    /// Where the old place's tip is kept in the copy.
    pub old_place_ref: String,
    /// Run in the copy, when the person has something left to do: merges the old place's tip.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub merge: Option<String>,
    /// Why a fast-forward was refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// With `merge`: tracked files staged or modified at the copy, which would stop that merge
    /// ("Your local changes ... would be overwritten"): commit or stash them first.
    #[serde(skip_serializing_if = "crate::base::counts::is_zero_count")]
    pub copy_changes: u64,
}

impl RefSync {
    /// A branch or tag new at the old place, made at the copy; what it is kept as there.
    pub fn created(name: &str, kind: RefKind, old_place_ref: String) -> Self {
        Self {
            name: name.to_string(),
            kind,
            action: RefAction::Create,
            old_place_commits: 0,
            here_commits: 0,
            old_place_ref,
            merge: None,
            why: None,
            copy_changes: 0,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RefKind {
    Branch,
    Tag,
}

/// What the sync does with a branch or tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RefAction {
    /// Moved only at the old place: the copy's branch moves to its tip.
    FastForward,
    /// New at the old place: made at the copy.
    Create,
    /// Moved at both places: the copy's stays, the old place's is kept under `old_place_ref`.
    KeepBoth,
    /// Moved only at the old place, but the copy's work tree holds edits (or the branch is
    /// checked out elsewhere, or it moved meanwhile): left as it is.
    Refused,
    /// A tag the two places give different commits: the copy's stays.
    TagDiffers,
}

/// What a tree holds, counted from its walk.
pub fn holds(entries: &[crate::store::manifest::ManifestEntry]) -> TreeCounts {
    use crate::store::manifest::ManifestEntry;
    let mut holds = TreeCounts::default();
    for entry in entries {
        match entry {
            ManifestEntry::File(r) => {
                holds.files += 1;
                holds.bytes += r.size;
            }
            ManifestEntry::Dir(_) => holds.dirs += 1,
            ManifestEntry::Symlink { .. } => holds.symlinks += 1,
        }
    }
    holds
}

/// What this run copied, for the report.
pub struct Copied {
    pub files: u64,
    /// When the plan was accepted: the report's `copy_ms` counts from here.
    pub started: Instant,
    /// Unreadable source entries (with --skip-unreadable) and special files.
    pub not_copied: Vec<Problem>,
    /// The plan's node_modules, for the next steps (as the sealing run recorded them when only
    /// finishing; none for an already finished migration).
    pub node_modules: Vec<plan::NodeModules>,
    /// The plan's virtualenvs: those left behind are named with their command (none when only
    /// finishing).
    pub virtualenvs: Vec<super::repairs::venvs::Virtualenv>,
    /// Linked worktrees outside the source: the moved ones are staged and sealed.
    pub worktrees: Vec<worktrees::LinkedWorktree>,
    /// Interrupted migrations of the same source to other destinations.
    pub elsewhere: Vec<staging::Elsewhere>,
    /// The plan's prediction of the first `git status` at the copy (its index refresh).
    pub predicted_refresh_ms: Option<f64>,
    /// The model's time for what this run copies, verifies and fixes up (None: not measured).
    pub planned_ms: Option<u64>,
    /// What the answers left behind that the plan first counted (`planned_ms` is without it).
    pub left_behind: Vec<&'static str>,
}

impl Copied {
    /// A run that copies no file itself (a finished or sealed migration), timed from now.
    pub fn nothing_yet(elsewhere: &[staging::Elsewhere]) -> Self {
        Self {
            files: 0,
            started: Instant::now(),
            not_copied: Vec::new(),
            node_modules: Vec::new(),
            virtualenvs: Vec::new(),
            worktrees: Vec::new(),
            elsewhere: elsewhere.to_vec(),
            predicted_refresh_ms: None,
            planned_ms: None,
            left_behind: Vec::new(),
        }
    }
}

impl MigrationReport {
    /// Step 9, report: the totals from the manifest, and the Windows paths of the destination.
    pub fn from_manifest(
        env: &HostEnv,
        source: &Path,
        destination: &Path,
        manifest: &Path,
        copied: Copied,
        (fixups, first_status): (FixupReport, Option<crate::assess::accuracy::FirstStatus>),
    ) -> Result<MigrationReport> {
        let entries = manifest_entries(manifest)?;
        let mut report = MigrationReport {
            source: source.to_path_buf(),
            destination: destination.to_path_buf(),
            manifest: manifest.to_path_buf(),
            copied_files: copied.files,
            copy_ms: copied.started.elapsed().as_millis() as u64,
            planned_ms: copied.planned_ms,
            planned_without: copied.left_behind,
            not_copied: copied.not_copied,
            fixups,
            first_status,
            ..MigrationReport::default()
        };
        for other in &copied.elsewhere {
            let said = FixupAdvice::InterruptedElsewhere {
                said: other.sentence(source),
            };
            report.fixups.advice.push(said);
        }
        report.totals = holds(&entries);
        for venv in copied.virtualenvs.iter().filter(|v| v.skipped) {
            let parent = venv.path.as_path().parent().unwrap_or(Path::new(""));
            let left = FixupAdvice::VirtualenvLeftBehind {
                venv: venv.path.to_string(),
                folder: crate::base::pathtext::display(&destination.join(parent)),
                recreate: venv.recreate.clone(),
            };
            report.fixups.advice.push(left);
        }
        if let Ok(located) = location::locate(env, destination) {
            report.windows_path = located.paths.windows;
            report.windows_legacy_path = located.paths.windows_legacy;
        }
        let on_wsl = report.windows_path.is_some();
        report.next_steps = next_steps::steps(destination, &copied.node_modules, on_wsl);
        report
            .fixups
            .advice
            .extend(next_steps::windows_build_warnings(
                source,
                &copied.node_modules,
            ));
        Ok(report)
    }
}

/// The entries of the finished migration's manifest.
fn manifest_entries(manifest: &Path) -> Result<Vec<crate::store::manifest::ManifestEntry>> {
    let text = std::fs::read_to_string(manifest)
        .map_err(|e| Failure::io("read the manifest", manifest, &e))?;
    let (_, entries) = crate::store::manifest::parse_manifest(&text).ok_or_else(|| {
        Failure::internal(format!(
            "{} is not a complete manifest.",
            manifest.display()
        ))
    })?;
    Ok(entries)
}
