//! `wsl-place survey [DIR]`: every repository below a folder in one table.

use super::check::exit_code;
use crate::assess::survey;
use crate::base::error::{ExitCode, Result};
use crate::base::progress::{Drawn, Progress};
use crate::commands::cli::{GlobalArgs, SurveyArgs};
use crate::decide::policy::Level;
use crate::host::HostEnv;
use crate::report::Output;
use std::time::Duration;

/// What `survey` was asked to do.
pub struct Settings {
    pub survey: survey::Settings,
    pub fail_at: Option<Level>,
    pub output: Output,
}

impl Settings {
    pub fn new(
        args: &SurveyArgs,
        global: &GlobalArgs,
        env: &HostEnv,
        config: &super::config::UserConfig,
    ) -> Self {
        let mut output = super::output(global, args.measure.format, args.quiet, env);
        output.style.verbose = args.measure.verbose;
        Self {
            survey: survey::Settings {
                dir: args.dir.clone(),
                probe: !args.measure.no_probe,
                scan_budget: args.measure.scan_budget_ms.map(Duration::from_millis),
                budget: Duration::from_millis(args.budget_ms),
                probe_budget: Duration::from_millis(args.probe_budget_ms),
                discover_budget: Duration::from_millis(args.search_budget_ms),
                baseline: args.measure.baseline.clone(),
                exact: args.measure.exact,
                fresh: args.measure.fresh,
                policy: config.policy(args.policy.as_deref()),
            },
            fail_at: super::check::fail_at(args.fail_on),
            output,
        }
    }
}

pub fn run(env: &HostEnv, settings: &Settings) -> Result<ExitCode> {
    let bar = Drawn::steps(settings.output.shows_progress());
    let report = survey::run(env, &settings.survey, &bar);
    bar.finish();
    let report = report?;
    super::show(&report, &settings.output)?;
    Ok(exit_code(report.summary.worst, settings.fail_at))
}
