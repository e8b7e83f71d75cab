//! `check`'s lines about its own accuracy here: the verified `git status` (`--verify`), how
//! right the predictions have been on this mount, and the correction that applies.

use super::{Screen, Tone};
use crate::assess::accuracy::{AccuracyReport, Applied, Verified};
use crate::assess::pipeline::CheckReport;
use crate::base::units;
use crate::host::git;
use crate::model::accuracy::Correction;

/// "git status predicted ~1.5 s, measured 1.4 s (-7%), the median of 3 runs of ...".
pub(crate) fn verified_line(verified: &Verified) -> (String, Tone) {
    match verified {
        Verified::Measured { timing, checked } => {
            let line = format!(
                "git status predicted ~{}, measured {} ({}): the median of {} runs of `{}`, which writes nothing in the repository",
                units::duration_ms(checked.predicted_ms),
                units::duration_ms(checked.measured_ms),
                units::signed_percent(checked.error),
                timing.runs_ms.len(),
                timing.command
            );
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
            format!("git status could not be timed: {failed}"),
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

fn factor_text(c: &Correction) -> String {
    format!(
        "x{:.2} (the median of {} was x{:.2}, shrunk toward 1)",
        c.factor,
        units::counted(c.checks as u64, "verification", "verifications"),
        c.median_ratio
    )
}

/// "git status here scaled x1.42 ...": what the correction did to this run's figures.
pub(crate) fn correction_line(applied: &Applied) -> String {
    let mut parts = Vec::new();
    if let Some(c) = &applied.git_status {
        parts.push(format!(
            "git status here {} from ~{}",
            factor_text(c),
            units::duration_ms(applied.model_git_status_ms)
        ));
    }
    if let Some(c) = &applied.first_git_status {
        parts.push(format!(
            "the first git status on the Linux disk {}",
            factor_text(c)
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
        let (line, tone) = verified_line(verified);
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
