//! `wsl-place probe [DIR]`: the small-file probe on one directory's mount, every figure measured.

use crate::base::error::{ExitCode, Failure, Result};
use crate::base::interrupt;
use crate::base::progress::{Drawn, working};
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

/// What became of the probes' scratch folders after Ctrl-C, for the last line.
pub fn scratch_after_interrupt(reports: &[&probe::ProbeReport]) -> String {
    let left: Vec<String> = reports
        .iter()
        .filter(|r| !r.cleaned)
        .map(|r| crate::base::pathtext::display(&r.dir))
        .collect();
    if left.is_empty() {
        "the probe's scratch folder was removed.".to_string()
    } else {
        format!(
            "the mount did not answer in time, so the probe's scratch folder in {} is removed once it does, or by the next probe there.",
            left.join(" and ")
        )
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
    let progress = Drawn::phases(settings.output.shows_progress());
    let report = working(
        &progress,
        || what.clone(),
        || {
            let tracked = Tracked::read(&dir, &env.automount_root());
            probe::probe(&Target {
                dir: &dir,
                mount,
                budget: settings.budget,
                tracked: Some((&dir, &tracked.sample)),
                threads: LSTAT_THREADS,
                derive_cpu_bound: false,
            })
        },
    );
    interrupt::check(&scratch_after_interrupt(&[&report]))?;
    let shown = crate::assess::accuracy::ProbeWithRecord {
        record: crate::assess::accuracy::mount_record(env, mount),
        probe: report,
    };
    super::show(&shown, &settings.output)?;
    let report = shown.probe;
    let reason = report
        .skipped
        .as_ref()
        .map(crate::base::reason::Worded::sentence);
    match reason {
        // A full disk or an I/O error is the system's failure (3); an unwritable folder is
        // where the user pointed the probe (2).
        Some(reason) if report.ops.is_none() && report.system_failure => {
            Err(Failure::internal(reason))
        }
        Some(reason) if report.ops.is_none() => Err(Failure::input(reason)),
        _ => Ok(ExitCode::Ok),
    }
}
