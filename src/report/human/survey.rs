//! `survey`'s table for a person, fitted to the terminal: columns that cannot fit are dropped
//! (all-empty install columns first, then size, tracked and install), then long repository paths
//! are shortened from the left, as `check` drops what does not fit.

use super::{Style, columns, level_label, wrap};
use crate::assess::survey::{RepositoryReport, SurveyReport};
use crate::base::units;
use crate::report::text::survey::{
    HEADERS, cells, nested_kind, not_judged_lines, stopped_note, summary_line, unreadable_note,
};
use std::fmt::Write;

/// Columns given up, in this order, while the table is wider than the terminal. The first
/// group goes only when it holds no figure at all.
const DROP_ORDER: [&[usize]; 4] = [&[5, 6], &[2], &[1], &[5, 6]];
/// A repository path is never shortened below this.
const MIN_PATH: usize = 12;
const GAP: usize = 2;

pub fn table(report: &SurveyReport, style: &Style) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}",
        style.bold(&crate::base::pathtext::display(&report.dir))
    );
    if !report.repositories.is_empty() {
        repository_rows(&mut out, report, style);
        out.push('\n');
    }
    for line in not_judged_lines(report) {
        let _ = writeln!(out, "{}", style.warn(&line));
    }
    footnotes(&mut out, report, style);
    // The answer and its figures last: on a terminal shorter than the table they stay in view.
    for line in wrap(&summary_line(report), style.width) {
        let _ = writeln!(out, "{}", style.bold(&line));
    }
    out
}

/// The header and a line per repository, in the columns that fit, each followed by its notes;
/// then which columns the width hid.
fn repository_rows(out: &mut String, report: &SurveyReport, style: &Style) {
    let rows: Vec<[String; 8]> = report
        .repositories
        .iter()
        .map(|r| cells(report, r))
        .collect();
    let (shown, widths) = fit(&rows, style.width);
    let line = |cells: &[String], verdict: String| {
        let mut text = String::new();
        for (n, &column) in shown.iter().enumerate() {
            let cell = &cells[column];
            let _ = match column {
                0 => write!(text, "{:<w$}", shorten(cell, widths[0]), w = widths[0]),
                7 => write!(text, "{verdict}"),
                _ => write!(text, "{cell:>w$}", w = widths[column]),
            };
            if n + 1 < shown.len() {
                text.push_str(&" ".repeat(GAP));
            }
        }
        text
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
        repository_notes(out, repository, style);
    }
    if let Some(note) = hidden_note(&shown) {
        for line in wrap(&note, style.width) {
            let _ = writeln!(out, "{}", style.dim(&line));
        }
    }
}

/// Under a repository's line: that it was migrated, that it stays on Windows by choice, and the
/// repositories nested in it.
fn repository_notes(out: &mut String, repository: &RepositoryReport, style: &Style) {
    if let Some(old) = &repository.moved {
        for note in wrap(&old.message.sentence(), style.width - 2) {
            let _ = writeln!(out, "  {}", style.warn(&note));
        }
    }
    let by_choice = repository
        .verdict
        .reasons
        .iter()
        .find(|r| r.rule == crate::decide::policy::Rule::WindowsPrimary);
    if let Some(kept) = by_choice {
        for note in wrap(&kept.message.sentence(), style.width - 2) {
            let _ = writeln!(out, "  {}", style.dim(&note));
        }
    }
    if !repository.nested.is_empty() {
        let notes: Vec<String> = repository
            .nested
            .iter()
            .map(|n| {
                format!(
                    "{} {}",
                    nested_kind(n.kind),
                    crate::base::pathtext::display(&n.path)
                )
            })
            .collect();
        for note in wrap(&format!("holds {}", notes.join(", ")), style.width - 2) {
            let _ = writeln!(out, "  {}", style.dim(&note));
        }
    }
}

/// "hidden at this width: size, install here, install Linux": the columns the terminal had
/// no room for, so a narrow table does not pass for all there is (`--format json` has them all).
fn hidden_note(shown: &[usize]) -> Option<String> {
    let hidden: Vec<&str> = (0..HEADERS.len())
        .filter(|column| !shown.contains(column))
        .map(|column| HEADERS[column])
        .collect();
    (!hidden.is_empty()).then(|| {
        format!(
            "hidden at this width: {} (a wider terminal or --format json shows them)",
            hidden.join(", ")
        )
    })
}

/// The columns shown and every column's width, so that a line takes at most `width` columns
/// (or as little as the columns that always stay allow).
fn fit(rows: &[[String; 8]], width: usize) -> (Vec<usize>, [usize; 8]) {
    let mut widths = [0; 8];
    for (column, header) in HEADERS.iter().enumerate() {
        widths[column] = rows
            .iter()
            .map(|r| columns(&r[column]))
            .chain([columns(header)])
            .max()
            .unwrap_or(0);
    }
    let mut shown: Vec<usize> = (0..8).collect();
    let total = |shown: &[usize], widths: &[usize; 8]| {
        shown.iter().map(|&c| widths[c]).sum::<usize>() + GAP * (shown.len() - 1)
    };
    for (n, group) in DROP_ORDER.iter().enumerate() {
        if total(&shown, &widths) <= width {
            break;
        }
        let empty = group
            .iter()
            .all(|&column| rows.iter().all(|r| r[column] == "-"));
        if n == 0 && !empty {
            continue;
        }
        shown.retain(|column| !group.contains(column));
    }
    let over = total(&shown, &widths).saturating_sub(width);
    widths[0] = widths[0].saturating_sub(over).max(MIN_PATH.min(widths[0]));
    (shown, widths)
}

/// `path` in at most `width` columns: its end, which names the repository, after an ellipsis.
fn shorten(path: &str, width: usize) -> String {
    let length = columns(path);
    if length <= width {
        return path.to_string();
    }
    let tail: String = path.chars().skip(length - width + 1).collect();
    format!("…{tail}")
}

/// Below the table: how far the search went, what it could not read, each probe and what it
/// stood for, and how long the survey took.
fn footnotes(out: &mut String, report: &SurveyReport, style: &Style) {
    let mut notes = Vec::new();
    notes.extend(search_note(report));
    notes.extend(unreadable_note(&report.discovery));
    notes.extend(stopped_note(report));
    // Each probe's figure is a detail (`--verbose`, or `--format json`).
    for probe in report.probes.iter().filter(|_| style.verbose) {
        let role = match (probe.repositories, probe.baseline) {
            (0, _) => "the Linux disk".to_string(),
            (n, true) => format!(
                "{} and the Linux disk",
                units::counted(n as u64, "repository", "repositories")
            ),
            (n, false) => units::counted(n as u64, "repository", "repositories"),
        };
        notes.push(format!(
            "one probe of {} ({}) for {role}: each file check {}",
            crate::base::pathtext::display(&probe.mount_point),
            probe.fstype,
            probe
                .probe
                .lstat_us()
                .map_or("-".to_string(), units::micros)
        ));
    }
    if !report.repositories.is_empty() {
        notes.push(format!(
            "surveyed in {}; `wsl-place check PATH` gives one repository's figures and advice",
            units::duration_ms(report.summary.elapsed_ms as f64),
        ));
    }
    for note in notes {
        for line in wrap(&note, style.width) {
            let _ = writeln!(out, "{}", style.dim(&line));
        }
    }
}

/// How far the search went: worth a line only where it found nothing, stopped early or passed
/// links by; otherwise the table says it (`--format json` keeps the figures).
fn search_note(report: &SurveyReport) -> Option<String> {
    let d = &report.discovery;
    if !(report.repositories.is_empty() || !d.complete || d.symlinks_skipped > 0) {
        return None;
    }
    let took = if d.elapsed_ms == 0 {
        "under 1 ms".to_string()
    } else {
        units::duration_ms(d.elapsed_ms as f64)
    };
    Some(format!(
        "searched {} in {took}{}{}",
        units::counted(d.directories_listed, "folder", "folders"),
        if d.complete {
            String::new()
        } else {
            format!(
                ", stopped by its budget ({}): some repositories may be missing",
                units::duration_ms(d.budget_ms as f64)
            )
        },
        if d.symlinks_skipped > 0 {
            format!(
                ", {} not followed",
                units::counted(d.symlinks_skipped, "symlink", "symlinks")
            )
        } else {
            String::new()
        }
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_keep_their_end() {
        assert_eq!(shorten("group/deep/app", 8), "…eep/app");
        assert_eq!(shorten("app", 8), "app");
    }
}
