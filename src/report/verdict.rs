//! The verdict section of the human report.

use super::Style;
use crate::policy::{Level, Verdict};
use std::fmt::Write;

pub fn level_label(level: Level, style: &Style) -> String {
    match level {
        Level::Ok => style.good("ok"),
        Level::Advise => style.warn("advise"),
        Level::Move => style.bad("move"),
    }
}

pub fn human(out: &mut String, verdict: &Verdict, style: &Style) {
    let headline = match verdict.level {
        Level::Ok => "this repository is fine where it is",
        Level::Advise => "this repository would be faster on the Linux disk",
        Level::Move => "move this repository to the Linux disk",
    };
    let _ = writeln!(
        out,
        "\nverdict: {}: {headline}",
        level_label(verdict.level, style)
    );
    for reason in &verdict.reasons {
        let _ = writeln!(out, "  - {}", reason.message);
    }
    if !verdict.advice.is_empty() {
        let _ = writeln!(out, "\nwhat to do:");
        for advice in &verdict.advice {
            let _ = writeln!(out, "  - {}", advice.message);
            if let Some(command) = &advice.command {
                let _ = writeln!(out, "      {}", style.bold(command));
            }
        }
    }
}
