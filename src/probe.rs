//! The calibrated small-file probe. (Stub: issue 5 fills this in.)

use crate::cli::{GlobalArgs, ProbeArgs};
use crate::error::{ExitCode, Failure, Result};
use crate::host::HostEnv;

/// `wsl-place probe [DIR]`.
pub fn run_command(_env: &HostEnv, _global: &GlobalArgs, _args: &ProbeArgs) -> Result<ExitCode> {
    Err(Failure::internal(
        "probe is not available in this build yet.",
    ))
}
