//! `--format markdown`: a summary table, e.g. for `$GITHUB_STEP_SUMMARY`.

pub mod migrate;
pub mod probe;
pub mod survey;

use crate::assess::pipeline::CheckReport;
use crate::base::units;
use crate::decide::policy::Level;
use std::fmt::Write;

pub(super) fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

/// What was seen is no estimate when there was nothing to extrapolate from.
fn files_cell(scan: &crate::measure::scan::ScanReport) -> String {
    if scan.totals_unknown {
        format!(
            "unknown ({} seen before the scan budget ran out)",
            units::count(scan.counted.files)
        )
    } else if scan.complete {
        units::count(scan.files)
    } else {
        format!("{} (estimate)", units::count(scan.files))
    }
}

pub fn check(report: &CheckReport) -> String {
    let mut out = String::new();
    let location = &report.location;
    let verdict = &report.verdict;
    let icon = match verdict.level {
        Level::Ok => "✅",
        Level::Advise => "⚠️",
        Level::Move => "🛑",
    };
    let _ = writeln!(out, "### wsl-place: {icon} {}\n", verdict.level.as_str());
    if let Some(line) = super::text::not_a_repository(report) {
        let _ = writeln!(out, "{}\n", cell(&line));
    }
    let _ = writeln!(out, "| | |\n|---|---|");
    let _ = writeln!(
        out,
        "| path | `{}` |",
        cell(&location.paths.linux.display().to_string())
    );
    let _ = writeln!(
        out,
        "| mount | {} ({} on `{}`) |",
        location.mount.kind,
        cell(&location.mount.fstype),
        cell(&location.mount.mount_point.display().to_string())
    );
    if let Some(windows) = &location.paths.windows {
        let _ = writeln!(out, "| windows path | `{}` |", cell(windows));
    }
    let scan = &report.scan;
    let _ = writeln!(out, "| files | {} |", files_cell(scan));
    let _ = writeln!(out, "| size | {} |", units::bytes(scan.bytes));
    if let Some(tracked) = scan.tracked {
        let _ = writeln!(out, "| tracked by git | {} |", units::count(tracked));
    }
    if let Some(predict) = &report.predict {
        let _ = writeln!(
            out,
            "\n| predicted | here | Linux disk | speedup |\n|---|---|---|---|"
        );
        let rows = [
            ("git status", Some(&predict.git_status_ms)),
            (
                "first git status after a copy",
                Some(&predict.first_git_status_ms),
            ),
            ("dependency install", predict.install_ms.as_ref()),
            ("fresh checkout", Some(&predict.checkout_ms)),
        ];
        for (what, compared) in rows {
            let Some(compared) = compared else { continue };
            let baseline = compared
                .baseline
                .map_or("n/a".to_string(), units::duration_ms);
            let speedup = compared.speedup.map_or("n/a".to_string(), units::ratio);
            let _ = writeln!(
                out,
                "| {what} | {} | {baseline} | {speedup} |",
                units::duration_ms(compared.current)
            );
        }
        if let Some(ms) = predict.git_status_fsmonitor_ms {
            let _ = writeln!(
                out,
                "| git status with fsmonitor (git >= 2.55) | | {} | |",
                units::duration_ms(ms)
            );
        }
    }
    if !verdict.reasons.is_empty() {
        let _ = writeln!(out, "\n**Why**\n");
        for reason in &verdict.reasons {
            let _ = writeln!(
                out,
                "- {}: {}",
                reason.level.as_str(),
                cell(&reason.message)
            );
        }
    }
    if !verdict.advice.is_empty() {
        let _ = writeln!(out, "\n**What to do**\n");
        for advice in &verdict.advice {
            match &advice.command {
                Some(command) => {
                    let _ = writeln!(out, "- {}: `{}`", cell(&advice.message), command);
                }
                None => {
                    let _ = writeln!(out, "- {}", cell(&advice.message));
                }
            }
        }
    }
    out
}
