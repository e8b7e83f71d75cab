//! `wsl-place check [PATH]`: the full check, or with `--advisory` the pre-commit nudge.

use crate::assess::advisory;
use crate::assess::old_place;
use crate::assess::pipeline;
use crate::base::error::{ExitCode, Result};
use crate::base::interrupt;
use crate::base::progress::Drawn;
use crate::commands::cli::{CheckArgs, FailOn, GlobalArgs};
use crate::decide::policy::Level;
use crate::host::HostEnv;
use crate::report::Output;
use std::path::PathBuf;
use std::time::Duration;

/// How long `check` scans when not told (`--scan-budget-ms`): long enough for a large
/// repository on a local disk, short enough to answer at once on a slow mount.
const DEFAULT_SCAN_BUDGET_MS: u64 = 3000;

/// What `check` was asked to do.
pub struct Settings {
    pub check: pipeline::Settings,
    /// Hook mode: the cached line, or one short measurement.
    pub advisory: bool,
    /// `--verify`: time the real `git status` after predicting it.
    pub verify: bool,
    /// `--fresh`: the verdict weighs this run alone, not the last checks here.
    pub fresh: bool,
    /// The lowest level that fails the run (exit 1); None: never.
    pub fail_at: Option<Level>,
    pub output: Output,
    pub policy: Option<PathBuf>,
}

impl Settings {
    pub fn new(
        global: &GlobalArgs,
        args: &CheckArgs,
        env: &HostEnv,
        config: &super::config::UserConfig,
    ) -> Result<Self> {
        let mut output = super::output(global, args.measure.format, args.quiet, env);
        output.style.verbose = args.measure.verbose;
        Ok(Self {
            check: pipeline::Settings {
                path: args.path.clone(),
                probe: !args.measure.no_probe,
                scan_budget: Duration::from_millis(
                    args.measure
                        .scan_budget_ms
                        .unwrap_or(DEFAULT_SCAN_BUDGET_MS),
                ),
                probe_budget: Duration::from_millis(args.probe_budget_ms),
                baseline: args.measure.baseline.clone(),
                exact: args.measure.exact,
                purpose: if args.advisory {
                    pipeline::Purpose::Hook
                } else {
                    pipeline::Purpose::Check {
                        fresh: args.measure.fresh,
                    }
                },
            },
            fresh: args.measure.fresh,
            advisory: args.advisory,
            verify: args.verify,
            fail_at: fail_at(args.fail_on),
            output,
            policy: config.policy(args.policy.as_deref()),
        })
    }
}

/// The lowest verdict that fails the run under `--fail-on` (also `survey`'s).
pub fn fail_at(fail_on: FailOn) -> Option<Level> {
    match fail_on {
        FailOn::Advise => Some(Level::Advise),
        FailOn::Move => Some(Level::Move),
        FailOn::Never => None,
    }
}

/// The last line after Ctrl-C: nothing was cached, and where the probes' scratch folders are.
fn after_interrupt(report: Option<&pipeline::CheckReport>) -> String {
    if report.is_none() {
        return "nothing was cached; a probe's scratch folder is removed once its mount answers, or by the next probe there.".to_string();
    }
    let probes = report.and_then(|r| r.probe.as_ref());
    let left: Vec<&crate::measure::probe::ProbeReport> = probes
        .into_iter()
        .flat_map(|p| std::iter::once(&p.current).chain(&p.baseline))
        .filter(|p| !p.cleaned)
        .collect();
    if left.is_empty() {
        "the probes' scratch folders were removed and nothing was cached.".to_string()
    } else {
        format!(
            "nothing was cached; {}",
            super::probe::scratch_after_interrupt(&left)
        )
    }
}

pub fn run(env: &HostEnv, settings: &Settings) -> Result<ExitCode> {
    if settings.advisory {
        return run_advisory(env, settings);
    }
    let check = pipeline::Settings {
        path: super::whole_repository(
            env,
            &settings.check.path,
            settings.output.quiet,
            "checking",
        )?,
        ..settings.check.clone()
    };
    // The last verdict here (the hook's provisional one included) is kept while this run's
    // ranges still support it, so noise does not flip it; this run's verdict replaces it.
    // `--fresh` starts from nothing: its verdict, history of one, is what later runs weigh.
    let checked =
        pipeline::prepare(env, &check.path, settings.policy.as_deref()).and_then(|setting| {
            let previous = (!settings.fresh)
                .then(|| advisory::load_valid(env, &setting.location, &setting.policy))
                .flatten()
                .map(|e| e.previous())
                .unwrap_or_default();
            let progress = Drawn::phases(settings.output.shows_progress());
            pipeline::measure(env, &check, setting, &previous, &progress)
        });
    interrupt::check(&after_interrupt(checked.as_ref().ok().map(|(r, _)| r)))?;
    let (mut report, policy) = checked?;
    if settings.verify {
        verify(env, &mut report, &settings.output);
        interrupt::check(&after_interrupt(Some(&report)))?;
    }
    // Only a measurement replaces a measurement: a `--no-probe` verdict (the mount's kind
    // alone) must not downgrade the full one a hook with `--fail-on` relies on.
    // At the old place the moved record speaks: the pre-move answer is not refreshed.
    if check.probe && report.moved.is_none() {
        advisory::store(env, &advisory::entry_for(&report, &policy));
    }
    super::show(&report, &settings.output)?;
    Ok(exit_code(report.verdict.level, settings.fail_at))
}

/// `--verify`: the real `git status` timed beside its prediction, where there is one.
fn verify(env: &HostEnv, report: &mut pipeline::CheckReport, output: &Output) {
    // The old place is neither probed nor predicted: the repository is the copy now.
    if let Some(old) = &report.moved {
        let old_place = crate::measure::verify::Unmeasured::OldPlace {
            copy: old.destination.clone(),
        };
        report.verify = Some(crate::assess::accuracy::Verified::Failed {
            failed: crate::base::reason::Noted(Some(old_place)),
        });
        return;
    }
    let Some(prediction) = report
        .predict
        .as_ref()
        .filter(|_| report.scan.git.is_some())
    else {
        return;
    };
    let (shown, _) = report.verdict.shown(
        crate::decide::policy::Rule::GitStatus,
        &prediction.git_status_ms,
    );
    let progress = Drawn::phases(output.shows_progress());
    let verified = crate::base::progress::working(
        &progress,
        || format!("timing {} here", crate::measure::verify::GIT_STATUS_COMMAND),
        || {
            let accuracy = &mut report.accuracy;
            crate::assess::accuracy::verify(env, &report.location, shown.current, accuracy)
        },
    );
    report.verify = Some(verified);
}

/// `check --advisory`: one line or nothing (the JSON entry with --format json), even with --quiet.
fn run_advisory(env: &HostEnv, settings: &Settings) -> Result<ExitCode> {
    // At the old place of a finished migration the line says where it went, and nothing is
    // measured or cached.
    let policy = settings.policy.as_deref();
    let checked = match old_place::advisory_entry(env, &settings.check.path, policy) {
        Ok(Some(entry)) => Ok((entry, true)),
        _ => advisory::run(env, &settings.check, policy),
    };
    interrupt::check(&after_interrupt(None))?;
    let entry = match checked {
        Ok((entry, _cached)) => entry.shown_under(settings.fail_at),
        // A hook must not block a commit unless asked to: say what is wrong, and succeed.
        Err(failure) if settings.fail_at.is_none() => {
            crate::commands::report_failure(&failure);
            return Ok(ExitCode::Ok);
        }
        Err(failure) => return Err(failure),
    };
    // Even with --quiet: the line is the hook's whole point.
    super::show(
        &entry,
        &Output {
            quiet: false,
            ..settings.output.clone()
        },
    )?;
    Ok(if entry.blocks(settings.fail_at) {
        ExitCode::VerdictFailed
    } else {
        ExitCode::Ok
    })
}

/// Exit code for a verdict when levels from `fail_at` up fail the run.
pub fn exit_code(level: Level, fail_at: Option<Level>) -> ExitCode {
    match fail_at {
        Some(threshold) if level >= threshold => ExitCode::VerdictFailed,
        _ => ExitCode::Ok,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fail_on_levels() {
        assert_eq!(exit_code(Level::Move, None), ExitCode::Ok);
        assert_eq!(exit_code(Level::Advise, Some(Level::Move)), ExitCode::Ok);
        assert_eq!(
            exit_code(Level::Move, Some(Level::Move)),
            ExitCode::VerdictFailed
        );
        assert_eq!(
            exit_code(Level::Advise, Some(Level::Advise)),
            ExitCode::VerdictFailed
        );
        assert_eq!(exit_code(Level::Ok, Some(Level::Advise)), ExitCode::Ok);
    }
}
