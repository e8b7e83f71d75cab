//! The old place of a finished migration: its one line (the hook's and the shell nudge's) and
//! the hook's entry, from the migration's record and the count of what changed here since.
//! Kept apart from `advisory`, whose cache it neither reads nor writes.

use crate::assess::advisory::{self, CachedResult};
use crate::assess::hook_line;
use crate::assess::pipeline;
use crate::base::error::Result;
use crate::base::reason::Worded;
use crate::decide::policy::Level;
use crate::host::HostEnv;
use crate::measure::changes::{self, Count, OldPlace};
use crate::store::moved;
use std::path::Path;

/// The hook's entry at the old place of a finished migration; None anywhere else. Its level is
/// `moved`; the source is walked once to count what changed here since (a commit here is when
/// that count matters most).
pub fn advisory_entry(
    env: &HostEnv,
    path: &Path,
    policy_file: Option<&Path>,
) -> Result<Option<CachedResult>> {
    let Some(record) = moved::migrated(env, path) else {
        return Ok(None);
    };
    let old = changes::told(env, &record, Count::Walk);
    let setting = pipeline::prepare(&env.without_mapped_drives(), path, policy_file)?;
    let location = &setting.location;
    Ok(Some(CachedResult {
        path: location.paths.linux.clone(),
        mount_point: location.mount.mount_point.clone(),
        fstype: location.mount.fstype.clone(),
        source: location.mount.source.clone(),
        policy_digest: advisory::policy_digest(&setting.policy),
        created_unix: crate::base::clock::now_unix(),
        level: Level::Moved,
        line: line(&old, &record.source),
        provisional: false,
        levels: None,
        recent: Vec::new(),
    }))
}

/// `wsl-place: moved (to ~/src/app on 2026-12-05; 3 files changed here since): wsl-place
/// migrate ... --sync`, or `(...; 1 commit and 1 file not in the copy)` once commits were made: the old place's line, as the hook and the nudge print it. Shorter
/// wordings drop the day, then the copy's folder (the command names it), never a figure.
pub fn line(old: &OldPlace, source: &Path) -> String {
    let why = old.message.0.briefs();
    let tail = old
        .next
        .as_ref()
        .map(|n| format!(": {n}"))
        .unwrap_or_default();
    let build = |why: &str| format!("wsl-place: {} ({why}){tail}", Level::Moved.as_str());
    // Both folders are what they are: only the words beside them count against the budget,
    // and the shortest wording is printed whole even when it is over.
    let beside = |line: &str| {
        let copy = crate::base::pathtext::shell_quote(&old.destination);
        hook_line::chars_beside_path(line, source)
            .saturating_sub(line.matches(copy.as_str()).count() * copy.chars().count())
    };
    why.iter()
        .map(|w| build(w))
        .find(|line| beside(line) <= hook_line::LINE_BUDGET)
        .unwrap_or_else(|| build(why.last().map(String::as_str).unwrap_or_default()))
}
