//! `wsl-place check`: locate, scan, probe, predict, decide, in that order.

use crate::cli::CheckArgs;
use crate::error::Result;
use crate::host::HostEnv;
use crate::location::{self, Location};
use crate::scan::{self, ScanOptions, ScanReport};
use serde::Serialize;
use std::time::Duration;

/// Everything `check` found; its JSON form is the documented schema.
#[derive(Debug, Clone, Serialize)]
pub struct CheckReport {
    pub schema: u32,
    #[serde(flatten)]
    pub location: Location,
    pub scan: ScanReport,
}

pub const SCHEMA_VERSION: u32 = 1;

pub fn run(env: &HostEnv, args: &CheckArgs, interactive: bool) -> Result<CheckReport> {
    let location = location::locate(env, &args.path)?;
    let scan = scan::scan(
        &location.paths.linux,
        &ScanOptions {
            budget: Duration::from_millis(args.scan_budget_ms),
            progress: interactive,
        },
    );
    Ok(CheckReport {
        schema: SCHEMA_VERSION,
        location,
        scan,
    })
}
