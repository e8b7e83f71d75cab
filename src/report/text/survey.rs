//! `survey`'s table as every format shows it: the cells of a row, the headers, the summary line
//! and the notes on what was not judged or not read. The human, markdown and GitHub renderings
//! lay these out.

use crate::assess::survey::{RepositoryReport, SurveyReport};
use crate::base::units;
use crate::measure::discover::NestedKind;
use crate::model::Compared;

/// A repository's path as the table shows it: relative to the surveyed folder.
pub fn shown(report: &SurveyReport, repository: &RepositoryReport) -> String {
    match repository.path.strip_prefix(&report.dir) {
        Ok(rel) if rel.as_os_str().is_empty() => ".".to_string(),
        Ok(rel) => crate::base::pathtext::display(rel),
        Err(_) => crate::base::pathtext::display(&repository.path),
    }
}

/// What a repository inside another one is, in the words the table's note uses.
pub fn nested_kind(kind: NestedKind) -> &'static str {
    match kind {
        NestedKind::Submodule => "submodule",
        NestedKind::Repository => "repository",
    }
}

pub fn here(c: Option<&Compared>) -> String {
    c.map_or("-".to_string(), |c| {
        format!("~{}", units::duration_ms(c.current))
    })
}

pub fn there(c: Option<&Compared>) -> String {
    c.and_then(|c| c.baseline)
        .map_or("-".to_string(), |ms| format!("~{}", units::duration_ms(ms)))
}

/// The cells of one row, uncoloured, in column order (the verdict last).
pub fn cells(report: &SurveyReport, repository: &RepositoryReport) -> [String; 8] {
    let predict = repository.predict.as_ref();
    let status = predict.map(|p| &p.git_status_ms);
    let install = predict.and_then(|p| p.install_ms.as_ref());
    let tracked = repository
        .scan
        .tracked
        .map_or("-".to_string(), units::count);
    [
        shown(report, repository),
        tracked,
        size(repository),
        here(status),
        there(status),
        here(install),
        there(install),
        repository.verdict.level.as_str().to_string(),
    ]
}

/// The repository's size, `~` before it when a budget stopped its scan (it is then an estimate).
fn size(repository: &RepositoryReport) -> String {
    let bytes = units::bytes(repository.scan.totals.bytes);
    if repository.scan.complete {
        bytes
    } else {
        format!("~{bytes}")
    }
}

/// How many scans a budget stopped, and what that means for the table.
pub fn stopped_note(report: &SurveyReport) -> Option<String> {
    let scans = &report.scans;
    (scans.stopped > 0).then(|| {
        format!(
            "{} stopped by the budget ({} for the whole survey, --budget-ms): \
             sizes marked ~ are estimates",
            units::counted(scans.stopped as u64, "scan", "scans"),
            units::duration_ms(scans.budget_ms as f64)
        )
    })
}

pub const HEADERS: [&str; 8] = [
    "repository",
    "tracked",
    "size",
    "git status here",
    "git status Linux",
    "install here",
    "install Linux",
    "verdict",
];

/// One line per repository that was found and not judged, with why.
pub fn not_judged_lines(report: &SurveyReport) -> Vec<String> {
    report
        .not_judged
        .iter()
        .map(|n| {
            format!(
                "not judged: {}: {}",
                crate::base::pathtext::display(&n.path),
                crate::base::pathtext::display_text(&n.why)
            )
        })
        .collect()
}

/// Folders the search could not list hide whatever repositories are below them.
pub fn unreadable_note(discovery: &crate::measure::discover::Discovery) -> Option<String> {
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
pub fn summary_line(report: &SurveyReport) -> String {
    let summary = &report.summary;
    let n = summary.repositories;
    let plural = if n == 1 { "repository" } else { "repositories" };
    if n == 0 && !report.not_judged.is_empty() {
        return "No git repositories judged below this folder.".to_string();
    }
    if n == 0 && !report.discovery.complete {
        // It did not look everywhere: "none" would be a guess.
        return format!(
            "The search for repositories stopped at its budget ({}) before it found any; \
             give it more with --search-budget-ms (default 5000).",
            units::duration_ms(report.discovery.budget_ms as f64)
        );
    }
    if n == 0 {
        return "No git repositories below this folder.".to_string();
    }
    let n = units::count(n as u64);
    if summary.would_gain == 0 {
        // The figure that decided it: even the slowest git status is quick here.
        let slowest = report
            .repositories
            .iter()
            .filter_map(|r| r.predict.as_ref().map(|p| p.git_status_ms.current))
            .fold(None, |most: Option<f64>, ms| {
                Some(most.map_or(ms, |m| m.max(ms)))
            });
        return match slowest {
            Some(ms) => format!(
                "{n} {plural}: all fine where they are (the slowest git status {} here)",
                units::duration_ms(ms)
            ),
            None => format!("{n} {plural}: all fine where they are"),
        };
    }
    let status = match summary.git_status_linux_ms {
        Some(linux) => format!(
            " (git status {} here, {} on the Linux disk, all added up)",
            units::duration_ms(summary.git_status_here_ms),
            units::duration_ms(linux)
        ),
        None => String::new(),
    };
    // The plans' own count (files in whole blocks), so it adds up to what `migrate` asks for.
    format!(
        "{n} {plural}: {} would be faster on the Linux disk{status}; moving them needs {} there, as migrate's plans count it",
        units::count(summary.would_gain as u64),
        units::bytes(summary.bytes_to_move)
    )
}
