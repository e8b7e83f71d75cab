//! `probe --format markdown`: the probe's table, e.g. for `$GITHUB_STEP_SUMMARY`.

use crate::measure::probe::ProbeReport;
use crate::report::text::probe::{lines, slow_call, summary, title, verify_problem};
use std::fmt::Write;

/// `probe --format markdown`: the same table, e.g. for `$GITHUB_STEP_SUMMARY`.
pub fn probe(p: &ProbeReport) -> String {
    let mut out = format!("### wsl-place probe: {}\n\n", super::code(&title(p)));
    let Some(lines) = lines(p) else {
        let reason = p.skipped.as_ref().map_or_else(
            || "nothing was measured.".to_string(),
            crate::base::reason::Worded::sentence,
        );
        let _ = writeln!(out, "Nothing was measured: {reason}");
        return out;
    };
    out.push_str("| operation | median | p10 | p90 | spread | samples |\n");
    out.push_str("|---|---:|---:|---:|---:|---:|\n");
    for l in lines {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} |",
            l.name, l.median, l.p10, l.p90, l.spread, l.samples
        );
    }
    let _ = writeln!(out, "\n{}", summary(p));
    for problem in verify_problem(p).into_iter().chain(slow_call(p)) {
        let _ = writeln!(out, "\n**{problem}**");
    }
    out
}
