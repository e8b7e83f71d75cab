//! `wsl-place probe [DIR]`: the small-file probe on one directory's mount, every figure measured.

use crate::base::error::{ExitCode, Failure, Result};
use crate::base::interrupt;
use crate::base::progress::while_working;
use crate::commands::cli::{GlobalArgs, ProbeArgs};
use crate::host::HostEnv;
use crate::host::location::MountTable;
use crate::measure::probe::{self, LSTAT_THREADS, Target, Tracked};
use crate::report::Output;
use std::path::PathBuf;
use std::time::Duration;

/// What `probe` was asked to do.
pub struct Settings {
    pub dir: PathBuf,
    pub budget: Duration,
    pub output: Output,
}

impl Settings {
    pub fn new(global: &GlobalArgs, args: &ProbeArgs, env: &HostEnv) -> Result<Self> {
        Ok(Self {
            dir: args.dir.clone(),
            budget: Duration::from_millis(args.probe_budget_ms),
            output: super::output(global, args.format, args.quiet, env),
        })
    }
}

pub fn run(env: &HostEnv, settings: &Settings) -> Result<ExitCode> {
    let dir = super::whole_repository(env, &settings.dir, settings.output.quiet, "probing")?;
    let table = MountTable::read(env)?;
    let mount = probe::mount_of(&table, &dir)?;
    let what = format!(
        "timing small-file operations on {}",
        mount.mount_point.display()
    );
    let report = while_working(settings.output.shows_progress(), &what, || {
        let tracked = Tracked::read(&dir, &env.automount_root());
        probe::probe(&Target {
            dir: &dir,
            mount,
            budget: settings.budget,
            tracked: Some((&dir, &tracked.sample)),
            threads: LSTAT_THREADS,
            derive_cpu_bound: false,
        })
    });
    interrupt::check("the probe's scratch folder was removed.")?;
    super::show(&report, &settings.output)?;
    match &report.skipped {
        Some(reason) if report.ops.is_none() => Err(Failure::input(reason.clone())),
        _ => Ok(ExitCode::Ok),
    }
}
