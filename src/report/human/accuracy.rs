//! `check`'s lines about its own accuracy here: the verified `git status` (`--verify`), how
//! right the predictions have been on this mount, and the correction that applies.

use super::{Screen, Tone};
use crate::assess::accuracy::{AccuracyReport, Applied, Verified};
use crate::assess::pipeline::CheckReport;
use crate::base::units;
use crate::host::git;
use crate::model::accuracy::Correction;

/// "git status measured 1.4 s, -7% against the ~1.5 s above: the median of 3 runs of ...";
/// `shown`: the figure the screen's headline gives for `git status` (the one prediction of it
/// on the screen), else the run's own prediction is named.
pub(crate) fn verified_line(verified: &Verified, shown: Option<f64>) -> (String, Tone) {
    match verified {
        Verified::Measured { timing, checked } => {
            let against = match shown.filter(|s| *s > 0.0) {
                Some(shown) => format!(
                    "git status measured {}, {} against the ~{} above",
                    units::duration_ms(checked.measured_ms),
                    units::signed_percent(checked.measured_ms / shown - 1.0),
                    units::duration_ms(shown)
                ),
                None => format!(
                    "git status predicted ~{}, measured {} ({})",
                    units::duration_ms(checked.predicted_ms),
                    units::duration_ms(checked.measured_ms),
                    units::signed_percent(checked.error)
                ),
            };
            let mut line = format!(
                "{against}: the median of {} runs of `{}`, which writes nothing in the repository",
                timing.runs_ms.len(),
                timing.command
            );
            if let Some(load) = timing
                .load_per_core
                .filter(|l| *l > crate::store::accuracy::LOADED_PER_CORE)
            {
                line.push_str(&format!(
                    "; taken under load ({load:.1} runnable per core), so it corrects no later prediction"
                ));
            }
            if timing.racily_clean == 0 {
                return (line, Tone::Plain);
            }
            let racy = format!(
                "; not kept in the record: {} written in the index's own second (a fresh checkout) made git read them again on every run, until a plain `git status` rewrites the index",
                units::counted(timing.racily_clean, "file", "files")
            );
            (line + &racy, Tone::Warn)
        }
        Verified::Failed { failed } => (
            format!(
                "git status could not be timed: {}",
                failed
                    .as_ref()
                    .map(crate::base::reason::Worded::sentence)
                    .unwrap_or_default()
            ),
            Tone::Warn,
        ),
    }
}

/// "within ±9% over 6 checks on this machine".
pub(crate) fn accuracy_line(report: &AccuracyReport) -> Option<String> {
    let a = report.git_status?;
    Some(format!(
        "git status predictions on this mount have been within ±{:.0}% over {} on this machine",
        a.within * 100.0,
        units::counted(a.checks as u64, "check", "checks")
    ))
}

fn factor_text(c: &Correction, whose: &str) -> String {
    let from = match c.repositories {
        0 | 1 => format!(
            "{} of {whose}",
            units::counted(c.checks as u64, "verification", "verifications")
        ),
        n => format!("{n} repositories' verifications on this mount"),
    };
    format!(
        "x{:.2} (the median of {from} was x{:.2}, shrunk toward 1)",
        c.factor, c.median_ratio
    )
}

/// "git status here x1.42 ...": what the correction did to this run's figures (the corrected
/// figure is the one the headline gives; the model's own is behind `--fresh`).
pub(crate) fn correction_line(applied: &Applied) -> String {
    let mut parts = Vec::new();
    if let Some(c) = &applied.git_status {
        let mut part = format!("git status here {}", factor_text(c, "this repository"));
        if applied.baseline_factor != 1.0 {
            part.push_str(", and on the Linux disk, the same mount, alike");
        }
        parts.push(part);
    }
    if let Some(c) = &applied.first_git_status {
        parts.push(format!(
            "the first git status on the Linux disk {}",
            factor_text(c, "migrations there")
        ));
    }
    let mut line = format!(
        "{}; --fresh shows the model's own figures",
        parts.join("; ")
    );
    if !applied.verdict_uses_it {
        line.push_str(
            "; the verdict weighs the model's figure: the correction alone would move it across a threshold no verification of this repository has",
        );
    }
    line
}

pub fn rows(screen: &mut Screen, report: &CheckReport) {
    let mut any = false;
    if let Some(verified) = &report.verify {
        let shown = report.predict.as_ref().map(|p| {
            let rule = crate::decide::policy::Rule::GitStatus;
            report.verdict.shown(rule, &p.git_status_ms).0.current
        });
        let (line, tone) = verified_line(verified, shown);
        screen.row("verified", &line, tone);
        if let Verified::Measured { timing, .. } = verified {
            for driver in &timing.filters_not_run {
                screen.row("not run", &git::filter_not_run(driver, None), Tone::Warn);
            }
        }
        any = true;
    }
    if let Some(accuracy) = &report.accuracy {
        if let Some(line) = accuracy_line(accuracy) {
            screen.row("accuracy", &line, Tone::Dim);
            any = true;
        }
        if let Some(applied) = &accuracy.correction {
            screen.row("corrected", &correction_line(applied), Tone::Plain);
            any = true;
        }
    }
    if any {
        screen.blank();
    }
}
