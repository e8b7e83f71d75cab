//! Another run of the same move that finished while this one planned: its manifest, and the
//! fresh staging folder removed.

use crate::base::error::{Failure, Result};
use crate::host::HostEnv;
use crate::migrate::kernel::engine::finalise;
use crate::migrate::kernel::engine::staging::Staging;
use std::path::{Path, PathBuf};

/// Another run of the same move finished while this one planned (its lock was gone by the
/// time this one took it): the fresh staging folder is not needed.
pub(super) fn finished_while_planning(
    env: &HostEnv,
    staging: &Staging,
    destination: &Path,
) -> Result<Option<PathBuf>> {
    if std::fs::symlink_metadata(destination).is_err() {
        return Ok(None);
    }
    let finished = finalise::finished_manifest(env, staging.source(), destination);
    if finished.is_some() && !staging.tree().exists() {
        staging.remove()?;
        return Ok(finished);
    }
    Err(Failure::input(format!(
        "the destination {} appeared while the plan was made; choose a new folder with --to, or move it away first.",
        destination.display()
    )))
}
