//! `survey`'s table for a person.

use super::{Style, level_label};
use crate::assess::survey::SurveyReport;
use crate::base::units;
use crate::report::text::survey::{
    HEADERS, cells, not_judged_lines, summary_line, unreadable_note,
};
use std::fmt::Write;

pub fn table(report: &SurveyReport, style: &Style) -> String {
    let mut out = String::new();
    let rows: Vec<[String; 8]> = report
        .repositories
        .iter()
        .map(|r| cells(report, r))
        .collect();
    let _ = writeln!(
        out,
        "{}",
        style.bold(&crate::base::pathtext::display(&report.dir))
    );
    if rows.is_empty() {
        let _ = writeln!(out, "no git repositories below this folder");
    } else {
        let widths: Vec<usize> = (0..8)
            .map(|i| {
                rows.iter()
                    .map(|r| r[i].chars().count())
                    .chain([HEADERS[i].len()])
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let line = |cells: &[String], last: String| {
            let mut text = format!("{:<w$}", cells[0], w = widths[0]);
            for i in 1..7 {
                let _ = write!(text, "  {:>w$}", cells[i], w = widths[i]);
            }
            format!("{text}  {last}")
        };
        let headers: Vec<String> = HEADERS.iter().map(|h| h.to_string()).collect();
        let _ = writeln!(
            out,
            "{}",
            style.dim(&line(&headers, HEADERS[7].to_string()))
        );
        for (row, repository) in rows.iter().zip(&report.repositories) {
            let verdict = level_label(repository.verdict.level, style);
            let _ = writeln!(out, "{}", line(row, verdict));
            if !repository.nested.is_empty() {
                let notes: Vec<String> = repository
                    .nested
                    .iter()
                    .map(|n| format!("{} {}", n.kind, crate::base::pathtext::display(&n.path)))
                    .collect();
                let _ = writeln!(
                    out,
                    "{}",
                    style.dim(&format!("  holds {}", notes.join(", ")))
                );
            }
        }
    }
    for line in not_judged_lines(report) {
        let _ = writeln!(out, "{}", style.warn(&line));
    }
    let _ = writeln!(out, "\n{}", style.bold(&summary_line(&report.summary)));
    footnotes(&mut out, report, style);
    out
}

fn footnotes(out: &mut String, report: &SurveyReport, style: &Style) {
    let d = &report.discovery;
    let mut notes = vec![format!(
        "searched {} directories in {} (budget {}){}{}",
        d.directories_listed,
        units::duration_ms(d.elapsed_ms as f64),
        units::duration_ms(d.budget_ms as f64),
        if d.complete {
            ""
        } else {
            ", stopped by the budget: some repositories may be missing"
        },
        if d.symlinks_skipped > 0 {
            format!(", {} symlinks not followed", d.symlinks_skipped)
        } else {
            String::new()
        }
    )];
    notes.extend(unreadable_note(d));
    for probe in &report.probes {
        let role = match (probe.repositories, probe.baseline) {
            (0, _) => "the Linux disk".to_string(),
            (n, true) => format!("{n} repositories and the Linux disk"),
            (n, false) => format!("{n} repositories"),
        };
        notes.push(format!(
            "one probe of {} ({}) for {role}: lstat {}",
            crate::base::pathtext::display(&probe.mount_point),
            probe.fstype,
            probe
                .probe
                .lstat_us()
                .map_or("-".to_string(), |us| format!("{us:.1} us"))
        ));
    }
    notes.push(format!(
        "surveyed in {}; `wsl-place check PATH` gives one repository's figures and advice",
        units::duration_ms(report.summary.elapsed_ms as f64)
    ));
    for note in notes {
        let _ = writeln!(out, "{}", style.dim(&note));
    }
}
