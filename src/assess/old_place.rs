//! The old place of a finished migration, for the hook: one line saying where the repository
//! went and when, from the migration's record alone (no walk and no probe: a commit is waiting).
//! Kept apart from `advisory`, whose cache it neither reads nor writes.

use crate::assess::advisory::{self, CachedResult};
use crate::assess::pipeline;
use crate::base::error::Result;
use crate::decide::policy::Level;
use crate::host::HostEnv;
use crate::measure::{changes, moved};
use std::path::Path;

/// The hook's entry at the old place of a finished migration; None anywhere else. Its level is
/// `advise`: edits made here are not in the copy.
pub fn advisory_entry(
    env: &HostEnv,
    path: &Path,
    policy_file: Option<&Path>,
) -> Result<Option<CachedResult>> {
    let Some(record) = moved::migrated(env, path) else {
        return Ok(None);
    };
    let Some(old) = changes::old_place(env, &record.source, false) else {
        return Ok(None);
    };
    let setting = pipeline::prepare(&env.without_mapped_drives(), path, policy_file)?;
    let location = &setting.location;
    Ok(Some(CachedResult {
        path: location.paths.linux.clone(),
        mount_point: location.mount.mount_point.clone(),
        fstype: location.mount.fstype.clone(),
        source: location.mount.source.clone(),
        policy_digest: advisory::policy_digest(&setting.policy),
        created_unix: crate::base::clock::now_unix(),
        level: Level::Advise,
        line: format!("wsl-place: {}", old.message),
        provisional: false,
        levels: None,
        recent: Vec::new(),
    }))
}
