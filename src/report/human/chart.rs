//! The comparison that is the point of `check`, drawn: "here" against "Linux disk" for
//! `git status` and the dependency install, bars scaled to the terminal's width.

use super::timing::approx;
use super::{INDENT, KEY_WIDTH, Screen, Tone, columns};
use crate::decide::policy::{Rule, Verdict};
use crate::model::{Compared, Prediction};

const HERE: &str = "here";
const LINUX: &str = "Linux disk";
/// The label column: "Linux disk" and two spaces.
const LABEL_WIDTH: usize = 12;
/// Eighths of a cell, for bars that end between two columns.
const PARTIAL: [char; 8] = [' ', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];
/// A bar area narrower than this says nothing; the chart is left out.
const MIN_BAR: usize = 8;

/// The chart, with a blank line after it; nothing when there is no baseline to compare with.
/// It draws the figures the verdict weighed, and says when they are medians of several checks.
pub fn comparison(screen: &mut Screen, predict: &Prediction, verdict: &Verdict) {
    let mut pairs = vec![verdict.shown(Rule::GitStatus, &predict.git_status_ms)];
    if let Some(install) = &predict.install_ms {
        pairs.push(verdict.shown(Rule::Install, install));
    }
    let checks = pairs.iter().map(|(_, n)| *n).max().unwrap_or(1);
    let pairs: Vec<(&str, f64, f64)> = ["git status", "install"]
        .into_iter()
        .zip(pairs)
        .filter_map(|(key, (c, _)): (&str, (Compared, usize))| {
            c.baseline.map(|b| (key, c.current, b))
        })
        .filter(|(_, here, linux)| here.is_finite() && linux.is_finite())
        .collect();
    if pairs.is_empty() {
        return;
    }
    let values: Vec<String> = pairs
        .iter()
        .flat_map(|(_, here, linux)| [approx(*here), approx(*linux)])
        .collect();
    let value_width = values.iter().map(|v| columns(v)).max().unwrap_or(0);
    // Unwrapped (not a terminal), the bars keep a terminal's length.
    let width = match screen.style().width {
        w if w >= crate::host::terminal::UNWRAPPED => crate::host::terminal::DEFAULT_WIDTH,
        w => w,
    };
    let area = width.saturating_sub(INDENT + KEY_WIDTH + LABEL_WIDTH + 1 + value_width);
    if area < MIN_BAR {
        return;
    }
    for (key, here, linux) in pairs {
        let longest = here.max(linux);
        let rows = [
            (key, HERE, here, Tone::Warn),
            ("", LINUX, linux, Tone::Good),
        ];
        for (key, label, value, tone) in rows {
            let bar = bar(value, longest, area);
            let line = format!(
                "{:INDENT$}{key:<KEY_WIDTH$}{label:<LABEL_WIDTH$}{} {}",
                "",
                screen.style().paint_tone(tone, &bar),
                approx(value)
            );
            screen.raw(&line);
        }
    }
    if checks >= 2 {
        screen.raw(&format!(
            "{:INDENT$}{:KEY_WIDTH$}{}",
            "",
            "",
            crate::report::text::median_note(checks).trim_start_matches("; ")
        ));
    }
    screen.blank();
}

/// `value` as a bar of up to `area` cells, where `longest` fills them all; anything above zero
/// shows at least a sliver.
fn bar(value: f64, longest: f64, area: usize) -> String {
    if longest <= 0.0 || value <= 0.0 {
        return String::new();
    }
    let eighths = ((value / longest) * (area * 8) as f64).round().max(1.0) as usize;
    let mut bar = "█".repeat(eighths / 8);
    if !eighths.is_multiple_of(8) {
        bar.push(PARTIAL[eighths % 8]);
    }
    bar
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_scale_to_the_area_and_never_vanish() {
        assert_eq!(bar(100.0, 100.0, 10), "██████████");
        assert_eq!(bar(50.0, 100.0, 10), "█████");
        assert_eq!(bar(0.01, 100.0, 10), "▏");
        assert_eq!(bar(0.0, 100.0, 10), "");
        assert_eq!(bar(1.0, 8.0, 1), "▏");
    }
}
