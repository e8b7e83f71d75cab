//! `wsl-place check`: locate, scan, probe, predict, decide, in that order.

use crate::cli::CheckArgs;
use crate::error::Result;
use crate::host::HostEnv;
use crate::location::{self, Location};
use crate::scan::{self, ScanOptions, ScanReport};
use crate::{model, probe};
use serde::Serialize;
use std::time::Duration;

/// Everything `check` found; its JSON form is the documented schema.
#[derive(Debug, Clone, Serialize)]
pub struct CheckReport {
    pub schema: u32,
    #[serde(flatten)]
    pub location: Location,
    pub scan: ScanReport,
    /// The timing probes (None with --no-probe).
    pub probe: Option<probe::ProbeSet>,
    /// What the model predicts from scan + probes (None with --no-probe or when the probe failed).
    pub predict: Option<model::Prediction>,
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
    let (probe, predict) = if args.no_probe {
        (None, None)
    } else {
        let probes = probe::for_check(env, &location, args)?;
        let predict = probe::predict(&scan, &probes, &location.paths.linux);
        (Some(probes), predict)
    };
    Ok(CheckReport {
        schema: SCHEMA_VERSION,
        location,
        scan,
        probe,
        predict,
    })
}
