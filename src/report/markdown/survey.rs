//! `survey --format markdown`: the table for a step summary.

use super::{cell, code};
use crate::assess::survey::SurveyReport;
use crate::decide::policy::Level;
use crate::report::text::survey::{
    HEADERS, cells, shown, stopped_note, summary_line, unreadable_note,
};
use std::fmt::Write;

pub fn survey(report: &SurveyReport) -> String {
    let mut out = String::new();
    let icon = match report.summary.worst {
        Level::Ok => "✅",
        Level::Advise => "⚠️",
        Level::Moved => "📦",
        Level::Move => "🛑",
    };
    let _ = writeln!(
        out,
        "### wsl-place survey: {icon} {}\n",
        code(&crate::base::pathtext::display(&report.dir))
    );
    let _ = writeln!(out, "| {} |", HEADERS.join(" | "));
    let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|---:|---|");
    for repository in &report.repositories {
        let row = cells(report, repository);
        let mut row: Vec<String> = row.iter().map(|c| cell(c)).collect();
        row[0] = code(&shown(report, repository));
        let _ = writeln!(out, "| {} |", row.join(" | "));
    }
    for n in &report.not_judged {
        let _ = writeln!(
            out,
            "\n- not judged: {}: {}",
            code(&crate::base::pathtext::display(&n.path)),
            cell(&n.why)
        );
    }
    let _ = writeln!(out, "\n{}", summary_line(report));
    for note in unreadable_note(&report.discovery)
        .into_iter()
        .chain(stopped_note(report))
    {
        let _ = writeln!(out, "\n{note}");
    }
    out
}
