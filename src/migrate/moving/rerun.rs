//! Another run of the same move that finished while this one planned: its manifest, and the
//! fresh staging folder removed.

use crate::base::error::{Failure, Result};
use crate::host::HostEnv;
use crate::migrate::kernel::engine::finalise;
use crate::migrate::kernel::engine::staging::Staging;
use std::path::{Path, PathBuf};

/// Another run of the same move finished while this one planned (its lock was gone by the
/// time this one took it): the fresh staging folder is not needed. `walked_copy`: this run
/// made the staging folder and copied into it while it walked (one pass), so nothing in it is
/// an earlier run's and it goes whichever way this ends, as the refusal says nothing is left.
pub(super) fn finished_while_planning(
    env: &HostEnv,
    staging: &Staging,
    destination: &Path,
    walked_copy: bool,
) -> Result<Option<PathBuf>> {
    if std::fs::symlink_metadata(destination).is_err() {
        return Ok(None);
    }
    let finished = finalise::finished_manifest(env, staging.source(), destination);
    if finished.is_some() && (walked_copy || !staging.tree().exists()) {
        staging.remove()?;
        return Ok(finished);
    }
    let appeared = Failure::input(format!(
        "the destination {} appeared while the plan was made; choose a new folder with --to, or move it away first.",
        destination.display()
    ));
    if walked_copy {
        staging.remove()?;
    }
    Err(appeared)
}
