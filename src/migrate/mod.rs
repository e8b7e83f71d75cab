//! `wsl-place migrate`: copy, verify, fix up, finalise. (Stub: issue 7 fills this in.)

use crate::cli::{GlobalArgs, MigrateArgs};
use crate::error::{ExitCode, Failure, Result};
use crate::host::HostEnv;

pub fn run(_env: &HostEnv, _global: &GlobalArgs, _args: &MigrateArgs) -> Result<ExitCode> {
    Err(Failure::internal(
        "migrate is not available in this build yet.",
    ))
}
