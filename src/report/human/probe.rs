//! `wsl-place probe`: the per-operation table, for a terminal.

use super::Style;
use crate::measure::probe::ProbeReport;
use crate::report::text::probe::{lines, slow_call, summary, title, verify_problem};
use std::fmt::Write;

/// "verified here: git status within ±9% over 6 checks; corrected x1.20 (3 verifications)".
pub fn record_line(record: &crate::assess::accuracy::MountRecord, style: &Style) -> String {
    let mut line = format!(
        "  this machine's record of this mount: {}",
        crate::base::units::counted(
            record.verifications.len() as u64,
            "verified prediction",
            "verified predictions"
        )
    );
    if let Some(a) = record.git_status {
        line.push_str(&format!(
            "; git status within ±{:.0}% over the last {}",
            a.within * 100.0,
            crate::base::units::counted(a.checks as u64, "check", "checks")
        ));
    }
    if let Some(c) = record.correction {
        line.push_str(&format!(
            "; checks here scale it x{:.2} ({})",
            c.factor,
            crate::base::units::counted(c.checks as u64, "verification", "verifications")
        ));
    }
    format!("{}\n", style.dim(&line))
}

/// The table for a terminal.
pub fn table(p: &ProbeReport, style: &Style) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}", style.bold(&title(p)));
    let Some(lines) = lines(p) else {
        let reason = p.skipped.as_ref().map_or_else(
            || "nothing was measured.".to_string(),
            crate::base::reason::Worded::sentence,
        );
        let _ = writeln!(out, "  {}", style.warn(&reason));
        return out;
    };
    let _ = writeln!(
        out,
        "  {:<28}{:>10}{:>10}{:>10}{:>8}{:>9}",
        "operation", "median", "p10", "p90", "spread", "samples"
    );
    for l in lines {
        let _ = writeln!(
            out,
            "  {:<28}{:>10}{:>10}{:>10}{:>8}{:>9}",
            l.name, l.median, l.p10, l.p90, l.spread, l.samples
        );
    }
    let _ = writeln!(out, "  {}", style.dim(&summary(p)));
    for problem in verify_problem(p).into_iter().chain(slow_call(p)) {
        let _ = writeln!(out, "  {}", style.bad(&problem));
    }
    out
}
