//! What a finished migration reports: the documented JSON schema of `migrate`.

use super::fixups::FixupReport;
use super::next_steps::NextStep;
use super::plan::Problem;
use super::removal::Removal;
use serde::Serialize;
use std::path::PathBuf;

/// What a finished migration did; its JSON form is the documented schema.
#[derive(Debug, Clone, Serialize)]
pub struct MigrationReport {
    #[serde(with = "crate::base::pathtext::json")]
    pub source: PathBuf,
    #[serde(with = "crate::base::pathtext::json")]
    pub destination: PathBuf,
    #[serde(with = "crate::base::pathtext::json")]
    pub manifest: PathBuf,
    pub windows_path: Option<String>,
    pub windows_legacy_path: Option<String>,
    pub files: u64,
    pub dirs: u64,
    pub symlinks: u64,
    pub bytes: u64,
    /// Files copied by this run (the rest were verified by an interrupted earlier run).
    pub copied_files: u64,
    /// Milliseconds from accepting the plan to this report: copy with read-back, count, flush,
    /// fix-ups; what the plan's `predicted_copy_ms` predicts.
    pub copy_ms: u64,
    /// Source files left out with --skip-unreadable, and special files.
    pub not_copied: Vec<Problem>,
    pub fixups: FixupReport,
    pub removal: Option<Removal>,
    /// `--sync`: the late edits copied to the destination (or, with `--dry-run`, planned).
    pub sync: Option<super::SyncReport>,
    /// True when this run found the migration already finished (the manifest beside the
    /// destination records this source) and copied nothing.
    pub already_migrated: bool,
    /// What to type next: `cd`, reinstalls, the editor, the Windows file manager on WSL.
    pub next_steps: Vec<NextStep>,
}
