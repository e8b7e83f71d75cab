//! `wsl-place survey [DIR]`: every repository below a folder in one table.

use super::check::exit_code;
use crate::assess::survey;
use crate::base::error::{ExitCode, Result};
use crate::commands::cli::{GlobalArgs, SurveyArgs};
use crate::decide::policy::Level;
use crate::host::HostEnv;
use crate::report::{self, CheckFormat, Style};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::time::Duration;

/// What `survey` was asked to do.
pub struct Settings {
    pub survey: survey::Settings,
    pub fail_at: Option<Level>,
    pub format: CheckFormat,
    pub quiet: bool,
    pub style: Style,
    /// A progress bar on standard error.
    pub live: bool,
}

impl Settings {
    pub fn new(args: &SurveyArgs, global: &GlobalArgs, env: &HostEnv) -> Self {
        let terminal = global.terminal(env);
        Self {
            survey: survey::Settings {
                dir: args.dir.clone(),
                probe: !args.measure.no_probe,
                scan_budget: Duration::from_millis(args.measure.scan_budget_ms),
                probe_budget: Duration::from_millis(args.probe_budget_ms),
                discover_budget: Duration::from_millis(args.search_budget_ms),
                baseline: args.measure.baseline.clone(),
                policy: args.policy.clone(),
            },
            fail_at: super::check::fail_at(args.fail_on),
            format: super::check::format(args.measure.format),
            quiet: args.quiet,
            style: Style::new(&terminal),
            live: terminal.live && !args.quiet,
        }
    }
}

/// The progress bar, drawn only on a live terminal.
struct Bar(ProgressBar);

impl survey::Progress for Bar {
    fn start(&self, steps: u64) {
        self.0.set_position(0);
        self.0.set_length(steps);
    }
    fn step(&self, what: &str) {
        self.0.set_message(what.to_string());
        self.0.inc(1);
    }
}

pub fn run(env: &HostEnv, settings: &Settings) -> Result<ExitCode> {
    let target = if settings.live {
        ProgressDrawTarget::stderr()
    } else {
        ProgressDrawTarget::hidden()
    };
    let bar = ProgressBar::with_draw_target(Some(0), target);
    if let Ok(style) = ProgressStyle::with_template("{bar:30} {pos}/{len} {wide_msg}") {
        bar.set_style(style);
    }
    let bar = Bar(bar);
    let report = survey::run(env, &settings.survey, &bar);
    bar.0.finish_and_clear();
    let report = report?;
    if !settings.quiet {
        let text = match settings.format {
            CheckFormat::Human => report::survey::human(&report, &settings.style),
            CheckFormat::Json => report::to_json(&report)?,
            CheckFormat::Markdown => report::survey::markdown(&report),
            CheckFormat::Github => report::survey::github(&report),
        };
        super::print(&text)?;
    }
    Ok(exit_code(report.summary.worst, settings.fail_at))
}
