//! The verdict section of the human report.

use super::Style;
use crate::advice::AdviceId;
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
    // On WSL 1 the Linux disk is NTFS as well: the advice is WSL 2, and the headline says so.
    let wsl1 = verdict
        .advice
        .first()
        .is_some_and(|a| a.id == AdviceId::Wsl2);
    let folder = verdict
        .advice
        .first()
        .is_some_and(|a| a.id == AdviceId::Survey);
    let headline = match verdict.level {
        _ if folder => "this folder holds repositories: judge each with `wsl-place survey`",
        Level::Ok => "this repository is fine where it is",
        Level::Advise if wsl1 => "this repository would be faster on WSL 2",
        Level::Move if wsl1 => "this repository is slow here; WSL 2 is the fix",
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
