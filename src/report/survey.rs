//! `survey`'s outputs: a table for a person, markdown for a step summary, annotations for
//! GitHub Actions. JSON is the report itself.

use super::Style;
use super::github::escape_data;
use super::human::level_label;
use super::markdown::{cell, code};
use crate::model::Compared;
use crate::policy::Level;
use crate::survey::{RepositoryReport, Summary, SurveyReport};
use crate::units;
use std::fmt::Write;
use std::path::Path;

/// A repository's path as the table shows it: relative to the surveyed folder.
fn shown(report: &SurveyReport, repository: &RepositoryReport) -> String {
    match repository.path.strip_prefix(&report.dir) {
        Ok(rel) if rel.as_os_str().is_empty() => ".".to_string(),
        Ok(rel) => crate::pathtext::display(rel),
        Err(_) => crate::pathtext::display(&repository.path),
    }
}

fn here(c: Option<&Compared>) -> String {
    c.map_or("-".to_string(), |c| {
        format!("~{}", units::duration_ms(c.current))
    })
}

fn there(c: Option<&Compared>) -> String {
    c.and_then(|c| c.baseline)
        .map_or("-".to_string(), |ms| format!("~{}", units::duration_ms(ms)))
}

/// The cells of one row, uncoloured, in column order (the verdict last).
fn cells(report: &SurveyReport, repository: &RepositoryReport) -> [String; 8] {
    let predict = repository.predict.as_ref();
    let status = predict.map(|p| &p.git_status_ms);
    let install = predict.and_then(|p| p.install_ms.as_ref());
    let tracked = repository
        .scan
        .tracked
        .map_or("-".to_string(), |n| n.to_string());
    [
        shown(report, repository),
        tracked,
        units::bytes(repository.scan.bytes),
        here(status),
        there(status),
        here(install),
        there(install),
        repository.verdict.level.as_str().to_string(),
    ]
}

const HEADERS: [&str; 8] = [
    "repository",
    "tracked",
    "size",
    "git status here",
    "Linux disk",
    "install here",
    "Linux disk",
    "verdict",
];

pub fn human(report: &SurveyReport, style: &Style) -> String {
    let mut out = String::new();
    let rows: Vec<[String; 8]> = report
        .repositories
        .iter()
        .map(|r| cells(report, r))
        .collect();
    let _ = writeln!(
        out,
        "{}",
        style.bold(&crate::pathtext::display(&report.dir))
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
                    .map(|n| format!("{} {}", n.kind, crate::pathtext::display(&n.path)))
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

/// One line per repository that was found and not judged, with why.
fn not_judged_lines(report: &SurveyReport) -> Vec<String> {
    report
        .not_judged
        .iter()
        .map(|n| {
            format!(
                "not judged: {}: {}",
                display(&n.path),
                crate::pathtext::display_text(&n.why)
            )
        })
        .collect()
}

/// Folders the search could not list hide whatever repositories are below them.
fn unreadable_note(discovery: &crate::discover::Discovery) -> Option<String> {
    (discovery.unreadable > 0).then(|| {
        format!(
            "{} could not be read; repositories behind {} are not listed",
            units::counted(discovery.unreadable, "folder", "folders"),
            if discovery.unreadable == 1 {
                "it"
            } else {
                "them"
            }
        )
    })
}

/// "12 repositories: 9 would be faster on the Linux disk (git status 8.1 s here, 60 ms there,
/// in all); moving them needs 1.2 GiB there."
pub fn summary_line(summary: &Summary) -> String {
    let n = summary.repositories;
    let plural = if n == 1 { "repository" } else { "repositories" };
    if summary.would_gain == 0 {
        return format!("{n} {plural}: all fine where they are");
    }
    let status = match summary.git_status_linux_ms {
        Some(linux) => format!(
            " (git status {} here, {} on the Linux disk, all added up)",
            units::duration_ms(summary.git_status_here_ms),
            units::duration_ms(linux)
        ),
        None => String::new(),
    };
    format!(
        "{n} {plural}: {} would be faster on the Linux disk{status}; moving them needs {} there",
        summary.would_gain,
        units::bytes(summary.bytes_to_move)
    )
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
            crate::pathtext::display(&probe.mount_point),
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

pub fn markdown(report: &SurveyReport) -> String {
    let mut out = String::new();
    let icon = match report.summary.worst {
        Level::Ok => "✅",
        Level::Advise => "⚠️",
        Level::Move => "🛑",
    };
    let _ = writeln!(
        out,
        "### wsl-place survey: {icon} {}\n",
        code(&crate::pathtext::display(&report.dir))
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
            code(&display(&n.path)),
            cell(&n.why)
        );
    }
    let _ = writeln!(out, "\n{}", summary_line(&report.summary));
    if let Some(note) = unreadable_note(&report.discovery) {
        let _ = writeln!(out, "\n{note}");
    }
    out
}

/// One annotation per repository that would gain, then the summary as a notice.
pub fn github(report: &SurveyReport) -> String {
    let mut out = String::new();
    for repository in report
        .repositories
        .iter()
        .filter(|r| r.verdict.level > Level::Ok)
    {
        let why = repository
            .verdict
            .reasons
            .iter()
            .find(|r| r.level == repository.verdict.level)
            .map_or(String::new(), |r| format!(": {}", r.message));
        let _ = writeln!(
            out,
            "::warning title=wsl-place survey%3A {}::{}",
            repository.verdict.level.as_str(),
            escape_data(&format!("{}{why}", display(&repository.path)))
        );
    }
    for n in &report.not_judged {
        let _ = writeln!(
            out,
            "::warning title=wsl-place survey%3A not judged::{}",
            escape_data(&format!("{}: {}", display(&n.path), n.why))
        );
    }
    let _ = writeln!(
        out,
        "::notice title=wsl-place survey::{}",
        escape_data(&summary_line(&report.summary))
    );
    out
}

fn display(path: &Path) -> String {
    crate::pathtext::display(path)
}
