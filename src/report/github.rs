//! `--format github`: workflow commands that GitHub Actions shows as annotations.

use crate::assess::pipeline::CheckReport;
use crate::assess::survey::SurveyReport;
use crate::decide::policy::Level;
use crate::measure::probe::ProbeReport;
use crate::migrate::{MigrationReport, PlanDocument};
use crate::report::text::migrate::{content, space};
use crate::report::text::probe::{lines, summary, title as title_of};
use crate::report::text::survey::summary_line;
use std::fmt::Write;

/// GitHub's escaping for workflow command data.
pub(super) fn escape_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Property values additionally escape `:` and `,`.
fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

pub fn check(report: &CheckReport) -> String {
    let mut out = String::new();
    let verdict = &report.verdict;
    let path = report.location.paths.linux.display().to_string();
    let command = match verdict.level {
        Level::Ok => "notice",
        Level::Advise | Level::Moved | Level::Move => "warning",
    };
    let title = escape_property(&format!("wsl-place: {}", verdict.level.as_str()));
    if verdict.level == Level::Ok {
        let _ = writeln!(
            out,
            "::notice title={title}::{}",
            escape_data(&format!(
                "{path} is on {} ({}): fine where it is",
                report.location.mount.kind, report.location.mount.fstype
            ))
        );
        return out;
    }
    for reason in verdict.reasons.iter().filter(|r| r.level > Level::Ok) {
        let _ = writeln!(
            out,
            "::{command} title={title}::{}",
            escape_data(&format!("{path}: {}", reason.message.sentence()))
        );
    }
    // Every piece of advice, not only the first: each is a separate thing to do.
    for advice in &verdict.advice {
        let text = match &advice.command {
            Some(command) => format!(
                "{}: {command}",
                advice.message.sentence().trim_end_matches('.')
            ),
            None => advice.message.sentence(),
        };
        let _ = writeln!(out, "::notice title={title}::{}", escape_data(&text));
    }
    out
}

/// One annotation per repository that would gain, then the summary as a notice.
pub fn survey(report: &SurveyReport) -> String {
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
            .map_or(String::new(), |r| format!(": {}", r.message.sentence()));
        let _ = writeln!(
            out,
            "::warning title=wsl-place survey%3A {}::{}",
            repository.verdict.level.as_str(),
            escape_data(&format!(
                "{}{why}",
                crate::base::pathtext::display(&repository.path)
            ))
        );
    }
    for n in &report.not_judged {
        let _ = writeln!(
            out,
            "::warning title=wsl-place survey%3A not judged::{}",
            escape_data(&format!(
                "{}: {}",
                crate::base::pathtext::display(&n.path),
                n.why
            ))
        );
    }
    let _ = writeln!(
        out,
        "::notice title=wsl-place survey::{}",
        escape_data(&summary_line(report))
    );
    out
}

/// The probe's figures as one notice: the mount and the medians of its operations.
pub fn probe(report: &ProbeReport) -> String {
    let title = escape_property(&format!("wsl-place probe: {}", report.fstype));
    let text = match lines(report) {
        Some(lines) => {
            let medians: Vec<String> = lines
                .iter()
                .map(|l| format!("{} {}", l.name, l.median))
                .collect();
            format!(
                "{}: {}; {}",
                title_of(report),
                medians.join(", "),
                summary(report)
            )
        }
        None => format!(
            "{}: nothing was measured: {}",
            title_of(report),
            report.skipped.as_ref().map_or_else(
                || "no reason given".to_string(),
                crate::base::reason::Worded::sentence
            )
        ),
    };
    format!("::notice title={title}::{}\n", escape_data(&text))
}

/// A migration's plan (`--dry-run`) as one notice.
pub fn plan(plan: &PlanDocument) -> String {
    format!(
        "::notice title=wsl-place migrate%3A plan::{}\n",
        escape_data(&format!(
            "{} -> {}: {}; {}",
            plan.source.display(),
            plan.destination.display(),
            content(plan.totals),
            space(plan).0
        ))
    )
}

/// A finished migration as a notice, and a warning for each thing a person must look at.
pub fn migration(report: &MigrationReport) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "::notice title=wsl-place migrate::{}",
        escape_data(&format!(
            "{} -> {}: {} copied and verified (CRC32)",
            report.source.display(),
            report.destination.display(),
            content(report.totals)
        ))
    );
    let problems = report
        .not_copied
        .iter()
        .map(|p| format!("not copied: {}: {}", p.path, p.error));
    let advice = report.fixups.advice.iter().map(ToString::to_string);
    let still = report.still_points_to_old_place.iter().map(|hit| {
        format!(
            "{}:{} still names the old place ({}); change it to {}",
            hit.file, hit.line, hit.old, hit.change_to
        )
    });
    let kept = report
        .removal
        .iter()
        .flat_map(|r| r.kept.iter().map(|k| format!("kept in the source: {k}")));
    for text in problems.chain(advice).chain(still).chain(kept) {
        let _ = writeln!(
            out,
            "::warning title=wsl-place migrate::{}",
            escape_data(&text)
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_workflow_command_data() {
        assert_eq!(escape_data("50% done\nnext"), "50%25 done%0Anext");
        assert_eq!(escape_property("a: b, c"), "a%3A b%2C c");
    }
}
