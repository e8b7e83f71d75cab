//! The hook's one line: the verdict, the figures that decided it and the next step, short
//! enough to stay one line in a hook's output (at most `LINE_BUDGET` characters beside the
//! repository's path).

use crate::assess::pipeline::CheckReport;
use crate::base::pathtext;
use crate::base::units;
use crate::decide::policy::{Level, Rule, Verdict};
use std::path::Path;

/// The most characters a line takes besides the repository's path: pre-commit prints a hook's
/// output at the terminal's width, and 110 columns are common.
pub const LINE_BUDGET: usize = 100;

/// Characters of `line` once the path's text (as a command shows it) is left out.
pub fn chars_beside_path(line: &str, path: &Path) -> usize {
    let shown = pathtext::shell_quote(path);
    let plain = pathtext::display(path);
    let total = line.chars().count();
    if line.contains(shown.as_str()) {
        total - shown.chars().count()
    } else if line.contains(plain.as_str()) {
        total - plain.chars().count()
    } else {
        total
    }
}

/// "git status 1.5 s here, 2.6 ms on the Linux disk; median of 3 checks", from the figures
/// the verdict weighed for `rule`; `median` false leaves the median's note out (a shorter
/// wording with the same words: the hook, the nudge and `check` name a place one way).
fn figures(verdict: &Verdict, rule: Rule, median: bool) -> Option<String> {
    let what = match rule {
        Rule::GitStatus => "git status",
        Rule::Install => "install",
        _ => return None,
    };
    let ([here, there], checks) = verdict.weighed(rule)?;
    let mut text = format!(
        "{what} {} here, {} on the Linux disk",
        units::duration_ms(here),
        units::duration_ms(there)
    );
    if median && checks >= crate::decide::policy::MEDIAN_FROM_CHECKS {
        text.push_str(&format!("; median of {checks} checks"));
    }
    Some(text)
}

/// The reason that decided the verdict: at its level, `git status` first (what `check`'s
/// first line leads with), else the last one given.
fn deciding(verdict: &Verdict) -> Option<&crate::decide::policy::Reason> {
    let at_level = || verdict.reasons.iter().filter(|r| r.level == verdict.level);
    at_level()
        .find(|r| r.rule == Rule::GitStatus)
        .or_else(|| at_level().next_back())
}

/// The figures that decided the verdict, as the hook's line and `check`'s last lines give
/// them: "git status 1.5 s here, 2.6 ms on the Linux disk"; None where no figure did.
pub fn deciding_figures(verdict: &Verdict) -> Option<String> {
    figures(verdict, deciding(verdict)?.rule, true)
}

/// `wsl-place: LEVEL (WHY): NEXT`, with WHY cut to keep the line within `LINE_BUDGET`
/// characters beside `path`.
pub fn compose(level: Level, why: &[String], next: Option<&str>, path: &Path) -> String {
    let tail = next.map(|n| format!(": {n}")).unwrap_or_default();
    let build = |why: &str| format!("wsl-place: {} ({why}){tail}", level.as_str());
    // The first wording that fits wins; the last one is cut to fit.
    for candidate in why {
        let line = build(candidate);
        if chars_beside_path(&line, path) <= LINE_BUDGET {
            return line;
        }
    }
    let last = why.last().map(String::as_str).unwrap_or_default();
    let spare = LINE_BUDGET.saturating_sub(chars_beside_path(&build(""), path));
    let cut: String = if last.chars().count() > spare {
        // Cut between words, never inside a figure ("git status 1...." reads as a number).
        let room: String = last.chars().take(spare.saturating_sub(3)).collect();
        let whole = match last[room.len()..].starts_with(' ') {
            true => room.as_str(),
            false => room.rsplit_once(' ').map_or("", |(kept, _)| kept),
        };
        let mut cut = whole.trim_end_matches([' ', ',', ';', ':']).to_string();
        cut.push_str("...");
        cut
    } else {
        last.to_string()
    };
    build(&cut)
}

/// The line a hook prints for a check: empty when the verdict is `ok`; a provisional answer
/// (the hook's short first look) says so.
pub fn for_report(report: &CheckReport) -> String {
    let verdict = &report.verdict;
    if verdict.level == Level::Ok {
        return String::new();
    }
    let reason = deciding(verdict);
    let first_look = if verdict.provisional {
        "first look: "
    } else {
        ""
    };
    let why: Vec<String> = match reason {
        Some(r) => match (
            figures(verdict, r.rule, true),
            figures(verdict, r.rule, false),
        ) {
            (Some(long), Some(short)) => vec![
                format!("{first_look}{long}"),
                format!("{first_look}{short}"),
            ],
            _ => vec![format!("{first_look}{}", r.message.sentence())],
        },
        None => vec![format!("{first_look}the repository is on a slow mount")],
    };
    let next = verdict.advice.first().and_then(|a| a.command.as_deref());
    compose(verdict.level, &why, next, &report.location.paths.linux)
}

/// The line of a provisional answer that did not block a commit under `--fail-on threshold`:
/// what it said, that it did not block and why, and how to get the full measurement.
pub fn not_blocking(level: Level, lowest: Level, path: &Path) -> String {
    let next = format!("wsl-place check {}", pathtext::shell_quote(path));
    compose(
        level,
        &[format!(
            "did not block: a first look, its range reaches down to {}",
            lowest.as_str()
        )],
        Some(&next),
        path,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_reason_is_cut_to_the_budget_beside_a_long_path() {
        let path = Path::new("/mnt/c/Users/somebody/with/a/rather/long/path/to/the/repository");
        let why = ["xx ".repeat(100)];
        let next = format!("wsl-place migrate {}", path.display());
        let line = compose(Level::Move, &why, Some(&next), path);
        assert!(chars_beside_path(&line, path) <= LINE_BUDGET, "{line}");
        assert!(chars_beside_path(&line, path) >= LINE_BUDGET - 3, "{line}");
        // Words are cut whole: no figure loses its last digits.
        let why =
            ["git status 1.5 s here, 2.6 ms on the Linux disk; median of 3 checks ".repeat(3)];
        let line = compose(Level::Move, &why, Some(&next), path);
        assert!(chars_beside_path(&line, path) <= LINE_BUDGET, "{line}");
        let kept = line
            .split(" (")
            .nth(1)
            .unwrap()
            .split("...")
            .next()
            .unwrap();
        assert!(
            why[0].starts_with(kept) && why[0][kept.len()..].starts_with(' '),
            "{line}"
        );
        assert!(line.ends_with(&next), "{line}");
        // The first wording that fits is taken.
        let line = compose(
            Level::Advise,
            &["y".repeat(200), "short".into()],
            None,
            path,
        );
        assert_eq!(line, "wsl-place: advise (short)");
    }

    #[test]
    fn a_provisional_line_that_did_not_block_says_why() {
        let path = Path::new("/mnt/c/src/app");
        let line = not_blocking(Level::Move, Level::Advise, path);
        assert_eq!(
            line,
            "wsl-place: move (did not block: a first look, its range reaches down to advise): wsl-place check /mnt/c/src/app"
        );
        assert!(chars_beside_path(&line, path) <= LINE_BUDGET);
    }
}
