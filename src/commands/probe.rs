//! `wsl-place probe [DIR]`: the small-file probe on one directory's mount, every figure measured.

use super::ReportFormat;
use crate::base::error::{ExitCode, Failure, Result};
use crate::base::interrupt;
use crate::commands::cli::{GlobalArgs, ProbeArgs};
use crate::host::HostEnv;
use crate::host::location::MountTable;
use crate::measure::probe::{self, LSTAT_THREADS, Target, Tracked};
use crate::report::{self, Style};
use std::path::PathBuf;
use std::time::Duration;

/// What `probe` was asked to do.
pub struct Settings {
    pub dir: PathBuf,
    pub budget: Duration,
    pub format: ReportFormat,
    pub quiet: bool,
    pub style: Style,
}

impl Settings {
    pub fn new(global: &GlobalArgs, args: &ProbeArgs, env: &HostEnv) -> Result<Self> {
        Ok(Self {
            dir: args.dir.clone(),
            budget: Duration::from_millis(args.probe_budget_ms),
            format: ReportFormat::from(args.format),
            quiet: args.quiet,
            style: Style::new(&global.terminal(env)),
        })
    }
}

pub fn run(env: &HostEnv, settings: &Settings) -> Result<ExitCode> {
    let dir = super::whole_repository(env, &settings.dir, settings.quiet, "probing")?;
    let table = MountTable::read(env)?;
    let mount = probe::mount_of(&table, &dir)?;
    let tracked = Tracked::read(&dir, &env.automount_root());
    let report = probe::probe(&Target {
        dir: &dir,
        mount,
        budget: settings.budget,
        tracked: Some((&dir, &tracked.sample)),
        threads: LSTAT_THREADS,
        derive_cpu_bound: false,
    });
    interrupt::check("the probe's scratch folder was removed.")?;
    if !settings.quiet {
        super::print(&match settings.format {
            ReportFormat::Json => report::to_json(&report)?,
            ReportFormat::Human => report::probe_table(&report, &settings.style),
            ReportFormat::Markdown => report::probe_markdown(&report),
        })?;
    }
    match &report.skipped {
        Some(reason) if report.ops.is_none() => Err(Failure::input(reason.clone())),
        _ => Ok(ExitCode::Ok),
    }
}
