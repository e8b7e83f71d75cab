//! `survey --format markdown`: the table for a step summary.

use super::cell;
use crate::assess::survey::SurveyReport;
use crate::decide::policy::Level;
use crate::report::text::survey::{HEADERS, cells, summary_line};
use std::fmt::Write;

pub fn survey(report: &SurveyReport) -> String {
    let mut out = String::new();
    let icon = match report.summary.worst {
        Level::Ok => "✅",
        Level::Advise => "⚠️",
        Level::Move => "🛑",
    };
    let _ = writeln!(
        out,
        "### wsl-place survey: {icon} {}\n",
        cell(&report.dir.display().to_string())
    );
    let _ = writeln!(out, "| {} |", HEADERS.join(" | "));
    let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|---:|---|");
    for repository in &report.repositories {
        let row = cells(report, repository);
        let mut row: Vec<String> = row.iter().map(|c| cell(c)).collect();
        row[0] = format!("`{}`", row[0]);
        let _ = writeln!(out, "| {} |", row.join(" | "));
    }
    let _ = writeln!(out, "\n{}", summary_line(&report.summary));
    out
}
