//! `--format markdown`: a summary table, e.g. for `$GITHUB_STEP_SUMMARY`.

pub mod migrate;
pub mod probe;
pub mod survey;

use crate::assess::pipeline::CheckReport;
use crate::base::units;
use crate::decide::policy::{Level, Rule, Verdict};
use crate::model::{Compared, Prediction};
use std::fmt::Write;

/// Plain text for a table cell or a line: `|` and backticks escaped (a name in a sentence
/// cannot open a code span), lines joined, and `<`, `>`, `&` as entities, so a name like
/// `<img src=x>` stays text instead of becoming live HTML.
pub(crate) fn cell(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('`', "\\`")
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('|', "\\|")
        .replace('\n', " ")
}

/// One of the tool's own sentences, whose `...` spans are code: rendered as code spans, the
/// rest as [`cell`] text (so the markdown never shows an escaped backtick). Unpaired
/// backticks (a path's) leave the whole sentence to `cell`.
pub(crate) fn prose(text: &str) -> String {
    let parts: Vec<&str> = text.split('`').collect();
    if parts.len().is_multiple_of(2) {
        return cell(text);
    }
    parts
        .iter()
        .enumerate()
        .map(|(i, part)| match i % 2 {
            0 => cell(part),
            _ => code(part),
        })
        .collect()
}

/// `text` as an inline code span nothing in it can end: fenced with one backtick more than
/// its longest run of them, padded with a space where it starts or ends with one (CommonMark),
/// `|` escaped for a table cell and lines joined. HTML inside a code span is shown, not run.
pub(crate) fn code(text: &str) -> String {
    let text = text.replace('|', "\\|").replace('\n', " ");
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{text}{pad}{fence}")
}

/// What was seen is no estimate when there was nothing to extrapolate from.
fn files_cell(scan: &crate::measure::scan::ScanReport) -> String {
    if scan.totals_unknown {
        format!(
            "unknown ({} seen before the scan budget ran out)",
            units::count(scan.counted.files)
        )
    } else if scan.complete {
        units::count(scan.totals.files)
    } else {
        format!("{} (estimate)", units::count(scan.totals.files))
    }
}

/// The predictions' table; git status and the install as the verdict weighed them, as "why"
/// gives them.
fn predictions(out: &mut String, predict: &Prediction, verdict: &Verdict) {
    let _ = writeln!(
        out,
        "\n| predicted | here | Linux disk | speedup |\n|---|---|---|---|"
    );
    // "git status (the median of the last 3 checks here)" where it is one.
    let weighed = |what: &str, rule, c: &Compared| {
        let (c, checks) = verdict.shown(rule, c);
        let note = crate::report::text::median_note(checks);
        match note.strip_prefix("; ") {
            Some(note) => (format!("{what} ({note})"), c),
            None => (what.to_string(), c),
        }
    };
    let (status_row, status) = weighed("git status", Rule::GitStatus, &predict.git_status_ms);
    let install = predict
        .install_ms
        .as_ref()
        .map(|c| weighed("dependency install", Rule::Install, c));
    let install_row = install.as_ref().map_or("", |(row, _)| row.as_str());
    let rows = [
        (status_row.as_str(), Some(&status)),
        (
            "first git status after a copy",
            Some(&predict.first_git_status_ms),
        ),
        (install_row, install.as_ref().map(|(_, c)| c)),
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

pub fn check(report: &CheckReport) -> String {
    let mut out = String::new();
    let verdict = &report.verdict;
    let icon = match verdict.level {
        Level::Ok => "✅",
        Level::Advise => "⚠️",
        Level::Moved => "📦",
        Level::Move => "🛑",
    };
    let _ = writeln!(out, "### wsl-place: {icon} {}\n", verdict.level.as_str());
    if let Some(line) = super::text::not_a_repository(report) {
        let _ = writeln!(out, "{}\n", prose(&line));
    }
    facts(&mut out, report);
    if let Some(predict) = &report.predict {
        predictions(&mut out, predict, verdict);
    }
    why_and_what_to_do(&mut out, verdict);
    out
}

/// The table's first rows: where the repository is, on what mount, and what it holds.
fn facts(out: &mut String, report: &CheckReport) {
    let location = &report.location;
    let _ = writeln!(out, "| | |\n|---|---|");
    let _ = writeln!(
        out,
        "| path | {} |",
        code(&crate::base::pathtext::display(&location.paths.linux))
    );
    let _ = writeln!(
        out,
        "| mount | {} ({} on {}) |",
        location.mount.kind,
        cell(&location.mount.fstype),
        code(&crate::base::pathtext::display(&location.mount.mount_point))
    );
    if let Some(windows) = &location.paths.windows {
        let _ = writeln!(
            out,
            "| windows path | {} |",
            code(&crate::base::pathtext::display_text(windows))
        );
    }
    let scan = &report.scan;
    let _ = writeln!(out, "| files | {} |", files_cell(scan));
    let _ = writeln!(out, "| size | {} |", units::bytes(scan.totals.bytes));
    if let Some(tracked) = scan.tracked {
        let _ = writeln!(out, "| tracked by git | {} |", units::count(tracked));
    }
}

/// The verdict's reasons, then the advice with its commands.
fn why_and_what_to_do(out: &mut String, verdict: &Verdict) {
    if !verdict.reasons.is_empty() {
        let _ = writeln!(out, "\n**Why**\n");
        for reason in &verdict.reasons {
            let _ = writeln!(
                out,
                "- {}: {}",
                reason.level.as_str(),
                prose(&reason.message.sentence())
            );
        }
    }
    if !verdict.advice.is_empty() {
        let _ = writeln!(out, "\n**What to do**\n");
        for advice in &verdict.advice {
            match &advice.command {
                Some(command) => {
                    // "Work in the copy.: cd ..." reads as a typo: the colon ends the sentence.
                    let lead = advice.message.sentence().trim_end_matches('.').to_string();
                    let _ = writeln!(out, "- {}: {}", prose(&lead), code(command));
                }
                None => {
                    let _ = writeln!(out, "- {}", prose(&advice.message.sentence()));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_spans_and_cells_cannot_be_broken_out_of() {
        assert_eq!(code("plain"), "`plain`");
        assert_eq!(code("back`tick<b>"), "``back`tick<b>``");
        assert_eq!(code("`x``"), "``` `x`` ```");
        assert_eq!(code("a|b"), "`a\\|b`");
        assert_eq!(cell("<b>x</b> & |"), "&lt;b&gt;x&lt;/b&gt; &amp; \\|");
        assert_eq!(cell("a`b\\"), "a\\`b\\\\");
    }

    #[test]
    fn the_tools_own_code_spans_render_as_code() {
        assert_eq!(
            prose("move it, verified, with `wsl-place migrate` <now>"),
            "move it, verified, with `wsl-place migrate` &lt;now&gt;"
        );
        // A lone backtick (a path's) is escaped, never opens a span.
        assert_eq!(prose("in /a`b"), "in /a\\`b");
    }
}
